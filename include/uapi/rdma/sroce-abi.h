/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * sroce-abi.h - the contract between the sroce kernel driver and its
 * user-space libibverbs provider (libsroce-rdmav34.so).
 *
 * Everything user space and the kernel exchange beyond the core uverbs
 * structures is declared here and nowhere else:
 *
 *  - SROCE_UVERBS_ABI_VERSION is the uverbs ABI version the driver reports
 *    (ib_device_ops.uverbs_abi_ver); the provider matches devices whose ABI
 *    version lies in [SROCE_UVERBS_ABI_VERSION_MIN, SROCE_UVERBS_ABI_VERSION].
 *  - SROCE_DRIVER_ID is the driver's private rdma_driver_id.  It is above
 *    every id the kernel's enum rdma_driver_id knows, so no in-tree provider
 *    claims an sroce device and kernel lookups by driver id find only ours.
 *  - The structures below travel as the driver-specific tail ("udata") of a
 *    uverbs command or response.  They have fixed sizes and explicit padding,
 *    hold no kernel pointers, and every reserved field must be zero when sent
 *    and is ignored when received, so later versions can give them meaning.
 *    A response may grow at its end: the kernel copies only as many bytes as
 *    the caller's buffer holds (ib_copy_to_udata), and a caller must check
 *    the feature bits before it reads a field that is not in version 1.
 *
 * All integers are in host byte order.
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>

#define SROCE_UVERBS_ABI_VERSION	2
#define SROCE_UVERBS_ABI_VERSION_MIN	2

/* Private enum rdma_driver_id value ('S' 'R'); see above. */
#define SROCE_DRIVER_ID			0x5352

/**
 * enum sroce_ucontext_features - what the driver offers a user context
 *
 * Reported in &struct sroce_alloc_ucontext_resp.features.  A bit that is not
 * set means the feature is absent; user space must not rely on anything a
 * bit it does not know describes.
 *
 * @SROCE_UCTX_F_NONE: no feature
 * @SROCE_UCTX_F_ATOMIC_WRITE: RC QPs' send rings carry IBTA 1.5 atomic
 *	writes (%SROCE_WR_ATOMIC_WRITE, &struct sroce_wqe_atomic_write)
 */
enum sroce_ucontext_features {
	SROCE_UCTX_F_NONE = 0,
	SROCE_UCTX_F_ATOMIC_WRITE = 1 << 0,
};

/**
 * struct sroce_alloc_ucontext_cmd - driver tail of GET_CONTEXT
 * @provider_abi: the SROCE_UVERBS_ABI_VERSION the provider was built with
 * @reserved: must be zero
 */
struct sroce_alloc_ucontext_cmd {
	__u32 provider_abi;
	__u32 reserved;
};

/**
 * struct sroce_alloc_ucontext_resp - driver tail of the GET_CONTEXT response
 * @abi_version: SROCE_UVERBS_ABI_VERSION of the driver
 * @features: bitmask of &enum sroce_ucontext_features
 * @page_size: PAGE_SIZE of the kernel; every mmap offset is a multiple of it
 * @max_inline_data: largest inline payload a send WQE may carry (0: none)
 * @reserved: zero
 */
struct sroce_alloc_ucontext_resp {
	__u32 abi_version;
	__u32 page_size;
	__u64 features;
	__u32 max_inline_data;
	__u32 reserved[9];
};

/**
 * enum sroce_query_context_attrs - sroce's attribute of QUERY_CONTEXT
 * @SROCE_ATTR_QUERY_CONTEXT_RESP: output, &struct sroce_alloc_ucontext_resp
 *	of the context, as GET_CONTEXT answered it (the first attribute id of
 *	a driver's namespace, UVERBS_ID_DRIVER_NS)
 *
 * UVERBS_METHOD_QUERY_CONTEXT of UVERBS_OBJECT_DEVICE is how a provider
 * learns about a context it did not create: ibv_import_device() on a
 * uverbs file shared by another process or context.
 */
enum sroce_query_context_attrs {
	SROCE_ATTR_QUERY_CONTEXT_RESP = (1U << 12),
};

/*
 * Device memory (ibv_alloc_dm)
 * ============================
 *
 * sroce's device memory is kernel memory of the device, at most
 * &ib_device_attr.max_dm_size bytes in all of a device's allocations (each
 * counted in whole pages).  The core's UVERBS_METHOD_DM_ALLOC allocates it;
 * user space then asks SROCE_METHOD_DM_QUERY (a method of UVERBS_OBJECT_DM
 * in the driver's namespace) where to map it, and maps it MAP_SHARED on the
 * uverbs file: that is how ibv_memcpy_to_dm() and ibv_memcpy_from_dm() reach
 * it, and how a context that imported the DM's handle finds it.
 */

/**
 * enum sroce_dm_methods - sroce's methods of UVERBS_OBJECT_DM
 * @SROCE_METHOD_DM_QUERY: where a DM of the caller's uverbs file is mapped
 */
enum sroce_dm_methods {
	SROCE_METHOD_DM_QUERY = (1U << 12),
};

/**
 * enum sroce_dm_query_attrs - the attributes of SROCE_METHOD_DM_QUERY
 * @SROCE_ATTR_QUERY_DM_HANDLE: input, the DM's handle
 * @SROCE_ATTR_QUERY_DM_RESP: output, &struct sroce_dm_query_resp
 */
enum sroce_dm_query_attrs {
	SROCE_ATTR_QUERY_DM_HANDLE = (1U << 12),
	SROCE_ATTR_QUERY_DM_RESP,
};

/**
 * struct sroce_dm_query_resp - a DM as user space maps it
 * @mmap_offset: the offset to pass to mmap(); a multiple of the page size
 * @mmap_size: the bytes to map (the DM's length rounded up to pages)
 * @length: the DM's length as allocated: the bytes ibv_memcpy_*_dm() and
 *	a DM MR may reach
 */
struct sroce_dm_query_resp {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__aligned_u64 length;
};

/*
 * Rings shared between the kernel and user space
 * ==============================================
 *
 * Every queue the two sides share (completion queues, the send and receive
 * queues of a QP) is one ring in kernel memory that user space maps
 * with mmap() on its uverbs file descriptor.  A create (or resize) response
 * describes the ring with &struct sroce_ring_info: where to map it and where
 * each part lies inside the mapping.  User space must take every offset from
 * there; none is fixed by this header.
 *
 * Indices.  The producer index and the consumer index are free-running
 * __u32 counters: each side only ever increments its own and lets it wrap
 * at 2^32.  The slot of index i is (i & (num_entries - 1)); the ring holds
 * (producer - consumer) entries, computed modulo 2^32, at most num_entries.
 * Empty: producer == consumer.  Full: producer - consumer == num_entries.
 * The two indices sit on separate cache lines.
 *
 * Ordering.  The producer writes an entry, then stores the new producer
 * index with release semantics; the consumer loads the producer index with
 * acquire semantics before it reads entries, and stores its consumer index
 * with release semantics after it has finished reading them (so the
 * producer, loading the consumer index with acquire, never overwrites a slot
 * that is still being read).
 *
 * Trust.  The kernel never trusts the mapped memory: it keeps its own copy
 * of every index it produces, masks every index it reads, and treats a
 * nonsensical consumer index as a full ring.
 */

/**
 * struct sroce_ring_info - where a shared ring lies and how it is laid out
 * @mmap_offset: the offset to pass to mmap() on the uverbs file descriptor;
 *	a multiple of the page size.  Map exactly @mmap_size bytes, MAP_SHARED,
 *	PROT_READ | PROT_WRITE (never PROT_EXEC: refused).
 * @mmap_size: length of the mapping in bytes, a multiple of the page size
 * @num_entries: ring capacity in entries; a power of two
 * @entry_size: bytes per entry (e.g. sizeof(struct sroce_cqe) for a CQ);
 *	entry i is at @entries_offset + (i & (@num_entries - 1)) * @entry_size
 * @entries_offset: byte offset of slot 0 in the mapping
 * @producer_offset: byte offset of the __u32 producer index
 * @consumer_offset: byte offset of the __u32 consumer index
 * @notify_offset: byte offset of the __u32 notification word (the arm word
 *	of a CQ, &enum sroce_cq_notify); 0 and unused for rings without one
 * @reserved: zero
 *
 * Every offset is a multiple of 4 and every part lies inside the mapping.
 * Which side produces is the ring's business: a CQ is produced by the
 * kernel and consumed by user space.  Two rings may lie in one mapping: a
 * QP's SQ and RQ come with the same @mmap_offset and @mmap_size and
 * offsets that keep them apart (map it once, or once for each).
 */
struct sroce_ring_info {
	__aligned_u64 mmap_offset;
	__u32 mmap_size;
	__u32 num_entries;
	__u32 entry_size;
	__u32 entries_offset;
	__u32 producer_offset;
	__u32 consumer_offset;
	__u32 notify_offset;
	__u32 reserved[7];
};

/**
 * enum sroce_wc_flags - &struct sroce_cqe.wc_flags
 * @SROCE_WC_F_GRH: a GRH (for RoCE: the IP header) precedes the received
 *	data in the first 40 bytes of the receive buffer
 * @SROCE_WC_F_WITH_IMM: @imm_data of the CQE is valid
 * @SROCE_WC_F_WITH_INV: the sender invalidated a key; @imm_data of the CQE
 *	holds the invalidated rkey
 *
 * sroce's own values: the kernel's IB_WC_* and libibverbs' IBV_WC_* flags
 * differ from each other, and each side converts.
 */
enum sroce_wc_flags {
	SROCE_WC_F_GRH = 1 << 0,
	SROCE_WC_F_WITH_IMM = 1 << 1,
	SROCE_WC_F_WITH_INV = 1 << 2,
};

/**
 * struct sroce_cqe - one completion queue entry (64 bytes)
 * @wr_id: the work request's wr_id
 * @status: an enum ib_wc_status value (equal to libibverbs' ibv_wc_status)
 * @opcode: an enum ib_uverbs_wc_opcode value (equal to the kernel's
 *	enum ib_wc_opcode and to libibverbs' enum ibv_wc_opcode)
 * @vendor_err: a driver-specific error detail for a failed completion, or 0
 * @byte_len: bytes transferred (received, for a receive completion)
 * @imm_data: with %SROCE_WC_F_WITH_IMM the immediate data exactly as it was
 *	on the wire (network byte order, like ibv_wc.imm_data); with
 *	%SROCE_WC_F_WITH_INV the invalidated rkey in host byte order
 * @qp_num: the local QP the completion belongs to
 * @src_qp: the remote QP number (UD receives)
 * @wc_flags: &enum sroce_wc_flags
 * @pkey_index: P_Key index (UD/GSI receives)
 * @slid: source LID; always 0 on RoCE
 * @sl: service level; the kernel writes 0 (RoCE has none): the provider
 *	reports a GRH receive's network_hdr_type there (IPv4 2, IPv6 1, as
 *	mlx5 and hns do)
 * @dlid_path_bits: always 0 on RoCE
 * @port_num: the port (1)
 * @network_hdr_type: with %SROCE_WC_F_GRH, what the 40 bytes before the
 *	data hold: an enum rdma_network_type value (RDMA_NETWORK_IPV4: 20
 *	zero bytes then the IPv4 header; RDMA_NETWORK_IPV6: the IPv6
 *	header); 0 otherwise
 * @completion_ts: with %SROCE_CQ_F_TIMESTAMP on the CQ, the device clock
 *	when the kernel wrote the CQE: CLOCK_MONOTONIC in nanoseconds
 *	(ktime_get_ns(); hca_core_clock is 1000000 kHz, the timestamp mask
 *	all 64 bits); 0 otherwise
 * @wallclock_ns: with %SROCE_CQ_F_WALLCLOCK on the CQ, CLOCK_REALTIME in
 *	nanoseconds when the kernel wrote the CQE (ktime_get_real_ns());
 *	0 otherwise
 *
 * A ring's entry_size may be larger than this structure in a later version;
 * a consumer always steps by the ring's entry_size.
 */
struct sroce_cqe {
	__aligned_u64 wr_id;
	__u32 status;
	__u32 opcode;
	__u32 vendor_err;
	__u32 byte_len;
	__u32 imm_data;
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u8 port_num;
	__u8 network_hdr_type;
	__aligned_u64 completion_ts;
	__aligned_u64 wallclock_ns;
};

/**
 * enum sroce_cq_notify - bits of a CQ ring's notification (arm) word
 * @SROCE_CQ_NOTIFY_NEXT_COMP: signal the completion channel at the next
 *	completion of any kind
 * @SROCE_CQ_NOTIFY_SOLICITED: signal it at the next solicited or failed
 *	completion
 *
 * User space arms a CQ without a system call by an atomic OR of one bit
 * into the word (sequentially consistent, so the store is ordered before
 * the loads of its next poll).  The kernel, after publishing a CQE, clears
 * the word with an atomic compare-and-exchange when the CQE matches what is
 * armed and then signals the channel once.  Other bits are ignored.
 */
enum sroce_cq_notify {
	SROCE_CQ_NOTIFY_NEXT_COMP = 1 << 0,
	SROCE_CQ_NOTIFY_SOLICITED = 1 << 1,
};

/**
 * enum sroce_cq_flags - &struct sroce_create_cq_cmd.flags
 * @SROCE_CQ_F_TIMESTAMP: stamp every CQE's @completion_ts with the device
 *	clock (CLOCK_MONOTONIC, ns) when it is written; what
 *	IBV_WC_EX_WITH_COMPLETION_TIMESTAMP asks (a generic caller asks with
 *	IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
 * @SROCE_CQ_F_WALLCLOCK: stamp every CQE's @wallclock_ns with
 *	CLOCK_REALTIME (ns); what IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK
 *	asks
 *
 * The clocks are read only for a CQ that asked: the other CQEs carry 0.
 */
enum sroce_cq_flags {
	SROCE_CQ_F_TIMESTAMP = 1 << 0,
	SROCE_CQ_F_WALLCLOCK = 1 << 1,
};

/**
 * struct sroce_create_cq_cmd - driver tail of CREATE_CQ
 * @cqe_size: the sizeof(struct sroce_cqe) the provider was built with; the
 *	kernel refuses a CQE size it cannot produce
 * @flags: &enum sroce_cq_flags; the kernel refuses other bits
 *
 * A create without a tail (a generic caller) is accepted and gets a ring
 * like any other.
 */
struct sroce_create_cq_cmd {
	__u32 cqe_size;
	__u32 flags;
};

/**
 * struct sroce_create_cq_resp - driver tail of the CREATE_CQ response
 * @ring: the CQ ring; the core response's cqe is its @ring.num_entries
 */
struct sroce_create_cq_resp {
	struct sroce_ring_info ring;
};

/**
 * struct sroce_resize_cq_resp - driver tail of the RESIZE_CQ response
 * @ring: the new ring, holding the CQEs not yet consumed from the old one,
 *	in order, from index 0.  The old ring's mmap offset is dead from now
 *	on (a mapping made before stays valid memory but is never written
 *	again): unmap it and map the new one.
 *
 * RESIZE_CQ has no command tail (anything sent must be zero).
 */
struct sroce_resize_cq_resp {
	struct sroce_ring_info ring;
};

/*
 * Queue pairs
 * ===========
 *
 * A QP has two rings of work queue entries (WQEs): the send queue (SQ) and
 * the receive queue (RQ), both described by &struct sroce_create_qp_resp.
 * User space produces into both, the kernel consumes; the kernel's
 * consumer index counts WQEs it has *retired*, and moves before their
 * completion is posted: once user space has polled the completion of a
 * WQE, its slot is free.  A slot may be reused as soon as the consumer
 * index has passed it.  The kernel copies a WQE when it starts on
 * it and never reads the slot again; writing a slot between posting and
 * retirement changes nothing the kernel does.
 *
 * Posting a receive is a store of the WQE and a release store of the RQ
 * producer index: no system call.  Posting a send is the same on the SQ,
 * followed by a sequentially consistent load of the SQ's notification word:
 * when it has %SROCE_SQ_NOTIFY_DOORBELL set, the kernel's requester is
 * idle, and user space rings the doorbell, a POST_SEND command with no work
 * requests (wr_count 0, wqe_size at least sizeof(struct ib_uverbs_send_wr)).
 * While the requester runs it processes everything posted; before it goes
 * idle it sets the bit, issues a full barrier and looks at the producer
 * index once more, so a WQE is never left behind.  The requester of an RC
 * QP with packets sent and not yet acknowledged does not set the bit: the
 * acknowledgment (or response) runs it again, and it takes what was posted
 * meanwhile.  A doorbell is never wrong: user space may ring it when the
 * bit is clear (sroce's provider does every 16 posts, so that a long
 * burst of posts need not wait for the answer), and the requester then
 * looks at the ring once more.
 *
 * The indices of both rings are reset to 0 by the kernel when the QP enters
 * the RESET state; user space forgets its own copies at the same time.
 * Work requests are posted to the SQ in RTS, SQD, SQE and ERROR (the
 * kernel completes WQEs posted in ERROR with IB_WC_WR_FLUSH_ERR) and to the
 * RQ in every state but RESET.
 */

/**
 * enum sroce_sq_notify - bits of an SQ ring's notification word
 * @SROCE_SQ_NOTIFY_DOORBELL: the kernel's requester is idle: after posting,
 *	make the POST_SEND doorbell call.  Set by the kernel, cleared by the
 *	kernel when the doorbell (or any other event) wakes it up.
 *
 * Other bits are reserved: user space ignores them, the kernel writes 0.
 * The doorbell succeeds in every state of the QP (in RESET, INIT and RTR
 * it does nothing); it fails only when the QP or device is gone.
 */
enum sroce_sq_notify {
	SROCE_SQ_NOTIFY_DOORBELL = 1 << 0,
};

/**
 * struct sroce_sge - one scatter/gather element of a WQE (16 bytes)
 * @addr: first byte, in the address space of @lkey's region
 * @length: bytes
 * @lkey: the local key of the region
 */
struct sroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/**
 * enum sroce_send_flags - &struct sroce_send_wqe.send_flags
 * @SROCE_SEND_FENCE: wait for earlier RDMA READs and atomics
 * @SROCE_SEND_SIGNALED: complete with a CQE (always so with sq_sig_all)
 * @SROCE_SEND_SOLICITED: set the solicited event bit of the last packet
 * @SROCE_SEND_INLINE: the payload is in the WQE
 *
 * The values of libibverbs' IBV_SEND_* and of the kernel's IB_SEND_*.
 */
enum sroce_send_flags {
	SROCE_SEND_FENCE = 1 << 0,
	SROCE_SEND_SIGNALED = 1 << 1,
	SROCE_SEND_SOLICITED = 1 << 2,
	SROCE_SEND_INLINE = 1 << 3,
};

/**
 * struct sroce_wqe_rdma - RDMA WRITE (with immediate) and RDMA READ
 * @remote_addr: the remote address
 * @rkey: the remote key
 * @reserved: zero
 */
struct sroce_wqe_rdma {
	__aligned_u64 remote_addr;
	__u32 rkey;
	__u32 reserved;
};

/**
 * struct sroce_wqe_atomic - ATOMIC_CMP_AND_SWP and ATOMIC_FETCH_AND_ADD
 * @remote_addr: the remote address, 8-byte aligned
 * @compare_add: the compare (CMP_SWP) or add (FETCH_ADD) operand
 * @swap: CMP_SWP: the swap operand
 * @rkey: the remote key
 * @reserved: zero
 */
struct sroce_wqe_atomic {
	__aligned_u64 remote_addr;
	__aligned_u64 compare_add;
	__aligned_u64 swap;
	__u32 rkey;
	__u32 reserved;
};

/**
 * struct sroce_wqe_atomic_write - ATOMIC_WRITE (IBTA 1.5), RC QPs only
 * @remote_addr: the remote address; the responder refuses one that is not
 *	8-byte aligned (invalid request)
 * @rkey: the remote key, of a region or window with remote write access
 * @reserved: zero
 * @data: the 8 bytes to store, in the order they lie in memory (what
 *	ibv_wr_atomic_write()'s atomic_wr points to)
 *
 * The WQE has no gather list and no inline payload (@num_sge 0, no
 * %SROCE_SEND_INLINE): the 8 bytes travel in the header.  The responder
 * stores them with one 8-byte store, and the WQE completes with
 * IB_UVERBS_WC_ATOMIC_WRITE (9) and a byte_len of 8.
 */
struct sroce_wqe_atomic_write {
	__aligned_u64 remote_addr;
	__u32 rkey;
	__u32 reserved;
	__u8 data[8];
};

/**
 * struct sroce_wqe_ud - the destination of a UD send
 * @ah: the address handle's number (&struct sroce_create_ah_resp)
 * @remote_qpn: the destination QP
 * @remote_qkey: the destination Q_Key; with the high bit set, the
 *	sending QP's own Q_Key (IBTA 10.2.5)
 * @reserved: zero
 */
struct sroce_wqe_ud {
	__u32 ah;
	__u32 remote_qpn;
	__u32 remote_qkey;
	__u32 reserved;
};

/**
 * struct sroce_wqe_bind - BIND_MW
 * @addr: the first address of the window
 * @length: its length in bytes (0 unbinds a type 1 window; a type 2
 *	window binds with at least 1)
 * @mr_lkey: the lkey of the memory region the window is bound to (any
 *	value with a length of 0)
 * @rkey: the window's new rkey, which also names the window: its upper 24
 *	bits are the window's index, the low byte is the consumer's choice
 *	(ibv_inc_rkey() of the window's key, for ibv_bind_mw())
 * @access: the window's access flags, only IB_ACCESS_REMOTE_READ/_WRITE/
 *	_ATOMIC (the values of IBV_ACCESS_*); anything else, zero-based
 *	windows included, fails the bind
 * @reserved: zero
 */
struct sroce_wqe_bind {
	__aligned_u64 addr;
	__aligned_u64 length;
	__u32 mr_lkey;
	__u32 rkey;
	__u32 access;
	__u32 reserved;
};

/**
 * struct sroce_wqe_reg_mr - REG_MR (fast registration), kernel users only
 * @key: the region's new key (its index, and the variant the user chose)
 * @access: IB_ACCESS_* flags of the registration
 *
 * Its opcode is %SROCE_WR_REG_MR; one in a user ring completes with
 * IB_WC_LOC_QP_OP_ERR (user space registers through the REG_MR command).
 */
struct sroce_wqe_reg_mr {
	__u32 key;
	__u32 access;
};

/*
 * The opcode of REG_MR in a send WQE: no uverbs opcode exists for it (the
 * kernel's IB_WR_REG_MR).
 */
#define SROCE_WR_REG_MR		0x20

/*
 * The opcode of ATOMIC_WRITE in a send WQE: IB_UVERBS_WR_ATOMIC_WRITE of
 * Linux 6.2 on, libibverbs' IBV_WR_ATOMIC_WRITE; Linux 6.1's uverbs has no
 * name for it.  Only with %SROCE_UCTX_F_ATOMIC_WRITE.
 */
#define SROCE_WR_ATOMIC_WRITE	15

/**
 * union sroce_wqe_op - what a send WQE's operation needs besides its data
 * @rdma: RDMA WRITE, WRITE_WITH_IMM, READ
 * @atomic: the atomics
 * @atomic_write: ATOMIC_WRITE
 * @ud: SEND and SEND_WITH_IMM on a UD QP
 * @bind: BIND_MW
 * @reg_mr: REG_MR (kernel only)
 * @reserved: the union's size; zero where no member says otherwise
 */
union sroce_wqe_op {
	struct sroce_wqe_rdma rdma;
	struct sroce_wqe_atomic atomic;
	struct sroce_wqe_atomic_write atomic_write;
	struct sroce_wqe_ud ud;
	struct sroce_wqe_bind bind;
	struct sroce_wqe_reg_mr reg_mr;
	__u8 reserved[40];
};

/**
 * struct sroce_send_wqe - a send queue entry header (80 bytes)
 * @wr_id: returned in the completion
 * @opcode: an enum ib_uverbs_wr_opcode value (IB_UVERBS_WR_SEND ...),
 *	%SROCE_WR_ATOMIC_WRITE or %SROCE_WR_REG_MR
 * @send_flags: &enum sroce_send_flags
 * @num_sge: SGEs following the header (ignored with %SROCE_SEND_INLINE)
 * @inline_len: with %SROCE_SEND_INLINE: bytes of payload following the
 *	header, at most the QP's max_inline_data
 * @imm_data: SEND_WITH_IMM / RDMA_WRITE_WITH_IMM: the immediate data in
 *	network byte order (as ibv_send_wr.imm_data)
 * @invalidate_rkey: SEND_WITH_INV and LOCAL_INV: the rkey to invalidate,
 *	host order
 * @xrc_srqn: on an XRC INI QP (IB_QPT_XRC_INI): the number of the XRC SRQ
 *	at the target the request is for (ibv_send_wr.qp_type.xrc.remote_srqn;
 *	24 bits), carried in every packet's XRCETH; zero on other QPs, where
 *	it is ignored
 * @op: the operation's own fields (&union sroce_wqe_op)
 * @reserved: zero
 *
 * The header is followed, in the same entry, by the gather list (@num_sge
 * &struct sroce_sge) or, with %SROCE_SEND_INLINE, by the payload itself
 * (@inline_len bytes).  ATOMIC_WRITE carries its 8 bytes in @op and
 * neither of those.  BIND_MW, LOCAL_INV and REG_MR carry neither
 * (@num_sge 0, inline refused); they execute in their turn in the queue,
 * and a failure completes with IB_WC_MW_BIND_ERR (bind) or
 * IB_WC_LOC_QP_OP_ERR (the others) and moves the QP to the error state.
 * The ring's entry_size is the header plus room for the QP's max_send_sge
 * elements or its max_inline_data bytes, whichever is larger.
 */
struct sroce_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;
	__u32 send_flags;
	__u32 num_sge;
	__u32 inline_len;
	union {
		__u32 imm_data;
		__u32 invalidate_rkey;
	};
	__u32 xrc_srqn;
	union sroce_wqe_op op;
	__u32 reserved[2];
};

/**
 * struct sroce_recv_wqe - a receive queue entry header (16 bytes)
 * @wr_id: returned in the completion
 * @num_sge: elements in @sge, at most the QP's max_recv_sge
 * @reserved: zero
 *
 * Followed in the same entry by @num_sge &struct sroce_sge.
 */
struct sroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
};

/**
 * struct sroce_create_qp_cmd - driver tail of CREATE_QP
 * @send_wqe_size: sizeof(struct sroce_send_wqe) the provider was built with
 * @recv_wqe_size: sizeof(struct sroce_recv_wqe) the provider was built with
 * @reserved: must be zero
 *
 * A user QP must be created with this tail.
 */
struct sroce_create_qp_cmd {
	__u32 send_wqe_size;
	__u32 recv_wqe_size;
	__u32 reserved[2];
};

/**
 * struct sroce_create_qp_resp - driver tail of the CREATE_QP response
 * @sq: the send queue ring; its num_entries is the core response's
 *	max_send_wr, its notify_offset the word of &enum sroce_sq_notify
 * @rq: the receive queue ring (num_entries == max_recv_wr; notify unused);
 *	all zero for a QP created with a shared receive queue, which has no
 *	receive queue of its own (max_recv_wr 0; nothing to map)
 * @max_inline_data: inline bytes a send WQE may carry; equal to the
 *	max_inline_data of the core response (the ioctl path of libibverbs
 *	does not return that one to the provider)
 * @reserved: zero
 */
struct sroce_create_qp_resp {
	struct sroce_ring_info sq;
	struct sroce_ring_info rq;
	__u32 max_inline_data;
	__u32 reserved[3];
};

/*
 * Address handles
 * ===============
 *
 * CREATE_AH has no command tail; its response tail names the AH for send
 * WQEs (&struct sroce_send_wqe.ah).  The kernel keeps the address (GIDs,
 * traffic class, hop limit): a WQE carries only the number, checked when
 * the kernel fetches the WQE (an AH of another PD, or one destroyed,
 * completes the WQE with IB_WC_LOC_QP_OP_ERR).
 */

/**
 * struct sroce_create_ah_resp - driver tail of the CREATE_AH response
 * @ah_num: the AH's number, never 0
 * @reserved: zero
 */
struct sroce_create_ah_resp {
	__u32 ah_num;
	__u32 reserved;
};

/*
 * Memory regions and windows: REG_MR, REREG_MR, DEREG_MR, ALLOC_MW and
 * DEALLOC_MW have no driver tail either way.  The core response carries
 * the lkey and rkey (equal for sroce: one key per region, an index in the
 * upper 24 bits and a per-registration variant in the low 8 bits).
 * REREG_MR keeps both keys for a change of rights or PD, and registers
 * anew for a new translation: both keys change, and stay equal.  A
 * window's rkey comes from the same table of indexes; each bind changes
 * its low byte.  DEREG_MR fails with EBUSY while windows are bound to the
 * region.
 */

/*
 * Shared receive queues
 * =====================
 *
 * An SRQ is one receive ring, described by &struct sroce_create_srq_resp,
 * from which every QP created with it takes its receive WQEs (such a QP
 * has no receive queue of its own).  The ring works as a QP's receive
 * queue does: the same &struct sroce_recv_wqe entries, posted by a store of
 * the WQE and a release store of the producer index, no system call (the
 * POST_SRQ_RECV command is not offered).  The kernel copies a WQE when a
 * QP's responder takes it for an incoming message, and moves the consumer
 * index past it at once: the slot may be reused from then on, before the
 * completion (on the receive CQ of the QP that took it) is posted.  WQEs
 * are taken in ring order, whichever QP needs one next.
 *
 * A QP entering the error state completes only the WQE it had taken (with
 * IB_WC_WR_FLUSH_ERR); the WQEs still in the SRQ stay there for the other
 * QPs, and the QP reports IB_EVENT_QP_LAST_WQE_REACHED.
 *
 * MODIFY_SRQ arms the limit (IB_SRQ_LIMIT, at most max_wr): when a WQE is
 * taken and fewer than the limit remain posted, IB_EVENT_SRQ_LIMIT_REACHED
 * is reported once and the limit drops to 0 (disarmed), as QUERY_SRQ
 * shows.  Resizing (IB_SRQ_MAX_WR) is not supported.  MODIFY_SRQ,
 * QUERY_SRQ and DESTROY_SRQ carry no driver data.
 */

/**
 * struct sroce_create_srq_cmd - driver tail of CREATE_SRQ
 * @recv_wqe_size: sizeof(struct sroce_recv_wqe) the provider was built with
 * @reserved: must be zero
 *
 * A user SRQ must be created with this tail.
 */
struct sroce_create_srq_cmd {
	__u32 recv_wqe_size;
	__u32 reserved;
};

/**
 * struct sroce_create_srq_resp - driver tail of the CREATE_SRQ response
 * @rq: the receive ring; its num_entries is the core response's max_wr,
 *	its entries hold the core response's max_sge SGEs (notify unused)
 * @reserved: zero
 */
struct sroce_create_srq_resp {
	struct sroce_ring_info rq;
	__u32 reserved[4];
};

/*
 * Receive work queues and receive side scaling
 * ============================================
 *
 * A receive work queue (WQ, IB_WQT_RQ) is one receive ring, described by
 * &struct sroce_create_wq_resp, that works as an SRQ's does: the same
 * &struct sroce_recv_wqe entries, posted by a store of the WQE and a
 * release store of the producer index, no system call.  Its WQEs complete
 * on the WQ's own CQ, with the WQ's number as the completion's qp_num.
 * Only a WQ in the ready state (IB_WQS_RDY) receives; a frame for a WQ in
 * RESET or ERR is dropped and counted (raw_rx_drops).  Entering ERR
 * completes every WQE posted with IB_WC_WR_FLUSH_ERR; modifying a WQ
 * from ERR to ERR flushes those posted since.  Entering RESET discards
 * the WQEs posted, without completions.
 *
 * An RSS QP (a raw packet QP created with an indirection table of WQs) has
 * no rings of its own: CREATE_QP (the extended command) carries
 * &struct sroce_create_qp_rss_cmd as its driver tail, and its response
 * tail (&struct sroce_create_qp_resp) is all zero.  A frame a flow of the
 * QP steers to it is hashed with the Toeplitz function over the fields
 * @rx_hash_fields_mask names (source before destination address, then
 * source before destination port, each in network byte order, as the
 * Microsoft RSS specification orders them) and goes to the WQ at
 * (hash & (table size - 1)) in the table.
 */

/**
 * struct sroce_create_wq_cmd - driver tail of CREATE_WQ
 * @recv_wqe_size: sizeof(struct sroce_recv_wqe) the provider was built with
 * @reserved: must be zero
 */
struct sroce_create_wq_cmd {
	__u32 recv_wqe_size;
	__u32 reserved;
};

/**
 * struct sroce_create_wq_resp - driver tail of the CREATE_WQ response
 * @rq: the receive ring; its num_entries is the core response's max_wr,
 *	its entries hold the core response's max_sge SGEs (notify unused)
 * @reserved: zero
 */
struct sroce_create_wq_resp {
	struct sroce_ring_info rq;
	__u32 reserved[4];
};

/* &struct sroce_create_qp_rss_cmd.rx_hash_function: the only one */
#define SROCE_RX_HASH_FUNC_TOEPLITZ	(1 << 0)
/* The Toeplitz key's length: the only one accepted */
#define SROCE_RX_HASH_KEY_LEN		40

/* &struct sroce_create_qp_rss_cmd.rx_hash_fields_mask (ibv_rx_hash_fields) */
enum sroce_rx_hash_fields {
	SROCE_RX_HASH_SRC_IPV4 = 1 << 0,
	SROCE_RX_HASH_DST_IPV4 = 1 << 1,
	SROCE_RX_HASH_SRC_IPV6 = 1 << 2,
	SROCE_RX_HASH_DST_IPV6 = 1 << 3,
	SROCE_RX_HASH_SRC_PORT_TCP = 1 << 4,
	SROCE_RX_HASH_DST_PORT_TCP = 1 << 5,
	SROCE_RX_HASH_SRC_PORT_UDP = 1 << 6,
	SROCE_RX_HASH_DST_PORT_UDP = 1 << 7,
};

/**
 * struct sroce_create_qp_rss_cmd - driver tail of CREATE_QP for an RSS QP
 * @rx_hash_fields_mask: &enum sroce_rx_hash_fields; other bits are refused
 * @rx_hash_function: %SROCE_RX_HASH_FUNC_TOEPLITZ
 * @rx_hash_key_len: %SROCE_RX_HASH_KEY_LEN
 * @reserved: must be zero
 * @rx_hash_key: the Toeplitz key
 */
struct sroce_create_qp_rss_cmd {
	__aligned_u64 rx_hash_fields_mask;
	__u8 rx_hash_function;
	__u8 rx_hash_key_len;
	__u8 reserved[6];
	__u8 rx_hash_key[SROCE_RX_HASH_KEY_LEN];
};

#endif /* SROCE_ABI_USER_H */
