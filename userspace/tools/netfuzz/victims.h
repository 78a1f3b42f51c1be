// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * victims.h - the QPs sroce-netfuzz owns: an RC, a UC and a UD pair
 * between device A and device B, each QP with a registered buffer open to
 * remote READ, WRITE and atomics.  They carry traffic of their own (SENDs,
 * WRITEs, READs, atomics, datagrams) so that the capture learns their
 * PSNs and keys, and they take the stateful datagrams: a pair that breaks
 * (a completion in error) is drained, reset and connected again, and
 * counted.  Their data is not checked: the verified traffic is another
 * process's (tests/netfuzz.sh).
 */
#ifndef SROCE_TOOLS_NETFUZZ_VICTIMS_H
#define SROCE_TOOLS_NETFUZZ_VICTIMS_H

#include <cstdint>
#include <memory>
#include <vector>

#include "mutate.h"
#include "qp_pair.h"

namespace netfuzz {

class victims {
public:
	/* The pairs between a and b; false, reported, when they fail. */
	bool make(verbs_util::device &a, verbs_util::device &b);

	/*
	 * QPNs, rkeys, addresses and the Q_Key into c (side 0: a), and the
	 * QPNs of QPs created and destroyed on each device.
	 */
	void describe(config &c) const;

	/*
	 * Posts what fits in the queues, reaps completions, mends broken
	 * pairs; false, reported, when a verb fails unexpectedly.
	 */
	bool pump();

	unsigned long completed() const { return ok_; }
	unsigned long errors() const { return errors_; }
	unsigned long reconnects() const { return reconnects_; }

private:
	struct pair {
		verbs_util::endpoint a, b;
		int out_a = 0, out_b = 0; /* sends outstanding */
		int rq_a = 0, rq_b = 0; /* receives posted */
		bool broken = false;
		std::uint32_t n = 0; /* operations posted */
	};

	bool pump_connected(pair &p);
	bool pump_ud();
	bool reap(pair &p);
	bool top_up(verbs_util::endpoint &e, int &posted);
	bool mend(pair &p);
	/* The numbers of 16 QPs created on e's device and destroyed. */
	bool bury(const verbs_util::endpoint &e,
		  std::vector<std::uint32_t> &qpns);

	std::unique_ptr<pair> rc_, uc_, ud_;
	verbs_util::ah_ptr ah_ab_, ah_ba_;
	std::vector<std::uint32_t> dead_[sides];
	unsigned long ok_ = 0, errors_ = 0, reconnects_ = 0;
};

} /* namespace netfuzz */

#endif /* SROCE_TOOLS_NETFUZZ_VICTIMS_H */
