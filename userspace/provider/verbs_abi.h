/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * verbs_abi.h - the part of libibverbs' private provider ABI that sroce uses.
 *
 * rdma-core does not install its provider header, so this file declares,
 * from the documented facts (Documentation/provider.md and the project's
 * reference notes on rdma-core 44), exactly the structures and functions the
 * provider touches.  The private ABI is versioned IBVERBS_PRIVATE_34 for
 * rdma-core 34..56, but its layouts changed inside that range without a
 * version bump, so these declarations are pinned to the v44 layout (identical
 * to v56) and every size and offset is checked below with static_assert.  The
 * build refuses a libibverbs outside 44..56 (see CMakeLists.txt).
 *
 * Structures and functions keep rdma-core's names: libibverbs' public
 * <infiniband/verbs.h> already refers to some of them (struct
 * verbs_device_ops), and the same objects cross the boundary in both
 * directions.  The names live in the global namespace for that reason only.
 *
 * The functions imported from libibverbs are declared in verbs_abi_cmd.h;
 * each is bound to the IBVERBS_PRIVATE_34 version node with a .symver
 * directive (SROCE_IBVERBS_PRIVATE below), so the link fails, instead of
 * binding silently to something else, if the installed libibverbs does not
 * offer the symbol at that version.
 */
#ifndef SROCE_PROVIDER_VERBS_ABI_H
#define SROCE_PROVIDER_VERBS_ABI_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <iterator>
#include <sys/types.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

/* Bind an imported libibverbs symbol to the private version node. */
#define SROCE_IBVERBS_PRIVATE(sym) \
	__asm__(".symver " #sym "," #sym "@IBVERBS_PRIVATE_34")

/* How a match table entry is compared with a device (verbs_match_ent.kind). */
enum : std::uint8_t {
	VERBS_MATCH_SENTINEL = 0, /* end of the table */
	VERBS_MATCH_PCI = 1, /* vendor/device ids of the PCI parent */
	VERBS_MATCH_MODALIAS = 2, /* fnmatch() pattern over the modalias */
	VERBS_MATCH_DRIVER_ID = 3, /* the kernel's rdma_driver_id */
};

/* Log levels of __verbs_log(); printed when VERBS_LOG_LEVEL >= level. */
enum : std::uint32_t {
	VERBS_LOG_LEVEL_NONE = 0,
	VERBS_LOG_ERR = 1,
	VERBS_LOG_WARN = 2,
	VERBS_LOG_INFO = 3,
	VERBS_LOG_DEBUG = 4,
};

/* A node of libibverbs' intrusive doubly linked lists (ccan list). */
struct verbs_list_node {
	verbs_list_node *next;
	verbs_list_node *prev;
};

/*
 * One row of a provider's match table.  The table ends with a row whose kind
 * is VERBS_MATCH_SENTINEL.
 */
struct verbs_match_ent {
	void *driver_data; /* handed back through verbs_sysfs_dev.match */
	union {
		const char *modalias; /* VERBS_MATCH_MODALIAS pattern */
		std::uint64_t driver_id; /* VERBS_MATCH_DRIVER_ID value */
	} u;
	std::uint16_t vendor; /* VERBS_MATCH_PCI only */
	std::uint16_t device; /* VERBS_MATCH_PCI only */
	std::uint8_t kind;
};

/* What libibverbs learnt about one uverbs device from sysfs.  Read only. */
struct verbs_sysfs_dev {
	verbs_list_node entry;
	void *provider_data;
	const verbs_match_ent *match; /* the row that matched this device */
	unsigned int flags;
	char sysfs_name[64]; /* uverbsN */
	dev_t sysfs_cdev;
	char ibdev_name[64]; /* the ib_device's name, e.g. "s0" */
	char ibdev_path[256];
	char modalias[512];
	std::uint64_t node_guid;
	std::uint32_t driver_id; /* the kernel's ib_device_ops.driver_id */
	ibv_node_type node_type;
	int ibdev_idx;
	std::uint32_t num_ports;
	std::uint32_t abi_ver; /* ib_device_ops.uverbs_abi_ver */
	timespec time_created;
};

struct verbs_device;

/* What a provider hands to verbs_register_driver_34(). */
struct verbs_device_ops {
	const char *name;
	std::uint32_t match_min_abi_version;
	std::uint32_t match_max_abi_version;
	const verbs_match_ent *match_table;
	const verbs_device_ops **static_providers; /* NULL for a plugin */
	bool (*match_device)(verbs_sysfs_dev *sysfs_dev);
	verbs_context *(*alloc_context)(ibv_device *device, int cmd_fd,
					void *private_data);
	verbs_context *(*import_context)(ibv_device *device, int cmd_fd);
	verbs_device *(*alloc_device)(verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(verbs_device *device);
};

/*
 * The provider's device object embeds this first.  libibverbs fills ops,
 * refcount, entry and sysfs after alloc_device() returns and owns them.
 */
struct verbs_device {
	ibv_device device;
	const verbs_device_ops *ops;
	std::atomic_int refcount; /* C11 atomic_int in libibverbs */
	verbs_list_node entry;
	verbs_sysfs_dev *sysfs;
	std::uint64_t core_support;
};

/*
 * The XRC domain object (ibv_open_xrcd()): the uverbs handle of the
 * domain, which ibv_cmd_open_xrcd() sets (comp_mask VERBS_XRCD_HANDLE).
 */
struct verbs_xrcd {
	ibv_xrcd xrcd;
	std::uint32_t comp_mask;
	std::uint32_t handle;
};

/*
 * The extended SRQ object: ibv_cmd_create_srq_ex() sets the type and, for
 * an XRC SRQ, its domain, CQ and number (ibv_get_srq_num()).
 */
struct verbs_srq {
	ibv_srq srq;
	ibv_srq_type srq_type;
	verbs_xrcd *xrcd;
	ibv_cq *cq;
	std::uint32_t srq_num;
};

/* The extended MR object: dereg_mr and rereg_mr receive this. */
struct verbs_mr {
	ibv_mr mr;
	std::uint32_t mr_type; /* rdma-core's enum ibv_mr_type */
	int access;
};

/*
 * The extended DM object: ibv_cmd_alloc_dm() sets dm.context, dm.handle,
 * dm.comp_mask (IBV_DM_MASK_HANDLE) and handle; the provider sets the
 * memcpy functions.
 */
struct verbs_dm {
	ibv_dm dm;
	std::uint32_t handle;
};

/* The extended CQ object (verbs_init_cq() initialises it). */
struct verbs_cq {
	union {
		ibv_cq cq;
		ibv_cq_ex cq_ex;
	};
};

/*
 * verbs_qp.comp_mask: VERBS_QP_EX says the QP has the ibv_wr_*() post
 * API, and ibv_qp_to_qp_ex() returns its ibv_qp_ex only then.
 */
enum : std::uint32_t {
	VERBS_QP_XRCD = 1U << 0,
	VERBS_QP_EX = 1U << 1,
};

/* The extended QP object. */
struct verbs_qp {
	union {
		ibv_qp qp;
		ibv_qp_ex qp_ex;
	};
	std::uint32_t comp_mask;
	verbs_xrcd *xrcd;
};

/*
 * The provider's operations.  verbs_set_ops() copies every non-NULL member
 * into the context, so a provider fills only what it implements.  The
 * members are sorted by name; the order IS the ABI: do not reorder.
 */
struct verbs_context_ops {
	int (*advise_mr)(ibv_pd *pd, ibv_advise_mr_advice advice,
			 std::uint32_t flags, ibv_sge *sg_list,
			 std::uint32_t num_sges);
	ibv_dm *(*alloc_dm)(ibv_context *context, ibv_alloc_dm_attr *attr);
	ibv_mw *(*alloc_mw)(ibv_pd *pd, ibv_mw_type type);
	ibv_mr *(*alloc_null_mr)(ibv_pd *pd);
	ibv_pd *(*alloc_parent_domain)(ibv_context *context,
				       ibv_parent_domain_init_attr *attr);
	ibv_pd *(*alloc_pd)(ibv_context *context);
	ibv_td *(*alloc_td)(ibv_context *context, ibv_td_init_attr *init_attr);
	void (*async_event)(ibv_context *context, ibv_async_event *event);
	int (*attach_counters_point_flow)(ibv_counters *counters,
					  ibv_counter_attach_attr *attr,
					  ibv_flow *flow);
	int (*attach_mcast)(ibv_qp *qp, const ibv_gid *gid, std::uint16_t lid);
	int (*bind_mw)(ibv_qp *qp, ibv_mw *mw, ibv_mw_bind *mw_bind);
	int (*close_xrcd)(ibv_xrcd *xrcd);
	void (*cq_event)(ibv_cq *cq);
	ibv_ah *(*create_ah)(ibv_pd *pd, ibv_ah_attr *attr);
	ibv_counters *(*create_counters)(ibv_context *context,
					 ibv_counters_init_attr *init_attr);
	ibv_cq *(*create_cq)(ibv_context *context, int cqe,
			     ibv_comp_channel *channel, int comp_vector);
	ibv_cq_ex *(*create_cq_ex)(ibv_context *context,
				   ibv_cq_init_attr_ex *init_attr);
	ibv_flow *(*create_flow)(ibv_qp *qp, ibv_flow_attr *flow_attr);
	ibv_flow_action *(*create_flow_action_esp)(
		ibv_context *context, ibv_flow_action_esp_attr *attr);
	ibv_qp *(*create_qp)(ibv_pd *pd, ibv_qp_init_attr *attr);
	ibv_qp *(*create_qp_ex)(ibv_context *context,
				ibv_qp_init_attr_ex *qp_init_attr_ex);
	ibv_rwq_ind_table *(*create_rwq_ind_table)(
		ibv_context *context, ibv_rwq_ind_table_init_attr *init_attr);
	ibv_srq *(*create_srq)(ibv_pd *pd, ibv_srq_init_attr *srq_init_attr);
	ibv_srq *(*create_srq_ex)(ibv_context *context,
				  ibv_srq_init_attr_ex *srq_init_attr_ex);
	ibv_wq *(*create_wq)(ibv_context *context,
			     ibv_wq_init_attr *wq_init_attr);
	int (*dealloc_mw)(ibv_mw *mw);
	int (*dealloc_pd)(ibv_pd *pd);
	int (*dealloc_td)(ibv_td *td);
	int (*dereg_mr)(verbs_mr *vmr);
	int (*destroy_ah)(ibv_ah *ah);
	int (*destroy_counters)(ibv_counters *counters);
	int (*destroy_cq)(ibv_cq *cq);
	int (*destroy_flow)(ibv_flow *flow);
	int (*destroy_flow_action)(ibv_flow_action *action);
	int (*destroy_qp)(ibv_qp *qp);
	int (*destroy_rwq_ind_table)(ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(ibv_srq *srq);
	int (*destroy_wq)(ibv_wq *wq);
	int (*detach_mcast)(ibv_qp *qp, const ibv_gid *gid, std::uint16_t lid);
	void (*free_context)(ibv_context *context);
	int (*free_dm)(ibv_dm *dm);
	int (*get_srq_num)(ibv_srq *srq, std::uint32_t *srq_num);
	ibv_dm *(*import_dm)(ibv_context *context, std::uint32_t dm_handle);
	ibv_mr *(*import_mr)(ibv_pd *pd, std::uint32_t mr_handle);
	ibv_pd *(*import_pd)(ibv_context *context, std::uint32_t pd_handle);
	int (*modify_cq)(ibv_cq *cq, ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(ibv_flow_action *action,
				      ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(ibv_qp *qp, ibv_qp_attr *attr, int attr_mask);
	int (*modify_qp_rate_limit)(ibv_qp *qp, ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(ibv_srq *srq, ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*modify_wq)(ibv_wq *wq, ibv_wq_attr *wq_attr);
	ibv_qp *(*open_qp)(ibv_context *context, ibv_qp_open_attr *attr);
	ibv_xrcd *(*open_xrcd)(ibv_context *context,
			       ibv_xrcd_init_attr *xrcd_init_attr);
	int (*poll_cq)(ibv_cq *cq, int num_entries, ibv_wc *wc);
	int (*post_recv)(ibv_qp *qp, ibv_recv_wr *wr, ibv_recv_wr **bad_wr);
	int (*post_send)(ibv_qp *qp, ibv_send_wr *wr, ibv_send_wr **bad_wr);
	int (*post_srq_ops)(ibv_srq *srq, ibv_ops_wr *op, ibv_ops_wr **bad_op);
	int (*post_srq_recv)(ibv_srq *srq, ibv_recv_wr *recv_wr,
			     ibv_recv_wr **bad_recv_wr);
	int (*query_device_ex)(ibv_context *context,
			       const ibv_query_device_ex_input *input,
			       ibv_device_attr_ex *attr, std::size_t attr_size);
	int (*query_ece)(ibv_qp *qp, ibv_ece *ece);
	int (*query_port)(ibv_context *context, std::uint8_t port_num,
			  ibv_port_attr *port_attr);
	int (*query_qp)(ibv_qp *qp, ibv_qp_attr *attr, int attr_mask,
			ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(ibv_qp *qp, ibv_wr_opcode op,
				      std::uint32_t flags);
	int (*query_rt_values)(ibv_context *context, ibv_values_ex *values);
	int (*query_srq)(ibv_srq *srq, ibv_srq_attr *srq_attr);
	int (*read_counters)(ibv_counters *counters,
			     std::uint64_t *counters_value,
			     std::uint32_t ncounters, std::uint32_t flags);
	ibv_mr *(*reg_dm_mr)(ibv_pd *pd, ibv_dm *dm, std::uint64_t dm_offset,
			     std::size_t length, unsigned int access);
	ibv_mr *(*reg_dmabuf_mr)(ibv_pd *pd, std::uint64_t offset,
				 std::size_t length, std::uint64_t iova, int fd,
				 int access);
	ibv_mr *(*reg_mr)(ibv_pd *pd, void *addr, std::size_t length,
			  std::uint64_t hca_va, int access);
	int (*req_notify_cq)(ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(verbs_mr *vmr, int flags, ibv_pd *pd, void *addr,
			std::size_t length, int access);
	int (*resize_cq)(ibv_cq *cq, int cqe);
	int (*set_ece)(ibv_qp *qp, ibv_ece *ece);
	void (*unimport_dm)(ibv_dm *dm);
	void (*unimport_mr)(ibv_mr *mr);
	void (*unimport_pd)(ibv_pd *pd);
};

/*
 * The layouts of rdma-core v44.0 (= v56.0) on x86_64, as measured there.  A
 * mismatch here is memory corruption at run time: fix the declaration, never
 * the number.
 */
#if defined(__x86_64__)
static_assert(sizeof(verbs_list_node) == 16);

static_assert(sizeof(verbs_match_ent) == 24);
static_assert(offsetof(verbs_match_ent, driver_data) == 0);
static_assert(offsetof(verbs_match_ent, u) == 8);
static_assert(offsetof(verbs_match_ent, vendor) == 16);
static_assert(offsetof(verbs_match_ent, device) == 18);
static_assert(offsetof(verbs_match_ent, kind) == 20);

static_assert(sizeof(verbs_sysfs_dev) == 992);
static_assert(offsetof(verbs_sysfs_dev, provider_data) == 16);
static_assert(offsetof(verbs_sysfs_dev, match) == 24);
static_assert(offsetof(verbs_sysfs_dev, flags) == 32);
static_assert(offsetof(verbs_sysfs_dev, sysfs_name) == 36);
static_assert(offsetof(verbs_sysfs_dev, sysfs_cdev) == 104);
static_assert(offsetof(verbs_sysfs_dev, ibdev_name) == 112);
static_assert(offsetof(verbs_sysfs_dev, ibdev_path) == 176);
static_assert(offsetof(verbs_sysfs_dev, modalias) == 432);
static_assert(offsetof(verbs_sysfs_dev, node_guid) == 944);
static_assert(offsetof(verbs_sysfs_dev, driver_id) == 952);
static_assert(offsetof(verbs_sysfs_dev, node_type) == 956);
static_assert(offsetof(verbs_sysfs_dev, ibdev_idx) == 960);
static_assert(offsetof(verbs_sysfs_dev, num_ports) == 964);
static_assert(offsetof(verbs_sysfs_dev, abi_ver) == 968);
static_assert(offsetof(verbs_sysfs_dev, time_created) == 976);

static_assert(sizeof(verbs_device_ops) == 72);
static_assert(offsetof(verbs_device_ops, name) == 0);
static_assert(offsetof(verbs_device_ops, match_min_abi_version) == 8);
static_assert(offsetof(verbs_device_ops, match_max_abi_version) == 12);
static_assert(offsetof(verbs_device_ops, match_table) == 16);
static_assert(offsetof(verbs_device_ops, static_providers) == 24);
static_assert(offsetof(verbs_device_ops, match_device) == 32);
static_assert(offsetof(verbs_device_ops, alloc_context) == 40);
static_assert(offsetof(verbs_device_ops, import_context) == 48);
static_assert(offsetof(verbs_device_ops, alloc_device) == 56);
static_assert(offsetof(verbs_device_ops, uninit_device) == 64);

static_assert(sizeof(ibv_device) == 664);
static_assert(sizeof(std::atomic_int) == 4 && alignof(std::atomic_int) == 4);
static_assert(std::atomic_int::is_always_lock_free);
static_assert(sizeof(verbs_device) == 712);
static_assert(offsetof(verbs_device, device) == 0);
static_assert(offsetof(verbs_device, ops) == 664);
static_assert(offsetof(verbs_device, refcount) == 672);
static_assert(offsetof(verbs_device, entry) == 680);
static_assert(offsetof(verbs_device, sysfs) == 696);
static_assert(offsetof(verbs_device, core_support) == 704);

static_assert(sizeof(verbs_mr) == 56);
static_assert(offsetof(verbs_mr, mr_type) == 48);
static_assert(offsetof(verbs_mr, access) == 52);
static_assert(sizeof(ibv_dm) == 32);
static_assert(sizeof(verbs_dm) == 40);
static_assert(offsetof(verbs_dm, handle) == 32);
static_assert(sizeof(verbs_cq) == 288);
static_assert(sizeof(verbs_qp) == 368);
static_assert(offsetof(verbs_qp, comp_mask) == 352);
static_assert(offsetof(verbs_qp, xrcd) == 360);
static_assert(sizeof(verbs_xrcd) == 16);
static_assert(offsetof(verbs_xrcd, comp_mask) == 8);
static_assert(offsetof(verbs_xrcd, handle) == 12);
static_assert(sizeof(ibv_srq) == 128);
static_assert(sizeof(verbs_srq) == 160);
static_assert(offsetof(verbs_srq, srq_type) == 128);
static_assert(offsetof(verbs_srq, xrcd) == 136);
static_assert(offsetof(verbs_srq, cq) == 144);
static_assert(offsetof(verbs_srq, srq_num) == 152);

/*
 * The 76 members in the documented order.  Each must sit at its index times
 * the pointer size, and the list must be sorted by name (strcmp order), which
 * is how rdma-core lays the structure out.
 */
#define SROCE_VERBS_CONTEXT_OPS(X)    \
	X(advise_mr)                  \
	X(alloc_dm)                   \
	X(alloc_mw)                   \
	X(alloc_null_mr)              \
	X(alloc_parent_domain)        \
	X(alloc_pd)                   \
	X(alloc_td)                   \
	X(async_event)                \
	X(attach_counters_point_flow) \
	X(attach_mcast)               \
	X(bind_mw)                    \
	X(close_xrcd)                 \
	X(cq_event)                   \
	X(create_ah)                  \
	X(create_counters)            \
	X(create_cq)                  \
	X(create_cq_ex)               \
	X(create_flow)                \
	X(create_flow_action_esp)     \
	X(create_qp)                  \
	X(create_qp_ex)               \
	X(create_rwq_ind_table)       \
	X(create_srq)                 \
	X(create_srq_ex)              \
	X(create_wq)                  \
	X(dealloc_mw)                 \
	X(dealloc_pd)                 \
	X(dealloc_td)                 \
	X(dereg_mr)                   \
	X(destroy_ah)                 \
	X(destroy_counters)           \
	X(destroy_cq)                 \
	X(destroy_flow)               \
	X(destroy_flow_action)        \
	X(destroy_qp)                 \
	X(destroy_rwq_ind_table)      \
	X(destroy_srq)                \
	X(destroy_wq)                 \
	X(detach_mcast)               \
	X(free_context)               \
	X(free_dm)                    \
	X(get_srq_num)                \
	X(import_dm)                  \
	X(import_mr)                  \
	X(import_pd)                  \
	X(modify_cq)                  \
	X(modify_flow_action_esp)     \
	X(modify_qp)                  \
	X(modify_qp_rate_limit)       \
	X(modify_srq)                 \
	X(modify_wq)                  \
	X(open_qp)                    \
	X(open_xrcd)                  \
	X(poll_cq)                    \
	X(post_recv)                  \
	X(post_send)                  \
	X(post_srq_ops)               \
	X(post_srq_recv)              \
	X(query_device_ex)            \
	X(query_ece)                  \
	X(query_port)                 \
	X(query_qp)                   \
	X(query_qp_data_in_order)     \
	X(query_rt_values)            \
	X(query_srq)                  \
	X(read_counters)              \
	X(reg_dm_mr)                  \
	X(reg_dmabuf_mr)              \
	X(reg_mr)                     \
	X(req_notify_cq)              \
	X(rereg_mr)                   \
	X(resize_cq)                  \
	X(set_ece)                    \
	X(unimport_dm)                \
	X(unimport_mr)                \
	X(unimport_pd)

namespace sroce::abi_check {
#define SROCE_OP_OFFSET(name) offsetof(verbs_context_ops, name),
#define SROCE_OP_NAME(name)   #name,
inline constexpr std::size_t ops_offsets[] = {
	SROCE_VERBS_CONTEXT_OPS(SROCE_OP_OFFSET)};
inline constexpr const char *ops_names[] = {
	SROCE_VERBS_CONTEXT_OPS(SROCE_OP_NAME)};
#undef SROCE_OP_OFFSET
#undef SROCE_OP_NAME

consteval bool str_less(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b) {
		++a;
		++b;
	}
	return static_cast<unsigned char>(*a) < static_cast<unsigned char>(*b);
}

consteval bool ops_in_documented_order()
{
	constexpr std::size_t n = std::size(ops_offsets);
	for (std::size_t i = 0; i < n; ++i) {
		if (ops_offsets[i] != i * sizeof(void (*)()))
			return false;
		if (i > 0 && !str_less(ops_names[i - 1], ops_names[i]))
			return false;
	}
	return true;
}
} /* namespace sroce::abi_check */

static_assert(std::size(sroce::abi_check::ops_offsets) == 76);
static_assert(sizeof(verbs_context_ops) == 76 * sizeof(void (*)()));
static_assert(sroce::abi_check::ops_in_documented_order());

/* Public, but the provider embeds it: check what it relies on. */
static_assert(sizeof(verbs_context) == 648);
static_assert(offsetof(verbs_context, context) == 320);
#else
#error "sroce: the private libibverbs layouts are only checked for x86_64"
#endif

#endif /* SROCE_PROVIDER_VERBS_ABI_H */
