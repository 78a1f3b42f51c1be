// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#pragma once

#include <string>

namespace sroce::test {

// Path of tshark, or empty when it is not installed.
std::string tshark_path();

// Runs a shell command and returns its standard output; *status gets the
// exit status.
std::string run_command(const std::string &cmd, int *status);

} // namespace sroce::test
