// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
// The protocol core's C headers, for the C++ tests.
#pragma once

extern "C" {
#include "sroce_proto.h"
}
