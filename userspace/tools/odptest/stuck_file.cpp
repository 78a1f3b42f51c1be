// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * stuck_file.cpp - a FUSE file whose reads wait for release()
 * (stuck_file.h).
 */
#include "stuck_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <linux/fuse.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

namespace {

constexpr std::uint64_t file_ino = 2;

void fill_attr(fuse_attr &a, std::uint64_t ino, std::size_t size)
{
	a = {};
	a.ino = ino;
	a.size = ino == FUSE_ROOT_ID ? 0 : size;
	a.blocks = (a.size + 511) / 512;
	a.mode = ino == FUSE_ROOT_ID ? (S_IFDIR | 0755) : (S_IFREG | 0644);
	a.nlink = ino == FUSE_ROOT_ID ? 2 : 1;
	a.blksize = 4096;
}

} /* namespace */

bool stuck_file::start(std::size_t size)
{
	char tmpl[] = "/tmp/sroce-fuse-XXXXXX";

	size_ = size;
	/* Nothing allocates later: mmap() may wait for the blocked faults. */
	zeros_.assign(std::size_t{1} << 20, 0);
	held_.reserve(65536);
	fd_ = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd_ < 0)
		return false;
	if (mkdtemp(tmpl) == nullptr)
		return false;
	dir_ = tmpl;
	const std::string opts = "fd=" + std::to_string(fd_) +
				 ",rootmode=40000,user_id=0,group_id=0";
	if (mount("sroce-stuck", dir_.c_str(), "fuse", MS_NOSUID | MS_NODEV,
		  opts.c_str()) != 0)
		return false;
	thread_ = std::thread([this] { serve(); });
	return true;
}

stuck_file::~stuck_file()
{
	release();
	if (!dir_.empty()) {
		umount2(dir_.c_str(), MNT_DETACH);
		rmdir(dir_.c_str());
	}
	stop_ = true;
	if (thread_.joinable())
		thread_.join();
	if (fd_ >= 0)
		close(fd_);
}

std::size_t stuck_file::held()
{
	const std::lock_guard<std::mutex> g(lock_);

	return held_.size();
}

void stuck_file::release()
{
	std::vector<std::pair<std::uint64_t, std::uint32_t>> h;
	{
		const std::lock_guard<std::mutex> g(lock_);

		released_ = true;
		h.swap(held_);
	}
	for (const auto &[unique, size] : h)
		answer_read(unique, size);
}

void stuck_file::reply(std::uint64_t unique, int error, const void *data,
		       std::size_t len)
{
	fuse_out_header oh{};
	iovec iov[2] = {{&oh, sizeof(oh)}, {const_cast<void *>(data), len}};

	oh.len = static_cast<std::uint32_t>(sizeof(oh) + len);
	oh.error = -error;
	oh.unique = unique;
	(void)writev(fd_, iov, len ? 2 : 1);
}

void stuck_file::answer_read(std::uint64_t unique, std::uint32_t size)
{
	reply(unique, 0, zeros_.data(),
	      std::min<std::size_t>(size, zeros_.size()));
}

void stuck_file::serve()
{
	std::vector<char> buf(std::size_t{1} << 20);

	while (!stop_) {
		pollfd p{fd_, POLLIN, 0};

		if (poll(&p, 1, 100) <= 0)
			continue;
		const ssize_t n = read(fd_, buf.data(), buf.size());

		if (n < 0 &&
		    (errno == EINTR || errno == EAGAIN || errno == ENOENT))
			continue;
		if (n < static_cast<ssize_t>(sizeof(fuse_in_header)))
			return; /* unmounted: ENODEV */
		fuse_in_header ih;

		std::memcpy(&ih, buf.data(), sizeof(ih));
		const char *arg = buf.data() + sizeof(ih);

		switch (ih.opcode) {
		case FUSE_INIT: {
			fuse_init_in in{};
			fuse_init_out out{};

			std::memcpy(&in, arg,
				    std::min<std::size_t>(sizeof(in),
							  n - sizeof(ih)));
			out.major = FUSE_KERNEL_VERSION;
			out.minor = std::min<std::uint32_t>(
				in.minor, FUSE_KERNEL_MINOR_VERSION);
			out.max_readahead = in.max_readahead;
			out.max_write = 4096;
			out.max_background = 16;
			out.congestion_threshold = 12;
			reply(ih.unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_LOOKUP: {
			fuse_entry_out out{};

			if (ih.nodeid != FUSE_ROOT_ID ||
			    std::strcmp(arg, "f") != 0) {
				reply(ih.unique, ENOENT, nullptr, 0);
				break;
			}
			out.nodeid = file_ino;
			out.attr_valid = 3600;
			out.entry_valid = 3600;
			fill_attr(out.attr, file_ino, size_);
			reply(ih.unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_GETATTR: {
			fuse_attr_out out{};

			out.attr_valid = 3600;
			fill_attr(out.attr, ih.nodeid, size_);
			reply(ih.unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			fuse_open_out out{};

			reply(ih.unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_READ: {
			fuse_read_in in{};

			std::memcpy(&in, arg, sizeof(in));
			bool now = false;
			{
				const std::lock_guard<std::mutex> g(lock_);

				now = released_;
				if (!now)
					held_.emplace_back(ih.unique, in.size);
			}
			if (now)
				answer_read(ih.unique, in.size);
			break;
		}
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
			break; /* no reply */
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
			reply(ih.unique, 0, nullptr, 0);
			break;
		case FUSE_DESTROY:
			reply(ih.unique, 0, nullptr, 0);
			return;
		default:
			reply(ih.unique, ENOSYS, nullptr, 0);
			break;
		}
	}
}
