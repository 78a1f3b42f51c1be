// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * udata.h - sroce-procfuzz's uverbs commands with a driver-specific part
 * of its own making: GET_CONTEXT (on a second open of the device),
 * ALLOC_PD, REG_MR, CREATE_CQ, RESIZE_CQ, CREATE_SRQ, CREATE_QP, MODIFY_QP
 * and CREATE_AH written by hand (legacy write() commands), each with valid
 * core fields and a driver tail ("udata") of random length and contents,
 * or of the right length with a field or a reserved word wrong, and a
 * response buffer of random length.  Whatever the kernel accepts is
 * destroyed again by hand; whatever it refuses is refused with an error,
 * never a crash, a hang or a leak (tests/procfuzz.sh unloads sroce after).
 */
#ifndef SROCE_TOOLS_PROCFUZZ_UDATA_H
#define SROCE_TOOLS_PROCFUZZ_UDATA_H

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "verbs_util.h"

namespace procfuzz {

class udata {
public:
	explicit udata(std::uint64_t seed)
	    : rng_(seed)
	{
	}

	/* The objects the commands need (a PD, a CQ, a QP) on d. */
	bool make(verbs_util::device &d);

	/* One command; false, reported, when something is beyond excuse. */
	bool command();

	/* Commands sent, accepted, by command. */
	const std::map<std::string, unsigned long> &sent() const
	{
		return sent_;
	}
	const std::map<std::string, unsigned long> &accepted() const
	{
		return accepted_;
	}

private:
	std::uint32_t below(std::uint32_t n)
	{
		return n ? static_cast<std::uint32_t>(rng_() % n) : 0;
	}
	std::vector<std::uint8_t> tail(std::size_t right_len);
	/* resp: where core's response field points, resp_len long */
	int send(std::uint32_t cmd, const void *core, std::size_t core_len,
		 const std::vector<std::uint8_t> &tail, void *resp,
		 std::size_t resp_len, int fd = -1);
	void destroy(std::uint32_t cmd, std::uint32_t handle);

	std::mt19937_64 rng_;
	verbs_util::device *dev_ = nullptr;
	verbs_util::pd_ptr pd_;
	verbs_util::cq_ptr cq_;
	verbs_util::qp_ptr qp_;
	std::vector<unsigned char> buf_;
	std::map<std::string, unsigned long> sent_, accepted_;
};

} /* namespace procfuzz */

#endif /* SROCE_TOOLS_PROCFUZZ_UDATA_H */
