# SPDX-License-Identifier: GPL-2.0
#
# Known kernel reports that are not sroce's: a kernel log in, the same log
# out with each known report's lines taken out (mode "filter", the
# default), or the names of the known reports found, one per line (mode
# "names").  qemu/run-guest and tests/lib.sh look for trouble
# (qemu/kernel-trouble.ere) in what "filter" leaves; a selftest whose log
# had a known report only reports "kernel log clean" as XFAIL, never as a
# pass.
#
#   awk -f qemu/kernel-known.awk [-v mode=names] LOG
#
# A report is the lines from its first ("WARNING: possible circular
# locking dependency detected", the "=====" line before it included, or
# "BUG: sleeping function called from invalid context") to the end of its
# call trace (the first "</TASK>"; at the latest the line before another
# report begins, or 400 lines).  It is known when it has every
# pattern of a rule and no frame of sroce in the context that reported:
# the whole report, or when the trace begins in an interrupt, the part up
# to "</IRQ>" (below it is the task the interrupt found running, which may
# be anything).  lockdep reports once per boot and then turns itself off:
# a run with a known lockdep report ran the rest of the way without it.
#
# Rules (name, patterns):
#   rds-cm-lock-order: 6.1's RDS takes rds_trans_sem and, under it, the
#     RDMA CM's handler_mutex (rds_ib_laddr_check() binding a cm_id), and
#     in the CM's connect request handler, handler_mutex held, takes
#     rds_trans_sem (rds_conn_create()); lockdep reports the cycle
#     whatever the RDMA device.
#   rds-unpin-in-softirq: 6.1's RDS frees an acknowledged message's RDMA
#     operation in its receive tasklet, and rds_rdma_free_op() unpins the
#     pages with unpin_user_pages_dirty_lock(), which may sleep
#     (lock_page()); CONFIG_DEBUG_ATOMIC_SLEEP reports it whatever the
#     RDMA device.
BEGIN {
	nrules = 0
	rule("rds-cm-lock-order", "possible circular locking dependency detected",
	     "rds_trans_sem", "handler_mutex", "rds_ib_laddr_check", "")
	rule("rds-unpin-in-softirq", "sleeping function called from invalid context",
	     "unpin_user_pages_dirty_lock", "rds_rdma_free_op",
	     "rds_ib_tasklet_fn_recv", "")
	if (mode == "")
		mode = "filter"
}

# rule(NAME, PATTERN...): a known report; empty patterns end the list.
function rule(name, p1, p2, p3, p4, p5) {
	nrules++
	rname[nrules] = name
	rpat[nrules, 1] = p1
	rpat[nrules, 2] = p2
	rpat[nrules, 3] = p3
	rpat[nrules, 4] = p4
	rpat[nrules, 5] = p5
}

# known(): the rule the report in blk[1..nblk] matches, or 0.
function known(   r, k, i, hit, all) {
	for (i = 1; i <= nblk; i++) {
		if (index(blk[i], "</IRQ>"))
			break
		if (index(blk[i], "[sroce]"))
			return 0
	}
	for (r = 1; r <= nrules; r++) {
		all = 1
		for (k = 1; k <= 5 && rpat[r, k] != ""; k++) {
			hit = 0
			for (i = 1; i <= nblk && !hit; i++)
				hit = index(blk[i], rpat[r, k]) > 0
			if (!hit) {
				all = 0
				break
			}
		}
		if (all)
			return r
	}
	return 0
}

# end_report(): the report collected is out, or its name.
function end_report(   r, i) {
	r = known()
	if (r && mode == "names")
		print rname[r]
	else if (!r && mode == "filter")
		for (i = 1; i <= nblk; i++)
			print blk[i]
	nblk = 0
	inrep = 0
}

{
	# A report ends early at what begins another one, or after 400
	# lines, so that a report cut short cannot hide what follows it.
	if (inrep && (nblk >= 400 || /cut here|Oops|BUG:|WARNING:/))
		end_report()
	if (!inrep && /WARNING: possible circular locking dependency detected|BUG: sleeping function called from invalid context/) {
		inrep = 1
		nblk = 0
		if (held != "")
			blk[++nblk] = held
		held = ""
	}
	if (inrep) {
		blk[++nblk] = $0
		if (/<\/TASK>/)
			end_report()
		next
	}
	# A "=====" line is held back one line: it may open a report.
	if (held != "" && mode == "filter")
		print held
	held = /=====/ ? $0 : ""
	if (held == "" && mode == "filter")
		print
}

END {
	if (inrep)
		end_report()
	if (held != "" && mode == "filter")
		print held
}
