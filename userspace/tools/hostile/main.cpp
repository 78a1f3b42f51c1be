// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * sroce-hostile - one regression test per review finding of issue #16, a
 * hostile peer's forged packets (remote.cpp) and a hostile process's own
 * rings and verbs (local.cpp), and forged atomic writes (issue #17,
 * atomic_write.cpp), as tests/hostile.sh runs them; and
 * dereg-under-traffic (dereg.cpp), finding 4 with the peer's own verbs,
 * which tests/lifecycle.sh runs.
 *
 *   sroce-hostile DEV_A DEV_B CHECK|PREFIX-|all
 *
 * DEV_A and DEV_B are joined by a wire, each with an IPv4 RoCE v2 GID;
 * the forger sends from DEV_A's address (its netdev is in this network
 * namespace).  A name ending in "-" runs every check it begins (f4-).
 * Each check is a KTAP case (ktap.h); the exit status is 0 when every
 * case passed, 1 otherwise, 2 for a usage error.
 */
#include <string>
#include <string_view>
#include <vector>

#include "check_main.h"
#include "hostile.h"
#include "ktap.h"

namespace {

using namespace verbs_util;
using namespace hostile;

constexpr check checks[] = {
	{"f1-replays-fill-resources", f1_replays_fill_resources},
	{"f2-rewound-producer", f2_rewound_producer},
	{"f3-blind-nak", f3_blind_nak},
	{"f4-write-after-dereg", f4_write_after_dereg},
	{"f4-write-after-local-inv", f4_write_after_local_inv},
	{"f4-read-after-dereg", f4_read_after_dereg},
	{"dereg-under-traffic", f4_dereg_under_traffic},
	{"f5-requester-budget", f5_requester_budget},
	{"f6-read-amplification", f6_read_amplification},
	{"f6-replay-then-read", f6_replay_then_read},
	{"f6-replays-keep-resources", f6_replays_keep_resources},
	{"f7-memcg", f7_memcg},
	{"f8-cq-overflow", f8_cq_overflow},
	{"f9-cnp", f9_cnp},
	{"f9-reserved-aeth", f9_reserved_aeth},
	{"r2-privileged-qkey", r2_privileged_qkey},
	{"r2-responder-yields", r2_responder_yields},
	{"r2-read-2g-mtu256", r2_read_2g_mtu256},
	{"r2-xrc-srq-gone", r2_xrc_srq_gone},
	{"aw-length", aw_length},
	{"aw-replay", aw_replay},
	{"ext-forged-hello", ext_forged_hello},
	{"sr-forged-sack", sr_forged_sack},
	{"sr-read-ahead", sr_read_ahead},
	{"sr-read-pieces", sr_read_pieces},
	{"sr-not-granted", sr_not_granted},
};

void describe(const device &d)
{
	ktap::note("%s: GID %s", d.name.c_str(), gid_str(d.gid).c_str());
}

} /* namespace */

int main(int argc, char **argv)
{
	if (argc == 4) {
		const std::string_view what = argv[3];

		if (what.size() > 1 && what.back() == '-') {
			std::vector<check> some;
			for (const check &c : checks)
				if (c.name.substr(0, what.size()) == what)
					some.push_back(c);
			std::string all = "all";
			argv[3] = all.data();
			return check_main(argc, argv, some, describe);
		}
	}
	return check_main(argc, argv, checks, describe);
}
