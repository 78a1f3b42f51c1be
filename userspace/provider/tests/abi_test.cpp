// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The provider under a libibverbs it was not built for, short of installing
 * another rdma-core: copies of the installed libibverbs (rdma-core 44) in a
 * temporary directory, named or doctored as another release, are what
 * provider_abi_child loads the provider into (LD_LIBRARY_PATH).
 *
 *  - another private ABI: the copy's version definition IBVERBS_PRIVATE_34
 *    renamed IBVERBS_PRIVATE_57 (what rdma-core 57 defines instead): the
 *    provider must not load at all, with the dynamic loader's message
 *    naming the version it lacks, and nothing may crash;
 *  - the same private ABI from a release whose layouts differ (rdma-core
 *    40, or a 57 that kept IBVERBS_PRIVATE_34): it loads, but its
 *    constructor must not register and must say why;
 *  - the releases it is built for (44, and 56, the last one pinned): it
 *    registers, silently.
 */
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

extern char **environ;

namespace {

std::uint32_t elf_hash(const char *name)
{
	std::uint32_t h = 0;

	for (; *name != '\0'; ++name) {
		h = (h << 4) + static_cast<unsigned char>(*name);
		const std::uint32_t g = h & 0xf0000000U;
		if (g != 0)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

template <typename T>
T *at(std::vector<char> &data, std::size_t off)
{
	if (off + sizeof(T) > data.size())
		return nullptr;
	return reinterpret_cast<T *>(data.data() + off);
}

/*
 * Rename the version definition @from of the shared object @data to @to (of
 * the same length), hash included.  Returns whether it was found.
 */
bool rename_version_definition(std::vector<char> &data, const char *from,
			       const char *to)
{
	const auto *eh = at<Elf64_Ehdr>(data, 0);
	if (eh == nullptr || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    std::strlen(from) != std::strlen(to))
		return false;
	for (unsigned i = 0; i < eh->e_shnum; ++i) {
		const auto *sh = at<Elf64_Shdr>(
			data, eh->e_shoff + std::size_t{i} * eh->e_shentsize);
		if (sh == nullptr || sh->sh_type != SHT_GNU_verdef)
			continue;
		const auto *strtab = at<Elf64_Shdr>(
			data, eh->e_shoff + std::size_t{sh->sh_link} *
						    eh->e_shentsize);
		if (strtab == nullptr)
			return false;
		std::size_t off = sh->sh_offset;
		for (;;) {
			auto *vd = at<Elf64_Verdef>(data, off);
			if (vd == nullptr)
				return false;
			const auto *aux =
				at<Elf64_Verdaux>(data, off + vd->vd_aux);
			if (aux == nullptr)
				return false;
			const std::size_t name =
				strtab->sh_offset + aux->vda_name;
			if (name + std::strlen(from) < data.size() &&
			    std::strcmp(data.data() + name, from) == 0) {
				std::memcpy(data.data() + name, to,
					    std::strlen(to));
				vd->vd_hash = elf_hash(to);
				return true;
			}
			if (vd->vd_next == 0)
				return false;
			off += vd->vd_next;
		}
	}
	return false;
}

struct child_result {
	bool exited = false;
	int status = -1; /* exit status, or the signal */
	std::string output; /* stdout and stderr */
};

class ProviderAbi : public ::testing::Test {
protected:
	void SetUp() override
	{
		char tmpl[] = "/tmp/sroce-abi-XXXXXX";
		ASSERT_NE(mkdtemp(tmpl), nullptr);
		dir_ = tmpl;
		char *real = realpath(SROCE_LIBIBVERBS, nullptr);
		ASSERT_NE(real, nullptr) << SROCE_LIBIBVERBS;
		std::ifstream in(real, std::ios::binary);
		std::free(real);
		lib_.assign(std::istreambuf_iterator<char>(in), {});
		ASSERT_GT(lib_.size(), sizeof(Elf64_Ehdr));
	}

	void TearDown() override
	{
		std::error_code ec;
		if (!dir_.empty())
			std::filesystem::remove_all(dir_, ec);
	}

	/*
	 * Put @data into the directory as rdma-core @release's file name,
	 * libibverbs.so.1.14.<release>.0, with the libibverbs.so.1 link.
	 */
	void install_lib(const std::vector<char> &data, int release)
	{
		const std::string name =
			"libibverbs.so.1.14." + std::to_string(release) + ".0";
		std::ofstream out(dir_ + "/" + name, std::ios::binary);
		out.write(data.data(),
			  static_cast<std::streamsize>(data.size()));
		out.close();
		ASSERT_TRUE(out.good());
		ASSERT_EQ(symlink(name.c_str(),
				  (dir_ + "/libibverbs.so.1").c_str()),
			  0);
	}

	child_result run_child()
	{
		child_result r;
		const std::string out_path = dir_ + "/child.out";
		const std::string ld = "LD_LIBRARY_PATH=" + dir_;
		std::vector<std::string> env_store{ld};
		for (char **e = environ; *e != nullptr; ++e)
			if (std::strncmp(*e, "LD_LIBRARY_PATH=", 16) != 0 &&
			    std::strncmp(*e, "LD_PRELOAD=", 11) != 0)
				env_store.emplace_back(*e);
		std::vector<char *> envp;
		envp.reserve(env_store.size() + 1);
		for (auto &e : env_store)
			envp.push_back(e.data());
		envp.push_back(nullptr);
		std::string child = SROCE_ABI_CHILD;
		std::string so = SROCE_PROVIDER_SO;
		char *argv[] = {child.data(), so.data(), nullptr};

		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(),
						 O_WRONLY | O_CREAT | O_TRUNC,
						 0600);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
		pid_t pid = -1;
		const int err = posix_spawn(&pid, child.c_str(), &fa, nullptr,
					    argv, envp.data());
		posix_spawn_file_actions_destroy(&fa);
		if (err != 0) {
			r.output = "posix_spawn: " + std::string(strerror(err));
			return r;
		}
		int ws = 0;
		if (waitpid(pid, &ws, 0) != pid)
			return r;
		r.exited = WIFEXITED(ws);
		r.status = r.exited ? WEXITSTATUS(ws) : WTERMSIG(ws);
		std::ifstream in(out_path);
		r.output.assign(std::istreambuf_iterator<char>(in), {});
		return r;
	}

	/* The child loaded the provider and it registered, silently. */
	void expect_registered(int release)
	{
		install_lib(lib_, release);
		const child_result r = run_child();
		ASSERT_TRUE(r.exited) << "killed by signal " << r.status << "\n"
				      << r.output;
		EXPECT_EQ(r.status, 0) << r.output;
		EXPECT_NE(r.output.find("libibverbs: " + dir_ +
					"/libibverbs.so.1"),
			  std::string::npos)
			<< "the copy was not the libibverbs loaded:\n"
			<< r.output;
		EXPECT_NE(r.output.find("registered 1"), std::string::npos)
			<< r.output;
		EXPECT_EQ(r.output.find("Warning"), std::string::npos)
			<< r.output;
	}

	/* The child loaded the provider, which did not register, and said why. */
	void expect_refused(int release)
	{
		install_lib(lib_, release);
		const child_result r = run_child();
		ASSERT_TRUE(r.exited) << "killed by signal " << r.status << "\n"
				      << r.output;
		EXPECT_EQ(r.status, 2) << r.output;
		EXPECT_NE(r.output.find("registered 0"), std::string::npos)
			<< r.output;
		const std::string why =
			"libsroce: Warning: not registering the sroce "
			"provider: "
			"it is built for the private provider ABI of rdma-core "
			"44 to 56, but libibverbs is rdma-core " +
			std::to_string(release) + " (" + dir_ +
			"/libibverbs.so.1.14." + std::to_string(release) +
			".0)";
		EXPECT_NE(r.output.find(why), std::string::npos)
			<< "expected: " << why << "\noutput:\n"
			<< r.output;
	}

	std::string dir_;
	std::vector<char> lib_;
};

TEST_F(ProviderAbi, RegistersWithTheReleaseItIsBuiltFor)
{
	expect_registered(44);
}

TEST_F(ProviderAbi, RegistersWithTheLastPinnedRelease)
{
	expect_registered(56);
}

TEST_F(ProviderAbi, RefusesAnOlderReleaseOfTheSamePrivateAbi)
{
	expect_refused(40);
}

TEST_F(ProviderAbi, RefusesANewerReleaseThatKeptThePrivateAbiName)
{
	expect_refused(57);
}

TEST_F(ProviderAbi, DoesNotLoadUnderAnotherPrivateAbi)
{
	std::vector<char> other = lib_;
	ASSERT_TRUE(rename_version_definition(other, "IBVERBS_PRIVATE_34",
					      "IBVERBS_PRIVATE_57"))
		<< "no IBVERBS_PRIVATE_34 in " << SROCE_LIBIBVERBS;
	install_lib(other, 57);
	const child_result r = run_child();
	ASSERT_TRUE(r.exited) << "killed by signal " << r.status << "\n"
			      << r.output;
	EXPECT_EQ(r.status, 3) << r.output;
	EXPECT_NE(r.output.find("libibverbs: Warning: couldn't load driver"),
		  std::string::npos)
		<< r.output;
	EXPECT_NE(r.output.find("version `IBVERBS_PRIVATE_34' not found"),
		  std::string::npos)
		<< r.output;
	EXPECT_EQ(r.output.find("registered"), std::string::npos) << r.output;
}

} /* namespace */
