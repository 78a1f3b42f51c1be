// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* ktap.cpp - KTAP output and the failures of the running case (ktap.h). */
#include "ktap.h"

#include <cstdarg>
#include <cstdio>

namespace ktap {

namespace {

unsigned int failed_total; /* every failure recorded */
unsigned int failed_outside; /* recorded while no case ran */
unsigned int cases_failed; /* cases reported not ok */
bool in_case; /* between begin() and the case's result */
unsigned int case_number; /* of the last result line */
std::vector<std::string> case_reasons;
std::string case_skip;

std::string vformat(const char *fmt, va_list ap)
{
	va_list copy;

	va_copy(copy, ap);
	const int n = std::vsnprintf(nullptr, 0, fmt, copy);
	va_end(copy);
	if (n <= 0)
		return {};
	std::string s(static_cast<std::size_t>(n) + 1, '\0');
	std::vsnprintf(s.data(), s.size(), fmt, ap);
	s.resize(static_cast<std::size_t>(n));
	return s;
}

/* Every line of text as a diagnostic, prefix before the first. */
void print_diagnostic(const char *prefix, const std::string &text)
{
	std::size_t at = 0;

	do {
		const std::size_t nl = text.find('\n', at);
		const std::string_view line =
			std::string_view(text).substr(at, nl - at);

		std::printf("# %s%.*s\n", at == 0 ? prefix : "",
			    static_cast<int>(line.size()), line.data());
		at = nl == std::string::npos ? nl : nl + 1;
	} while (at != std::string::npos && at < text.size());
}

} /* namespace */

std::string format(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	std::string s = vformat(fmt, ap);
	va_end(ap);
	return s;
}

void header(std::size_t cases)
{
	setvbuf(stdout, nullptr, _IOLBF, 0);
	std::printf("KTAP version 1\n1..%zu\n", cases);
}

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_diagnostic("", vformat(fmt, ap));
	va_end(ap);
}

void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	case_reasons.push_back(vformat(fmt, ap));
	va_end(ap);
	print_diagnostic("FAILED: ", case_reasons.back());
	++failed_total;
	if (!in_case)
		++failed_outside;
}

void skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	case_skip = vformat(fmt, ap);
	va_end(ap);
	note("SKIP: %s", case_skip.c_str());
}

unsigned int failures()
{
	return failed_total;
}

const std::vector<std::string> &reasons()
{
	return case_reasons;
}

void begin()
{
	case_reasons.clear();
	case_skip.clear();
	in_case = true;
}

verdict outcome(bool finished)
{
	if (!case_reasons.empty())
		return verdict::not_ok;
	if (!case_skip.empty())
		return verdict::skip;
	if (!finished) {
		/* Gave up without saying why: a failure all the same. */
		fail("the case gave up");
		return verdict::not_ok;
	}
	return verdict::ok;
}

const std::string &skip_reason()
{
	return case_skip;
}

void result(verdict v, std::string_view name, std::string_view why)
{
	const int n = static_cast<int>(name.size());

	++case_number;
	in_case = false;
	switch (v) {
	case verdict::ok:
		std::printf("ok %u %.*s\n", case_number, n, name.data());
		break;
	case verdict::skip:
		std::printf("ok %u %.*s # SKIP %.*s\n", case_number, n,
			    name.data(), static_cast<int>(why.size()),
			    why.data());
		break;
	case verdict::xfail:
		std::printf("ok %u %.*s # XFAIL %.*s\n", case_number, n,
			    name.data(), static_cast<int>(why.size()),
			    why.data());
		break;
	case verdict::xpass:
		++cases_failed;
		std::printf("not ok %u %.*s # XPASS %.*s\n", case_number, n,
			    name.data(), static_cast<int>(why.size()),
			    why.data());
		break;
	case verdict::not_ok:
		++cases_failed;
		std::printf("not ok %u %.*s\n", case_number, n, name.data());
		break;
	}
}

bool end(std::string_view name, bool finished)
{
	const verdict v = outcome(finished);

	result(v, name, case_skip);
	case_reasons.clear();
	case_skip.clear();
	return v != verdict::not_ok;
}

int exit_status()
{
	return cases_failed != 0 || failed_outside != 0 ? 1 : 0;
}

} /* namespace ktap */
