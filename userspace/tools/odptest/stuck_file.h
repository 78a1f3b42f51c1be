// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * stuck_file.h - a file whose reads do not return until told: a minimal
 * FUSE server on /dev/fuse (no libfuse) that serves one regular file,
 * "f", and holds back the answer to every READ until release().  A page
 * fault on a mapping of it blocks in the kernel for that long, as one on
 * a FUSE file whose daemon hangs (issue #34, finding 1).  Needs
 * CAP_SYS_ADMIN (mount).
 */
#ifndef SROCE_TOOLS_STUCK_FILE_H
#define SROCE_TOOLS_STUCK_FILE_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

class stuck_file {
public:
	stuck_file() = default;
	stuck_file(const stuck_file &) = delete;
	stuck_file &operator=(const stuck_file &) = delete;
	stuck_file(stuck_file &&) = delete;
	stuck_file &operator=(stuck_file &&) = delete;
	~stuck_file();

	/* Mount it (a temporary directory) with "f" of size bytes. */
	bool start(std::size_t size);
	/* The path of "f". */
	[[nodiscard]] std::string path() const { return dir_ + "/f"; }
	/* READs held back so far. */
	[[nodiscard]] std::size_t held();
	/* Answer the held READs (zeros), and every later one at once. */
	void release();

private:
	void serve();
	void reply(std::uint64_t unique, int error, const void *data,
		   std::size_t len);
	void answer_read(std::uint64_t unique, std::uint32_t size);

	int fd_ = -1;
	std::string dir_;
	std::size_t size_ = 0;
	std::thread thread_;
	std::mutex lock_;
	bool released_ = false;
	std::atomic<bool> stop_ = false;
	std::vector<std::pair<std::uint64_t, std::uint32_t>> held_;
	std::vector<char> zeros_;
};

#endif /* SROCE_TOOLS_STUCK_FILE_H */
