# PinVault — build, run and test.
#
#   make run    build pinvaultd and pinvault, serve on ./run/io.pinvault.Vault and ./run/ssh-agent.sock
#               (state in ./run/state)
#   make test   install what is missing, then run every test (as root also make package-test)
#   make lib    libpinvault, the C client: .build-lib/libpinvault.so.0 (C: libc, libsodium only)
#   make lib-test      its unit tests under AddressSanitizer and UBSan, and its exported symbols
#   make lib-fuzz      libFuzzer over every reply it reads (LIB_FUZZ_SECONDS, default 60)
#   make pam    the PAM module .build-pam/pam_pinvault.so (C over libpinvault: libpam, libc, libsodium)
#   make pam-test      its unit tests, under AddressSanitizer and UBSan (and lib-test)
#   make pam-fuzz      libFuzzer over its reply parser, credential choice and locality (PAM_FUZZ_SECONDS, default 60)
#   make pkcs11 the PKCS#11 module .build-pkcs11/pinvault-pkcs11.so (C over libpinvault; docs/PKCS11.md)
#   make uhid   pinvault-uhid, the virtual FIDO security key on /dev/uhid: .build-uhid/pinvault-uhid
#   make uhid-test     its relay's unit tests under AddressSanitizer and UBSan (and its sanitized build,
#                      which UHIDBridgeTests runs before a real pinvaultd)
#   make pkcs11-test   the unit tests of its first layer (pkcs11/pv_keys.c), under AddressSanitizer and UBSan,
#                      and that its files include one way (scripts/check-pkcs11-layers.sh)
#   make stage STAGE_DIR=DIR            the C modules as the tests load them (stage-sanitized: with ASan and UBSan)
#   make fido2-client  the test programs that make Yubico's libfido2 and fido2-tools clients of the
#                      CTAPHID socket (.build-fido2; FIDO2_DIR=DIR; LibFIDO2Tests, docs/WEBAUTHN.md)
#   make deb    dist/pinvault_<version>_<arch>.deb (and its -dbgsym), checked by lintian
#   make package-test  the .deb installed, used, upgraded and purged in a clean Debian 12 root
#   make install       pinvaultd, pinvault, pinvault-uhid, units, config, deny list, PAM module, man pages (PREFIX, DESTDIR;
#                      INSTALL_FROM=DIR installs binaries built there instead of a release build)
#   make uninstall     removes what install put; keeps config, state and the sealed pepper
#                      unless PURGE=yes
#   make check-units   systemd-analyze verify and security (exposure at most 1.0)
#   make fuzz   libFuzzer over framing, JSON, parameters and every method (FUZZ_SECONDS, default 60)
#   make fuzz-transport  libFuzzer over the real event loop on socketpairs (FUZZ_SECONDS; docs/FUZZING.md)
#   make fuzz-ssh-data   libFuzzer over the parsers of what an ssh key signs (FUZZ_SECONDS)
#   make fuzz-cbor       libFuzzer over CTAP's CBOR decoder and canonical encoder (FUZZ_SECONDS)
#   make fuzz-ctaphid    libFuzzer over the CTAPHID device: reports, channels, timeouts (FUZZ_SECONDS)
#   make fuzz-ctap       libFuzzer over CTAP2 commands into the security key, on a real engine (FUZZ_SECONDS)
#   make sanitize  the unit and integration tests under AddressSanitizer, then ThreadSanitizer
#   make bench  release pinvaultd beside raw Argon2id and ssh-agent; rewrites BENCHMARKS.md
#               (~3 min; BENCH_QUICK=1 for a ~1 min check of the harness)
#   make soak   the adversarial suites' long runs: 200 SIGKILLs, 200 power cuts, longer floods, more guesses
#   make crash-sweep  the daemon killed at every write, sync and PIN check of every PIN request, ENOSPC
#               and EIO at each write, then the interleaving oracle's long run (RELIABILITY.md; root)
#
# Every target installs the Debian packages it is missing when run as root, and
# otherwise prints the apt-get command to run: the build needs BUILD_PACKAGES, the
# tests, fuzzing and benchmarks TEST_PACKAGES as well, the package DEB_PACKAGES.

SWIFT        ?= swift
PYTHON       ?= python3
RUN_DIR      := $(CURDIR)/run
VENV         := $(CURDIR)/.venv
BUILD_PACKAGES := libsodium-dev libsqlite3-dev libssl-dev pkg-config libpam0g-dev libp11-kit-dev libsystemd-dev
TEST_PACKAGES  := python3-venv python3-cryptography python3-seccomp systemd util-linux openssh-client pamtester sudo pinentry-tty
# paramiko: the ssh tests' client for login layouts OpenSSH's ssh never sends (an old banner's).
TEST_PACKAGES  += python3-paramiko
# The PKCS#11 module's clients and reference module (PinVaultPKCS11Tests, make bench).
TEST_PACKAGES  += opensc gnutls-bin p11-kit p11-kit-modules softhsm2 python3-pykcs11
# A software TPM for pinvault-seal-pepper's TPM2 path (SealPepperTPMTests, make package-test).
TEST_PACKAGES  += swtpm swtpm-tools libtss2-tcti-swtpm0 tpm2-tools
# Yubico's libfido2 as a client of the CTAPHID socket (LibFIDO2Tests), and its tools.
TEST_PACKAGES  += libfido2-dev fido2-tools
DEB_PACKAGES   := debhelper dpkg-dev lintian mmdebstrap
# The ssh tests start their own sshd on 127.0.0.1 (PinVaultSSHTests); Debian's package
# would also start the system's sshd, so test-deps stops and disables it again when it
# installed it (ssh-server-quiet).
SSH_TEST_PACKAGES := openssh-server

.PHONY: all deps test-deps apt-packages ssh-server-quiet build release release-daemon run test soak crash-sweep venv clean
.PHONY: install install-build uninstall check-units fuzz fuzz-build fuzz-transport fuzz-ssh-data fuzz-cbor fuzz-ctaphid fuzz-ctap sanitize bench pam pam-test pam-fuzz deb deb-packages package-test man
.PHONY: lib lib-test lib-fuzz stage stage-sanitized pkcs11 pkcs11-test install-c uninstall-c fido2-client uhid uhid-test uhid-sanitized

all: build

# Debian packages: deps for a build, test-deps for everything else.
deps:
	@$(MAKE) --no-print-directory apt-packages PACKAGES="$(BUILD_PACKAGES)"

test-deps:
	@$(MAKE) --no-print-directory apt-packages PACKAGES="$(BUILD_PACKAGES) $(TEST_PACKAGES)"
	@if [ ! -x /usr/sbin/sshd ]; then \
		$(MAKE) --no-print-directory apt-packages PACKAGES="$(SSH_TEST_PACKAGES)" && $(MAKE) --no-print-directory ssh-server-quiet; \
	fi

# The tests need sshd's binary, not the service: after installing openssh-server, the
# system's sshd is stopped and disabled again (the package enables it).
ssh-server-quiet:
	@if [ -d /run/systemd/system ] && [ "$$(id -u)" = 0 ]; then \
		systemctl disable --now ssh.service ssh.socket >/dev/null 2>&1 || true; \
		echo "openssh-server installed for the tests; the system's sshd is left disabled"; \
	fi

apt-packages:
	@missing=""; \
	for package in $(PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing:$$missing"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
		else \
			echo "missing Debian packages:$$missing"; \
			echo "run: sudo apt-get install -y$$missing"; \
			exit 1; \
		fi; \
	fi

build: deps pam pkcs11 uhid
	$(SWIFT) build

# The release build links the Swift runtime in (--static-swift-stdlib): the binaries
# need only libsodium, libsqlite3, libstdc++, libgcc and libc, so `make install` and
# the Debian package (`make deb`) both run on a machine without the toolchain. Full
# RELRO (-z relro -z now): the dynamic linker resolves every symbol at start and the
# GOT is read-only after that, as Debian's hardening flags ask.
# These flags get a build folder of their own, .build-release: a plain `swift build -c
# release` in .build links against the toolchain's shared runtime (a RUNPATH into it),
# and must never be what `make install` or `make deb` pick up. One `swift build` of
# every target (swift build takes one --product at a time; two would build back to back).
RELEASE_FLAGS := -c release --static-swift-stdlib -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
RELEASE_SCRATCH := $(CURDIR)/.build-release
RELEASE_BIN     := $(RELEASE_SCRATCH)/release
RELEASE_BUILD    = $(SWIFT) build $(RELEASE_FLAGS) --scratch-path "$(RELEASE_SCRATCH)"

release: deps
	$(RELEASE_BUILD)

# The release pinvaultd, built as make release builds it: MemoryHygieneTests scans
# it beside the debug one, since it is what users run.
RELEASE_DAEMON := $(RELEASE_BIN)/pinvaultd
release-daemon: deps
	$(RELEASE_BUILD) --product pinvaultd

# The daemon in the foreground with both of its sockets (Varlink, ssh-agent) and its
# state directory under ./run, so that it never takes the installed daemon's place in
# /run/pinvault; the command line beside it is .build-release/release/pinvault.
run: release
	@mkdir -p "$(RUN_DIR)/state" && chmod 700 "$(RUN_DIR)" "$(RUN_DIR)/state"
	"$(RELEASE_BIN)/pinvaultd" \
		--config "$(CURDIR)/config/pinvaultd.toml" \
		--socket "$(RUN_DIR)/io.pinvault.Vault" \
		--ssh-agent-socket "$(RUN_DIR)/ssh-agent.sock" \
		--ctaphid-socket "$(RUN_DIR)/ctaphid.sock" \
		--state-directory "$(RUN_DIR)/state"

# The Python varlink package, for the test that proves any Varlink client works; Yubico's
# fido2, the platform and relying party of the security key's interoperability test.
venv:
	@[ -x "$(VENV)/bin/python" ] || $(PYTHON) -m venv "$(VENV)"
	@"$(VENV)/bin/python" -c 'import varlink' 2>/dev/null || "$(VENV)/bin/pip" install -q varlink
	@"$(VENV)/bin/python" -c 'import fido2.server' 2>/dev/null || "$(VENV)/bin/pip" install -q fido2

# As root, the Debian package test runs first (2 to 6 minutes; it needs chroot and
# mounts), so that swift test's summary stays the last line. Not as root, it is
# skipped with a message that says so.
test: test-deps venv pam pam-test pkcs11-test uhid-test release-daemon
	@if [ "$$(id -u)" = 0 ]; then \
		$(MAKE) --no-print-directory package-test; \
	else \
		echo "*** make test: SKIPPING the Debian package test: it needs root (sudo make package-test) ***" >&2; \
	fi
	$(PYTHON) scripts/check-module-dependencies.py --self-test
	$(PYTHON) scripts/check-module-dependencies.py
	PINVAULT_PYTHON="$(VENV)/bin/python" PINVAULT_RELEASE_DAEMON="$(RELEASE_DAEMON)" $(SWIFT) test

# The crash-consistency, power-loss, flood, authorization and online-guessing suites in
# their long form (make test runs them short). About 3-4 minutes.
soak: test-deps venv
	PINVAULT_SOAK=1 PINVAULT_PYTHON="$(VENV)/bin/python" $(SWIFT) test --filter 'PinVaultAdversarialTests.(CrashConsistency|PowerLoss|Flood|Authorization|OnlineGuessing)Tests'

# Every crash point and fault of every PIN-checking request (CrashSweepTests), and the
# interleaving oracle's 60 rounds (InterleavingOracleTests); make test runs a seeded
# sample of both. The figures go to RELIABILITY.md; the last line is the sweep's.
CRASH_SWEEP_SUMMARY := $(CURDIR)/.build/crash-sweep
crash-sweep: test-deps
	$(SWIFT) build --build-tests
	@rm -f "$(CRASH_SWEEP_SUMMARY).crash" "$(CRASH_SWEEP_SUMMARY).interleaving"
	@PINVAULT_CRASH_SWEEP=full PINVAULT_CRASH_SWEEP_SUMMARY="$(CRASH_SWEEP_SUMMARY).crash" \
		PINVAULT_INTERLEAVING_SUMMARY="$(CRASH_SWEEP_SUMMARY).interleaving" \
		$(SWIFT) test --skip-build --filter 'PinVaultAdversarialTests.(CrashSweep|InterleavingOracle)Tests'; status=$$?; \
		cat "$(CRASH_SWEEP_SUMMARY).interleaving" "$(CRASH_SWEEP_SUMMARY).crash" 2>/dev/null; exit $$status

clean:
	rm -rf .build .build-release .build-man .build-deb .build-fido2 dist "$(PAM_BUILD)" "$(LIB_BUILD)" "$(PKCS11_BUILD)" "$(UHID_BUILD)" "$(RUN_DIR)" "$(VENV)"

# C code that other programs load (PAM into sudo, sshd and login; PKCS#11 into any
# program) must not bring the Swift runtime: libpinvault, pam_pinvault.so and
# pinvault-pkcs11.so are C, linked only to libc, libsodium (and libpam), hardened,
# -Werror, exporting only their entry points.
C_CC         ?= cc
PAM_CC       ?= $(C_CC)
C_WARNINGS   := -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wstrict-prototypes
PAM_WARNINGS := $(C_WARNINGS)
# Control-flow protection (CET) exists on x86 only: asked for where the compiler takes it.
PAM_CET      := $(shell $(PAM_CC) -fcf-protection -E -x c /dev/null >/dev/null 2>&1 && echo -fcf-protection)
PAM_CFLAGS   ?= -std=gnu11 -O2 -g $(PAM_WARNINGS) -fstack-protector-strong -fstack-clash-protection \
	$(PAM_CET) -D_FORTIFY_SOURCE=2 -fPIC -fvisibility=hidden
PAM_LDFLAGS  ?= -shared -Wl,-z,relro,-z,now -Wl,-z,noexecstack -Wl,-z,defs -Wl,--as-needed
# A library's calls to its own exported functions stay its own: a process that loads
# several PKCS#11 modules holds several C_Sign, and another's must not answer ours.
SYMBOLIC     := -Wl,-Bsymbolic-functions
SODIUM_LIBS  := $(shell pkg-config --libs libsodium 2>/dev/null || echo -lsodium)
# libcrypto (OpenSSL 3): P-256 signatures verified in libpinvault (pinvault_verify).
CRYPTO_LIBS  := $(shell pkg-config --libs libcrypto 2>/dev/null || echo -lcrypto)
# The tests' flags: AddressSanitizer and UBSan, every finding fatal.
C_TEST_FLAGS := -std=gnu11 -O1 -g $(C_WARNINGS) -fsanitize=address,undefined -fno-sanitize-recover=all

# libpinvault (libpinvault/, docs/LIBPINVAULT.md): the C client of pinvaultd, made one
# shared library, libpinvault.so.0, for pam_pinvault, the PKCS#11 module and any C
# program. Its soname's version is the ABI's (libpinvault.map names every exported
# symbol); the file's is the release's.
LIB_BUILD    := .build-lib
LIB_VERSION  := $(shell sed -n 's/^ *public static let current = "\([^"]*\)"$$/\1/p' Sources/PinVaultSystem/PinVaultVersion.swift)
LIB_SONAME   := libpinvault.so.0
LIB_FILE     := $(LIB_BUILD)/libpinvault.so.$(LIB_VERSION)
LIB_SOURCES  := libpinvault/pinvault.c libpinvault/pv_connection.c libpinvault/pv_json.c libpinvault/pv_reply.c \
	libpinvault/pv_request.c libpinvault/pv_verify.c
LIB_LIBS     := $(SODIUM_LIBS) $(CRYPTO_LIBS)
LIB_HEADERS  := $(wildcard libpinvault/*.h)
LIB_LINK     := -L$(LIB_BUILD) -lpinvault

lib: deps $(LIB_FILE) $(LIB_BUILD)/pinvault-uninstalled.pc

# For C programs built against the checkout before make install (docs/LIBPINVAULT.md):
# with PKG_CONFIG_PATH=.build-lib, pkg-config prefers this -uninstalled file, which
# points at .build-lib and libpinvault/ (quoted: a checkout's path may hold spaces).
$(LIB_BUILD)/pinvault-uninstalled.pc: libpinvault/pinvault.pc.in Makefile
	@mkdir -p $(LIB_BUILD)
	sed -e 's|@PREFIX@|$(CURDIR)|' -e 's|@LIBDIR@|$(CURDIR)/$(LIB_BUILD)|' -e 's|@INCLUDEDIR@|$(CURDIR)/libpinvault|' \
		-e 's|@VERSION@|$(LIB_VERSION)|' -e 's|-L$${libdir}|-L"$${libdir}" -Wl,-rpath,"$${libdir}"|' \
		-e 's|-I$${includedir}|-I"$${includedir}"|' libpinvault/pinvault.pc.in > "$@"

$(LIB_FILE): $(LIB_SOURCES) $(LIB_HEADERS) libpinvault/libpinvault.map Makefile
	@mkdir -p $(LIB_BUILD)
	$(C_CC) $(PAM_CFLAGS) $(PAM_LDFLAGS) $(SYMBOLIC) -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script=libpinvault/libpinvault.map -o "$@" $(LIB_SOURCES) $(LIB_LIBS)
	ln -sf libpinvault.so.$(LIB_VERSION) $(LIB_BUILD)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(LIB_BUILD)/libpinvault.so

# Its tests: the parsers and builders of every call, under ASan and UBSan, ending with a
# deterministic mutation run; then the exported symbols against the version script.
$(LIB_BUILD)/lib-tests: libpinvault/tests/lib_tests.c libpinvault/tests/check.h $(LIB_SOURCES) $(LIB_HEADERS) Makefile
	@mkdir -p $(LIB_BUILD)
	$(C_CC) $(C_TEST_FLAGS) -Ilibpinvault -o "$@" libpinvault/tests/lib_tests.c $(LIB_SOURCES) $(LIB_LIBS)

lib-test: deps $(LIB_FILE) $(LIB_BUILD)/lib-tests
	$(LIB_BUILD)/lib-tests
	scripts/check-exports.sh $(LIB_FILE) libpinvault/libpinvault.map

# libFuzzer over every reply the library reads (libpinvault/tests/fuzz-seeds).
LIB_FUZZ_SECONDS ?= 60
lib-fuzz: deps
	@mkdir -p $(LIB_BUILD)/fuzz-corpus $(LIB_BUILD)/fuzz-findings
	$(PAM_FUZZ_CC) -std=gnu11 -O1 -g -fsanitize=fuzzer,address,undefined -Ilibpinvault -o $(LIB_BUILD)/lib-fuzz \
		libpinvault/tests/lib_fuzz.c $(LIB_SOURCES) $(LIB_LIBS)
	$(LIB_BUILD)/lib-fuzz -max_total_time=$(LIB_FUZZ_SECONDS) -max_len=16384 -print_final_stats=1 \
		-artifact_prefix=$(LIB_BUILD)/fuzz-findings/ $(LIB_BUILD)/fuzz-corpus libpinvault/tests/fuzz-seeds

# The PAM module (pam/, docs/PAM.md), over libpinvault: linked only to libpinvault,
# libpam, libc and libsodium; only the pam_sm_* symbols are exported.
# Relative, as make's targets cannot hold the spaces a checkout's path may have.
PAM_BUILD    := .build-pam
PAM_MODULE   := $(PAM_BUILD)/pam_pinvault.so
PAM_LIBRARY  := pam/pv_challenge.c pam/pv_choice.c pam/pv_locality.c pam/pv_options.c
PAM_SOURCES  := pam/pam_pinvault.c $(PAM_LIBRARY)
PAM_HEADERS  := $(wildcard pam/*.h) libpinvault/pinvault.h
PAM_LIBS     := -lpam $(SODIUM_LIBS)
# The unit tests and the fuzzer compile libpinvault's sources in: its libraries too.
PAM_TEST_LIBS := -lpam $(LIB_LIBS)

pam: deps $(PAM_MODULE)

$(PAM_MODULE): $(PAM_SOURCES) $(PAM_HEADERS) $(LIB_FILE) Makefile
	@mkdir -p $(PAM_BUILD)
	$(PAM_CC) $(PAM_CFLAGS) -Ilibpinvault $(PAM_LDFLAGS) -o "$@" $(PAM_SOURCES) $(LIB_LINK) $(PAM_LIBS)

# The unit tests compile libpinvault's sources in, to reach the parsers behind its API.
$(PAM_BUILD)/pv-tests: pam/tests/pv_tests.c libpinvault/tests/check.h $(PAM_LIBRARY) $(PAM_HEADERS) $(LIB_SOURCES) $(LIB_HEADERS) Makefile
	@mkdir -p $(PAM_BUILD)
	$(PAM_CC) $(C_TEST_FLAGS) -Ilibpinvault -Ipam -o "$@" pam/tests/pv_tests.c $(PAM_LIBRARY) $(LIB_SOURCES) $(PAM_TEST_LIBS)

pam-test: deps $(PAM_BUILD)/pv-tests lib-test
	$(PAM_BUILD)/pv-tests

# The C modules as the tests load them: copies in STAGE_DIR (an absolute path without
# spaces), each linked with STAGE_DIR as its run path, so that a module loaded by
# sudo or sshd (where LD_LIBRARY_PATH is ignored) finds the libpinvault beside it.
STAGE_DIR ?=
comma := ,
stage: deps $(LIB_FILE)
	@[ -n "$(STAGE_DIR)" ] || { echo "make stage: STAGE_DIR=/absolute/path"; exit 1; }
	cp $(LIB_FILE) "$(STAGE_DIR)/$(LIB_SONAME)"
	$(PAM_CC) $(PAM_CFLAGS) -Ilibpinvault $(PAM_LDFLAGS) -Wl,-rpath,"$(STAGE_DIR)" -o "$(STAGE_DIR)/pam_pinvault.so" \
		$(PAM_SOURCES) $(LIB_LINK) $(PAM_LIBS)
	$(if $(PKCS11_SOURCES),$(PKCS11_CC) $(PKCS11_CFLAGS) $(PAM_LDFLAGS) -Wl$(comma)-rpath$(comma)"$(STAGE_DIR)" \
		-o "$(STAGE_DIR)/pinvault-pkcs11.so" $(PKCS11_SOURCES) $(LIB_LINK) $(PKCS11_LIBS))
	$(C_CC) $(PAM_CFLAGS) -Ilibpinvault -Wl,-rpath,"$(STAGE_DIR)" -o "$(STAGE_DIR)/pinvault-sign" \
		libpinvault/examples/pinvault-sign.c $(LIB_LINK)
	chmod 0644 "$(STAGE_DIR)"/*.so*

# The same, built with AddressSanitizer and UBSan (every finding fatal) into STAGE_DIR:
# the PKCS#11 tests run their clients over it, with libasan preloaded (C_ASAN_RUNTIME).
C_ASAN_RUNTIME = $(shell $(C_CC) -print-file-name=libasan.so)
stage-sanitized: deps
	@[ -n "$(STAGE_DIR)" ] || { echo "make stage-sanitized: STAGE_DIR=/absolute/path"; exit 1; }
	$(C_CC) $(C_TEST_FLAGS) -fPIC -shared -Wl,-soname,$(LIB_SONAME) -Wl,--version-script=libpinvault/libpinvault.map \
		-o "$(STAGE_DIR)/$(LIB_SONAME)" $(LIB_SOURCES) $(LIB_LIBS)
	ln -sf $(LIB_SONAME) "$(STAGE_DIR)/libpinvault.so"
	$(C_CC) $(C_TEST_FLAGS) -fPIC -shared -Ilibpinvault $(P11KIT_CFLAGS) -Wl,-rpath,"$(STAGE_DIR)" \
		-o "$(STAGE_DIR)/pinvault-pkcs11.so" $(PKCS11_SOURCES) -L"$(STAGE_DIR)" -lpinvault $(PKCS11_LIBS)
	$(C_CC) $(C_TEST_FLAGS) -Ilibpinvault -Wl,-rpath,"$(STAGE_DIR)" -o "$(STAGE_DIR)/pinvault-sign" \
		libpinvault/examples/pinvault-sign.c -L"$(STAGE_DIR)" -lpinvault
	echo "$(C_ASAN_RUNTIME)" > "$(STAGE_DIR)/asan-runtime"

# pam/tests/fuzz-seeds: replies with credentials of each purpose (a keyId the fuzzer
# could not find by itself), and PAM_RHOSTs with a hosts file (docs/FUZZING.md).
PAM_FUZZ_SECONDS ?= 60
PAM_FUZZ_CC      ?= $(dir $(realpath $(shell command -v swiftc)))clang
PAM_FUZZ_SEEDS   := pam/tests/fuzz-seeds
pam-fuzz: deps
	@mkdir -p $(PAM_BUILD)/fuzz-corpus $(PAM_BUILD)/fuzz-findings
	$(PAM_FUZZ_CC) -std=gnu11 -O1 -g -fsanitize=fuzzer,address,undefined -Ilibpinvault -Ipam -o $(PAM_BUILD)/pv-fuzz \
		pam/tests/pv_fuzz.c $(PAM_LIBRARY) $(LIB_SOURCES) $(PAM_TEST_LIBS)
	$(PAM_BUILD)/pv-fuzz -max_total_time=$(PAM_FUZZ_SECONDS) -max_len=8192 -print_final_stats=1 \
		-artifact_prefix=$(PAM_BUILD)/fuzz-findings/ $(PAM_BUILD)/fuzz-corpus $(PAM_FUZZ_SEEDS)

# pinvault-pkcs11.so (pkcs11/, docs/PKCS11.md): a PKCS#11 3.0 module over libpinvault,
# one token per authenticate credential (and per P-256 ssh credential). The PKCS#11
# types and constants come from p11-kit's pkcs11.h (libp11-kit-dev) and
# pkcs11/pv_pkcs11.h (what 3.0 added).
PKCS11_BUILD   := .build-pkcs11
PKCS11_MODULE  := $(PKCS11_BUILD)/pinvault-pkcs11.so
PKCS11_CC      ?= $(C_CC)
PKCS11_SOURCES := $(wildcard pkcs11/*.c)
PKCS11_HEADERS := $(wildcard pkcs11/*.h) libpinvault/pinvault.h
P11KIT_CFLAGS  := $(shell pkg-config --cflags p11-kit-1 2>/dev/null || echo -I/usr/include/p11-kit-1)
PKCS11_CFLAGS  := $(PAM_CFLAGS) -Ilibpinvault $(P11KIT_CFLAGS)
PKCS11_LIBS    := $(SODIUM_LIBS) -lpthread

pkcs11: deps $(PKCS11_MODULE)

# make bench's PKCS#11 round trips: one C loop for PinVault's module, Varlink Sign and SoftHSM2.
PKCS11_BENCH := $(PKCS11_BUILD)/p11-sign-bench
$(PKCS11_BENCH): pkcs11/bench/p11-sign-bench.c $(PKCS11_HEADERS) $(LIB_FILE) Makefile
	@mkdir -p $(PKCS11_BUILD)
	$(PKCS11_CC) $(PKCS11_CFLAGS) -Ipkcs11 -Wl,-rpath,'$$ORIGIN/../$(LIB_BUILD)' -o "$@" pkcs11/bench/p11-sign-bench.c \
		$(LIB_LINK) $(SODIUM_LIBS) -ldl

# The unit tests of the module's first layer: which credentials are tokens, ECDSA's DER and r || s.
$(PKCS11_BUILD)/keys-tests: pkcs11/tests/keys_tests.c pkcs11/pv_keys.c $(PKCS11_HEADERS) libpinvault/tests/check.h Makefile
	@mkdir -p $(PKCS11_BUILD)
	$(C_CC) $(C_TEST_FLAGS) -Ilibpinvault -Ipkcs11 $(P11KIT_CFLAGS) -o "$@" pkcs11/tests/keys_tests.c pkcs11/pv_keys.c $(CRYPTO_LIBS)

pkcs11-test: deps $(PKCS11_BUILD)/keys-tests
	$(PKCS11_BUILD)/keys-tests
	scripts/check-pkcs11-layers.sh pkcs11

$(PKCS11_MODULE): $(PKCS11_SOURCES) $(PKCS11_HEADERS) $(LIB_FILE) Makefile
	@mkdir -p $(PKCS11_BUILD)
	$(PKCS11_CC) $(PKCS11_CFLAGS) $(PAM_LDFLAGS) $(SYMBOLIC) -o "$@" $(PKCS11_SOURCES) $(LIB_LINK) $(PKCS11_LIBS)

# Yubico's libfido2 as a client of the CTAPHID socket (Tests/Fido2, LibFIDO2Tests), test
# programs never installed: libfido2-client under ASan and UBSan, and the LD_PRELOAD shim
# that gives fido2-token, fido2-cred and fido2-assert the socket (unsanitized: it enters
# them). FIDO2_DIR is where they go (the tests give each run a directory of its own).
FIDO2_DIR     ?= .build-fido2
FIDO2_IO      := Tests/Fido2/ctaphid_socket_io.c
FIDO2_LIBS    := $(shell pkg-config --libs libfido2 2>/dev/null || echo -lfido2)
fido2-client: deps
	@pkg-config --exists libfido2 || { echo "libfido2's headers are missing: run make test-deps (libfido2-dev)"; exit 1; }
	@mkdir -p "$(FIDO2_DIR)"
	$(C_CC) $(C_TEST_FLAGS) -o "$(FIDO2_DIR)/libfido2-client" Tests/Fido2/libfido2_client.c $(FIDO2_IO) $(FIDO2_LIBS)
	$(C_CC) $(PAM_CFLAGS) $(PAM_LDFLAGS) -o "$(FIDO2_DIR)/libfido2-socket-preload.so" Tests/Fido2/socket_preload.c \
		$(FIDO2_IO) $(FIDO2_LIBS) -ldl

# pinvault-uhid (uhid/, pinvault-uhid(8)): the virtual FIDO security key on /dev/uhid for
# the active seat user, a small C program of its own (the privilege to create HID devices
# stays out of pinvaultd), linked only to libc and libsystemd (sd-login).
UHID_BUILD     := .build-uhid
UHID_PROGRAM   := $(UHID_BUILD)/pinvault-uhid
UHID_SOURCES   := uhid/pinvault-uhid.c uhid/pv_uhid.c
UHID_HEADERS   := $(wildcard uhid/*.h)
UHID_CFLAGS    := $(filter-out -fPIC -fvisibility=hidden,$(PAM_CFLAGS)) -fPIE
UHID_LDFLAGS   := -pie -Wl,-z,relro,-z,now -Wl,-z,noexecstack -Wl,--as-needed
SYSTEMD_LIBS   := $(shell pkg-config --libs libsystemd 2>/dev/null || echo -lsystemd)

uhid: deps $(UHID_PROGRAM)

$(UHID_PROGRAM): $(UHID_SOURCES) $(UHID_HEADERS) Makefile
	@mkdir -p $(UHID_BUILD)
	$(C_CC) $(UHID_CFLAGS) $(UHID_LDFLAGS) -o "$@" $(UHID_SOURCES) $(SYSTEMD_LIBS)

# The program under AddressSanitizer and UBSan, as the integration tests run it
# (UHIDBridgeTests: a test plays the kernel, a real pinvaultd answers), and the unit
# tests of its relay (uhid/tests/uhid_tests.c), which uhid-test runs.
UHID_SANITIZED := $(UHID_BUILD)/pinvault-uhid-sanitized
$(UHID_SANITIZED): $(UHID_SOURCES) $(UHID_HEADERS) Makefile
	@mkdir -p $(UHID_BUILD)
	$(C_CC) $(C_TEST_FLAGS) -o "$@" $(UHID_SOURCES) $(SYSTEMD_LIBS)

$(UHID_BUILD)/uhid-tests: uhid/tests/uhid_tests.c uhid/pv_uhid.c $(UHID_HEADERS) libpinvault/tests/check.h Makefile
	@mkdir -p $(UHID_BUILD)
	$(C_CC) $(C_TEST_FLAGS) -Iuhid -Ilibpinvault/tests -o "$@" uhid/tests/uhid_tests.c uhid/pv_uhid.c

uhid-sanitized: deps $(UHID_SANITIZED)

uhid-test: deps $(UHID_BUILD)/uhid-tests $(UHID_SANITIZED)
	$(UHID_BUILD)/uhid-tests

# libFuzzer needs its library without its main (SwiftPM gives the target its own entry
# point, which hands over to LLVMFuzzerRunDriver) and coverage instrumentation.
# New inputs go to .build-fuzz/corpus, crashes and their inputs to .build-fuzz/findings;
# Fuzz/corpus holds the committed seeds (python3 Fuzz/make-corpus.py rewrites them).
FUZZ_SECONDS ?= 60
FUZZ_RUNTIME := $(firstword $(wildcard $(dir $(realpath $(shell command -v swiftc)))../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a))
FUZZ_FLAGS   := -Xswiftc -DPINVAULT_FUZZ -Xswiftc -sanitize=address \
	-Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp \
	-Xlinker --whole-archive -Xlinker $(FUZZ_RUNTIME) -Xlinker --no-whole-archive \
	-Xlinker --export-dynamic-symbol=LLVMFuzzerRunDriver -Xlinker -lstdc++

# The build's own tools (the Varlink generator) are built with ASan too: what they leave
# at exit is no finding, and LeakSanitizer's report would fail their build step.
fuzz-build: test-deps
	@[ -n "$(FUZZ_RUNTIME)" ] || { echo "libclang_rt.fuzzer_no_main not found beside swiftc"; exit 1; }
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) build --scratch-path .build-fuzz --product pinvault-fuzz $(FUZZ_FLAGS)

fuzz: fuzz-build
	@mkdir -p .build-fuzz/corpus .build-fuzz/findings
	.build-fuzz/debug/pinvault-fuzz -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=4096 \
		-max_len=8192 -print_final_stats=1 -artifact_prefix=.build-fuzz/findings/ \
		.build-fuzz/corpus Fuzz/corpus

# The event loop itself (TransportHarness): socketpairs, split writes, half-closes,
# closes, small socket buffers, several peers. New inputs go to
# .build-fuzz/corpus-transport; Fuzz/corpus-transport holds the committed seeds, which
# make test replays. docs/FUZZING.md records the long runs.
fuzz-transport: fuzz-build
	@mkdir -p .build-fuzz/corpus-transport .build-fuzz/findings-transport
	PINVAULT_FUZZ_TARGET=transport .build-fuzz/debug/pinvault-fuzz -max_total_time=$(FUZZ_SECONDS) -timeout=20 \
		-rss_limit_mb=4096 -max_len=16384 -print_final_stats=1 -artifact_prefix=.build-fuzz/findings-transport/ \
		.build-fuzz/corpus-transport Fuzz/corpus-transport

# The parsers that decide what an ssh key signs and what Authenticate refuses
# (SSHSignedData): whatever they accept must encode back to exactly the input.
# Fuzz/corpus-ssh-data holds the seeds (python3 Fuzz/make-corpus.py), which make test replays.
fuzz-ssh-data: fuzz-build
	@mkdir -p .build-fuzz/corpus-ssh-data .build-fuzz/findings-ssh-data
	PINVAULT_FUZZ_TARGET=ssh-data .build-fuzz/debug/pinvault-fuzz -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
		-max_len=4096 -print_final_stats=1 -artifact_prefix=.build-fuzz/findings-ssh-data/ \
		.build-fuzz/corpus-ssh-data Fuzz/corpus-ssh-data

# CTAP's CBOR (CBORCheck): what the decoder accepts re-encodes canonically to a fixed
# point. Fuzz/corpus-cbor holds the seeds (python3 Fuzz/make-corpus.py), which make test replays.
fuzz-cbor: fuzz-build
	@mkdir -p .build-fuzz/corpus-cbor .build-fuzz/findings-cbor
	PINVAULT_FUZZ_TARGET=cbor .build-fuzz/debug/pinvault-fuzz -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
		-max_len=8192 -print_final_stats=1 -artifact_prefix=.build-fuzz/findings-cbor/ \
		.build-fuzz/corpus-cbor Fuzz/corpus-cbor

# The CTAPHID device (CTAPHIDCheck): malformed reports, wrong sequence numbers, INITs in a
# loop, oversize lengths, late and unwanted replies, checked after every step; at the end
# it still answers INIT and PING. Fuzz/corpus-ctaphid holds the seeds, which make test replays.
fuzz-ctaphid: fuzz-build
	@mkdir -p .build-fuzz/corpus-ctaphid .build-fuzz/findings-ctaphid
	PINVAULT_FUZZ_TARGET=ctaphid .build-fuzz/debug/pinvault-fuzz -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
		-max_len=8192 -print_final_stats=1 -artifact_prefix=.build-fuzz/findings-ctaphid/ \
		.build-fuzz/corpus-ctaphid Fuzz/corpus-ctaphid

# CTAP2 commands through the security key's dispatch over a real engine and store
# (CTAPCommandCheck): PINs, tokens, passkeys and credential management by a platform in the
# harness, fuzzed fields and raw messages beside them, each reply and signature checked.
# OpenSSL's per-thread state of the vault's threads, alive at exit, is not a leak
# (Fuzz/lsan-fuzz-suppressions.txt). Fuzz/corpus-ctap holds the seeds (python3 Fuzz/make-corpus.py), which make test replays.
fuzz-ctap: fuzz-build
	@mkdir -p .build-fuzz/corpus-ctap .build-fuzz/findings-ctap
	LSAN_OPTIONS="suppressions=$(CURDIR)/Fuzz/lsan-fuzz-suppressions.txt" PINVAULT_FUZZ_TARGET=ctap .build-fuzz/debug/pinvault-fuzz -max_total_time=$(FUZZ_SECONDS) -timeout=60 \
		-rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 -artifact_prefix=.build-fuzz/findings-ctap/ \
		.build-fuzz/corpus-ctap Fuzz/corpus-ctap

# The tests of the protocol, the crypto, the daemon's units and the daemon as a real
# process, under each sanitizer, with the adversarial suites where the concurrency is:
# floods, online guessing, crash rounds and the memory scan. The integration and
# adversarial tests start pinvaultd from the same build directory, so the daemon runs
# sanitized too (and MemoryHygieneTests scans a daemon whose freed memory ASan keeps in
# quarantine, unreused; under TSan it scans TSan's heap, leaving out only its shadow).
# docs/SANITIZERS.md records the runs and what they found; Fuzz/tsan-suppressions.txt
# holds the one report in the toolchain's own code that is suppressed, and why.
SANITIZE_TESTS := PinVaultSystemTests|PinVaultProtocolTests|PinVaultCryptoTests|PinVaultEngineTests|PinVaultTransportTests|PinVaultVarlinkTests|PinVaultDaemonTests|PinVaultIntegrationTests|MemoryHygieneTests|FloodTests|OnlineGuessingTests|CrashConsistencyTests

sanitize: test-deps venv release-daemon
	PINVAULT_PYTHON="$(VENV)/bin/python" PINVAULT_RELEASE_DAEMON="$(RELEASE_DAEMON)" \
		LSAN_OPTIONS="suppressions=$(CURDIR)/Fuzz/lsan-suppressions.txt" \
		$(SWIFT) test --sanitize=address --scratch-path .build-asan --filter '$(SANITIZE_TESTS)'
	PINVAULT_PYTHON="$(VENV)/bin/python" PINVAULT_RELEASE_DAEMON="$(RELEASE_DAEMON)" \
		TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/Fuzz/tsan-suppressions.txt" \
		$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter '$(SANITIZE_TESTS)'

# Installation layout. Units and sysusers.d go under PREFIX, where systemd looks too
# (/usr/local/lib/systemd/system); the configuration under SYSCONFDIR. The Debian
# package sets Debian's directories (debian/rules: pinvaultd in /usr/sbin, units in
# /usr/lib/systemd/system: every file under /usr).
PREFIX       ?= /usr/local
DESTDIR      ?=
BINDIR       ?= $(PREFIX)/bin
DAEMONDIR    ?= $(BINDIR)
SBINDIR      ?= $(PREFIX)/sbin
SYSCONFDIR   ?= /etc
UNITDIR      ?= $(PREFIX)/lib/systemd/system
# The per-user agent's units (pinvault agent), for `systemctl --user`.
USERUNITDIR  ?= $(PREFIX)/lib/systemd/user
SYSUSERSDIR  ?= $(PREFIX)/lib/sysusers.d
DOCDIR       ?= $(PREFIX)/share/doc/pinvault
MANDIR       ?= $(PREFIX)/share/man
VARLINKDIR   ?= $(PREFIX)/share/varlink
# pinvault's shell completions, where bash-completion, Debian's zsh and fish look.
BASHCOMPDIR  ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR   ?= $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR  ?= $(PREFIX)/share/fish/vendor_completions.d
MANPAGES     := $(wildcard docs/man/*.[158])
STATEDIR     ?= /var/lib/pinvault
CREDSTORE    ?= /etc/credstore.encrypted
INSTALL_FROM ?=
INSTALL_BIN   = $(if $(INSTALL_FROM),$(INSTALL_FROM),$(RELEASE_BIN))
MANDIR       ?= $(PREFIX)/share/man
# PAM looks for modules in its own directory, whatever PREFIX is: /usr/lib/<multiarch>/
# security, where trixie's libpam-modules puts pam_unix.so (Debian's /usr-move, DEP 17)
# and which bookworm's merged /usr makes the same directory as its /lib/<multiarch>/security.
MULTIARCH    := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || $(CC) -print-multiarch)
PAMDIR       ?= /usr/lib/$(MULTIARCH)/security
# pam-auth-update reads profiles from here only.
PAMCONFIGDIR ?= /usr/share/pam-configs

install-build: release

install: $(if $(INSTALL_FROM),,install-build) pam uhid
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DAEMONDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
		$(DESTDIR)$(USERUNITDIR) \
		$(DESTDIR)$(SYSCONFDIR)/pinvault $(DESTDIR)$(DOCDIR) $(DESTDIR)$(VARLINKDIR) \
		$(DESTDIR)$(PAMDIR) $(DESTDIR)$(PAMCONFIGDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	install -m 0644 $(PAM_MODULE) $(DESTDIR)$(PAMDIR)/pam_pinvault.so
	@# Off until an admin enables it (pam-auth-update, docs/PAM.md): installing changes no PAM stack.
	install -m 0644 packaging/pam-configs/pinvault $(DESTDIR)$(PAMCONFIGDIR)/pinvault
	install -m 0755 "$(INSTALL_BIN)/pinvaultd" $(DESTDIR)$(DAEMONDIR)/
	install -m 0755 "$(INSTALL_BIN)/pinvault" $(DESTDIR)$(BINDIR)/
	@# The completions swift-argument-parser writes from the command's own options.
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	@# Sourced, not run: no #! line (lintian's bash-completion-with-hashbang).
	"$(INSTALL_BIN)/pinvault" --generate-completion-script bash > $(DESTDIR)$(BASHCOMPDIR)/pinvault
	sed -i -e '1{/^#!/d}' $(DESTDIR)$(BASHCOMPDIR)/pinvault
	"$(INSTALL_BIN)/pinvault" --generate-completion-script zsh > $(DESTDIR)$(ZSHCOMPDIR)/_pinvault
	"$(INSTALL_BIN)/pinvault" --generate-completion-script fish > $(DESTDIR)$(FISHCOMPDIR)/pinvault.fish
	chmod 0644 $(DESTDIR)$(BASHCOMPDIR)/pinvault $(DESTDIR)$(ZSHCOMPDIR)/_pinvault $(DESTDIR)$(FISHCOMPDIR)/pinvault.fish
	install -m 0755 packaging/pinvault-seal-pepper $(DESTDIR)$(SBINDIR)/pinvault-seal-pepper
	install -m 0755 $(UHID_PROGRAM) $(DESTDIR)$(SBINDIR)/pinvault-uhid
	@# Installed, not enabled: an admin turns the seat's security key on (docs/WEBAUTHN.md).
	sed -e 's|^ExecStart=/usr/local/sbin/pinvault-uhid |ExecStart=$(SBINDIR)/pinvault-uhid |' \
		systemd/pinvault-uhid.service > $(DESTDIR)$(UNITDIR)/pinvault-uhid.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/pinvault-uhid.service
	sed -e 's|^ExecStart=/usr/local/bin/pinvaultd --config /etc/pinvault/|ExecStart=$(DAEMONDIR)/pinvaultd --config $(SYSCONFDIR)/pinvault/|' \
		-e 's|^LoadCredentialEncrypted=pinvault.pepper:/etc/credstore.encrypted/|LoadCredentialEncrypted=pinvault.pepper:$(CREDSTORE)/|' \
		systemd/pinvaultd.service > $(DESTDIR)$(UNITDIR)/pinvaultd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/pinvaultd.service
	sed -e 's|^ExecStartPre=/usr/local/sbin/pinvault-seal-pepper --check --output=/etc/credstore.encrypted/|ExecStartPre=$(SBINDIR)/pinvault-seal-pepper --check --output=$(CREDSTORE)/|' \
		systemd/pinvaultd.socket > $(DESTDIR)$(UNITDIR)/pinvaultd.socket
	chmod 0644 $(DESTDIR)$(UNITDIR)/pinvaultd.socket
	@# Not enabled for anyone: each user enables it (README, "Use with ssh and git").
	install -m 0644 systemd/user/pinvault-agent.socket $(DESTDIR)$(USERUNITDIR)/pinvault-agent.socket
	sed -e 's|^ExecStart=/usr/bin/pinvault agent|ExecStart=$(BINDIR)/pinvault agent|' \
		systemd/user/pinvault-agent.service > $(DESTDIR)$(USERUNITDIR)/pinvault-agent.service
	chmod 0644 $(DESTDIR)$(USERUNITDIR)/pinvault-agent.service
	install -m 0644 packaging/sysusers.d-pinvault.conf $(DESTDIR)$(SYSUSERSDIR)/pinvault.conf
	@# An edited configuration or deny list is kept; the new default goes beside it.
	for file in pinvaultd.toml deny-list.txt; do \
		target=$(DESTDIR)$(SYSCONFDIR)/pinvault/$$file; \
		if [ -e $$target ] && ! cmp -s config/$$file $$target; then \
			install -m 0644 config/$$file $$target.default; \
		else \
			install -m 0644 config/$$file $$target; \
		fi; \
	done
	install -m 0644 README.md SECURITY.md docs/OPERATIONS.md docs/FORMAT.md docs/PAM.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 io.pinvault.Vault.varlink $(DESTDIR)$(VARLINKDIR)/
	for page in $(MANPAGES); do \
		install -m 0644 $$page $(DESTDIR)$(MANDIR)/man$${page##*.}/; \
	done
	@# libpinvault (which pam_pinvault.so links) and the PKCS#11 module: install-c, below.
	$(MAKE) --no-print-directory install-c DESTDIR="$(C_DESTDIR)"
	@# On the real system (no DESTDIR, as root): create the user, tell systemd.
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then \
		command -v systemd-sysusers >/dev/null && systemd-sysusers $(SYSUSERSDIR)/pinvault.conf; \
		[ -d /run/systemd/system ] && systemctl daemon-reload; \
		echo "next: $(SBINDIR)/pinvault-seal-pepper && systemctl enable --now pinvaultd.socket (docs/OPERATIONS.md)"; \
	fi; true

# libpinvault, its header, pkg-config file and man page, and pinvault-pkcs11.so with its
# p11-kit registration. The Debian package puts them in debian/tmp (C_DESTDIR) for
# libpinvault0, libpinvault-dev and pinvault-pkcs11 (debian/*.install). p11-kit reads
# its registry from its own directory, whatever PREFIX is; the registration names the
# module bare when it is in p11-kit's module directory (so the file is the same on
# every architecture), else by its full path.
LIBDIR          ?= $(PREFIX)/lib
INCLUDEDIR      ?= $(PREFIX)/include
PKGCONFIGDIR    ?= $(LIBDIR)/pkgconfig
PKCS11DIR       ?= $(LIBDIR)/pkcs11
P11KIT_CONFIGS  ?= $(shell pkg-config --variable=p11_module_configs p11-kit-1 2>/dev/null || echo /usr/share/p11-kit/modules)
P11KIT_MODULES  := $(shell pkg-config --variable=p11_module_path p11-kit-1 2>/dev/null)
C_DESTDIR       ?= $(DESTDIR)

install-c: lib pkcs11
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(PKCS11DIR) \
		$(DESTDIR)$(P11KIT_CONFIGS) $(DESTDIR)$(MANDIR)/man3
	install -m 0644 $(LIB_FILE) $(DESTDIR)$(LIBDIR)/
	ln -sf libpinvault.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libpinvault.so
	install -m 0644 libpinvault/pinvault.h $(DESTDIR)$(INCLUDEDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(LIB_VERSION)|' libpinvault/pinvault.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/pinvault.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/pinvault.pc
	install -m 0644 docs/man/libpinvault.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 0644 $(PKCS11_MODULE) $(DESTDIR)$(PKCS11DIR)/
	sed -e 's|^module: pinvault-pkcs11.so$$|module: $(if $(filter $(P11KIT_MODULES),$(PKCS11DIR)),pinvault-pkcs11.so,$(PKCS11DIR)/pinvault-pkcs11.so)|' \
		pkcs11/pinvault.module > $(DESTDIR)$(P11KIT_CONFIGS)/pinvault.module
	chmod 0644 $(DESTDIR)$(P11KIT_CONFIGS)/pinvault.module
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

uninstall-c:
	rm -f $(DESTDIR)$(LIBDIR)/libpinvault.so.$(LIB_VERSION) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libpinvault.so \
		$(DESTDIR)$(INCLUDEDIR)/pinvault.h $(DESTDIR)$(PKGCONFIGDIR)/pinvault.pc $(DESTDIR)$(MANDIR)/man3/libpinvault.3 \
		$(DESTDIR)$(PKCS11DIR)/pinvault-pkcs11.so $(DESTDIR)$(P11KIT_CONFIGS)/pinvault.module

uninstall: uninstall-c
	@# A stack that still names the module would refuse every sign-in once it is gone:
	@# take the profile out of the common-* files first.
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v pam-auth-update >/dev/null; then \
		pam-auth-update --package --remove pinvault; \
	fi
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
		systemctl disable --now pinvault-uhid.service pinvaultd.socket pinvaultd.service 2>/dev/null || true; \
	fi
	rm -f $(DESTDIR)$(PAMCONFIGDIR)/pinvault $(DESTDIR)$(PAMDIR)/pam_pinvault.so
	rm -f $(DESTDIR)$(BASHCOMPDIR)/pinvault $(DESTDIR)$(ZSHCOMPDIR)/_pinvault $(DESTDIR)$(FISHCOMPDIR)/pinvault.fish
	rm -f $(DESTDIR)$(DAEMONDIR)/pinvaultd $(DESTDIR)$(BINDIR)/pinvault $(DESTDIR)$(SBINDIR)/pinvault-seal-pepper \
		$(DESTDIR)$(SBINDIR)/pinvault-uhid $(DESTDIR)$(UNITDIR)/pinvault-uhid.service \
		$(DESTDIR)$(UNITDIR)/pinvaultd.service $(DESTDIR)$(UNITDIR)/pinvaultd.socket \
		$(DESTDIR)$(USERUNITDIR)/pinvault-agent.socket $(DESTDIR)$(USERUNITDIR)/pinvault-agent.service \
		$(DESTDIR)$(SYSUSERSDIR)/pinvault.conf $(DESTDIR)$(VARLINKDIR)/io.pinvault.Vault.varlink
	for page in $(MANPAGES); do \
		rm -f $(DESTDIR)$(MANDIR)/man$${page##*.}/$${page##*/}; \
	done
	rm -rf $(DESTDIR)$(DOCDIR)
	@# The vault, its pepper and the configuration outlive an uninstall unless asked.
	@if [ "$(PURGE)" = yes ]; then \
		echo "PURGE=yes: removing the configuration, the sealed pepper and $(STATEDIR)"; \
		rm -rf $(DESTDIR)$(SYSCONFDIR)/pinvault $(DESTDIR)$(STATEDIR) $(DESTDIR)/var/lib/private/pinvault; \
		rm -f $(DESTDIR)$(CREDSTORE)/pinvault.pepper; \
	else \
		echo "kept $(SYSCONFDIR)/pinvault, $(STATEDIR) and $(CREDSTORE)/pinvault.pepper (PURGE=yes removes them)"; \
	fi
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi; true

check-units:
	scripts/check-units.sh systemd "" systemd/user

# The Debian package (packaging/README.md): debhelper builds it from debian/ with the
# same `make release` and `make install` as above, into PINVAULT_DEB_DIR (dist/): the
# .deb, its -dbgsym, .buildinfo and .changes. lintian then fails the target on an
# error; its warnings are explained in packaging/README.md. PINVAULT_DEB_VERSION
# stamps another Debian version than debian/changelog's (make package-test builds
# its upgrade so). Both reach debian/rules through the environment.
PINVAULT_DEB_DIR     ?= dist
PINVAULT_DEB_VERSION ?= $(shell dpkg-parsechangelog -SVersion)
DEB_BASENAME          = $(PINVAULT_DEB_DIR)/pinvault_$(PINVAULT_DEB_VERSION)_$(shell dpkg --print-architecture)

deb-packages:
	@$(MAKE) --no-print-directory apt-packages PACKAGES="$(BUILD_PACKAGES) $(DEB_PACKAGES)"

deb: deb-packages
	@command -v $(SWIFT) >/dev/null || { echo "make deb: $(SWIFT) not found: the build needs the Swift toolchain (README)"; exit 1; }
	@mkdir -p "$(PINVAULT_DEB_DIR)"
	PINVAULT_DEB_DIR="$(PINVAULT_DEB_DIR)" PINVAULT_DEB_VERSION=$(PINVAULT_DEB_VERSION) dpkg-buildpackage -b -us -uc \
		--changes-file="$(DEB_BASENAME).changes" --changes-option="-u$(PINVAULT_DEB_DIR)" \
		--buildinfo-file="$(DEB_BASENAME).buildinfo" --buildinfo-option="-u$(PINVAULT_DEB_DIR)"
	lintian --fail-on error "$(DEB_BASENAME).changes"
	@ls -l "$(DEB_BASENAME).deb"

# The .deb and its upgrade installed, used, upgraded and purged in a minimal Debian 12
# root made by mmdebstrap (cached in .build-deb/), with no Swift toolchain in it. As
# root only (chroot, mounts): scripts/package-test.sh says what it checks.
# The postinst seals to a software TPM in each root (swtpm runs here).
PACKAGE_TEST_PACKAGES := swtpm swtpm-tools tpm2-tools

package-test: deb-packages
	@$(MAKE) --no-print-directory apt-packages PACKAGES="$(PACKAGE_TEST_PACKAGES)"
	scripts/package-test.sh

# docs/man/pinvault.1, from the command's own help (swift-argument-parser's
# generate-manual, built from the checkout SwiftPM already has), ending with the
# sections written by hand in docs/man/pinvault.1.tail (KEY PURPOSES, AGENT, the
# EXIT STATUS table, FILES, SEE ALSO) in place of the generated one-line EXIT STATUS.
# Committed; deployment tests check that it names every subcommand and exit status.
man: release
	$(SWIFT) build -c release --package-path .build/checkouts/swift-argument-parser \
		--scratch-path .build-man --product generate-manual
	@mkdir -p .build-man/pages
	.build-man/release/generate-manual "$(RELEASE_BIN)/pinvault" --output-directory .build-man/pages \
		--date "$$(date -u -d "$$(dpkg-parsechangelog -SDate)" +%Y-%m-%d)" --section 1
	@# An empty line between paragraphs of a discussion is a warning in mdoc: .Pp instead.
	sed -e 's/^$$/.Pp/' -e '/^\.Sh "EXIT STATUS"$$/,$$d' .build-man/pages/pinvault.1 > docs/man/pinvault.1
	cat docs/man/pinvault.1.tail >> docs/man/pinvault.1

# Benchmarks (Benchmarks/pinvault-bench): KDF overhead, parallel throughput, round trips
# beside ssh-agent, memory, scale to 100,000 credentials, cold start. BENCH_QUICK=1 runs a
# few iterations of each; BENCH_SCRATCH picks the build directory. The daemon is built
# as `make release` and the package build it (static Swift runtime, full RELRO).
BENCH_QUICK   ?=
BENCH_SCRATCH ?= $(CURDIR)/.build
bench: test-deps pkcs11 $(PKCS11_BENCH)
	$(SWIFT) build $(RELEASE_FLAGS) --scratch-path "$(BENCH_SCRATCH)" --product pinvaultd
	$(SWIFT) build $(RELEASE_FLAGS) --scratch-path "$(BENCH_SCRATCH)" --product pinvault
	$(SWIFT) build -c release --scratch-path "$(BENCH_SCRATCH)" --product pinvault-bench
	"$(BENCH_SCRATCH)/release/pinvault-bench" $(if $(BENCH_QUICK),--quick) \
		--daemon "$(BENCH_SCRATCH)/release/pinvaultd" \
		--config "$(CURDIR)/config/pinvaultd.toml" \
		--output "$(CURDIR)/BENCHMARKS.md" \
		--swift-version "$$($(SWIFT) --version 2>&1 | head -n 1)" \
		--commit "$$(git -C "$(CURDIR)" rev-parse --short HEAD 2>/dev/null || echo unknown)"
