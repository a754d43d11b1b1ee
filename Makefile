# SPDX-License-Identifier: MIT
# hardsoft — two commands for a user: `make bench` and `make check`.
# Each installs the Debian packages it needs (as root) or prints the exact
# apt-get line and stops.

CC      ?= cc
CXX     ?= c++
PYTHON  ?= /usr/bin/python3
PREFIX  ?= /usr/local
BUILD   ?= build
OPT     ?= -O2
SAN     ?=
CFLAGS_ALL   = -std=c11 $(OPT) -g -Wall -Wextra -fPIC -Iinclude -Isimd -Isrc \
               -D_POSIX_C_SOURCE=200809L $(SAN) $(CFLAGS)
CXXFLAGS_ALL = -std=c++17 $(OPT) -g -Wall -Wextra -Iinclude -Isimd $(SAN) $(CXXFLAGS)
LDFLAGS_ALL  = $(SAN) $(LDFLAGS)
# Only the wide-ISA kernel files get wide flags; everything else must run
# on any x86-64.
AVX2_FLAGS   = -mavx2 -mfma
AVX512_FLAGS = -mavx512f -mavx2 -mfma
# Every kernel (simd/) starts on a 64-byte boundary, so the alignment of
# its loops is its own and not that of whatever the linker put before it:
# byte-identical scalar gemm code measured 1.1-1.8x apart in two builds
# whose only difference was the function's address mod 64, and the
# kernel table compares builds of different commits.
KERNEL_FLAGS = -falign-functions=64
# The builds inside check and bench use every CPU unless the caller chose
# a -j (GNU make 4.3 shows it in MAKEFLAGS only while recipes run).
NPROC := $(shell nproc 2>/dev/null || echo 1)
JOBS   = $(if $(filter -j% j%,$(MAKEFLAGS)),,-j$(NPROC))

ifneq (,$(findstring fast-math,$(CFLAGS) $(CXXFLAGS) $(OPT))$(findstring Ofast,$(CFLAGS) $(CXXFLAGS) $(OPT)))
$(error hardsoft is never built with -ffast-math/-Ofast: it breaks -inf masks and NaN handling)
endif

# Sources by folder: every .c under src/ is the library (src/lang: the front
# ends, src/compile, src/model, src/run, src/base), except the command line
# (src/cli/); every .c in simd/ is a kernel, the WebAssembly SIMD128 ones
# (*-wasm128*.c) only in the SIMD128 wasm library (see web below).
# The AVX2/AVX-512 kernels only where the compiler targets x86, the NEON
# ones (*-neon*.c) only where it targets aarch64 (they need no flag: every
# AArch64 CPU has Advanced SIMD); simd/isa-table.h leaves the other ISAs'
# table rows out.
TARGET_ARCH := $(firstword $(subst -, ,$(shell $(CC) -dumpmachine 2>/dev/null)))
X86_TARGET  := $(filter x86_64 i386 i486 i586 i686,$(TARGET_ARCH))
ARM64_TARGET := $(filter aarch64,$(TARGET_ARCH))
WASM128_SRC = $(sort $(wildcard simd/*-wasm128*.c))
X86_SRC  = $(sort $(wildcard simd/*-avx2*.c simd/*-avx512*.c))
NEON_SRC = $(sort $(wildcard simd/*-neon*.c))
SIMD_SRC = $(filter-out $(WASM128_SRC) $(if $(X86_TARGET),,$(X86_SRC)) $(if $(ARM64_TARGET),,$(NEON_SRC)),\
             $(sort $(wildcard simd/*.c)))
ALL_SRC  = $(sort $(shell find src -name '*.c' -not -path 'src/python/*'))
CLI_SRC  = $(filter src/cli/%,$(ALL_SRC))
LIB_SRC  = $(filter-out src/cli/%,$(ALL_SRC))
TEST_SRC = $(sort $(wildcard tests/test-*.c))
LIB_OBJ  = $(patsubst %.c,$(BUILD)/obj/%.o,$(SIMD_SRC) $(LIB_SRC))
CLI_OBJ  = $(patsubst %.c,$(BUILD)/obj/%.o,$(CLI_SRC))
TEST_BIN = $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
LIBS     = -lcjson -lm -lpthread

# Debian packages each job needs. Presence is asked of dpkg, never inferred
# from a file: another package can provide the same path (netlib's cblas.h
# is an alternative of OpenBLAS's).
# what `make` needs for the library and build/hardsoft
LIB_PKGS      = gcc make libcjson-dev
CHECK_PKGS    = gcc libcmocka-dev libcjson-dev python3-numpy python3-pytest \
                python3-matplotlib python3-torch
# tests/test-onnx.sh: ONNX Runtime for Node (npm, into $(BUILD)/node) and
# onnx.checker. npm is installed by the onnxruntime-node rule below, and
# only when no npm command exists: a nodejs built elsewhere (NodeSource)
# bundles npm and conflicts with Debian's npm package.
CHECK_PKGS   += nodejs python3-onnx
# the playground (make web: emscripten; make check-web, which make check
# runs: Debian's chromium, driven by puppeteer-core from npm)
WEB_PKGS      = emscripten
CHECK_WEB_PKGS = $(WEB_PKGS) chromium nodejs
CHECK_PKGS   += $(CHECK_WEB_PKGS)
# tests/test-peers.sh: the OpenBLAS peer, built by make check
CHECK_PKGS   += pkg-config libopenblas-dev libopenblas-pthread-dev
# tests/test-docs.sh: the manual page through groff
CHECK_PKGS   += groff-base
# tests/test-report.sh: the report's plots drawn by gnuplot (bench/report),
# and tests/py/test_sweep.py's run of the sweep's GNU parallel runner
CHECK_PKGS   += gnuplot-nox parallel
# the Python package: pip install . into a venv offline (check-pip), the
# tutorial notebook run headless (check-notebook)
CHECK_PKGS   += python3-setuptools python3-wheel python3-venv python3-pip \
                python3-nbconvert python3-ipykernel jupyter-nbconvert
# what the benchmark binaries link against
BENCHBIN_PKGS = g++ pkg-config libbenchmark-dev libdnnl-dev libxnnpack-dev \
                libpthreadpool-dev libsleef-dev libopenblas-dev libopenblas-pthread-dev
# what the whole suite runs besides them (peers, timing, plots; GNU
# parallel: bench/sweep's parallel runner)
BENCH_PKGS    = $(CHECK_PKGS) $(BENCHBIN_PKGS) hyperfine gnuplot-nox python3-torch parallel
# make check-slurm (tests/test-slurm.sh): a one-node Slurm cluster on
# 127.0.0.1 running the smoke sweep as job arrays
SLURM_PKGS    = munge slurmctld slurmd slurm-client parallel
# (the ort peer: nodejs from CHECK_PKGS, npm as for make check)

# OpenBLAS's own pkg-config file (the pthread build the list above installs),
# so the system-wide cblas.h alternative cannot change what the OpenBLAS
# users compile and link against.
MULTIARCH      := $(shell $(CC) -print-multiarch 2>/dev/null)
OPENBLAS_PC    = PKG_CONFIG_PATH=/usr/lib/$(MULTIARCH)/openblas-pthread/pkgconfig pkg-config
OPENBLAS_FLAGS = $(shell $(OPENBLAS_PC) --cflags openblas 2>/dev/null)
OPENBLAS_LIBS  = $(shell $(OPENBLAS_PC) --libs openblas 2>/dev/null) \
                 -Wl,-rpath,$(shell $(OPENBLAS_PC) --variable=libdir openblas 2>/dev/null)

.PHONY: FORCE all lib cli benchbins check check-exhaustive check-sanitize check-pip check-notebook check-tsan bench \
        bench-full bench-smoke check-slurm install uninstall clean deps-lib deps-check deps-bench \
        deps-benchbins deps-slurm \
        deps-npm web check-web check-wasm bench-web deps-web deps-check-web check-aarch64 deps-aarch64
.DELETE_ON_ERROR:

# `make`: the library and the command line, after installing the two
# packages they need (as root; as another user it prints the apt-get
# line); the benchmark binaries too when their packages are there, else
# one line says they were skipped (make bench installs them).
all: deps-lib
	@$(MAKE) --no-print-directory lib cli
	@missing=$$($(call missing_pkgs,$(BENCHBIN_PKGS))); \
	if [ -z "$$missing" ]; then $(MAKE) --no-print-directory benchbins; \
	else echo "hardsoft: built the library and build/hardsoft; skipped the benchmark binaries (missing packages:$$missing; make bench installs them)"; fi

lib: $(BUILD)/libhardsoft.a $(BUILD)/libhardsoft.so
cli: $(BUILD)/hardsoft

# The packages of a list that dpkg does not report as installed.
missing_pkgs = for p in $(1); do dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null \
  | grep -q 'ok installed' || printf ' %s' "$$p"; done

# deps-*: install what is missing (root) or print the apt-get line.
define need_pkgs
	@missing=$$($(call missing_pkgs,$(1))); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing) >$(BUILD)/apt.log 2>&1 \
	      || { tail -20 $(BUILD)/apt.log; echo "hardsoft: error: apt-get install$$missing failed"; exit 1; }; \
	  else echo "hardsoft: missing packages; run: sudo apt-get install -y$$missing"; exit 1; fi; fi
endef

deps-lib: | $(BUILD)/
	$(call need_pkgs,$(LIB_PKGS))
deps-check: | $(BUILD)/
	$(call need_pkgs,$(CHECK_PKGS))
deps-bench: | $(BUILD)/
	$(call need_pkgs,$(BENCH_PKGS))
deps-benchbins: | $(BUILD)/
	$(call need_pkgs,$(BENCHBIN_PKGS))
deps-slurm: | $(BUILD)/
	$(call need_pkgs,$(SLURM_PKGS))
deps-npm: | $(BUILD)/
	$(call need_pkgs,npm)
deps-web: | $(BUILD)/
	$(call need_pkgs,$(WEB_PKGS))
deps-check-web: | $(BUILD)/
	$(call need_pkgs,$(CHECK_WEB_PKGS))

$(BUILD)/:
	@mkdir -p $@

# -MMD -MP: each object depends on the headers it includes, no more.
$(BUILD)/obj/%.o: %.c $(BUILD)/cflags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP $(if $(filter simd/%,$<),$(KERNEL_FLAGS)) $(if $(findstring -avx512f,$(notdir $<)),$(AVX512_FLAGS),$(if $(findstring -avx2,$(notdir $<)),$(AVX2_FLAGS))) -c $< -o $@

# The library exports what include/ declares with HS_API and nothing else
# (tests/test-exports.sh checks it); the static library's users (the CLI,
# tests, benchmarks) still link every internal symbol.
LIB_VISIBILITY = -fvisibility=hidden
$(LIB_OBJ): CFLAGS_ALL += $(LIB_VISIBILITY)

# The flags every object is built with, rewritten only when they change:
# objects depend on it, so a changed flag (a new -fvisibility, OPT=-O3, a
# sanitizer) rebuilds them instead of mixing old and new objects.
# (Expanded here, once: the same text whichever object asks first.)
FLAGS_STAMP := $(CC) $(CFLAGS_ALL) | $(LIB_VISIBILITY) | $(KERNEL_FLAGS) | $(AVX2_FLAGS) | $(AVX512_FLAGS)
$(BUILD)/cflags: FORCE | $(BUILD)/
	@printf '%s\n' '$(FLAGS_STAMP)' | cmp -s - $@ || printf '%s\n' '$(FLAGS_STAMP)' >$@

$(BUILD)/libhardsoft.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The shared library is libhardsoft.so.VERSION with the SONAME
# libhardsoft.so.MAJOR (the ABI), and the usual two links to it.
VERSION := $(shell sed -n 's/^\#define HS_VERSION_STRING "\(.*\)"/\1/p' include/hardsoft.h)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
$(BUILD)/libhardsoft.so.$(VERSION): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,libhardsoft.so.$(SOMAJOR) $(LDFLAGS_ALL) -o $@ $^ $(LIBS)
$(BUILD)/libhardsoft.so: $(BUILD)/libhardsoft.so.$(VERSION)
	ln -sf libhardsoft.so.$(VERSION) $(BUILD)/libhardsoft.so.$(SOMAJOR)
	ln -sf libhardsoft.so.$(SOMAJOR) $@

# The commit the command line is built from (+dirty with local changes
# outside results/) and the flags it is compiled with (include paths left
# out), which it writes into every CSV row; the header is rewritten only
# when that changes, so one object rebuilds.
HS_COMMIT = $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell \
  [ -n "$$(git status --porcelain --untracked-files=no -- . ':!results' 2>/dev/null)" ] && echo +dirty)
$(BUILD)/commit.h: FORCE | $(BUILD)/
	@printf '#define HS_BUILD_COMMIT "%s"\n#define HS_BUILD_FLAGS "%s"\n' '$(HS_COMMIT)' \
	  '$(strip $(filter-out -I% -include $(BUILD)/commit.h,$(CFLAGS_ALL))) (kernels: $(KERNEL_FLAGS); + $(AVX2_FLAGS) / + $(AVX512_FLAGS))' > $@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(BUILD)/obj/src/cli/main.o: $(BUILD)/commit.h
$(BUILD)/obj/src/cli/main.o: CFLAGS_ALL += -include $(BUILD)/commit.h
FORCE:

$(BUILD)/hardsoft: $(CLI_OBJ) $(BUILD)/libhardsoft.a
	$(CC) $(LDFLAGS_ALL) -o $@ $(CLI_OBJ) $(BUILD)/libhardsoft.a $(LIBS)

$(BUILD)/tests/%: tests/%.c $(BUILD)/libhardsoft.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -Itests -o $@ $< $(BUILD)/libhardsoft.a -lcmocka $(LIBS)
# the library's allocations routed through the test's failing allocator
$(BUILD)/tests/test-nomem: LIBS += -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=strndup

# ---------------------------------------------------------------- benchmarks
BENCH_LIBS = -lbenchmark -ldnnl -lXNNPACK -lsleef $(OPENBLAS_LIBS) -lpthread
benchbins: $(BUILD)/hs-bench-kernels $(BUILD)/hs-peer-openblas
$(BUILD)/hs-bench-kernels: bench/kernels.cc $(BUILD)/libhardsoft.a
	$(CXX) $(CXXFLAGS_ALL) $(OPENBLAS_FLAGS) -MMD -MP -o $@ $< $(BUILD)/libhardsoft.a $(BENCH_LIBS) $(LIBS)
# the OpenBLAS baseline peer: sgemm for every product, a plain softmax
$(BUILD)/hs-peer-openblas: bench/peers/openblas.c $(BUILD)/libhardsoft.a
	$(CC) $(CFLAGS_ALL) $(OPENBLAS_FLAGS) -MMD -MP -o $@ $< $(BUILD)/libhardsoft.a $(OPENBLAS_LIBS) $(LIBS)

# ---------------------------------------------------------------- ONNX Runtime
# onnxruntime-node from npm into $(BUILD)/node (the CPU library ships inside
# the package; --ignore-scripts: its install script would fetch GPU builds).
# Pinned: the version tests/test-onnx.sh and the ort peer were checked with
# (node 20; the package asks for node 16 or later, Debian 12 has 18).
ORT_NODE_VERSION = 1.30.0
$(BUILD)/node/node_modules/onnxruntime-node: | $(BUILD)/
	@command -v npm >/dev/null || $(MAKE) --no-print-directory deps-npm
	@mkdir -p $(BUILD)/node
	@[ -f $(BUILD)/node/package.json ] || echo '{"private": true}' > $(BUILD)/node/package.json
	cd $(BUILD)/node && npm install --ignore-scripts --no-audit --no-fund \
	  onnxruntime-node@$(ORT_NODE_VERSION) >npm.log 2>&1 || { tail -20 npm.log; exit 1; }
	@touch $@

# ---------------------------------------------------------------- web
# The playground: the library built to WebAssembly by Debian's emscripten,
# with the page's binding (web/hardsoft-web.c) and the page (web/), into
# $(BUILD)/web/ as static files a browser opens from any static server.
# The wasm library has the scalar kernels (the x86 ones do not compile
# to wasm) and no model files (src/model/safetensors.c needs cJSON, and a
# page has no file system to save to).
# NODE_PATH: emcc's JavaScript passes require Debian's acorn from
# /usr/share/nodejs, where a nodejs built elsewhere (NodeSource) does not
# look.
EMCC       = NODE_PATH=/usr/share/nodejs emcc
EMAR       = NODE_PATH=/usr/share/nodejs emar
WEB_OPT    = -O2
WEB_CFLAGS = -std=c11 $(WEB_OPT) -Wall -Wextra -Iinclude -Isimd -Isrc -D_POSIX_C_SOURCE=200809L
WEB_SIMD   = $(foreach f,$(SIMD_SRC),$(if $(findstring -avx,$(notdir $(f))),,$(f)))
WEB_OBJ    = $(patsubst %.c,$(BUILD)/wasm/obj/%.o,$(WEB_SIMD) \
               $(filter-out src/model/safetensors.c,$(LIB_SRC)))
# What app.js calls: the binding, and public calls that take no struct.
WEB_EXPORTS = hsweb_new hsweb_free hsweb_program hsweb_model hsweb_describe hsweb_run \
  hsweb_unproven \
  hsweb_head_desc hsweb_info hsweb_error hsweb_error_msg hsweb_error_hint hsweb_error_line \
  hsweb_error_column hsweb_error_kind hs_version hs_attention hs_model_layer_nheads \
  hs_program_alphabet hs_program_lang hs_program_vocab_size \
  hs_program_token hs_program_token_byte hs_program_other_byte hs_program_tokenize \
  hs_program_encode \
  hs_mode_exact_max_n hs_isa_best hs_isa_name malloc free
comma := ,
space := $(subst ,, )
WEB_LDFLAGS = -sMODULARIZE=1 -sEXPORT_NAME=createHardsoft -sENVIRONMENT=web,node \
  -sALLOW_MEMORY_GROWTH=1 -sTOTAL_STACK=8388608 -sFILESYSTEM=0 \
  -sEXPORTED_FUNCTIONS=$(subst $(space),$(comma),$(addprefix _,$(WEB_EXPORTS))) \
  -sEXPORTED_RUNTIME_METHODS=ccall,cwrap,UTF8ToString
WEB_PAGE   = $(addprefix $(BUILD)/web/,index.html app.js style.css)

web: deps-web
	$(MAKE) --no-print-directory $(JOBS) $(BUILD)/web/hardsoft.js $(BUILD)/web/hardsoft-simd128.js $(WEB_PAGE)

$(BUILD)/wasm/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(EMCC) $(WEB_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/wasm/libhardsoft.a: $(WEB_OBJ)
	@rm -f $@
	$(EMAR) rcs $@ $^
# The SIMD128 library: every file compiled with -msimd128 (clang's
# vectorizer may use it in the scalar kernels too), plus the hand-written
# wasm128 kernels, which it picks at start-up as the best ISA. An engine
# without SIMD128 refuses to load it: the page then loads the plain one.
WEB128_OBJ = $(patsubst $(BUILD)/wasm/%,$(BUILD)/wasm-simd128/%,$(WEB_OBJ)) \
             $(patsubst %.c,$(BUILD)/wasm-simd128/obj/%.o,$(WASM128_SRC))
$(BUILD)/wasm-simd128/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(EMCC) $(WEB_CFLAGS) -msimd128 -MMD -MP -c $< -o $@
$(BUILD)/wasm-simd128/libhardsoft.a: $(WEB128_OBJ)
	@rm -f $@
	$(EMAR) rcs $@ $^
# emcc writes hardsoft.wasm beside hardsoft.js; the page loads
# hardsoft-simd128.js instead where the browser runs SIMD128 (app.js).
$(BUILD)/web/hardsoft.js: web/hardsoft-web.c $(BUILD)/wasm/libhardsoft.a
	@mkdir -p $(dir $@)
	$(EMCC) $(WEB_CFLAGS) $(WEB_LDFLAGS) -o $@ $< $(BUILD)/wasm/libhardsoft.a
$(BUILD)/web/hardsoft-simd128.js: web/hardsoft-web.c $(BUILD)/wasm-simd128/libhardsoft.a
	@mkdir -p $(dir $@)
	$(EMCC) $(WEB_CFLAGS) -msimd128 $(WEB_LDFLAGS) -o $@ $< $(BUILD)/wasm-simd128/libhardsoft.a
$(BUILD)/web/%: web/%
	@mkdir -p $(dir $@)
	cp $< $@

# puppeteer-core from npm into $(BUILD)/node-web (no browser download:
# it drives Debian's chromium). Pinned: puppeteer-core 25 needs node 22,
# 24 runs on Debian 12's node 18.
PUPPETEER_VERSION = 24.43.1
$(BUILD)/node-web/node_modules/puppeteer-core: | $(BUILD)/
	@command -v npm >/dev/null || $(MAKE) --no-print-directory deps-npm
	@mkdir -p $(BUILD)/node-web
	@[ -f $(BUILD)/node-web/package.json ] || echo '{"private": true}' > $(BUILD)/node-web/package.json
	cd $(BUILD)/node-web && npm install --ignore-scripts --no-audit --no-fund \
	  puppeteer-core@$(PUPPETEER_VERSION) >npm.log 2>&1 || { tail -20 npm.log; exit 1; }
	@touch $@

# The kernel tests built to WebAssembly and run under node, twice: in the
# plain library (its scalar kernels) and in the SIMD128 one (its scalar
# kernels as clang vectorizes them, and the hand-written wasm128 ones),
# against the same double references as natively. tests/wasm/cmocka.h
# stands in for cmocka (Debian has no wasm build of it); each test is a
# node script behind a two-line shell wrapper, so tests/run.sh counts them
# as it counts the native ones. EXIT_RUNTIME: main's return value is the
# exit status, and atexit (the NOT RUN report) runs; NODERAWFS: the tests
# read tests/formulas.txt from the checkout.
WASM_TESTS = test-f32-rmax test-f32-linalg test-f32-softmax test-f32-exp \
  test-f32-attn-row test-f32-attn-tile test-f32-attn-bias test-f32-attn-hard \
  test-f32-gemm test-f64-kernels test-f64-gemm test-f64-2pass \
  test-f64-attn-hard test-skip
WASM_TEST_LDFLAGS = -sENVIRONMENT=node -sEXIT_RUNTIME=1 -sALLOW_MEMORY_GROWTH=1 \
  -sSINGLE_FILE=1 -sNODERAWFS=1 -sTOTAL_STACK=8388608 --pre-js tests/wasm/env.js
WASM_TEST_BIN = $(foreach v,wasm wasm-simd128,$(addprefix $(BUILD)/$(v)/tests/,$(WASM_TESTS)))
$(BUILD)/wasm/tests/%.js: tests/%.c $(BUILD)/wasm/libhardsoft.a tests/wasm/cmocka.h tests/wasm/env.js
	@mkdir -p $(dir $@)
	$(EMCC) $(WEB_CFLAGS) -Itests/wasm -Itests $(WASM_TEST_LDFLAGS) -o $@ $< $(BUILD)/wasm/libhardsoft.a
$(BUILD)/wasm-simd128/tests/%.js: tests/%.c $(BUILD)/wasm-simd128/libhardsoft.a tests/wasm/cmocka.h tests/wasm/env.js
	@mkdir -p $(dir $@)
	$(EMCC) $(WEB_CFLAGS) -msimd128 -Itests/wasm -Itests $(WASM_TEST_LDFLAGS) -o $@ $< \
	  $(BUILD)/wasm-simd128/libhardsoft.a
$(WASM_TEST_BIN): %: %.js
	@printf '#!/bin/sh\nexec node "%s" "$$@"\n' "$(abspath $<)" > $@
	@chmod +x $@
check-wasm: deps-check-web
	$(MAKE) --no-print-directory $(JOBS) $(WASM_TEST_BIN)
	@TESTS_SH=none BUILD=$(BUILD) sh tests/run.sh $(WASM_TEST_BIN)

# The kernel tests and the forward-pass tests cross-compiled for aarch64
# with Debian's toolchain into $(AARCH64_BUILD) and run under qemu-aarch64
# (user mode), each behind a two-line wrapper so tests/run.sh counts them as
# it counts the native ones: every kernel of every ISA built for aarch64
# against the double-precision references, and the forward pass on each
# ISA against the logic (test-compile's test_every_isa) and with skipping
# on and off (test-skip). The libraries the tests link (cJSON, cmocka) are
# Debian's arm64 packages, installed beside the native ones (multiarch:
# dpkg --add-architecture). AARCH64_ONLY_<test>: the tests of that program
# run under qemu (HS_TEST_ONLY, tests/common.h; the others are reported
# skipped): its multi-threaded forward passes spin-wait, which qemu runs
# hundreds of times slower, and the native make check runs them all.
# Times under emulation say nothing about an ARM CPU: nothing here
# measures speed.
AARCH64_CC    = aarch64-linux-gnu-gcc
AARCH64_BUILD = build-aarch64
AARCH64_PKGS  = gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user \
                libcjson-dev:arm64 libcmocka-dev:arm64
QEMU_AARCH64  = qemu-aarch64 -L /usr/aarch64-linux-gnu
AARCH64_TESTS = test-f32-rmax test-f32-linalg test-f32-softmax test-f32-exp \
  test-f32-attn-row test-f32-attn-tile test-f32-attn-bias test-f32-attn-hard \
  test-f32-attn-2pass test-f32-gemm test-f64-kernels test-f64-gemm test-f64-2pass \
  test-f64-attn-2pass test-f64-attn-hard test-f64-bounds test-skip test-compile \
  test-round-bits
AARCH64_ONLY_test-f32-attn-tile = test_past_ranges,test_future_ranges,test_ragged,test_small,test_special
AARCH64_ONLY_test-skip = test_kernel_sizes,test_kernel_special,test_kernel_drop_identical
AARCH64_ONLY_test-compile = test_every_isa,test_reported_bound,test_sharing,test_counting_mixed,test_fixed_bound_and_failure
AARCH64_TEST_BIN = $(addprefix $(AARCH64_BUILD)/qemu/,$(AARCH64_TESTS))
# (the binaries the wrappers run are kept: make would delete them as
# intermediate files)
.SECONDARY: $(addprefix $(AARCH64_BUILD)/tests/,$(AARCH64_TESTS))
deps-aarch64: | $(BUILD)/
	@dpkg --print-foreign-architectures | grep -qx arm64 || { \
	  if [ "$$(id -u)" = 0 ]; then dpkg --add-architecture arm64; \
	  else echo "hardsoft: run: sudo dpkg --add-architecture arm64"; exit 1; fi; }
	$(call need_pkgs,$(AARCH64_PKGS))
$(AARCH64_BUILD)/qemu/%: $(AARCH64_BUILD)/tests/% FORCE
	@mkdir -p $(dir $@)
	@printf '#!/bin/sh\nHS_TEST_ONLY=%s exec $(QEMU_AARCH64) "%s" "$$@"\n' \
	  '$(subst $(space),,$(AARCH64_ONLY_$*))' "$(abspath $<)" > $@
	@chmod +x $@
check-aarch64: deps-aarch64
	$(MAKE) --no-print-directory $(JOBS) CC=$(AARCH64_CC) BUILD=$(AARCH64_BUILD) $(AARCH64_TEST_BIN)
	@TESTS_SH=none BUILD=$(AARCH64_BUILD) sh tests/run.sh $(AARCH64_TEST_BIN)

# The page in headless chromium against the native command line.
check-web: deps-check-web
	$(MAKE) --no-print-directory $(JOBS) web cli $(BUILD)/node-web/node_modules/puppeteer-core
	BUILD=$(BUILD) node tests/web/test-web.js

# The forward pass timed natively (scalar, AVX2, AVX-512) and as wasm under
# node by one program (web/bench-forward.c), with the page's size and time
# to first decisions from the chromium test: results/machines/ID/web-wasm.{csv,md},
# ID this machine's (hardsoft info).
# SINGLE_FILE: the wasm inside the JavaScript, which node then reads
# without fetch (emscripten 3.1.6 would fetch a file path and fail).
$(BUILD)/bench-forward: web/bench-forward.c $(BUILD)/libhardsoft.a
	$(CC) $(CFLAGS_ALL) -o $@ $< $(BUILD)/libhardsoft.a $(LIBS)
$(BUILD)/wasm/bench-forward.js: web/bench-forward.c $(BUILD)/wasm/libhardsoft.a
	$(EMCC) $(WEB_CFLAGS) -sENVIRONMENT=node -sALLOW_MEMORY_GROWTH=1 -sSINGLE_FILE=1 \
	  -o $@ $< $(BUILD)/wasm/libhardsoft.a
$(BUILD)/wasm-simd128/bench-forward.js: web/bench-forward.c $(BUILD)/wasm-simd128/libhardsoft.a
	$(EMCC) $(WEB_CFLAGS) -msimd128 -sENVIRONMENT=node -sALLOW_MEMORY_GROWTH=1 -sSINGLE_FILE=1 \
	  -o $@ $< $(BUILD)/wasm-simd128/libhardsoft.a
bench-web: check-web
	$(MAKE) --no-print-directory $(BUILD)/hardsoft $(BUILD)/bench-forward \
	  $(BUILD)/wasm/bench-forward.js $(BUILD)/wasm-simd128/bench-forward.js
	d=results/machines/$$($(BUILD)/hardsoft info | sed -n 's/^machine id: //p') && mkdir -p "$$d" && \
	BUILD=$(BUILD) CFLAGS_NATIVE='$(strip $(CFLAGS_ALL))' WEB_CFLAGS='$(WEB_CFLAGS)' \
	  CC='$(CC)' sh web/bench.sh "$$d/web-wasm"

# ---------------------------------------------------------------- tests
# (check-wasm and check-web are left out of the sanitizer build: the wasm
# is not built with the sanitizers)
check: deps-check
	$(MAKE) --no-print-directory $(JOBS) lib cli $(TEST_BIN) $(BUILD)/hs-peer-openblas
	$(MAKE) --no-print-directory $(BUILD)/node/node_modules/onnxruntime-node
	@BUILD=$(BUILD) PYTHON=$(PYTHON) sh tests/run.sh $(TEST_BIN)
	$(if $(SAN),,$(MAKE) --no-print-directory check-wasm check-web)
	$(if $(SAN),,@$(MAKE) --no-print-directory check-pip check-notebook)

# pip install . into a virtual environment, offline, in a temporary copy
# of the checkout; then import the installed package from elsewhere.
check-pip: deps-check
	@PYTHON=$(PYTHON) sh tests/py/pip-install.sh

# examples/tutorial.ipynb executed headless (jupyter nbconvert) against this
# checkout's package and library; the executed copy goes to a temporary
# directory, the committed notebook keeps no outputs.
check-notebook: deps-check lib $(BUILD)/node/node_modules/onnxruntime-node
	@BUILD=$(BUILD) PYTHON=$(PYTHON) sh tests/py/notebook.sh

check-exhaustive: deps-check
	$(MAKE) --no-print-directory $(BUILD)/tests/test-exp-exhaustive $(BUILD)/tests/test-lowering \
	  $(BUILD)/tests/test-compare $(BUILD)/tests/test-regex
	HARDSOFT_EXHAUSTIVE=1 $(BUILD)/tests/test-exp-exhaustive
	HARDSOFT_EXHAUSTIVE=1 $(BUILD)/tests/test-lowering
	HARDSOFT_EXHAUSTIVE=1 $(BUILD)/tests/test-compare
	HARDSOFT_EXHAUSTIVE=1 $(BUILD)/tests/test-regex

# The documentation's Python examples import the package from the source
# tree, which loads the plain build/libhardsoft.so (a sanitizer library
# would need its runtime preloaded into the interpreter), so it is built
# first; tests/test-report.sh runs the Python tests on the sanitizer one.
check-sanitize: deps-check
	$(MAKE) --no-print-directory lib
	$(MAKE) --no-print-directory BUILD=build-sanitize OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" check

# The library under ThreadSanitizer: one model run from several threads at
# once (test-batch, what the Python package's threads do) and the runner's
# own worker threads (test-threads). The first call into the library picks
# the kernel table; the tests (and the Python package, when it loads the
# library) make it from one thread before any other starts.
check-tsan: deps-check
	$(MAKE) --no-print-directory BUILD=build-tsan OPT=-O1 \
	  SAN="-fsanitize=thread -fno-omit-frame-pointer" build-tsan/tests/test-batch build-tsan/tests/test-threads
	TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/test-batch
	TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/test-threads

# ---------------------------------------------------------------- bench
bench: deps-bench
	$(MAKE) --no-print-directory $(JOBS) all
	$(MAKE) --no-print-directory $(BUILD)/node/node_modules/onnxruntime-node
	BUILD=$(BUILD) PYTHON=$(PYTHON) sh bench/run-suite.sh

bench-full: deps-bench
	$(MAKE) --no-print-directory all
	$(MAKE) --no-print-directory $(BUILD)/node/node_modules/onnxruntime-node
	HS_BENCH_FULL=1 BUILD=$(BUILD) PYTHON=$(PYTHON) sh bench/run-suite.sh

# every command of the suite on tiny sizes (CI), into $(BUILD)/bench-smoke
# (its REPORT.md and machines/ID), which stays there; results/ untouched
bench-smoke: deps-bench
	$(MAKE) --no-print-directory $(JOBS) all
	$(MAKE) --no-print-directory $(BUILD)/node/node_modules/onnxruntime-node
	rm -rf $(BUILD)/bench-smoke
	HS_BENCH_SMOKE=1 HS_BENCH_RESULTS=$(BUILD)/bench-smoke HS_BENCH_RUN=$(BUILD)/bench/run-smoke \
	  BUILD=$(BUILD) PYTHON=$(PYTHON) sh bench/run-suite.sh

# the smoke sweep as Slurm job arrays on a one-node cluster started for
# the test (as root), compared with the sequential runner (.ci/run)
check-slurm: deps-bench deps-slurm
	$(MAKE) --no-print-directory $(JOBS) all
	$(MAKE) --no-print-directory $(BUILD)/node/node_modules/onnxruntime-node
	BUILD=$(BUILD) PYTHON=$(PYTHON) sh tests/test-slurm.sh

# ---------------------------------------------------------------- install
# PREFIX and DESTDIR as usual: make install PREFIX=/usr DESTDIR=/tmp/stage
LIBDIR  = $(DESTDIR)$(PREFIX)/lib
MAN1DIR = $(DESTDIR)$(PREFIX)/share/man/man1
DOCDIR  = $(DESTDIR)$(PREFIX)/share/doc/hardsoft
# the Python package (src/python/hardsoft), beside the library it loads:
# PREFIX/lib/python3/dist-packages/hardsoft finds PREFIX/lib/libhardsoft.so.0
PYDIR   = $(DESTDIR)$(PREFIX)/lib/python3/dist-packages/hardsoft
PY_SRC  = $(sort $(wildcard src/python/hardsoft/*.py))
COMPDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
# what `hardsoft bench` reads, in the source tree's layout, found from
# PREFIX/bin/hardsoft as ../share/hardsoft
DATADIR = $(DESTDIR)$(PREFIX)/share/hardsoft
DATA    = bench/formulas.txt bench/peers/forward.py tests/onnx/ort-run.js
# the README and every page of docs/, side by side in DOCDIR
DOCS    = README.md LICENSE $(sort $(wildcard docs/*.md))
install: lib cli
	install -d $(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin \
	  $(MAN1DIR) $(DOCDIR)
	install -m 644 $(BUILD)/libhardsoft.a $(LIBDIR)/
	install -m 755 $(BUILD)/libhardsoft.so.$(VERSION) $(LIBDIR)/
	ln -sf libhardsoft.so.$(VERSION) $(LIBDIR)/libhardsoft.so.$(SOMAJOR)
	ln -sf libhardsoft.so.$(SOMAJOR) $(LIBDIR)/libhardsoft.so
	install -m 644 include/hardsoft.h $(DESTDIR)$(PREFIX)/include/
	install -d $(DESTDIR)$(PREFIX)/include/hardsoft
	install -m 644 include/hardsoft/kernels.h $(DESTDIR)$(PREFIX)/include/hardsoft/
	install -m 755 $(BUILD)/hardsoft $(DESTDIR)$(PREFIX)/bin/
	install -m 644 docs/hardsoft.1 $(MAN1DIR)/
	install -m 644 $(DOCS) $(DOCDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' src/hardsoft.pc.in \
	  > $(LIBDIR)/pkgconfig/hardsoft.pc
	install -d $(PYDIR)
	install -m 644 $(PY_SRC) $(PYDIR)/
	install -d $(COMPDIR)
	install -m 644 docs/hardsoft.bash-completion $(COMPDIR)/hardsoft
	for f in $(DATA); do install -D -m 644 $$f $(DATADIR)/$$f || exit 1; done

uninstall:
	rm -f $(LIBDIR)/libhardsoft.a $(LIBDIR)/libhardsoft.so $(LIBDIR)/libhardsoft.so.$(SOMAJOR) \
	  $(LIBDIR)/libhardsoft.so.$(VERSION) $(LIBDIR)/pkgconfig/hardsoft.pc \
	  $(DESTDIR)$(PREFIX)/include/hardsoft.h $(DESTDIR)$(PREFIX)/include/hardsoft/kernels.h \
	  $(DESTDIR)$(PREFIX)/bin/hardsoft \
	  $(MAN1DIR)/hardsoft.1 $(addprefix $(DOCDIR)/,$(notdir $(DOCS)))
	-rmdir $(DOCDIR) $(DESTDIR)$(PREFIX)/include/hardsoft 2>/dev/null
	rm -f $(addprefix $(PYDIR)/,$(notdir $(PY_SRC)))
	rm -rf $(PYDIR)/__pycache__
	-rmdir $(PYDIR) $(DESTDIR)$(PREFIX)/lib/python3/dist-packages $(DESTDIR)$(PREFIX)/lib/python3 2>/dev/null
	rm -f $(COMPDIR)/hardsoft
	rm -f $(addprefix $(DATADIR)/,$(DATA))
	-rmdir $(DATADIR)/bench/peers $(DATADIR)/bench $(DATADIR)/tests/onnx $(DATADIR)/tests \
	  $(DATADIR) 2>/dev/null

clean:
	rm -rf build build-sanitize build-tsan $(AARCH64_BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---------------------------------------------------------------- fuzzing
# `make fuzz` (libFuzzer targets, seed corpora and regression inputs live
# in tests/fuzz/).
-include tests/fuzz/fuzz.mk
