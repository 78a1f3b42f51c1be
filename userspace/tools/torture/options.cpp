// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* options.cpp - sroce-torture's command line (options.h). */
#include "options.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <getopt.h>
#include <string_view>
#include <unistd.h>

namespace torture {

namespace {

void usage(const char *argv0)
{
	std::fprintf(
		stderr,
		"usage: %s --dev-a NAME --dev-b NAME [--gid-a N] [--gid-b N]\n"
		"       [--qps N] [--seed S] [--bytes TOTAL] [--ops COUNT]\n"
		"       [--max-size BYTES] [--max-sge N] [--depth N]\n"
		"       [--mix send=W,write=W,write_imm=W,read=W,atomic=W]\n"
		"       [--mtu 256|512|1024|2048|4096] [--timeout T]\n"
		"       [--retry-cnt C] [--rnr-retry R] [--one-way]\n"
		"       [--expect-fail-ok] [--device-loss-ok]\n"
		"       [--deadline SECONDS]\n"
		"       [--progress SECONDS] [--quiet]\n",
		argv0);
}

/* A number with an optional K, M or G (binary) suffix. */
bool parse_num(const char *s, std::uint64_t &out, std::uint64_t max)
{
	char *end = nullptr;

	errno = 0;
	if (*s == '-' || *s == '\0')
		return false;
	std::uint64_t v = std::strtoull(s, &end, 0);
	if (errno != 0 || end == s)
		return false;
	unsigned int shift = 0;
	if (*end == 'k' || *end == 'K')
		shift = 10;
	else if (*end == 'm' || *end == 'M')
		shift = 20;
	else if (*end == 'g' || *end == 'G')
		shift = 30;
	if (shift != 0) {
		++end;
		if (v > (UINT64_MAX >> shift))
			return false;
		v <<= shift;
	}
	if (*end != '\0' || v > max)
		return false;
	out = v;
	return true;
}

bool parse_double(const char *s, double &out)
{
	char *end = nullptr;
	const double v = std::strtod(s, &end);

	if (end == s || *end != '\0' || !(v >= 0))
		return false;
	out = v;
	return true;
}

bool parse_mix(std::string_view s, unsigned int (&w)[families])
{
	static constexpr std::string_view keys[families] = {
		"send", "write", "write_imm", "read", "atomic"};
	unsigned int v[families] = {};

	while (!s.empty()) {
		const std::size_t comma = s.find(',');
		const std::string_view item = s.substr(0, comma);
		const std::size_t eq = item.find('=');
		bool found = false;

		if (eq == std::string_view::npos)
			return false;
		const std::string num(item.substr(eq + 1));
		std::uint64_t n = 0;
		if (!parse_num(num.c_str(), n, 1000000))
			return false;
		for (std::size_t k = 0; k < families; ++k) {
			if (item.substr(0, eq) == keys[k]) {
				v[k] = static_cast<unsigned int>(n);
				found = true;
			}
		}
		if (!found)
			return false;
		s = comma == std::string_view::npos ? std::string_view{}
						    : s.substr(comma + 1);
	}
	if (v[0] + v[1] + v[2] + v[3] + v[4] == 0)
		return false;
	std::copy(std::begin(v), std::end(v), std::begin(w));
	return true;
}

bool parse_mtu(const char *s, ibv_mtu &mtu)
{
	const std::string_view v = s;

	if (v == "256")
		mtu = IBV_MTU_256;
	else if (v == "512")
		mtu = IBV_MTU_512;
	else if (v == "1024")
		mtu = IBV_MTU_1024;
	else if (v == "2048")
		mtu = IBV_MTU_2048;
	else if (v == "4096")
		mtu = IBV_MTU_4096;
	else
		return false;
	return true;
}

enum opt_id : int {
	o_dev_a = 256,
	o_dev_b,
	o_gid_a,
	o_gid_b,
	o_qps,
	o_seed,
	o_bytes,
	o_ops,
	o_max_size,
	o_max_sge,
	o_depth,
	o_mix,
	o_mtu,
	o_timeout,
	o_retry_cnt,
	o_rnr_retry,
	o_one_way,
	o_expect_fail_ok,
	o_device_loss_ok,
	o_deadline,
	o_progress,
	o_quiet,
	o_help,
};

} /* namespace */

int parse_options(int argc, char **argv, options &o)
{
	static const option longopts[] = {
		{"dev-a", required_argument, nullptr, o_dev_a},
		{"dev-b", required_argument, nullptr, o_dev_b},
		{"gid-a", required_argument, nullptr, o_gid_a},
		{"gid-b", required_argument, nullptr, o_gid_b},
		{"qps", required_argument, nullptr, o_qps},
		{"seed", required_argument, nullptr, o_seed},
		{"bytes", required_argument, nullptr, o_bytes},
		{"ops", required_argument, nullptr, o_ops},
		{"max-size", required_argument, nullptr, o_max_size},
		{"max-sge", required_argument, nullptr, o_max_sge},
		{"depth", required_argument, nullptr, o_depth},
		{"mix", required_argument, nullptr, o_mix},
		{"mtu", required_argument, nullptr, o_mtu},
		{"timeout", required_argument, nullptr, o_timeout},
		{"retry-cnt", required_argument, nullptr, o_retry_cnt},
		{"rnr-retry", required_argument, nullptr, o_rnr_retry},
		{"one-way", no_argument, nullptr, o_one_way},
		{"expect-fail-ok", no_argument, nullptr, o_expect_fail_ok},
		{"device-loss-ok", no_argument, nullptr, o_device_loss_ok},
		{"deadline", required_argument, nullptr, o_deadline},
		{"progress", required_argument, nullptr, o_progress},
		{"quiet", no_argument, nullptr, o_quiet},
		{"help", no_argument, nullptr, o_help},
		{nullptr, 0, nullptr, 0},
	};
	int ch = 0;

	while ((ch = getopt_long(argc, argv, "", longopts, nullptr)) != -1) {
		std::uint64_t v = 0;
		bool ok = true;

		switch (ch) {
		case o_dev_a:
			o.dev_a = optarg;
			break;
		case o_dev_b:
			o.dev_b = optarg;
			break;
		case o_gid_a:
		case o_gid_b:
			ok = parse_num(optarg, v, 65535);
			(ch == o_gid_a ? o.gid_a : o.gid_b) =
				static_cast<int>(v);
			break;
		case o_qps:
			ok = parse_num(optarg, v, 4096) && v > 0;
			o.qps = static_cast<unsigned int>(v);
			break;
		case o_seed:
			ok = parse_num(optarg, o.seed, UINT64_MAX);
			o.seed_given = true;
			break;
		case o_bytes:
			ok = parse_num(optarg, o.bytes, UINT64_MAX) &&
			     o.bytes > 0;
			break;
		case o_ops:
			ok = parse_num(optarg, o.ops, UINT64_MAX) && o.ops > 0;
			break;
		case o_max_size:
			ok = parse_num(optarg, v, std::uint64_t{1} << 30U);
			o.max_size = static_cast<std::uint32_t>(v);
			break;
		case o_max_sge:
			ok = parse_num(optarg, v, 1024) && v > 0;
			o.max_sge = static_cast<std::uint32_t>(v);
			break;
		case o_depth:
			ok = parse_num(optarg, v, 65536) && v > 0;
			o.depth = static_cast<std::uint32_t>(v);
			break;
		case o_mix:
			ok = parse_mix(optarg, o.weight);
			break;
		case o_mtu:
			ok = parse_mtu(optarg, o.mtu);
			break;
		case o_timeout:
			ok = parse_num(optarg, v, 31);
			o.timeout = static_cast<unsigned int>(v);
			break;
		case o_retry_cnt:
			ok = parse_num(optarg, v, 7);
			o.retry_cnt = static_cast<unsigned int>(v);
			break;
		case o_rnr_retry:
			ok = parse_num(optarg, v, 7);
			o.rnr_retry = static_cast<unsigned int>(v);
			break;
		case o_one_way:
			o.one_way = true;
			break;
		case o_expect_fail_ok:
			o.expect_fail_ok = true;
			break;
		case o_device_loss_ok:
			/* The survivors' retries run out: a clean failure. */
			o.device_loss_ok = true;
			o.expect_fail_ok = true;
			break;
		case o_deadline:
			ok = parse_double(optarg, o.deadline) && o.deadline > 0;
			break;
		case o_progress:
			ok = parse_double(optarg, o.progress);
			break;
		case o_quiet:
			o.quiet = true;
			break;
		default:
			usage(argv[0]);
			return 2;
		}
		if (!ok) {
			std::fprintf(stderr, "%s: bad value for %s: %s\n",
				     argv[0], argv[optind - 1], optarg);
			return 2;
		}
	}
	if (optind != argc || o.dev_a.empty() || o.dev_b.empty()) {
		usage(argv[0]);
		return 2;
	}
	if (o.ops == 0 && o.bytes == 0)
		o.ops = 10000;
	if (!o.seed_given) {
		const auto t = std::chrono::steady_clock::now()
				       .time_since_epoch()
				       .count();

		o.seed = mix64(static_cast<std::uint64_t>(t) ^
			       static_cast<std::uint64_t>(getpid())) &
			 0xffffffffU;
	}
	return 0;
}

std::string replay_line(int argc, char **argv, const options &o)
{
	std::string s = argv[0];

	for (int i = 1; i < argc; ++i)
		s += std::string(" ") + argv[i];
	if (!o.seed_given)
		s += " --seed " + std::to_string(o.seed);
	return s;
}

} /* namespace torture */
