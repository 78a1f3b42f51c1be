# SPDX-License-Identifier: GPL-2.0
#
# sroce: a software RoCEv2 RDMA device.
#
#   make            build sroce.ko, libsroce-rdmav34.so and the tools
#   make kmod-test  the kernel-verbs selftest module (tests/kmod/, never
#                   installed; tests/kverbs.sh loads it); part of `make`
#   make check      install what is missing, build, run every test
#                   (T=<pattern> runs only the tests whose name matches)
#   make demo       install what is missing, build, show sroce in a guest:
#                   one line per step, the whole trace in build/demo.log
#                   (V=1 shows it live too)
#   make install    install the module and the provider on this host
#   make deb        build the Debian packages sroce-dkms and
#                   ibverbs-providers-sroce into build/deb/ (scripts/build-deb)
#   make dkms-install  build and install sroce.ko with DKMS from this tree
#                   (dkms add/build/install; make dkms-uninstall undoes it)
#   make clean      remove everything built
#   make lint       checkpatch --strict and sparse over the kernel code
#   make fuzz       fuzz the receive parser for FUZZ_SECONDS (default 3600)
#   make fuzz-net   the network fuzzer with 1,000,000 datagrams in a guest
#                   (tests/fuzz-long/netfuzz.sh); not part of `make check`
#   make fuzz-proc  the hostile-process fuzzer with 1,000,000 ring mutations
#                   in a guest (tests/fuzz-long/procfuzz.sh); not part of
#                   `make check`
#   make check-debug  the guest selftests under a debug kernel (KASAN,
#                   lockdep, kmemleak; built once by scripts/build-debug-kernel,
#                   ~8 min); not part of `make check`; T=<pattern> as above
#   make check-sweep  the perftest -a sweeps (tests/sweep/*.sh: every size
#                   from 2 B to 8 MiB, sroce to sroce); not part of `make check`
#   make check-lifecycle  devices, netdevs, namespaces and the module taken
#                   away under traffic (tests/lifecycle.sh) in 4 rounds
#                   (SROCE_LIFECYCLE_ITER); `make check` runs 2
#   make soak       the lossy-wire torture profiles with 1 GiB each
#                   (tests/soak/*.sh); not part of `make check`
#
# KVER selects the kernel to build against (default: scripts/kver, which
# picks the running kernel when its headers are installed).

BUILD    := $(CURDIR)/build
KVER     ?= $(shell $(CURDIR)/scripts/kver 2>/dev/null)
KDIR     ?= /lib/modules/$(KVER)/build
CMAKE_BUILD := $(BUILD)/userspace
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all module userspace check demo install install-module install-provider clean lint deps fuzz
.PHONY: fuzz-net fuzz-proc
.PHONY: check-debug check-lifecycle check-sweep soak debug-kernel debug-module kmod-test
.PHONY: deb dkms-src dkms-install dkms-uninstall

all: module kmod-test userspace

module:
	@test -n "$(KVER)" -a -e "$(KDIR)/Makefile" || { \
		echo "make: no kernel headers found (KVER='$(KVER)'): run scripts/install-deps"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# A module of its own, against the same KDIR; not part of sroce.ko's build.
kmod-test:
	@test -n "$(KVER)" -a -e "$(KDIR)/Makefile" || { \
		echo "make: no kernel headers found (KVER='$(KVER)'): run scripts/install-deps"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/kmod modules

userspace:
	cmake -S userspace -B $(CMAKE_BUILD) -Wno-dev
	cmake --build $(CMAKE_BUILD) -j $(JOBS)

deps:
	scripts/install-deps

# check and demo install missing packages first, then build in a new make so
# that KVER is read after the kernel headers exist.
check: deps
	$(MAKE) all deb
	scripts/check '$(T)'

# The debug kernel's sroce.ko is built from a copy of the sources in its own
# directory, so that drivers/sroce/sroce.ko stays the one for Debian's kernel.
DEBUG_DIR := $(BUILD)/debug-kernel
DEBUG_M   := $(DEBUG_DIR)/sroce
DEBUG_SRC  = Kbuild $(shell find drivers include tests/kmod -type f \( -name '*.[ch]' -o -name Kbuild -o -name '*.mk' \) ! -name '*.mod.c')

debug-kernel:
	scripts/build-debug-kernel

debug-module: debug-kernel
	mkdir -p $(DEBUG_M)
	cp -p --parents $(DEBUG_SRC) $(DEBUG_M)/
	$(MAKE) -C $(DEBUG_DIR)/src M=$(DEBUG_M) modules
	$(MAKE) -C $(DEBUG_DIR)/src M=$(DEBUG_M)/tests/kmod modules

# Waits and guest time limits are stretched, kmemleak scans after each test.
check-debug: deps
	$(MAKE) all debug-module
	SROCE_KERNEL=debug SROCE_KO=$(DEBUG_M)/drivers/sroce/sroce.ko \
	SROCE_TIMEOUT_SCALE=10 SROCE_KMEMLEAK=1 \
	SROCE_GUEST_TIMEOUT=$${SROCE_GUEST_TIMEOUT:-5400} \
		scripts/check '$(if $(T),$(T),^guest:)'

# The long perftest runs, with their own guest time limit.
check-sweep: deps
	$(MAKE) all
	SROCE_GUEST_DIR=tests/sweep SROCE_GUEST_TIMEOUT=$${SROCE_GUEST_TIMEOUT:-5400} \
		scripts/check '$(if $(T),$(T),^guest:)'

# Devices, netdevs, namespaces and the module taken away under traffic
# (tests/lifecycle.sh) in 4 rounds instead of make check's 2, so that a
# leak per round has rounds to grow over.
check-lifecycle: deps
	$(MAKE) all
	SROCE_LIFECYCLE_ITER=$${SROCE_LIFECYCLE_ITER:-4} SROCE_GUEST_TIMEOUT=$${SROCE_GUEST_TIMEOUT:-3600} \
		scripts/check '^guest:lifecycle$$'

# Hours under TCG: a guest time limit of its own.
soak: deps
	$(MAKE) all
	SROCE_GUEST_DIR=tests/soak SROCE_GUEST_TIMEOUT=$${SROCE_GUEST_TIMEOUT:-21600} \
		scripts/check '$(if $(T),$(T),^guest:)'

# scripts/demo installs and builds itself, so that its log holds it all.
demo:
	@scripts/demo

lint: module
	scripts/lint

# make check runs the same fuzzer for 60 s; this is the long run.
FUZZ_SECONDS ?= 3600
fuzz: deps
	tests/fuzz/run-fuzz.sh $(FUZZ_SECONDS)

# The long guest fuzzers, with their own guest time limit.
fuzz-net: deps
	$(MAKE) all
	SROCE_GUEST_DIR=tests/fuzz-long SROCE_GUEST_TIMEOUT=$${SROCE_GUEST_TIMEOUT:-7200} \
		scripts/check '^guest:netfuzz$$'

fuzz-proc: deps
	$(MAKE) all
	SROCE_GUEST_DIR=tests/fuzz-long SROCE_GUEST_TIMEOUT=$${SROCE_GUEST_TIMEOUT:-7200} \
		scripts/check '^guest:procfuzz$$'

# DESTDIR installs into a staging root instead of /.
install: all install-module install-provider

install-module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	depmod $(if $(DESTDIR),-b $(DESTDIR)) -a $(KVER)

install-provider:
	DESTDIR=$(DESTDIR) cmake --install $(CMAKE_BUILD)

# Debian packages (debian/), built on a copy of the tree under build/deb/.
deb:
	scripts/build-deb $(BUILD)/deb

# DKMS from this tree: the module's sources (scripts/dkms-src) are staged
# in build/dkms/sroce-VERSION, which `dkms add` copies to /usr/src; then
# built and installed for KVER.  VERSION is dkms.conf's PACKAGE_VERSION.
# DKMS_ARGS go to every dkms command (scripts/check runs it with private
# --dkmstree/--sourcetree/--installtree and --no-depmod).
VERSION  := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' $(CURDIR)/dkms.conf)
DKMS_SRC := $(BUILD)/dkms/sroce-$(VERSION)
DKMS     := dkms $(DKMS_ARGS)

dkms-src:
	rm -rf $(DKMS_SRC)
	scripts/dkms-src $(DKMS_SRC)

dkms-install: dkms-src
	@! $(DKMS) status sroce/$(VERSION) | grep -q . || { \
		echo "make: sroce/$(VERSION) is in DKMS already (the sroce-dkms package, or make dkms-install): make dkms-uninstall or apt purge sroce-dkms first"; exit 1; }
	$(DKMS) add $(DKMS_SRC)
	$(DKMS) build sroce/$(VERSION) -k $(KVER)
	$(DKMS) install sroce/$(VERSION) -k $(KVER)

dkms-uninstall:
	$(DKMS) remove sroce/$(VERSION) --all
	rm -rf $(if $(DKMS_SOURCETREE),$(DKMS_SOURCETREE),/usr/src)/sroce-$(VERSION)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/kmod clean
	rm -rf $(BUILD)
