// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * register.cpp - the provider's only side effect at load time.
 *
 * libibverbs dlopen()s libsroce-rdmav34.so (named by a driver line in
 * /etc/libibverbs.d/ or by RDMAV_DRIVERS) and expects the library to register
 * itself from an ELF constructor.  Kept in its own file so that the host
 * tests can link the provider's code without registering it.
 */
#include "device.h"

namespace {

__attribute__((constructor)) void sroce_register_driver() noexcept
{
	verbs_register_driver_34(&sroce::device_ops);
}

} /* namespace */
