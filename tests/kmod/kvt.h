/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvt.h - sroce_kverbs_test.ko: the kernel verbs, used between two RDMA
 * devices the way a kernel ULP (NFS/RDMA, NVMe-oF) uses them, with every
 * result checked.
 *
 *	insmod sroce_kverbs_test.ko dev_a=sroce0 dev_b=sroce1 [gid_a=N gid_b=N]
 *
 * The cases run from module init, in order, on one RC QP on each device,
 * connected by ib_modify_qp() alone (no RDMA CM):
 *
 *   A (dev_a): the initiator.  A PD without a global rkey (its SGEs use
 *	pd->local_dma_lkey), a send CQ polled in softirq and a receive CQ
 *	polled from a work queue (both through the completion handler).
 *   B (dev_b): the target.  A PD with IB_PD_UNSAFE_GLOBAL_RKEY (the target
 *	of RDMA WRITE and READ with kernel buffers), one CQ for both queues
 *	polled directly (IB_POLL_DIRECT: the device must never call its
 *	completion handler, which is not armed), the fast-registration MRs.
 *
 * dev_a and dev_b may name the same device (a loopback of its own).
 * Buffers are kmalloc'ed and pages alloc_page'd; their addresses are the
 * ib_dma_map_*() results (the kernel virtual addresses on a device with
 * virtual DMA, as sroce and rdma_rxe are).
 *
 * Every case is reported on the kernel log in KTAP form, prefixed with
 * "sroce_kverbs: ": "ok N name", "ok N name # SKIP why", "not ok N name",
 * with "# ..." diagnostics before the result line.  A case is skipped only
 * when a device does not advertise what it needs (IB_DEVICE_MEM_MGT_EXTENSIONS
 * for fast registration, an atomic_cap for atomics).  The load fails with
 * -EIO if a case failed; either way nothing of the test is left allocated
 * when init returns.
 *
 * A case that sees an error completion (the negative cases, or a failure)
 * leaves the QPs to be reset: the next case moves both to ERROR, waits for
 * every outstanding work request to flush, then takes them through RESET,
 * INIT, RTR and RTS again.  Work requests and buffers stay allocated until
 * the end, so a completion that comes late never touches freed memory.
 *
 * The files of the module:
 *   harness.c    module parameters, the case table, what a case needs
 *		  before it runs (kvt_case_start()), the KTAP lines
 *   pattern.c    data patterns and their checks
 *   wr.c         work requests, their completions, posting and reaping
 *   connect.c    the QPs through INIT, RTR, RTS; reset; kvt_ready()
 *   setup.c      devices, GIDs, PDs, CQs, buffers, QPs; set-up and teardown
 *   send.c       SEND with SGEs and with immediate data
 *   handlers.c   posting from completion handlers (softirq, work queue)
 *   rdma.c       RDMA WRITE (also WITH_IMM, and followed by a SEND posted
 *		  apart), READ, a wrong rkey
 *   frwr.c       fast registration, LOCAL_INV, SEND_WITH_INV
 *   atomics.c    FETCH_ADD and CMP_SWP through an FRWR MR
 *   lifecycle.c  ib_drain_qp() and a return through RESET
 *   srq.c        a shared receive queue
 */
#ifndef KVT_H
#define KVT_H

#define pr_fmt(fmt) "sroce_kverbs: " fmt

#include <linux/module.h>
#include <linux/etherdevice.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>

#define KVT_PORT	1
#define KVT_BUF_SIZE	SZ_64K
#define KVT_QP_WR	32
#define KVT_CQE		128
#define KVT_SGE		3
#define KVT_OPS		96
#define KVT_CANARY	0x5c
/* Fast registration: a 4-page list, the first and last pages partial. */
#define KVT_FR_PAGES	4
#define KVT_FR_OFF0	512
#define KVT_FR_LAST	1024
#define KVT_FR_LEN	(KVT_FR_PAGES * PAGE_SIZE - KVT_FR_OFF0 - \
			 (PAGE_SIZE - KVT_FR_LAST))
#define KVT_FR_DEPTH	16
/* A WRITE of 4 packets and a SEND, posted apart: KVT_APART_PAIRS times. */
#define KVT_APART_PAIRS	32
#define KVT_APART_DATA	4096
#define KVT_APART_MSG	200

#define kvt_diag(fmt, ...) pr_info("# " fmt, ##__VA_ARGS__)

enum kvt_result {
	KVT_PASS,
	KVT_SKIP,
	KVT_FAIL,
};

/**
 * struct kvt_op - one posted work request and its completion
 * @cqe: the work request's wr_cqe
 * @wc: a copy of the completion
 * @done: completed by kvt_done()
 * @cq: the CQ the completion arrives on
 * @qp: the QP it was posted on
 * @busy: posted and not reaped by the test (or never reaped: it then
 *	stays busy until the QPs are reset)
 */
struct kvt_op {
	struct ib_cqe cqe;
	struct ib_wc wc;
	struct completion done;
	struct ib_cq *cq;
	struct ib_qp *qp;
	bool busy;
};

/**
 * struct kvt_end - one side
 * @role: "A" or "B"
 * @name: the device name asked for
 * @want_gid: the GID index asked for (-1: the first RoCE v2 IPv4 GID)
 * @dev: the device, with a reference
 * @gid_index: the source GID index of the path
 * @gid: that GID
 * @mac: the MAC address of its netdev (the peer's destination MAC)
 * @mtu: the port's active MTU
 * @pd: the PD
 * @send_cq: completions of the send queue
 * @recv_cq: completions of the receive queue (may be @send_cq)
 * @qp: the RC QP
 * @psn: the first PSN of its send queue in the current connection
 * @buf: KVT_BUF_SIZE bytes of kernel memory
 * @dma: @buf mapped for @dev
 */
struct kvt_end {
	const char *role;
	const char *name;
	int want_gid;
	struct ib_device *dev;
	int gid_index;
	union ib_gid gid;
	u8 mac[ETH_ALEN];
	enum ib_mtu mtu;
	struct ib_pd *pd;
	struct ib_cq *send_cq;
	struct ib_cq *recv_cq;
	struct ib_qp *qp;
	u32 psn;
	u8 *buf;
	u64 dma;
};

/**
 * struct kvt_frwr - a fast-registration MR of B and its pages
 * @mr: from ib_alloc_mr(IB_MR_TYPE_MEM_REG)
 * @pages: the pages
 * @npages: entries of @pages and @sg
 * @sg: the scatterlist over the pages
 * @nents: entries mapped by ib_dma_map_sg() (0: not mapped)
 * @valid: registered and not invalidated (as far as the test knows)
 */
struct kvt_frwr {
	struct ib_mr *mr;
	struct page *pages[KVT_FR_PAGES];
	int npages;
	struct scatterlist sg[KVT_FR_PAGES];
	int nents;
	bool valid;
};

#define KVT_CHAIN_MSGS	32
#define KVT_CHAIN_RECVS	4
#define KVT_CHAIN_LEN	256

struct kvt_chain;

/**
 * struct kvt_chain_rx - a receive of A that its completion handler posts
 *	again
 * @cqe: its wr_cqe
 * @ch: the chain
 * @slot: which of A's receive buffers it uses
 */
struct kvt_chain_rx {
	struct ib_cqe cqe;
	struct kvt_chain *ch;
	u32 slot;
};

/**
 * struct kvt_chain - messages posted from completion handlers
 * @ctx: the test
 * @send_cqe: wr_cqe of A's chained SENDs
 * @rx: A's receives
 * @done: completed by a handler at the end of the chain or at an error
 * @posted: work requests posted so far
 * @completed: completions seen so far
 * @status: the first bad completion status (IB_WC_SUCCESS: none)
 * @err: the first error of a post or of the data (0: none)
 * @stop: the case gave up: handlers post nothing more
 * @in_post: the case is inside its first ib_post_send()
 * @early: send completions handled before that call returned
 *
 * The handlers of one CQ never run concurrently, and the case reads the
 * counters only after @done: they need no lock.
 */
struct kvt_chain {
	struct kvt_ctx *ctx;
	struct ib_cqe send_cqe;
	struct kvt_chain_rx rx[KVT_CHAIN_RECVS];
	struct completion done;
	u32 posted;
	u32 completed;
	enum ib_wc_status status;
	int err;
	bool stop;
	bool in_post;
	u32 early;
};

/**
 * struct kvt_ctx - the test
 * @a: the initiator
 * @b: the target
 * @ops: the work requests, reused once reaped
 * @timeout_ms: how long one completion may take, in ms
 * @timeout: the same in jiffies
 * @generation: connections made so far (each starts at other PSNs)
 * @rd_atom: RDMA READ / atomic requests in flight allowed each way
 * @connected: both QPs reached RTS (and may since have failed)
 * @need_reset: an error completion was seen: reset before the next case
 * @stalled: a completion did not come: until the reset, waits give up at
 *	once instead of taking their time out each
 * @skip: why the current case is skipped
 * @fr: the MR of the fast-registration cases
 * @fr_key_old: its key before its last registration
 * @fra: the MR of the atomics case
 * @chain: the completion-handler case
 */
struct kvt_ctx {
	struct kvt_end a;
	struct kvt_end b;
	struct kvt_op ops[KVT_OPS];
	unsigned int timeout_ms;
	unsigned long timeout;
	u32 generation;
	u8 rd_atom;
	bool connected;
	bool need_reset;
	bool stalled;
	const char *skip;
	struct kvt_frwr fr;
	u32 fr_key_old;
	struct kvt_frwr fra;
	struct kvt_chain chain;
};

/*
 * What a case needs before it runs; kvt_case_start() sees to it in this
 * order, for every case alike.  Any need: the QPs were connected (else the
 * case fails).  Then the skips: B's fast registration, atomics on both
 * devices, READ/atomic resources, A's SRQs.  Then what earlier cases
 * made (else the case fails): the FRWR MR.  Last the QPs: reset first
 * (KVT_RESET), ready (kvt_ready()), and the FRWR MR registered.
 */
#define KVT_QPS		BIT(0)	/* kvt_ready(): connected, nothing posted */
#define KVT_RESET	BIT(1)	/* through RESET to RTS again first */
#define KVT_FRWR	BIT(2)	/* B advertises MEM_MGT_EXTENSIONS */
#define KVT_ATOMICS	BIT(3)	/* both advertise an atomic_cap */
#define KVT_RD_ATOM	BIT(4)	/* READs/atomics may be in flight */
#define KVT_SRQ		BIT(5)	/* A advertises SRQs */
#define KVT_FR_MR	BIT(6)	/* ctx->fr has its MR (kvt_case_fr_map) */
#define KVT_FR_VALID	BIT(7)	/* ctx->fr is registered (after KVT_QPS) */

/* pattern.c */
u8 kvt_pat(u32 seed, u32 i);
void kvt_fill(u8 *p, u32 len, u32 seed, u32 base);
bool kvt_check(const char *what, const u8 *p, u32 len, u32 seed, u32 base);
bool kvt_check_val(const char *what, const u8 *p, u32 len, u8 val);

/* wr.c */
struct kvt_op *kvt_op_get(struct kvt_ctx *ctx, struct ib_cq *cq,
			  struct ib_qp *qp);
void kvt_op_put(struct kvt_op *op);
bool kvt_ops_busy(struct kvt_ctx *ctx);
int kvt_wait(struct kvt_ctx *ctx, struct kvt_op *op);
int kvt_reap(struct kvt_ctx *ctx, struct kvt_op *op, const char *what,
	     enum ib_wc_status status, enum ib_wc_opcode opcode);
struct ib_sge kvt_sge(struct kvt_end *e, u32 off, u32 len);
struct kvt_op *kvt_post_recv(struct kvt_ctx *ctx, struct kvt_end *e,
			     struct ib_sge *sge, int n);
struct kvt_op *kvt_post_send(struct kvt_ctx *ctx, struct kvt_end *e,
			     struct ib_send_wr *wr);
int kvt_send_wait(struct kvt_ctx *ctx, struct kvt_end *e,
		  struct ib_send_wr *wr, const char *what,
		  enum ib_wc_status status, enum ib_wc_opcode opcode);
int kvt_send_recv(struct kvt_ctx *ctx, struct kvt_end *e,
		  struct ib_send_wr *wr, const char *what, struct kvt_op *rop,
		  const char *rwhat);
struct kvt_op *kvt_message(struct kvt_ctx *ctx, struct kvt_end *e,
			   struct ib_send_wr *wr, const char *what, u32 len,
			   struct kvt_end *to, struct ib_sge dst);
int kvt_rdma(struct kvt_ctx *ctx, enum ib_wr_opcode opcode,
	     struct ib_sge *sge, int n, u64 raddr, u32 rkey,
	     enum ib_wc_status status);

/* connect.c */
int kvt_modify(struct kvt_end *e, struct ib_qp_attr *attr, int mask,
	       const char *state);
int kvt_connect_pair(struct kvt_ctx *ctx, struct kvt_end *a,
		     struct kvt_end *b);
int kvt_connect(struct kvt_ctx *ctx);
bool kvt_ready(struct kvt_ctx *ctx);

/* setup.c */
void kvt_qp_event(struct ib_event *ev, void *context);
enum kvt_result kvt_case_setup(struct kvt_ctx *ctx);
enum kvt_result kvt_case_teardown(struct kvt_ctx *ctx);

/* send.c */
enum kvt_result kvt_case_send_sge(struct kvt_ctx *ctx);
enum kvt_result kvt_case_send_imm(struct kvt_ctx *ctx);

/* handlers.c */
enum kvt_result kvt_case_handlers(struct kvt_ctx *ctx);

/* rdma.c */
enum kvt_result kvt_case_write(struct kvt_ctx *ctx);
enum kvt_result kvt_case_write_imm(struct kvt_ctx *ctx);
enum kvt_result kvt_case_read(struct kvt_ctx *ctx);
enum kvt_result kvt_case_bad_rkey(struct kvt_ctx *ctx);
enum kvt_result kvt_case_write_send_apart(struct kvt_ctx *ctx);

/* frwr.c */
bool kvt_has_frwr(struct ib_device *dev);
int kvt_frwr_map(struct kvt_ctx *ctx, struct kvt_frwr *fr, int n, u32 off0,
		 u32 last);
int kvt_frwr_reg(struct kvt_ctx *ctx, struct kvt_frwr *fr, int access);
int kvt_frwr_local_inv(struct kvt_ctx *ctx, struct kvt_frwr *fr);
int kvt_frwr_free(struct kvt_end *b, struct kvt_frwr *fr);
enum kvt_result kvt_case_fr_map(struct kvt_ctx *ctx);
enum kvt_result kvt_case_fr_reg(struct kvt_ctx *ctx);
enum kvt_result kvt_case_fr_write(struct kvt_ctx *ctx);
enum kvt_result kvt_case_fr_read(struct kvt_ctx *ctx);
enum kvt_result kvt_case_fr_old_key(struct kvt_ctx *ctx);
enum kvt_result kvt_case_fr_bounds(struct kvt_ctx *ctx);
enum kvt_result kvt_case_fr_local_inv(struct kvt_ctx *ctx);
enum kvt_result kvt_case_fr_rereg(struct kvt_ctx *ctx);
enum kvt_result kvt_case_send_inv(struct kvt_ctx *ctx);
enum kvt_result kvt_case_send_inv_refused(struct kvt_ctx *ctx);

/* atomics.c */
enum kvt_result kvt_case_atomics(struct kvt_ctx *ctx);

/* lifecycle.c */
enum kvt_result kvt_case_drain(struct kvt_ctx *ctx);
enum kvt_result kvt_case_reconnect(struct kvt_ctx *ctx);

/* srq.c */
enum kvt_result kvt_case_srq(struct kvt_ctx *ctx);

#endif /* KVT_H */
