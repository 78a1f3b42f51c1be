# SPDX-License-Identifier: GPL-2.0
#
# sroce: a software RoCEv2 RDMA device.
#
#   make            build sroce.ko, libsroce-rdmav34.so and the tools
#   make check      install what is missing, build, run every test
#                   (T=<pattern> runs only the tests whose name matches)
#   make demo       install what is missing, build, show sroce in a guest
#   make install    install the module and the provider on this host
#   make clean      remove everything built
#   make lint       checkpatch --strict and sparse over the kernel code
#
# KVER selects the kernel to build against (default: scripts/kver, which
# picks the running kernel when its headers are installed).

BUILD    := $(CURDIR)/build
KVER     ?= $(shell $(CURDIR)/scripts/kver 2>/dev/null)
KDIR     ?= /lib/modules/$(KVER)/build
CMAKE_BUILD := $(BUILD)/userspace
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all module userspace check demo install install-module install-provider clean lint deps

all: module userspace

module:
	@test -n "$(KVER)" -a -e "$(KDIR)/Makefile" || { \
		echo "make: no kernel headers found (KVER='$(KVER)'): run scripts/install-deps"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

userspace:
	cmake -S userspace -B $(CMAKE_BUILD) -Wno-dev
	cmake --build $(CMAKE_BUILD) -j $(JOBS)

deps:
	scripts/install-deps

# check and demo install missing packages first, then build in a new make so
# that KVER is read after the kernel headers exist.
check: deps
	$(MAKE) all
	scripts/check '$(T)'

demo: deps
	$(MAKE) all
	scripts/demo

lint: module
	scripts/lint

# DESTDIR installs into a staging root instead of /.
install: all install-module install-provider

install-module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	depmod $(if $(DESTDIR),-b $(DESTDIR)) -a $(KVER)

install-provider:
	DESTDIR=$(DESTDIR) cmake --install $(CMAKE_BUILD)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD)
