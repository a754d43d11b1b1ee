/* SPDX-License-Identifier: MIT */
/* hardsoft export: a saved model as an ONNX graph (docs/ONNX.md). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char *const export_usage =
    "usage: hardsoft export MODEL.safetensors -o FILE.onnx\n"
    "Writes the model as one ONNX graph (opset 17) that runs at every length:\n"
    "input \"ids\" int64 [N] (BOS = 256, then the bytes), output \"out\" float\n"
    "[N] (true where > 1/2). docs/ONNX.md describes the graph.\n"
    "  -o FILE       write the graph (atomically: FILE appears complete or not at all)\n";

/* Whether path ends in ".onnx": compile -o chooses the format by it. */
int cli_is_onnx_path(const char *path) {
  size_t n = path ? strlen(path) : 0;
  return n >= 5 && strcmp(path + n - 5, ".onnx") == 0;
}

int cmd_export(int argc, char **argv) {
  cli_opts o;
  hs_error he;
  int rc = cli_parse(argc, argv, 2, O_OUT, export_usage, &o);
  if (rc) { free(o.args); return rc == 1 ? 0 : rc; }
  if (o.nargs != 1 || !o.out) {
    free(o.args);
    return cli_error("export: expected one MODEL file and -o FILE.onnx (see "
                     "'hardsoft export --help')");
  }
  hs_model *m = cli_model_load("export", o.args[0]);
  if (!m)
    rc = HS_EXIT_ERROR;
  else if (hs_model_save_onnx(m, o.out, &he) != 0)
    rc = cli_error("%s: %s", o.out, he.msg);
  hs_model_free(m);
  free(o.args);
  return rc;
}
