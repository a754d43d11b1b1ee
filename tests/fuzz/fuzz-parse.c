/* SPDX-License-Identifier: MIT */
/* libFuzzer entry point of fuzz-parse; the logic is hs_fuzz_parse in
 * tests/fuzz/targets.h, shared with tests/test-fuzz-regress.c. */
#include "targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return hs_fuzz_parse(data, size);
}
