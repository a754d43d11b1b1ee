/* SPDX-License-Identifier: MIT */
/* libFuzzer entry point of fuzz-crasp; the logic is hs_fuzz_crasp in
 * tests/fuzz/target-crasp.h, shared with tests/test-fuzz-regress.c. */
#include "target-crasp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return hs_fuzz_crasp(data, size);
}
