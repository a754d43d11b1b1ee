#!/bin/sh
# SPDX-License-Identifier: MIT
# WebAssembly beside native: the forward pass of the same model on the same
# string, timed by one program built twice (web/bench-forward.c), natively
# on every ISA this CPU runs and as wasm under node: the plain wasm library
# (scalar kernels, no SIMD), and the SIMD128 one the page loads where the
# browser has SIMD128, run twice: with its scalar kernels (the C compiled
# with -msimd128, so clang's vectorizer may use SIMD128 in them) and with
# its hand-written wasm128 kernels (what the page picks); ops without a
# wasm128 kernel run the scalar one in both. Then the page's size and its
# time to first decisions (from the chromium test's load.json).
#   sh web/bench.sh OUT      writes OUT.csv and OUT.md
# (make bench-web sets BUILD, CC, CFLAGS_NATIVE and WEB_CFLAGS.)
set -eu
out=$1
BUILD=${BUILD:-build}
REPEAT=${HS_WEB_REPEAT:-21}
NS=${HS_WEB_NS:-"1024 4096"}
native=$BUILD/bench-forward

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
cc_version=$($CC --version | head -1)
emcc_version=$(NODE_PATH=/usr/share/nodejs emcc --version | head -1)
node_version=$(node --version)
# the ops with a hand-written wasm128 kernel, from the catalogue
wasm128_ops=$(sed -n 's/^HS_KERNEL(\([a-z0-9_]*\), WASM128,.*/`\1`/p' simd/kernels.inc | paste -sd, - | sed 's/,/, /g')

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "target,isa,formula,mode,scale,n,repeat,seconds_median,seconds_min,positions_per_s,agree,runtime,compiler,flags,cpu,commit,date" > "$tmp"
row() { # target isa runtime compiler flags, the rest: bench-forward's arguments
  t=$1 isa=$2 rt=$3 comp=$4 flags=$5
  shift 5
  if [ "$t" = native ]; then line=$("$native" "$t" "$isa" "$@") || return 0
  elif [ "$t" = wasm ]; then line=$(node "$BUILD/wasm/bench-forward.js" "$t" "$isa" "$@") || return 0
  else line=$(node "$BUILD/wasm-simd128/bench-forward.js" "$t" "$isa" "$@") || return 0; fi
  printf '%s,%s,"%s","%s","%s","%s",%s\n' "$line" "$rt" "$comp" "$flags" "$cpu" "$commit" "$date" >> "$tmp"
}
for f in 'a S b' 'H (a -> Y (b S c))' '(a S (b & X (c U Y a))) | G (b -> Y a)'; do
  for mode in pe hard; do
    for n in $NS; do
      for isa in scalar avx2 avx512; do
        row native $isa native "$cc_version" "$CFLAGS_NATIVE" "$mode" 4 "$n" "$REPEAT" "$f"
      done
      row wasm scalar "node $node_version" "$emcc_version" "$WEB_CFLAGS" "$mode" 4 "$n" "$REPEAT" "$f"
      for isa in scalar wasm128; do
        row wasm-simd128 $isa "node $node_version" "$emcc_version" "$WEB_CFLAGS -msimd128" \
          "$mode" 4 "$n" "$REPEAT" "$f"
      done
    done
  done
done
mv "$tmp" "$out.csv"
trap - EXIT

# The Markdown: milliseconds per pass (median), one column per build.
{
  echo "# WebAssembly beside native"
  echo
  echo "One forward pass (median of $REPEAT after 0.3 s of warm-up, one thread), the same"
  echo "model and string, by \`web/bench-forward.c\` built natively and to wasm"
  echo "(run under node). CPU: $cpu. Native: $cc_version, \`$CFLAGS_NATIVE\`"
  echo "(AVX2 kernels + \`-mavx2 -mfma\`). Wasm: $emcc_version, \`$WEB_CFLAGS\`,"
  echo "node $node_version. wasm scalar: the plain library (no SIMD). wasm-simd128: the"
  echo "library the page loads where the browser runs SIMD128, every file built with"
  echo "\`-msimd128\`; its scalar row runs the portable kernels as clang's vectorizer"
  echo "compiled them, its wasm128 row the hand-written SIMD128 kernels ($wasm128_ops;"
  echo "every other op falls back to the scalar kernel, as dispatch does). Commit"
  echo "$commit, $date. The machine is shared with other work: read the ratios, not"
  echo "the last digit."
  echo
  awk -F, 'NR > 1 {
      f = $3; gsub(/"/, "", f); gsub(/\|/, "\\|", f)
      key = "`" f "` | " $4 " | " $6; col = $1 " " $2
      if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
      if (!(col in cseen)) { cseen[col] = 1; cols[++nc] = col }
      ms[key, col] = sprintf("%.3f", 1000 * $8)
      if ($11 != 1) ms[key, col] = ms[key, col] " (wrong)"
    }
    END {
      printf "| formula | mode | n |"; for (c = 1; c <= nc; c++) printf " %s ms |", cols[c]
      print " wasm / native scalar | wasm128 / wasm scalar |"
      printf "|---|---|---|"; for (c = 1; c <= nc; c++) printf "---|"; print "---|---|"
      for (k = 1; k <= nk; k++) {
        printf "| %s |", keys[k]
        for (c = 1; c <= nc; c++) printf " %s |", ms[keys[k], cols[c]]
        printf " %.1f |", ms[keys[k], "wasm scalar"] / ms[keys[k], "native scalar"]
        printf " %.2f |\n", ms[keys[k], "wasm-simd128 wasm128"] / ms[keys[k], "wasm scalar"]
      }
    }' "$out.csv"
  load=$BUILD/web-test/load.json
  if [ -f "$load" ]; then
    echo
    node -e '
      const l = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      console.log(`The page: ${(l.bytes / 1024).toFixed(0)} KiB in ${l.files} files ` +
                  `(${(l.wasm_bytes / 1024).toFixed(0)} KiB of wasm); ` +
                  `first decisions ${l.first_decisions_ms.toFixed(0)} ms after navigation ` +
                  `in headless ${l.browser} (the chromium test, served from 127.0.0.1).`);' "$load"
  fi
} > "$out.md"
echo "wrote $out.csv and $out.md"
