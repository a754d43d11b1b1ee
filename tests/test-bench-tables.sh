#!/bin/sh
# SPDX-License-Identifier: MIT
# bench --md and --latex: one table, two spellings. Each has a row per CSV
# row with the same columns, among them skip (rows of different --skip
# values differ in it), peak memory in units that show a small run's
# (not "0.0"), and the speed-ups over the scalar row and the 1-thread row
# of the same point, which are those of the CSV's medians. The LaTeX is a
# booktabs tabular: one \toprule, \midrule and \bottomrule in that order,
# as many cells in every row as the column specification has columns, and
# the formula's special characters escaped. Both carry the provenance line
# (CPU, CPUs, compiler, commit, date, repeats): above the Markdown table,
# below the tabular as a note row (its short form) and in a comment.
set -u
HS=${BUILD:-build}/hardsoft
fail=0
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
isas=scalar
"$HS" info | grep -Eq '^supported:.* avx2( |$)' && isas=scalar,avx2
"$HS" bench --formula 'a S b' --formula '#<(a) > #<(b) & c' --modes pe --lengths 40 \
  --isas $isas --threads 1,2 --skip on,off --repeat 1 --quiet \
  --csv "$t/b.csv" --md "$t/b.md" --latex "$t/b.tex" 2>"$t/err" ||
  { echo "FAIL bench --md --latex: $(cat "$t/err")"; exit 1; }
rows=$(($(wc -l <"$t/b.csv") - 1))
# the provenance of the CSV's rows, in both tables
cpu=$(sed -n '2s/.*,"\([^"]*(family[^"]*\)",.*/\1/p' "$t/b.csv")
commit=$(head -2 "$t/b.csv" | tail -1 | awk -F'","' '{print $(NF-1)}')
esc() { printf '%s' "$1" | sed 's/[][().*^$+?{}|\\/]/\\&/g'; }
cpu=$(esc "$cpu") commit=$(esc "$commit")
prov="hardsoft [0-9.]* bench on $cpu, [0-9]* CPUs \\(machine [a-z0-9._-]*\\); built with gcc .*; commit $commit; 20[0-9-]*T[0-9:]*Z; each time the median of 1 timed run after one warm-up\.$"
head -1 "$t/b.md" | grep -Eq "^$prov" || { echo "FAIL md provenance: $(head -1 "$t/b.md")"; fail=1; }
sed -n 2p "$t/b.md" | grep -q '^$' || { echo "FAIL md: no blank line after the provenance"; fail=1; }
grep -q "^\\\\multicolumn{15}{@{}l}{\\\\footnotesize hardsoft [0-9.]* bench on .* CPUs; built with gcc [0-9.]*; commit .*; 20[0-9-]*; each time the median of 1 timed run after one warm-up}$" "$t/b.tex" ||
  { echo "FAIL latex: no provenance note row"; fail=1; }
sed -n 2p "$t/b.tex" | grep -q "^% hardsoft .* bench on .*; commit " || { echo "FAIL latex: no provenance comment"; fail=1; }
# Markdown: provenance, blank, header, rule, rows; the columns named
sed -n 3p "$t/b.md" | grep -q '| skip |.*| peak memory |.*| speed-up vs scalar | speed-up vs 1 thread |$' ||
  { echo "FAIL md header: $(sed -n 3p "$t/b.md")"; fail=1; }
[ "$(($(wc -l <"$t/b.md") - 4))" = "$rows" ] || { echo "FAIL md: not one row per CSV row"; fail=1; }
# every row distinct (skip and threads tell them apart), peak never 0.0
[ "$(tail -n +5 "$t/b.md" | cut -d'|' -f2-9 | sort -u | wc -l)" = "$rows" ] ||
  { echo "FAIL md: rows that cannot be told apart"; fail=1; }
grep -q '| 0\.0 MiB |' "$t/b.md" && { echo "FAIL md: peak 0.0 MiB"; fail=1; }
tail -n +5 "$t/b.md" | grep -Eqv '\| [0-9.]+ (B|KiB|MiB) \|' && { echo "FAIL md: a peak without its unit"; fail=1; }
# the speed-ups against the CSV: scalar median / this median, 1-thread median / this
awk -F, -v md="$t/b.md" '
  NR == 1 { next }
  { key = $1 FS $2 FS $7 FS $17; med[key, $4, $6] = $8; order[NR - 1] = key SUBSEP $4 SUBSEP $6 }
  END {
    n = 0
    while ((getline line < md) > 0) {
      if (++n <= 4) continue
      split(line, c, " \\| "); split(order[n - 4], k, SUBSEP)
      want_isa = med[k[1], "scalar", k[3]] / med[k[1], k[2], k[3]]
      want_thr = med[k[1], k[2], 1] / med[k[1], k[2], k[3]]
      got_isa = c[14]; got_thr = c[15]; sub(/ \|$/, "", got_thr)
      if (sprintf("%.2f", want_isa) != got_isa || sprintf("%.2f", want_thr) != got_thr) {
        print "FAIL md row " n - 4 ": speed-ups " got_isa ", " got_thr " want " sprintf("%.2f, %.2f", want_isa, want_thr); bad = 1 }
    }
    exit bad }' "$t/b.csv" || fail=1
# LaTeX structure
tex=$t/b.tex
[ "$(grep -n '^\\toprule$\|^\\midrule$\|^\\bottomrule$' "$tex" | cut -d: -f2 | tr '\n' ' ')" = '\toprule \midrule \bottomrule ' ] ||
  { echo "FAIL latex: toprule, midrule, bottomrule not once each in order"; fail=1; }
spec=$(sed -n 's/^\\begin{tabular}{\([lrc]*\)}$/\1/p' "$tex")
ncol=${#spec}
[ "$ncol" -gt 0 ] && [ "$ncol" = "$(sed -n 4p "$t/b.md" | tr -cd '|' | wc -c | awk '{print $1 - 1}')" ] ||
  { echo "FAIL latex: column spec '$spec' is not the Markdown table's columns"; fail=1; }
body=$(grep -c ' \\\\$' "$tex")
[ "$body" = $((rows + 1)) ] || { echo "FAIL latex: $body rows, want $((rows + 1))"; fail=1; }
grep ' \\\\$' "$tex" | sed 's/\\&//g' | awk -F'&' -v n="$ncol" 'NF != n { print "FAIL latex: " NF " cells, want " n ": " $0; bad = 1 } END { exit bad }' || fail=1
grep -q '^\\texttt{\\#\\textless{}(a) \\textgreater{} \\#\\textless{}(b) \\& c} & ' "$tex" ||
  { echo "FAIL latex: the formula's special characters"; fail=1; }
tail -1 "$tex" | grep -q '^\\end{tabular}$' || { echo "FAIL latex: no \\end{tabular}"; fail=1; }
# an output that is a pipe stays one (written in place, not renamed over)
mkfifo "$t/pipe"
cat "$t/pipe" >"$t/piped" &
"$HS" bench --formula a --modes pe --lengths 8 --isas scalar --repeat 1 --quiet \
  --csv "$t/p.csv" --latex "$t/pipe" || { echo "FAIL bench --latex into a pipe"; fail=1; }
wait
[ -p "$t/pipe" ] || { echo "FAIL bench --latex replaced a pipe with a file"; fail=1; }
grep -q '^\\bottomrule$' "$t/piped" || { echo "FAIL bench --latex into a pipe: no table came through"; fail=1; }
[ $fail = 0 ] && echo "test-bench-tables: ok"
exit $fail
