// SPDX-License-Identifier: GPL-2.0
/*
 * ucontext.c - user contexts: the handshake with the user-space provider.
 *
 * The provider sends struct sroce_alloc_ucontext_cmd and receives struct
 * sroce_alloc_ucontext_resp (include/uapi/rdma/sroce-abi.h); QUERY_CONTEXT
 * answers the same response to a provider importing the context
 * (ibv_import_device()).
 */
#include <linux/minmax.h>
#include <rdma/sroce-abi.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME sroce
#include <rdma/uverbs_named_ioctl.h>

#include "sroce.h"

/**
 * sroce_udata_get_cmd() - copy the driver tail of a uverbs command
 * @ibdev: the device (for debug messages)
 * @udata: the command's driver data
 * @cmd: where the tail goes
 * @cmd_len: the size of the tail this kernel knows
 * @resp_len: the room the verb's response tail needs (0: none)
 * @verb: the verb, for debug messages
 *
 * A tail longer than @cmd_len is accepted only if the extra bytes are zero,
 * so a newer provider cannot ask for something this kernel would silently
 * ignore.  The caller checks the fields.
 *
 * Return: 0, -EINVAL (a tail or response room too short, non-zero bytes
 * past the tail) or -EFAULT.
 */
int sroce_udata_get_cmd(struct ib_device *ibdev, struct ib_udata *udata,
			void *cmd, size_t cmd_len, size_t resp_len,
			const char *verb)
{
	int ret;

	if (udata->inlen < cmd_len || udata->outlen < resp_len) {
		ibdev_dbg(ibdev, "%s: driver data %zu/%zu bytes, want %zu/%zu\n",
			  verb, udata->inlen, udata->outlen, cmd_len, resp_len);
		return -EINVAL;
	}
	ret = ib_copy_from_udata(cmd, udata, cmd_len);
	if (ret)
		return ret;
	if (udata->inlen > cmd_len &&
	    !ib_is_udata_cleared(udata, cmd_len, udata->inlen - cmd_len)) {
		ibdev_dbg(ibdev, "%s: unknown trailing driver data\n", verb);
		return -EINVAL;
	}
	return 0;
}

/*
 * Check the provider's command, if any.  No command (inlen 0) is accepted:
 * a generic caller that knows nothing of sroce gets a context too.
 */
static int sroce_ucontext_check_cmd(struct ib_device *ibdev,
				    struct ib_udata *udata)
{
	struct sroce_alloc_ucontext_cmd cmd;
	int ret;

	if (!udata->inlen)
		return 0;
	ret = sroce_udata_get_cmd(ibdev, udata, &cmd, sizeof(cmd), 0,
				  "alloc_ucontext");
	if (ret)
		return ret;
	if (cmd.reserved) {
		ibdev_dbg(ibdev, "context command: reserved field set\n");
		return -EINVAL;
	}
	if (cmd.provider_abi < SROCE_UVERBS_ABI_VERSION_MIN ||
	    cmd.provider_abi > SROCE_UVERBS_ABI_VERSION) {
		ibdev_dbg(ibdev, "provider ABI %u, driver accepts %u..%u\n",
			  cmd.provider_abi, SROCE_UVERBS_ABI_VERSION_MIN,
			  SROCE_UVERBS_ABI_VERSION);
		return -EINVAL;
	}
	return 0;
}

/**
 * sroce_ucontext_alloc() - ops.alloc_ucontext
 * @ibuc: zeroed by the core
 * @udata: the provider's command and response buffers
 *
 * Return: 0, -EINVAL for a command this driver does not accept, -EFAULT.
 */
static const struct sroce_alloc_ucontext_resp sroce_ucontext_resp = {
	.abi_version = SROCE_UVERBS_ABI_VERSION,
	.page_size = PAGE_SIZE,
	.features = SROCE_UCTX_F_ATOMIC_WRITE,
	.max_inline_data = SROCE_MAX_INLINE,
};

int sroce_ucontext_alloc(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct sroce_alloc_ucontext_resp resp = sroce_ucontext_resp;
	int ret;

	ret = sroce_ucontext_check_cmd(ibuc->device, udata);
	if (ret)
		return ret;

	/* An older provider's shorter buffer gets the fields it knows. */
	return ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
}

/**
 * sroce_ucontext_dealloc() - ops.dealloc_ucontext
 * @ibuc: a context whose objects the core has destroyed
 */
void sroce_ucontext_dealloc(struct ib_ucontext *ibuc)
{
}

/**
 * sroce_ucontext_query() - ops.query_ucontext (UVERBS_METHOD_QUERY_CONTEXT)
 * @ibuc: the context of the uverbs file the command came on
 * @attrs: the command; SROCE_ATTR_QUERY_CONTEXT_RESP receives the response
 *	GET_CONTEXT gave (a shorter buffer its first bytes, a longer one
 *	zeroes after them)
 *
 * Every context gets the same answer: nothing of it depends on the
 * provider's command.
 *
 * Return: 0 or -EFAULT.
 */
int sroce_ucontext_query(struct ib_ucontext *ibuc,
			 struct uverbs_attr_bundle *attrs)
{
	struct sroce_alloc_ucontext_resp resp = sroce_ucontext_resp;

	return uverbs_copy_to_struct_or_zero(attrs,
					     SROCE_ATTR_QUERY_CONTEXT_RESP,
					     &resp, sizeof(resp));
}

#define SROCE_QUERY_CONTEXT_RESP_ATTR                                          \
	UVERBS_ATTR_PTR_OUT(SROCE_ATTR_QUERY_CONTEXT_RESP,                     \
			    UVERBS_ATTR_STRUCT(struct sroce_alloc_ucontext_resp, \
					       max_inline_data),               \
			    UA_OPTIONAL)

ADD_UVERBS_ATTRIBUTES_SIMPLE(sroce_query_context, UVERBS_OBJECT_DEVICE,
			     UVERBS_METHOD_QUERY_CONTEXT,
			     SROCE_QUERY_CONTEXT_RESP_ATTR);

static const struct uapi_definition sroce_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &sroce_query_context),
	UAPI_DEF_CHAIN(sroce_dm_uapi_defs),
	{},
};

/**
 * sroce_ucontext_set_uapi() - sroce's additions to the uverbs methods
 * @ibdev: a device not registered yet
 */
void sroce_ucontext_set_uapi(struct ib_device *ibdev)
{
	ibdev->driver_def = sroce_uapi_defs;
}

/**
 * sroce_ucontext_disassociate() - ops.disassociate_ucontext
 * @ibuc: a context whose objects the core has just destroyed, its process
 *	still running
 *
 * Having this op tells ib_uverbs that a device may go away while
 * processes hold contexts of it (rdma link delete, its netdev
 * unregistered, its namespace deleted, rmmod): it destroys their objects,
 * sends them IB_EVENT_DEVICE_FATAL, and returns; every later command of
 * theirs fails with EIO.  Without it the removal waits, uninterruptibly,
 * until every process closed the device, which an idle one never does:
 * `rdma link delete` hangs, and with it the netdev's unregistration and
 * the namespace's cleanup.
 *
 * Nothing is left to do here.  The rings a process mapped are ordinary
 * pages that vm_insert_page() referenced (queue.c): they stay the
 * process's, and no longer the kernel's, until it unmaps them; its memory
 * regions were unpinned with their destruction.  No mapping of sroce has
 * vm_ops of its own or points into the module, so none needs zapping,
 * and the module may go before the process.
 */
void sroce_ucontext_disassociate(struct ib_ucontext *ibuc)
{
}
