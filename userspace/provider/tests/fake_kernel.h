/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * fake_kernel.h - the uverbs write() ABI answered in-process, for
 * provider_load_test.
 *
 * The test executable defines write() and exports it, so libibverbs' write()
 * calls reach fake_kernel_write() first.  Writes to the one file descriptor
 * the test marks as the device (an fd of /dev/null, whose ioctl() answers
 * ENOTTY, which makes libibverbs fall back from ioctl() to write()) are
 * decoded like the kernel's ib_uverbs_write() does and answered by writing
 * the response into the caller's memory at the command's response pointer;
 * every other write() goes to the real system call.
 *
 * The executable also defines verbs_register_driver_34(), so the provider's
 * constructor registers with the test instead of with libibverbs.
 */
#ifndef SROCE_TESTS_FAKE_KERNEL_H
#define SROCE_TESTS_FAKE_KERNEL_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

struct verbs_device_ops;

struct fake_kernel {
	int fd = -1; /* the "uverbs device"; -1: none */

	/* GET_CONTEXT */
	int get_context_errno = 0; /* fail the command with this */
	int async_fd = -1; /* handed out as the context's async fd */
	sroce_alloc_ucontext_resp ucontext{};
	std::size_t ucontext_len = sizeof(sroce_alloc_ucontext_resp);

	/* QUERY_PORT, QUERY_DEVICE, EX_QUERY_DEVICE */
	ib_uverbs_query_port_resp port{};
	std::uint64_t fw_ver = 0;

	/* MODIFY_QP, QUERY_QP, DESTROY_QP, POST_SEND (the doorbell) */
	int qp_errno = 0; /* fail them with this */
	struct {
		std::uint8_t qp_state;
		std::uint32_t max_send_wr;
		std::uint32_t max_recv_sge;
		std::uint32_t dest_qp_num;
	} query_qp{}; /* what QUERY_QP answers; the rest is 0 */

	/* ALLOC_MW, DEALLOC_MW */
	int mw_errno = 0; /* fail them with this */
	std::uint32_t mw_handle = 0; /* what ALLOC_MW answers */
	std::uint32_t mw_rkey = 0;

	/* ATTACH_MCAST, DETACH_MCAST (no response) */
	int mcast_errno = 0; /* fail them with this */

	/* REREG_MR */
	int rereg_errno = 0; /* fail it with this */
	std::uint32_t rereg_lkey = 0; /* what it answers */
	std::uint32_t rereg_rkey = 0;

	/* Every command written to fd, as bytes, and the port numbers asked. */
	std::vector<std::vector<unsigned char>> commands;
	std::vector<unsigned> ports_queried;
};

/* The one instance the write() interposer consults. */
fake_kernel &the_fake_kernel();

/* What the provider's constructor registered, and how often. */
const verbs_device_ops *registered_ops();
int register_calls();

#endif /* SROCE_TESTS_FAKE_KERNEL_H */
