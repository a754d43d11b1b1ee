/* SPDX-License-Identifier: MIT */
/* libFuzzer entry point of fuzz-brasp; the logic is hs_fuzz_brasp in
 * tests/fuzz/target-brasp.h, shared with tests/test-fuzz-regress.c. */
#include "target-brasp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return hs_fuzz_brasp(data, size);
}
