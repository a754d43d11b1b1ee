# SPDX-License-Identifier: MIT
# softmax ns/element against n, one line per implementation.
#   gnuplot -c bench/kernels.gp DATA OUT.png NCOLS [PROVENANCE]
# PROVENANCE (commit, CPU, date) is written small in the bottom right corner.
# DATA (written by bench/kernels-report.py): a header "n impl1 impl2 ...",
# then one row per n; "?" marks a missing value.
if (ARGC < 3) { print "usage: gnuplot -c kernels.gp DATA OUT.png NCOLS"; exit }
data = ARG1
ncols = int(ARG3)

# pngcairo if this gnuplot has it (gnuplot-nox does), else libgd png.
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 960,600 enhanced font "sans,10"
} else {
  set terminal png size 960,600
}
set output ARG2

set datafile missing "?"
set key outside right top
set logscale x 4
set logscale y 2
set xtics ("16" 16, "64" 64, "256" 256, "1K" 1024, "4K" 4096, "16K" 16384, \
  "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216)
set xlabel "n (elements per row)"
set ylabel "ns per element (median, log scale)"
set title "softmax, scores uniform in [-10, 10], single thread"
set grid xtics ytics mytics
set offsets graph 0.03, graph 0.03, 0, 0
set style data linespoints
# the provenance stamp in a line of its own below the axis label (the
# bottom margin: tic labels, the axis label, then the stamp's line)
if (ARGC >= 4 && strlen(ARG4) > 0) {
  set bmargin 5
  set label 99 ARG4 at screen 0.995, screen 0.012 right font ",7" textcolor rgb "#777777" noenhanced
}

plot for [i=2:ncols] data using 1:i title columnheader(i) noenhanced \
  lw 2 pt (i % 7) + 4
