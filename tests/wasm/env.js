// SPDX-License-Identifier: MIT
// Emscripten --pre-js for the kernel tests under node: the program's
// getenv sees node's environment (HARDSOFT_ISA, HS_TEST_WITHOUT_ISA), which
// emscripten otherwise replaces by a fixed default one.
Module.preRun = Module.preRun || [];
Module.preRun.push(function () {
  for (var k in process.env) ENV[k] = process.env[k];
});
