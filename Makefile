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

ifneq (,$(findstring fast-math,$(CFLAGS) $(CXXFLAGS) $(OPT))$(findstring Ofast,$(CFLAGS) $(CXXFLAGS) $(OPT)))
$(error hardsoft is never built with -ffast-math/-Ofast: it breaks -inf masks and NaN handling)
endif

SIMD_SRC = $(sort $(wildcard simd/*.c))
LIB_SRC  = $(filter-out src/cli%.c,$(sort $(wildcard src/*.c)))
CLI_SRC  = $(sort $(wildcard src/cli*.c))
TEST_SRC = $(sort $(wildcard tests/test-*.c))
LIB_OBJ  = $(patsubst %.c,$(BUILD)/obj/%.o,$(SIMD_SRC) $(LIB_SRC))
CLI_OBJ  = $(patsubst %.c,$(BUILD)/obj/%.o,$(CLI_SRC))
TEST_BIN = $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
LIBS     = -lcjson -lm -lpthread

# Debian packages: what each job needs, and a header or binary that shows
# each one is present.
CHECK_PKGS = gcc:/usr/bin/gcc libcmocka-dev:/usr/include/cmocka.h \
             libcjson-dev:/usr/include/cjson/cJSON.h \
             python3-numpy:/usr/lib/python3/dist-packages/numpy/__init__.py
BENCH_PKGS = $(CHECK_PKGS) g++:/usr/bin/g++ \
             libbenchmark-dev:/usr/include/benchmark/benchmark.h \
             libdnnl-dev:/usr/include/dnnl.h libxnnpack-dev:/usr/include/xnnpack.h \
             libpthreadpool-dev:/usr/include/pthreadpool.h \
             libsleef-dev:/usr/include/x86_64-linux-gnu/sleef.h \
             libopenblas-dev:/usr/include/x86_64-linux-gnu/cblas.h \
             hyperfine:/usr/bin/hyperfine gnuplot-nox:/usr/bin/gnuplot \
             python3-torch:/usr/lib/python3/dist-packages/torch/__init__.py

.PHONY: all lib cli benchbins check check-exhaustive check-sanitize bench \
        bench-full install clean deps-check deps-bench
.DELETE_ON_ERROR:

all: lib cli benchbins

lib: $(BUILD)/libhardsoft.a $(BUILD)/libhardsoft.so
cli: $(BUILD)/hardsoft

# deps-*: install what is missing (root) or print the apt-get line.
define need_pkgs
	@missing=""; for p in $(1); do f=$${p#*:}; [ -e "$$f" ] || missing="$$missing $${p%%:*}"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing) >$(BUILD)/apt.log 2>&1 \
	      || { tail -20 $(BUILD)/apt.log; echo "hardsoft: error: apt-get install$$missing failed"; exit 1; }; \
	  else echo "hardsoft: missing packages; run: sudo apt-get install -y$$missing"; exit 1; fi; fi
endef

deps-check: | $(BUILD)/
	$(call need_pkgs,$(CHECK_PKGS))
deps-bench: | $(BUILD)/
	$(call need_pkgs,$(BENCH_PKGS))

$(BUILD)/:
	@mkdir -p $@

$(BUILD)/obj/%.o: %.c $(wildcard include/*.h simd/*.h simd/*.inc src/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(if $(findstring -avx512f,$(notdir $<)),$(AVX512_FLAGS),$(if $(findstring -avx2,$(notdir $<)),$(AVX2_FLAGS))) -c $< -o $@

$(BUILD)/libhardsoft.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libhardsoft.so: $(LIB_OBJ)
	$(CC) -shared $(LDFLAGS_ALL) -o $@ $^ $(LIBS)

$(BUILD)/hardsoft: $(CLI_OBJ) $(BUILD)/libhardsoft.a
	$(CC) $(LDFLAGS_ALL) -o $@ $(CLI_OBJ) $(BUILD)/libhardsoft.a $(LIBS)

$(BUILD)/tests/%: tests/%.c $(wildcard tests/*.h) $(BUILD)/libhardsoft.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Itests -o $@ $< $(BUILD)/libhardsoft.a -lcmocka $(LIBS)

# ---------------------------------------------------------------- benchmarks
BENCH_LIBS = -lbenchmark -ldnnl -lXNNPACK -lsleef -lopenblas -lpthread
benchbins: $(BUILD)/hs-bench-kernels $(BUILD)/hs-peer-openblas
$(BUILD)/hs-bench-kernels: bench/kernels.cc $(BUILD)/libhardsoft.a
	$(CXX) $(CXXFLAGS_ALL) -o $@ $< $(BUILD)/libhardsoft.a $(BENCH_LIBS) $(LIBS)
# the OpenBLAS baseline peer: sgemm for every product, a plain softmax
$(BUILD)/hs-peer-openblas: bench/peers/openblas.c $(BUILD)/libhardsoft.a
	$(CC) $(CFLAGS_ALL) -I/usr/include/x86_64-linux-gnu -o $@ $< $(BUILD)/libhardsoft.a -lopenblas $(LIBS)

# ---------------------------------------------------------------- tests
check: deps-check
	$(MAKE) --no-print-directory lib cli $(TEST_BIN)
	@BUILD=$(BUILD) PYTHON=$(PYTHON) sh tests/run.sh $(TEST_BIN)

check-exhaustive: deps-check
	$(MAKE) --no-print-directory $(BUILD)/tests/test-exp-exhaustive
	HARDSOFT_EXHAUSTIVE=1 $(BUILD)/tests/test-exp-exhaustive

check-sanitize: deps-check
	$(MAKE) --no-print-directory BUILD=build-sanitize OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" check

# ---------------------------------------------------------------- bench
bench: deps-bench
	$(MAKE) --no-print-directory all
	BUILD=$(BUILD) PYTHON=$(PYTHON) sh bench/run-suite.sh

bench-full: deps-bench
	$(MAKE) --no-print-directory all
	HS_BENCH_FULL=1 BUILD=$(BUILD) PYTHON=$(PYTHON) sh bench/run-suite.sh

# ---------------------------------------------------------------- install
install: lib cli
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(BUILD)/libhardsoft.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/libhardsoft.so $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/hardsoft.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(BUILD)/hardsoft $(DESTDIR)$(PREFIX)/bin/
	sed -e 's|@PREFIX@|$(PREFIX)|' src/hardsoft.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/hardsoft.pc

clean:
	rm -rf build build-sanitize

# ---------------------------------------------------------------- fuzzing
# `make fuzz` (libFuzzer targets, seed corpora and regression inputs live
# in tests/fuzz/).
-include tests/fuzz/fuzz.mk
