#!/bin/sh
# SPDX-License-Identifier: MIT
# Mutation check (not part of make check; slow: it rebuilds and reruns
# tests once per mutant). Each mutant is a one-line bug: a FILE, a literal
# PATTERN found in it (\n in a pattern stands for a newline) and its
# REPLACEMENT, plus the TESTS that should catch it. In a temporary copy
# of the tracked files (with the current build directory, so only the
# mutated file recompiles) each mutant is applied, the tree rebuilt, its
# tests run, and the file restored. Per mutant one line:
#   killed     a test failed
#   SURVIVED   every test passed: the tests miss this bug
#   stale      the pattern is no longer in the file (the code moved on:
#              update the mutant), neither killed nor survived
#   no build   the mutant does not compile (fix the mutant)
# then "mutants: K killed of N (S survived, T stale, B not built)".
#
#   tests/mutants.sh [NAME...]     all mutants, or the named ones
#   tests/mutants.sh --list        the names
# Run from the repository root after make check (it reuses $BUILD).
# Exit 1 if any mutant survived.
set -u
B=${BUILD:-build}
PY=/usr/bin/python3
MAKE_J=${MAKE_J:--j2}

# m NAME FILE PATTERN REPLACEMENT TESTS...
# TESTS: test programs (test-x, built from tests/test-x.c) or shell tests
# (test-x.sh).
MUTANTS=""
m() { MUTANTS="$MUTANTS$(printf '%s\037' "$@")
"; }

# --- the bugs an audit found no test catching
m onnx-refuses-fixed src/model/onnx.c \
  'if (!path || !*path) return hs_errorf(err, HS_ERR_ARG, "save: empty path");' \
  'if (!path || !*path || !strcmp(m->mode, "fixed")) return hs_errorf(err, HS_ERR_ARG, "save: empty path");' \
  test-onnx.sh
m openblas-peer-decision bench/peers/openblas.c \
  'bits[i - 1] = X[i * d + (size_t)m->out_coord] > (REAL)0.5;' \
  'bits[i - 1] = X[i * d + (size_t)m->out_coord] < (REAL)0.5;' \
  test-peers.sh
m attention-draws-hard src/cli/attention.c \
  'json_matrix(f, L->w + (size_t)h * np * np, np);' \
  'json_matrix(f, L->hard + (size_t)h * np * np, np);' \
  test-attention.sh
m plot-draws-hard src/python/hardsoft/plot.py \
  'w = np.asarray(p["weights"], dtype=float)' \
  'w = np.asarray(p["hard"], dtype=float)' \
  test-attention.sh
m gamma-auto-is-5 src/cli/simulate.c \
  'c->gamma = 0;' 'c->gamma = 5;' \
  test-simulate.sh
m f16s-no-rounding src/run/forward.c \
  '{"f16s", HS_PREC_F32, HS_ROUND_F16, HS_ROUND_NONE},' \
  '{"f16s", HS_PREC_F32, HS_ROUND_NONE, HS_ROUND_NONE},' \
  test-cli.sh
m peer-negative-times bench/peers/openblas.c \
  'if (r >= 0) secs[r] = now() - t0;' 'if (r >= 0) secs[r] = t0 - now();' \
  test-peers.sh
m isa-not-run-silent tests/common.h \
  'hs_test_not_run_ |= 1u << i;' '(void)0;' \
  test-run.sh
m help-on-stderr src/cli/main.c \
  'fputs(usage, stdout);\n      return 1;' 'fputs(usage, stderr);\n      return 1;' \
  test-cli.sh
m completion-no-attention docs/hardsoft.bash-completion \
  'simulate attention export --help' 'simulate export --help' \
  test-completion.sh
m bench-repeat-unbounded src/cli/bench.c \
  '|| r < 1 || r > 1000)' '|| r < 1)' \
  test-bench.sh

# --- one per kernel family
m exp-ln2-lo simd/f32-exp-rr2-p5-consts.h \
  'HS_EXPF_MINUS_LN2_LO (-0x1.7F7D1Cp-20f)' 'HS_EXPF_MINUS_LN2_LO (-0x1.7F7D1Cp-19f)' \
  test-f32-exp test-exp-exhaustive
m softmax-half-sum simd/f32-softmax-scalar-rr2-p5.c \
  'sum1 += e1;' 'sum1 += e0;' \
  test-f32-softmax
m gemm-last-term simd/gemm-panel-impl.h \
  'acc = vf_fma(vf_set1(xi[c]), vf_loadu(wv + c * HS_GEMM_NR + u), acc);' 'acc = vf_fma(vf_set1(xi[c]), vf_loadu(wv + c * HS_GEMM_NR + u), vf_zero());' \
  test-f32-gemm
m attn-row-rescale simd/f32-attn-row-scalar-online-rr2-p5.c \
  'for (size_t c = 0; c < dv; c++) acc[c] *= scale;' 'for (size_t c = 1; c < dv; c++) acc[c] *= scale;' \
  test-f32-attn-row test-f32-attn-tile
m hard-attn-right-tie simd/f32-attn-hard-scalar.c \
  'if (rule == HS_HARD_RIGHT) {' 'if (rule == HS_HARD_LEFT) {' \
  test-f32-attn-hard test-compile

# --- one per mode's compiler
m hard-bos src/circuit/weights.c \
  'if (!n->right) t[k++] = (term){one, 1, bos, -2};\n      if (k == 0)' \
  'if (!n->right) t[k++] = (term){one, 1, bos, 0};\n      if (k == 0)' \
  test-compile test-cli.sh
m pe-direction src/circuit/weights.c \
  't[k++] = (term){one, mu, pi, n->right ? 1.0f : -1.0f};' \
  't[k++] = (term){one, mu, pi, n->right ? -1.0f : 1.0f};' \
  test-compile test-cli.sh
m temp-constant-tau src/circuit/weights.c \
  'H->tau_law = B->o.mode == HS_MODE_TEMP || B->o.mode == HS_MODE_REL' \
  'H->tau_law = B->o.mode == HS_MODE_REL' \
  test-compile test-cli.sh
m fixed-bound src/model/bound.c \
  'if (mode == HS_MODE_FIXED) mu = scale / (double)(n ? n : 1);' \
  'if (mode == HS_MODE_FIXED) mu = scale;' \
  test-compile test-cli.sh
m rel-slope src/circuit/weights.c \
  'H->bias_slope = (float)B->o.scale;' 'H->bias_slope = (float)B->o.scale * 0.5f;' \
  test-compile test-cli.sh

# --- one per front end
m ltl-since src/lang/ltl/truth.c \
  'for (acc = 0, i = 0; i < n; i++) o[i] = acc = b[i] | (a[i] & acc);' \
  'for (acc = 0, i = 0; i < n; i++) o[i] = acc = b[i] & (a[i] | acc);' \
  test-truth test-cli.sh
m crasp-min src/lang/crasp/eval.c \
  'o[i] = min64(a[i], b[i]);' 'o[i] = max64(a[i], b[i]);' \
  test-crasp test-programs.sh
m brasp-mask-le src/lang/brasp/eval.c \
  'case BR_MASK_LE: *hi = i; break;' 'case BR_MASK_LE: *hi = i - 1; break;' \
  test-brasp test-programs.sh

# --- nothing read or decided silently wrong (unknown tokens, counting
# comparisons reduced, folded and within their exact region, each front
# end's random programs, the interpreter past the lowering's limits)
m unknown-token-as-other src/model/tokens.c \
  'if (b < 0 && unknown != HS_UNKNOWN_OTHER)' 'if (b < 0 && 0)' \
  test-unknown-tokens.sh
m cmp-floor-ceil src/lang/compare.c \
  'int up = *rel == HS_REL_GT || *rel == HS_REL_LE;' 'int up = *rel == HS_REL_GE || *rel == HS_REL_LE;' \
  test-compare
m cmp-no-gcd src/lang/compare.c 'if (d > 1) {' 'if (d > 1 && 0) {' test-compare
m cmp-no-fold src/lang/compare.c 'int k = fold(pos, neg, *c, *rel);' 'int k = -1;' test-compare
m region-measured-bound src/model/region.c \
  'static double row_max_n(const sign_row *r, int bits) {' \
  'static double row_max_n(const sign_row *r, int bits) {\n  if (r->coef > 0) return floor(ldexp(1, bits + 1) / r->coef);' \
  test-compare
m region-skips-hard-signs src/model/region.c \
  'if (H->dk != 1 || !(H->wq[bos] < 0)) continue;' \
  'if (H->dk != 1 || !(H->wq[bos] < 0) || H->kind != HS_ATTN_SOFTMAX) continue;' \
  test-compare test-exact-region.sh
m crasp-cmp-flip-tie src/lang/crasp/lower.c \
  'static const int flip[] = {HS_REL_GT, HS_REL_GE,' 'static const int flip[] = {HS_REL_GT, HS_REL_GT,' \
  test-lowering
m ltl-future-constant src/lang/ltl/lower.c \
  'int r = hs_circuit_count(L->C, mixed ? 2 : past, -1, 0);' \
  'int r = hs_circuit_count(L->C, mixed ? 2 : 1, -1, 0);' \
  test-lowering
m truth-needs-lowering src/lang/program.c \
  'if (p->f || p->lower_err.code != HS_ERR_NOMEM) return 0;' 'if (p->f) return 0;' \
  test-crasp test-programs.sh
m model-load-unnamed src/model/safetensors.c \
  'if (kind && strncmp(kind, "a model file", 12) != 0)' 'if (0 && kind)' \
  test-wrong-input.sh
m digit-no-hint src/lang/ltl/parse.c \
  'if (A->n == 0 && p->cur.s[start] >=' 'if (0 && p->cur.s[start] >=' \
  test-parse test-wrong-input.sh
m lengths-zero src/cli/options.c \
  '{"--lengths", 1, 1, (uint64_t)1 << 32,' '{"--lengths", 1, 0, (uint64_t)1 << 32,' \
  test-options.sh
m message-cut-in-a-word src/base/error.c \
  'if (n + 1 < cap) return;' 'return;' \
  test-parse
m long-name-inlined src/lang/crasp/lower.c \
  'if (strlen(s) <= 40) return s;' 'if (1) return s;' \
  test-error
m cmp-ge-as-gt src/lang/compare.c \
  'case HS_REL_GE: return hs_circuit_sign_of(C, src, 1,' 'case HS_REL_GE: return hs_circuit_sign_of(C, src, 0,' \
  test-lowering

m region-too-wide src/model/region.c \
  'double gamma = k * eps / (1 - k * eps);' 'double gamma = k * eps / (1 - k * eps) / 16;' \
  test-compare test-exact-region.sh
m regex-lang-unnamed src/lang/program.c \
  'return regex_meant(text, len, lang) ? HS_LANG_REGEX : -1;' 'return -1;' \
  test-wrong-input.sh test-regex.sh
m list-empty-item src/cli/options.c \
  '&& !strstr(v, ",,")) return 0;' ') return 0;' \
  test-options.sh
m bench-no-region-note src/cli/bench.c 'note_unproven(b, m, text);' '(void)note_unproven;' \
  test-exact-region.sh

# --- one error convention: the code says the kind, out of memory is said
m limit-as-parse src/lang/ltl/parse.c \
  'fail(p, HS_ERR_LIMIT, 0, "formula too long' 'fail(p, HS_ERR_PARSE, 0, "formula too long' \
  test-error
m describe-ignores-nomem src/circuit/assemble.c \
  'if (!(m->coord_names[p->coord] = hs_cstrdup(buf))) return -1;' \
  'm->coord_names[p->coord] = hs_cstrdup(buf);' \
  test-nomem
m vocab-nomem-as-full src/lang/vocab.c \
  'if (!copy) return HS_VOCAB_NOMEM;' 'if (!copy) return HS_VOCAB_FULL;' \
  test-nomem
m option-value-missing src/cli/main.c \
  'if (rc == NOT_MINE && P.bare) return' 'if (0 && P.bare) return' \
  test-cli.sh

names() { printf '%s' "$MUTANTS" | while IFS= read -r line; do printf '%s\n' "${line%%"$(printf '\037')"*}"; done; }
if [ "${1:-}" = --list ]; then names; exit 0; fi
for want in "$@"; do
  names | grep -qx -- "$want" || { echo "mutants.sh: error: no mutant named '$want' (see --list)" >&2; exit 2; }
done
[ -x "$B/hardsoft" ] || { echo "mutants.sh: error: no $B/hardsoft (run make check first)" >&2; exit 2; }

SELECTED="$*"
root=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hardsoft-mutants-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tree=$tmp/tree
mkdir "$tree"
# the tracked files as they are now (edits included), times kept, and the
# build directory with them, so make rebuilds only what a mutant changes;
# the ONNX Runtime install is large and only read: a link
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$tree"
mkdir -p "$tree/$B"
(cd "$B" && tar --exclude=./node -cf - .) | tar -xf - -C "$tree/$B"
[ -d "$B/node" ] && ln -s "$root/$B/node" "$tree/$B/node"
cd "$tree" || exit 2
TEST_BINS=$(ls tests/test-*.c | sed "s|^tests/\(.*\)\.c$|$B/tests/\1|")
build() { make -s $MAKE_J BUILD="$B" lib cli $TEST_BINS "$B/hs-peer-openblas" >"$tmp/make.log" 2>&1; }
build || { tail -20 "$tmp/make.log"; echo "mutants.sh: error: the unmutated tree does not build" >&2; exit 2; }

killed=0; survived=0; stale=0; nobuild=0; total=0
US=$(printf '\037')
while IFS= read -r line; do
  [ -n "$line" ] || continue
  old_ifs=$IFS; IFS=$US
  # shellcheck disable=SC2086
  set -- $line
  IFS=$old_ifs
  name=$1 file=$2 pat=$3 rep=$4; shift 4
  if [ -n "$SELECTED" ] && ! printf '%s\n' $SELECTED | grep -qx -- "$name"; then continue; fi
  total=$((total + 1))
  if [ ! -f "$file" ]; then echo "stale     $name: $file is gone"; stale=$((stale + 1)); continue; fi
  cp -p "$file" "$tmp/orig"
  if ! "$PY" - "$file" "$pat" "$rep" <<'PYEOF'
import sys
path, pat, rep = sys.argv[1], sys.argv[2].replace("\\n", "\n"), sys.argv[3].replace("\\n", "\n")
s = open(path, encoding="utf-8").read()
if s.count(pat) != 1:
    sys.exit(1)
open(path, "w", encoding="utf-8").write(s.replace(pat, rep))
PYEOF
  then
    echo "stale     $name: the pattern is not in $file exactly once"; stale=$((stale + 1)); continue
  fi
  if ! build; then
    echo "no build  $name ($file): $(grep -m1 'error' "$tmp/make.log")"; nobuild=$((nobuild + 1))
  else
    by=""
    for t in "$@"; do
      case $t in
        *.sh) BUILD="$B" PYTHON="$PY" sh "tests/$t" >"$tmp/out" 2>&1 ;;
        *) "$B/tests/$t" >"$tmp/out" 2>&1 ;;
      esac
      rc=$?
      if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then by=$t; break; fi
    done
    if [ -n "$by" ]; then
      echo "killed    $name ($file) by $by: $(grep -m1 -E 'FAIL|ERROR|Assert|error:' "$tmp/out" | cut -c1-100)"
      killed=$((killed + 1))
    else
      echo "SURVIVED  $name ($file): $* all pass"; survived=$((survived + 1))
    fi
  fi
  cp -p "$tmp/orig" "$file"
  touch "$file" # newer than the mutant's objects: the next build undoes them
done <<EOF
$MUTANTS
EOF
echo "mutants: $killed killed of $total ($survived survived, $stale stale, $nobuild not built)"
[ "$survived" -eq 0 ]
