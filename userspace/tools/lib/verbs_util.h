// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_util.h - what every libibverbs test tool uses: RAII over
 * libibverbs handles, opening a device with its RoCE v2 IPv4 GID, QP
 * states and the attribute masks of their transitions, deadlines, byte
 * patterns, hw counters.  Public libibverbs only.  A failure of a helper
 * here (a destroy call, opening a device) is a failure of the running
 * case (ktap.h).
 *
 * Waits are multiplied by SROCE_TIMEOUT_SCALE (tests/lib.sh).
 */
#ifndef SROCE_TOOLS_VERBS_UTIL_H
#define SROCE_TOOLS_VERBS_UTIL_H

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include <infiniband/verbs.h>

namespace verbs_util {

/* SROCE_TIMEOUT_SCALE, at least 1, and the same read once. */
int timeout_scale();
extern const int scale;

/* As ints: ibv_reg_mr() mixes two enum types in its flags. */
constexpr int acc_lw = IBV_ACCESS_LOCAL_WRITE;
constexpr int acc_rw = IBV_ACCESS_REMOTE_WRITE;
constexpr int acc_rr = IBV_ACCESS_REMOTE_READ;
constexpr int acc_ra = IBV_ACCESS_REMOTE_ATOMIC;

/* ---- RAII over libibverbs handles ---------------------------------------- */

const char *kind(ibv_context *);
const char *kind(ibv_comp_channel *);
const char *kind(ibv_cq *);
const char *kind(ibv_pd *);
const char *kind(ibv_mr *);
const char *kind(ibv_mw *);
const char *kind(ibv_qp *);
const char *kind(ibv_ah *);
const char *kind(ibv_srq *);
const char *kind(ibv_xrcd *);

/* Reports "destroying a KIND: strerror(err)". */
void destroy_failed(const char *kind, int err);

/* A deleter calling a libibverbs destroy function; a failure is reported. */
template <typename T, int (*Destroy)(T *)>
struct destroyer {
	void operator()(T *p) const noexcept
	{
		const int ret = Destroy(p);

		if (ret != 0)
			destroy_failed(kind(p), ret);
	}
};

/* Out of line: ibv_dealloc_mw() and ibv_close_xrcd() are static inline. */
int dealloc_mw(ibv_mw *mw);
int close_xrcd(ibv_xrcd *xrcd);

using context_ptr =
	std::unique_ptr<ibv_context, destroyer<ibv_context, ibv_close_device>>;
using channel_ptr =
	std::unique_ptr<ibv_comp_channel,
			destroyer<ibv_comp_channel, ibv_destroy_comp_channel>>;
using cq_ptr = std::unique_ptr<ibv_cq, destroyer<ibv_cq, ibv_destroy_cq>>;
using pd_ptr = std::unique_ptr<ibv_pd, destroyer<ibv_pd, ibv_dealloc_pd>>;
using mr_ptr = std::unique_ptr<ibv_mr, destroyer<ibv_mr, ibv_dereg_mr>>;
using mw_ptr = std::unique_ptr<ibv_mw, destroyer<ibv_mw, dealloc_mw>>;
using qp_ptr = std::unique_ptr<ibv_qp, destroyer<ibv_qp, ibv_destroy_qp>>;
using ah_ptr = std::unique_ptr<ibv_ah, destroyer<ibv_ah, ibv_destroy_ah>>;
using srq_ptr = std::unique_ptr<ibv_srq, destroyer<ibv_srq, ibv_destroy_srq>>;
using xrcd_ptr = std::unique_ptr<ibv_xrcd, destroyer<ibv_xrcd, close_xrcd>>;

/* ---- devices ------------------------------------------------------------- */

struct device {
	context_ptr ctx;
	std::string name;
	ibv_device_attr attr{};
	ibv_port_attr port{};
	int gid_index = -1;
	ibv_gid gid{};
};

/* The RDMA device called name, opened; nullptr with errno set if not. */
ibv_context *open_context(const char *name);

/* Open name, query it and its port 1.  False, reported, when it fails. */
bool open_device(device &d, const char *name);

/*
 * The index of the first RoCE v2 GID of d's port 1 that holds an IPv4
 * address (ipv4) or not (an IPv6 one), its GID into *gid; -1 if none.
 */
int find_roce_gid(const device &d, bool ipv4, ibv_gid *gid);

/*
 * d's GID for its QPs: gid_index, or with gid_index < 0 the first RoCE v2
 * GID holding an IPv4 address.  False, reported, when there is none.
 */
bool use_gid(device &d, int gid_index = -1);

bool is_v4_mapped(const ibv_gid &gid);
std::string gid_str(const ibv_gid &gid);

/* ---- QPs ------------------------------------------------------------------- */

constexpr int init_mask =
	IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
constexpr int rtr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
constexpr int rts_mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			 IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			 IBV_QP_MAX_QP_RD_ATOMIC;

/* The QP's state; (ibv_qp_state)-1 when ibv_query_qp() fails. */
ibv_qp_state qp_state(ibv_qp *qp);

/* "RESET", "INIT", ... "ERR"; "unknown (query_qp failed)" for -1. */
const char *qp_state_str(ibv_qp_state s);

/* ibv_modify_qp() to s, nothing else. */
int to_state(ibv_qp *qp, ibv_qp_state s);

/*
 * ibv_modify_qp() with attr and mask must fail with want and leave the
 * state alone; what it did is noted.
 */
bool modify_refused(ibv_qp *qp, ibv_qp_attr attr, int mask, const char *what,
		    int want = EINVAL);

/* ibv_modify_qp() from RESET to INIT on port 1 with P_Key index 0. */
int to_init(ibv_qp *qp, int access = IBV_ACCESS_LOCAL_WRITE);

/* The address vector of an RC QP on from towards one on to (RoCE v2). */
ibv_ah_attr roce_av(const device &from, const device &to);

/* ---- deadlines ------------------------------------------------------------- */

using clock_type = std::chrono::steady_clock;

/* Now plus ms, scaled. */
clock_type::time_point deadline_in(int ms);

/* ---- data ------------------------------------------------------------------ */

/* Byte i of message (or seed) msg. */
inline unsigned char pattern(std::uint32_t msg, std::size_t i)
{
	return static_cast<unsigned char>(std::size_t{msg} * 131U + i * 7U +
					  (i >> 8U) + 1U);
}

inline void fill(unsigned char *p, std::size_t len, std::uint32_t msg)
{
	for (std::size_t i = 0; i < len; ++i)
		p[i] = pattern(msg, i);
}

inline std::uint64_t load64(const unsigned char *p)
{
	std::uint64_t v = 0;

	std::memcpy(&v, p, sizeof(v));
	return v;
}

inline void store64(unsigned char *p, std::uint64_t v)
{
	std::memcpy(p, &v, sizeof(v));
}

/*
 * The first byte of p[0..len) that is not byte from + i of message msg's
 * pattern, or -1 when all are.
 */
long mismatch(const unsigned char *p, std::size_t len, std::uint32_t msg,
	      std::size_t from = 0);

/* Where got and want, len bytes each, differ: how often, first, last. */
struct byte_diff {
	std::size_t count = 0;
	std::size_t first = 0;
	std::size_t last = 0;
};

byte_diff diff_bytes(const unsigned char *got, const unsigned char *want,
		     std::size_t len);

/* ---- hw counters ----------------------------------------------------------- */

/* The hw counter name of d's port 1, or -1 when d has none of that name. */
long long hw_counter(const device &d, const char *name);

/* hw_counter() read past the core's cache of 10 ms: no stale "before". */
long long fresh_counter(const device &d, const char *name);

/*
 * The counter name of d moves past before within 2 s (scaled): the core
 * caches hw counters for a few milliseconds, and the receiving device may
 * still be walking a multicast group.  A failure of the case if not; when
 * d has no such counter (before < 0) a failure as well if required, else
 * noted as not checked.
 */
bool counter_moved(const device &d, const char *name, long long before,
		   bool required = true);

} /* namespace verbs_util */

#endif /* SROCE_TOOLS_VERBS_UTIL_H */
