/* SPDX-License-Identifier: MIT */
/* libFuzzer entry point of fuzz-regex; the logic is hs_fuzz_regex in
 * tests/fuzz/target-regex.h, shared with tests/test-fuzz-regress.c. */
#include "target-regex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return hs_fuzz_regex(data, size);
}
