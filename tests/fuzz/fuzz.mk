# SPDX-License-Identifier: MIT
# libFuzzer targets (included by the Makefile). See tests/fuzz/README.md.
#   make fuzz-build                 build $(BUILD)/fuzz/fuzz-{parse,model,input,brasp,crasp,regex}
#   make fuzz [FUZZ_SECONDS=60]     run each target (on a copy of its seed
#                                   corpus); fails if any target crashed
#   FUZZ_TARGETS="parse input"      a subset; FUZZ_PARALLEL=1 runs them at once
# Needs clang and libFuzzer (Debian: clang, libclang-rt-14-dev).

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= parse model input crasp brasp regex
FUZZ_PARALLEL ?= 0
FUZZ_SAN     = -fsanitize=address,undefined -fno-sanitize-recover=all \
               -fno-omit-frame-pointer
FUZZ_CFLAGS  = -std=c11 -g -O1 -Wall -Wextra -Iinclude -Isimd -Isrc \
               -D_POSIX_C_SOURCE=200809L $(FUZZ_SAN)
FUZZ_PKGS    = clang libclang-rt-14-dev libcjson-dev
FUZZ_DIR     = $(BUILD)/fuzz
FUZZ_OBJ     = $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(SIMD_SRC) $(LIB_SRC))
FUZZ_BINS    = $(patsubst %,$(FUZZ_DIR)/fuzz-%,$(FUZZ_TARGETS))

.PHONY: fuzz fuzz-build deps-fuzz

deps-fuzz: | $(BUILD)/
	$(call need_pkgs,$(FUZZ_PKGS))

fuzz-build: deps-fuzz
	$(MAKE) --no-print-directory $(FUZZ_BINS)

fuzz: fuzz-build
	@BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_PARALLEL=$(FUZZ_PARALLEL) \
	  sh tests/fuzz/run-fuzz.sh $(FUZZ_TARGETS)

# The library again, with clang, sanitizers and coverage instrumentation.
$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -fsanitize=fuzzer-no-link $(if $(findstring -avx512f,$(notdir $<)),$(AVX512_FLAGS),$(if $(findstring -avx2,$(notdir $<)),$(AVX2_FLAGS))) -c $< -o $@

$(FUZZ_DIR)/libhardsoft-fuzz.a: $(FUZZ_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_DIR)/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/targets.h tests/fuzz/target-brasp.h $(FUZZ_DIR)/libhardsoft-fuzz.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_DIR)/libhardsoft-fuzz.a $(LIBS)

# fuzz-crasp and fuzz-regex keep their logic in their own headers
$(FUZZ_DIR)/fuzz-crasp: tests/fuzz/target-crasp.h
$(FUZZ_DIR)/fuzz-regex: tests/fuzz/target-regex.h
