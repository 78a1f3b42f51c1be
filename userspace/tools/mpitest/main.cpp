// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-mpitest: MPI over whatever the MPI library picked (tests/ucx.sh runs
 * it under mpirun --mca pml ucx across sroce), every byte checked.
 *
 *   sroce-mpitest pingpong    ranks 0 and 1 (of 2 or more): each size from
 *                             8 B to 4 MiB (x4) sent 0 -> 1 and back, with
 *                             a pattern of the size, the iteration and the
 *                             sender; the echo must come back intact
 *   sroce-mpitest allreduce   every rank: MPI_SUM of a vector of 64 Ki
 *                             doubles, and MPI_MAX, against the values
 *                             computed here
 *   sroce-mpitest timed SIZE ITERS   ranks 0 and 1 (scripts/bench hpc): a
 *                             ping-pong of SIZE bytes, ITERS / 10 round
 *                             trips of warm-up, then ITERS timed ones;
 *                             rank 0 prints "# result: latency X us" (half
 *                             the mean round trip) and "# result:
 *                             bandwidth X MiB/s" (SIZE over that half);
 *                             the last echo is checked as in pingpong
 *
 * Rank 0 prints one line per check, "ok: ..." or "FAIL: ...", then "PASS"
 * or "FAIL" with the number of bad checks; the exit status is 0 only on
 * PASS.  Every rank's errors are counted (MPI_Allreduce of the counts).
 */
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

namespace {

int rank;
int nranks;

std::uint8_t pattern(std::size_t i, int size_log, int iter, int from)
{
	return static_cast<std::uint8_t>(i * 7 + size_log * 13 + iter * 29 +
					 from * 101);
}

/* The number of bad checks of this rank. */
int pingpong()
{
	constexpr int iters = 3;
	constexpr std::size_t max_size = std::size_t{4} << 20;
	std::vector<std::uint8_t> buf(max_size);
	int bad = 0;

	if (nranks < 2) {
		if (rank == 0)
			std::printf("FAIL: pingpong needs 2 ranks, has %d\n",
				    nranks);
		return 1;
	}
	if (rank > 1)
		return 0;
	int size_log = 3;
	for (std::size_t size = 8; size <= max_size; size *= 4, size_log += 2) {
		int size_bad = 0;

		for (int it = 0; it < iters; ++it) {
			if (rank == 0) {
				for (std::size_t i = 0; i < size; ++i)
					buf[i] = pattern(i, size_log, it, 0);
				MPI_Send(buf.data(), static_cast<int>(size),
					 MPI_BYTE, 1, it, MPI_COMM_WORLD);
				std::memset(buf.data(), 0, size);
				MPI_Status st;
				MPI_Recv(buf.data(), static_cast<int>(size),
					 MPI_BYTE, 1, it, MPI_COMM_WORLD, &st);
				int got = 0;
				MPI_Get_count(&st, MPI_BYTE, &got);
				if (got != static_cast<int>(size))
					++size_bad;
				for (std::size_t i = 0; i < size; ++i) {
					if (buf[i] !=
					    pattern(i, size_log, it, 1)) {
						++size_bad;
						break;
					}
				}
			} else {
				MPI_Status st;
				MPI_Recv(buf.data(), static_cast<int>(size),
					 MPI_BYTE, 0, it, MPI_COMM_WORLD, &st);
				bool ok = true;
				for (std::size_t i = 0; i < size; ++i) {
					if (buf[i] !=
					    pattern(i, size_log, it, 0)) {
						ok = false;
						break;
					}
				}
				if (!ok) {
					std::printf("FAIL: rank 1: %zu bytes, "
						    "iteration %d: corrupt\n",
						    size, it);
					++size_bad;
				}
				/* Echo with the other sender's pattern. */
				for (std::size_t i = 0; i < size; ++i)
					buf[i] = pattern(i, size_log, it, 1);
				MPI_Send(buf.data(), static_cast<int>(size),
					 MPI_BYTE, 0, it, MPI_COMM_WORLD);
			}
		}
		if (rank == 0)
			std::printf("%s: pingpong %zu bytes x %d\n",
				    size_bad == 0 ? "ok" : "FAIL", size, iters);
		bad += size_bad;
	}
	return bad;
}

/* A timed ping-pong of size bytes; the number of bad checks of this rank. */
int timed(std::size_t size, int iters)
{
	std::vector<std::uint8_t> buf(size);
	const int n = static_cast<int>(size);
	const int warmup = iters / 10;
	const int peer = 1 - rank;
	double start = 0;

	if (nranks < 2 || size == 0 || size > INT32_MAX || iters < 1) {
		if (rank == 0)
			std::printf("FAIL: timed needs 2 ranks, a size and "
				    "iterations\n");
		return 1;
	}
	if (rank > 1)
		return 0;
	for (std::size_t i = 0; i < size; ++i)
		buf[i] = pattern(i, 0, 0, rank);
	for (int it = 0; it < warmup + iters; ++it) {
		if (it == warmup)
			start = MPI_Wtime();
		if (rank == 0) {
			MPI_Send(buf.data(), n, MPI_BYTE, peer, 0,
				 MPI_COMM_WORLD);
			MPI_Recv(buf.data(), n, MPI_BYTE, peer, 0,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf.data(), n, MPI_BYTE, peer, 0,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (it == warmup + iters - 1) {
				for (std::size_t i = 0; i < size; ++i)
					buf[i] = pattern(i, 0, 0, rank);
			}
			MPI_Send(buf.data(), n, MPI_BYTE, peer, 0,
				 MPI_COMM_WORLD);
		}
	}
	const double half = (MPI_Wtime() - start) / iters / 2;
	if (rank != 0)
		return 0;
	for (std::size_t i = 0; i < size; ++i) {
		if (buf[i] != pattern(i, 0, 0, 1)) {
			std::printf("FAIL: timed: the last echo is corrupt\n");
			return 1;
		}
	}
	std::printf("ok: timed %zu bytes x %d\n", size, iters);
	std::printf("# result: latency %.2f us\n", half * 1e6);
	std::printf("# result: bandwidth %.2f MiB/s\n",
		    static_cast<double>(size) / half / (1 << 20));
	return 0;
}

int allreduce()
{
	constexpr std::size_t n = 64 * 1024;
	std::vector<double> in(n);
	std::vector<double> out(n);
	int bad = 0;

	for (std::size_t i = 0; i < n; ++i)
		in[i] = static_cast<double>((i % 1000) * (rank + 1));
	MPI_Allreduce(in.data(), out.data(), static_cast<int>(n), MPI_DOUBLE,
		      MPI_SUM, MPI_COMM_WORLD);
	/* sum over r of (i % 1000) * (r + 1) = (i % 1000) * N(N+1)/2, exact */
	const double f = nranks * (nranks + 1) / 2.0;
	for (std::size_t i = 0; i < n; ++i) {
		if (out[i] != static_cast<double>(i % 1000) * f) {
			++bad;
			break;
		}
	}
	if (rank == 0)
		std::printf(
			"%s: allreduce MPI_SUM of %zu doubles over %d ranks\n",
			bad == 0 ? "ok" : "FAIL", n, nranks);
	int sum_bad = bad;
	MPI_Allreduce(in.data(), out.data(), static_cast<int>(n), MPI_DOUBLE,
		      MPI_MAX, MPI_COMM_WORLD);
	for (std::size_t i = 0; i < n; ++i) {
		if (out[i] != static_cast<double>((i % 1000) * nranks)) {
			++bad;
			break;
		}
	}
	if (rank == 0)
		std::printf(
			"%s: allreduce MPI_MAX of %zu doubles over %d ranks\n",
			bad == sum_bad ? "ok" : "FAIL", n, nranks);
	return bad;
}

} /* namespace */

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);

	const std::string_view mode = argc > 1 ? argv[1] : "";
	int bad = 0;
	if (mode == "pingpong") {
		bad = pingpong();
	} else if (mode == "allreduce") {
		bad = allreduce();
	} else if (mode == "timed" && argc == 4) {
		bad = timed(std::strtoull(argv[2], nullptr, 0),
			    static_cast<int>(std::strtol(argv[3], nullptr, 0)));
	} else {
		if (rank == 0)
			std::fprintf(stderr,
				     "usage: sroce-mpitest pingpong|allreduce|"
				     "timed SIZE ITERS\n");
		bad = 1;
	}

	int total = 0;
	MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0) {
		if (total == 0)
			std::printf("PASS: %s over %d ranks\n", argv[1],
				    nranks);
		else
			std::printf("FAIL: %d bad checks\n", total);
		std::fflush(stdout);
	}
	MPI_Finalize();
	return total == 0 ? 0 : 1;
}
