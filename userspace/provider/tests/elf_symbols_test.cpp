// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The built libsroce-rdmav34.so as the dynamic loader sees it: what it
 * imports (and at which symbol version), what it exports, what it needs.
 * Reads the ELF file directly (no binutils needed at test time).
 */
#include <cstring>
#include <elf.h>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

struct dyn_symbol {
	std::string name;
	bool defined;
	unsigned char bind;
	std::string version; /* "" when unversioned */
	std::string version_file; /* for imports: the library of the version */
};

struct elf_info {
	std::vector<dyn_symbol> symbols;
	std::vector<std::string> needed;
	std::optional<std::string> soname;
	bool bind_now = false;
	bool textrel = false;
};

class elf_file {
public:
	explicit elf_file(const char *path)
	{
		std::ifstream in(path, std::ios::binary);
		data_.assign(std::istreambuf_iterator<char>(in), {});
	}

	[[nodiscard]] bool valid() const
	{
		return data_.size() >= sizeof(Elf64_Ehdr) &&
		       std::memcmp(data_.data(), ELFMAG, SELFMAG) == 0 &&
		       data_[EI_CLASS] == ELFCLASS64;
	}

	[[nodiscard]] elf_info parse() const
	{
		elf_info info;
		const auto &eh = at<Elf64_Ehdr>(0);
		std::vector<Elf64_Shdr> sh;
		for (std::size_t i = 0; i < eh.e_shnum; ++i)
			sh.push_back(at<Elf64_Shdr>(eh.e_shoff +
						    i * eh.e_shentsize));

		const Elf64_Shdr *dynsym = find(sh, SHT_DYNSYM);
		const Elf64_Shdr *versym = find(sh, SHT_GNU_versym);
		const Elf64_Shdr *verneed = find(sh, SHT_GNU_verneed);
		const Elf64_Shdr *dynamic = find(sh, SHT_DYNAMIC);
		if (dynsym == nullptr || dynamic == nullptr)
			return info;
		const Elf64_Shdr &dynstr = sh.at(dynsym->sh_link);

		/* version index -> (name, file) from the version needs */
		std::map<unsigned, std::pair<std::string, std::string>> needs;
		if (verneed != nullptr) {
			std::size_t off = verneed->sh_offset;
			for (;;) {
				const auto &vn = at<Elf64_Verneed>(off);
				std::string file = str(dynstr, vn.vn_file);
				std::size_t aoff = off + vn.vn_aux;
				for (unsigned a = 0; a < vn.vn_cnt; ++a) {
					const auto &va =
						at<Elf64_Vernaux>(aoff);
					needs[va.vna_other] = {
						str(dynstr, va.vna_name), file};
					aoff += va.vna_next;
				}
				if (vn.vn_next == 0)
					break;
				off += vn.vn_next;
			}
		}

		const std::size_t nsyms = dynsym->sh_size / sizeof(Elf64_Sym);
		for (std::size_t i = 1; i < nsyms; ++i) {
			const auto &s = at<Elf64_Sym>(dynsym->sh_offset +
						      i * sizeof(Elf64_Sym));
			dyn_symbol d{str(dynstr, s.st_name),
				     s.st_shndx != SHN_UNDEF,
				     static_cast<unsigned char>(
					     ELF64_ST_BIND(s.st_info)),
				     "", ""};
			if (versym != nullptr) {
				const unsigned idx =
					at<Elf64_Half>(versym->sh_offset +
						       i * sizeof(Elf64_Half)) &
					0x7fff;
				auto it = needs.find(idx);
				if (it != needs.end()) {
					d.version = it->second.first;
					d.version_file = it->second.second;
				}
			}
			info.symbols.push_back(d);
		}

		for (std::size_t off = dynamic->sh_offset;
		     off < dynamic->sh_offset + dynamic->sh_size;
		     off += sizeof(Elf64_Dyn)) {
			const auto &dyn = at<Elf64_Dyn>(off);
			switch (dyn.d_tag) {
			case DT_NEEDED:
				info.needed.push_back(
					str(dynstr, dyn.d_un.d_val));
				break;
			case DT_SONAME:
				info.soname = str(dynstr, dyn.d_un.d_val);
				break;
			case DT_FLAGS:
				info.bind_now |=
					(dyn.d_un.d_val & DF_BIND_NOW) != 0;
				info.textrel |=
					(dyn.d_un.d_val & DF_TEXTREL) != 0;
				break;
			case DT_FLAGS_1:
				info.bind_now |=
					(dyn.d_un.d_val & DF_1_NOW) != 0;
				break;
			case DT_BIND_NOW:
				info.bind_now = true;
				break;
			case DT_TEXTREL:
				info.textrel = true;
				break;
			default:
				break;
			}
		}
		return info;
	}

private:
	template <typename T>
	[[nodiscard]] const T &at(std::size_t off) const
	{
		if (off + sizeof(T) > data_.size())
			throw std::out_of_range("ELF offset out of file");
		return *reinterpret_cast<const T *>(data_.data() + off);
	}

	[[nodiscard]] std::string str(const Elf64_Shdr &strtab,
				      std::size_t off) const
	{
		return {&at<char>(strtab.sh_offset + off)};
	}

	static const Elf64_Shdr *find(const std::vector<Elf64_Shdr> &sh,
				      Elf64_Word type)
	{
		for (const Elf64_Shdr &s : sh)
			if (s.sh_type == type)
				return &s;
		return nullptr;
	}

	std::vector<char> data_;
};

class ProviderElf : public ::testing::Test {
protected:
	static void SetUpTestSuite()
	{
		elf_file f(SROCE_PROVIDER_SO);
		ASSERT_TRUE(f.valid()) << SROCE_PROVIDER_SO;
		info_ = new elf_info(f.parse());
	}
	static void TearDownTestSuite()
	{
		delete info_;
		info_ = nullptr;
	}

	static const dyn_symbol *symbol(const std::string &name)
	{
		for (const dyn_symbol &s : info_->symbols)
			if (s.name == name)
				return &s;
		return nullptr;
	}

	static elf_info *info_;
};

elf_info *ProviderElf::info_ = nullptr;

TEST_F(ProviderElf, FileNameIsWhatLibibverbsLoads)
{
	const std::string path = SROCE_PROVIDER_SO;

	EXPECT_EQ(path.substr(path.rfind('/') + 1), "libsroce-rdmav34.so");
	EXPECT_FALSE(info_->soname.has_value()) << *info_->soname;
}

TEST_F(ProviderElf, RegistersThroughPrivate34)
{
	const dyn_symbol *s = symbol("verbs_register_driver_34");

	ASSERT_NE(s, nullptr) << "verbs_register_driver_34 not imported";
	EXPECT_FALSE(s->defined);
	EXPECT_EQ(s->version, "IBVERBS_PRIVATE_34");
	EXPECT_EQ(s->version_file, "libibverbs.so.1");
}

TEST_F(ProviderElf, PrivateImportsAreVersioned)
{
	for (const char *name :
	     {"_verbs_init_and_alloc_context", "verbs_uninit_context",
	      "verbs_set_ops", "ibv_cmd_get_context",
	      "ibv_cmd_query_device_any", "ibv_cmd_query_port",
	      "ibv_cmd_create_qp", "ibv_cmd_create_qp_ex", "ibv_cmd_modify_qp",
	      "ibv_cmd_query_qp", "ibv_cmd_destroy_qp", "ibv_cmd_rereg_mr",
	      "ibv_cmd_alloc_mw", "ibv_cmd_dealloc_mw", "ibv_cmd_attach_mcast",
	      "ibv_cmd_detach_mcast"}) {
		const dyn_symbol *s = symbol(name);

		ASSERT_NE(s, nullptr) << name << " not imported";
		EXPECT_FALSE(s->defined) << name;
		EXPECT_EQ(s->version, "IBVERBS_PRIVATE_34") << name;
	}
	/* Nothing is imported without a version from libibverbs. */
	for (const dyn_symbol &s : info_->symbols) {
		const bool from_ibverbs = s.name.starts_with("ibv_") ||
					  s.name.starts_with("verbs_") ||
					  s.name.starts_with("_verbs_") ||
					  s.name.starts_with("__verbs_");
		if (!s.defined && from_ibverbs) {
			EXPECT_FALSE(s.version.empty()) << s.name;
		}
	}
}

TEST_F(ProviderElf, ExportsNothing)
{
	std::set<std::string> exported;

	for (const dyn_symbol &s : info_->symbols)
		if (s.defined && (s.bind == STB_GLOBAL || s.bind == STB_WEAK ||
				  s.bind == STB_GNU_UNIQUE))
			exported.insert(s.name);
	EXPECT_TRUE(exported.empty())
		<< "exports " << exported.size() << " symbols, first: "
		<< (exported.empty() ? "" : *exported.begin());
}

TEST_F(ProviderElf, NeedsOnlyLibibverbsAndLibc)
{
	/*
	 * Loaded into every verbs program, most of them C: no libstdc++, no
	 * libgcc_s (a compiler helper such as __popcountdi2 pulls it in).
	 */
	const std::set<std::string> needed(info_->needed.begin(),
					   info_->needed.end());
	const std::set<std::string> want = {"libibverbs.so.1", "libc.so.6"};

	EXPECT_EQ(needed, want);
}

TEST_F(ProviderElf, BindsNowWithoutTextRelocations)
{
	EXPECT_TRUE(info_->bind_now);
	EXPECT_FALSE(info_->textrel);
}

} /* namespace */
