# Makefile -- a thin wrapper over meson, in the manner of neovim's.
#
#   make          configure (if needed) and build into $(BUILD)
#   make demo     build, then run the in-process demo graph and the quad/qua demo
#   make test     build, then run every test suite (meson test)
#   make bench    build, then run the benchmarks (not part of make test) and
#                 print the table of figures, anchors, ratios and goals
#   make deps     install the Debian packages the build needs (as root),
#                 or print the apt-get line to run (as another user); as root
#                 also add deb-src entries (tests/m68k/real/deb-src.sh)
#   make install  build for PREFIX and install: quad, qua, quamachine,
#                 libquaclient (library, headers, pkg-config), the systemd
#                 units, sysusers.d and tmpfiles.d files, man pages, bash
#                 completions; DESTDIR stages the tree elsewhere
#   make deb      build the Debian packages (debian/, dpkg-buildpackage) from
#                 the tracked files into $(BUILD)-deb/, run lintian (errors
#                 fail) and list each package's contents
#   make fuzz     configure a clang build with libFuzzer, ASan and UBSan in
#                 $(FUZZ_BUILD), build the harnesses of tests/fuzz and run
#                 each for FUZZ_SECONDS (default 60), printing its executions
#
# Variables: BUILD (build folder, default build), MESON_OPTS (extra
# options for meson setup), SUITES (meson test --suite arguments),
# PREFIX (default /usr/local), DESTDIR, FUZZ_BUILD (default build-fuzz),
# FUZZ_SECONDS.

BUILD      ?= build
MESON_OPTS ?=
MESON      ?= meson
PREFIX     ?= /usr/local

# Debian 12 packages: the build, then what tests and benchmarks use.
BUILD_PKGS = meson ninja-build pkg-config gcc libc6-dev \
             libuv1-dev libprotobuf-c-dev protobuf-c-compiler \
             libcunit1-dev liburcu-dev libelf-dev zlib1g-dev libsystemd-dev libcapstone-dev
TEST_PKGS  = libck-dev libboost-dev libdpdk-dev g++ libtcc-dev tcc libgccjit-12-dev \
             redis-server redis-tools gcc-m68k-linux-gnu libc6-dev-m68k-cross qemu-user systemd groff-base \
             python3-protobuf protobuf-compiler python3-pytest iproute2 \
             debhelper dh-python dpkg-dev fakeroot lintian graphviz clang libclang-rt-14-dev
PKGS       = $(BUILD_PKGS) $(TEST_PKGS)

.PHONY: all deps demo test bench install deb fuzz clean

all: $(BUILD)/build.ninja
	$(MESON) compile -C $(BUILD)

deps:
	@missing=$$(for p in $(PKGS); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	  done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "qua: installing Debian packages:" $$missing; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	  else \
	    echo "qua: missing Debian packages; run as root:"; \
	    echo "  apt-get install" $$missing; \
	    exit 1; \
	  fi; \
	fi
	@if [ "$$(id -u)" = 0 ] && \
	    ! apt-get indextargets --format '$$(CREATED_BY)' 2>/dev/null | grep -qx Sources; then \
	  echo "qua: adding deb-src entries for this machine's Debian mirrors (the m68k-real suite's apt-get source)"; \
	  sh tests/m68k/real/deb-src.sh || echo "qua: no deb-src entries added: the m68k-real suite will be skipped"; \
	fi

$(BUILD)/build.ninja: | deps
	$(MESON) setup $(BUILD) $(MESON_OPTS)

demo: all
	./$(BUILD)/tests/qua-demo
	@echo
	sh tests/integration/demo.sh $(BUILD)

test: all
	$(MESON) test -C $(BUILD) --print-errorlogs $(SUITES)

# The benchmarks, then one table of every goal figure from their BENCH lines.
bench: all
	$(MESON) test -C $(BUILD) --benchmark --verbose --timeout-multiplier 4 --logbase benchmarklog; st=$$?; \
	  python3 tests/bench/bench-table.py $(BUILD)/meson-logs/benchmarklog.txt && exit $$st

install: $(BUILD)/build.ninja
	$(MESON) configure $(BUILD) -Dprefix=$(PREFIX)
	$(MESON) install -C $(BUILD) $(if $(DESTDIR),--destdir $(DESTDIR))

# The tracked files (as they are in the working tree) are copied to a
# folder of their own, so dpkg-buildpackage's output (written beside the
# source) stays in $(BUILD)-deb. DEB_BUILD_OPTIONS=nocheck by default: the
# suites are make test's.
DEB_BUILD_OPTIONS ?= nocheck
deb: | deps
	rm -rf $(BUILD)-deb && mkdir -p $(BUILD)-deb/qua
	git ls-files -z | tar --null -T - -cf - | tar -xf - -C $(BUILD)-deb/qua
	cd $(BUILD)-deb/qua && DEB_BUILD_OPTIONS="$(DEB_BUILD_OPTIONS)" dpkg-buildpackage -b -uc -us
	lintian --fail-on error $(BUILD)-deb/*.changes
	sh tests/deb/contents.sh $(BUILD)-deb

# The fuzz build is its own configuration: the ordinary one stays gcc's.
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60

fuzz: | deps
	@test -f $(FUZZ_BUILD)/build.ninja || CC=clang $(MESON) setup $(FUZZ_BUILD) -Dfuzz=true \
	  -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized
	$(MESON) compile -C $(FUZZ_BUILD) fuzz
	sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD) $(BUILD)-deb $(FUZZ_BUILD)
