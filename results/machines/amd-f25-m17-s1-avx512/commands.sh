#!/bin/sh
# The commands of the sweep (bench/sweep plan), task by task. Each
# task writes its part; `bench/sweep merge` joins the parts into the
# machine's folder. $isas, $best, $wide: what `hardsoft info` says of the
# node a task runs on (every ISA, the chosen one, the wide ones).
set -eu
BUILD=build
PYTHON=/usr/bin/python3
HS=$BUILD/hardsoft
PARTS=${PARTS:-parts}
TMP=$(mktemp -d)
mkdir -p "$PARTS"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
isas=$("$HS" info | sed -n 's/^supported: //p' | tr ' ' ',')
best=$("$HS" info | sed -n 's/^chosen: \([a-z0-9]*\).*/\1/p')
wide=$(echo "$isas" | tr ',' '\n' | grep '^avx' | paste -sd, -)

# info (no timing) -> info.txt
"$HS" info > "$PARTS/info.0.txt"

# kernels (timing) -> kernels
HS_BENCH_RESULTS="$PARTS/kernels" BUILD="$BUILD" PYTHON="$PYTHON" sh bench/run-kernels.sh

# compare-kernels (timing) -> kernels-compare
HS_BENCH_RESULTS="$PARTS/compare-kernels" BUILD="$BUILD" PYTHON="$PYTHON" sh bench/compare-kernels.sh

# scaling (timing) -> sweep-scaling.csv
"$HS" bench --formula 'a S b' --formula '(a S (b & X (c U Y a))) | G (b -> Y a)' --modes pe --scales 4 --lengths 64,256,1024,2048,4096 --isas "$isas",numpy,torch,openblas,ort --skip auto,online --repeat 3 --error-max-n 0 --quiet --csv "$PARTS/scaling.0.csv"

# scaling-long-auto (timing) -> sweep-scaling-long.csv
"$HS" bench --formula 'a S b' --formula '(a S (b & X (c U Y a))) | G (b -> Y a)' --modes pe --scales 4 --lengths 8192,16384,32768,65536,131072,262144 --isas "$isas" --skip auto --repeat 3 --error-max-n 0 --quiet --csv "$PARTS/scaling-long-auto.0.csv"

# scaling-long-online (timing) -> sweep-scaling-long.csv
"$HS" bench --formula 'a S b' --formula '(a S (b & X (c U Y a))) | G (b -> Y a)' --modes pe --scales 4 --lengths 8192 --isas "$isas" --skip online --repeat 3 --error-max-n 0 --quiet --csv "$PARTS/scaling-long-online.0.csv"

# accuracy (no timing) -> sweep-accuracy.csv
"$HS" bench --formula 'a S b' --formula 'a U b' --formula 'Y a' --formula '(a S (b & X (c U Y a))) | G (b -> Y a)' --modes hard,pe,temp,fixed,rel --scales 1,2,4,8,16 --lengths 16,64,256,1024 --isas "$best" --repeat 1 --quiet --csv "$PARTS/accuracy.0.csv"

# suite (timing) -> sweep-suite.csv
"$HS" bench --formulas bench/formulas.txt --modes hard,pe,temp --scales 4 --lengths 1024 --isas "$best" --precisions f32,f64 --repeat 3 --quiet --csv "$PARTS/suite.0.csv"

# boundary-a_S_b-pe-4 (no timing) -> boundary.csv
"$HS" boundary 'a S b' --mode pe --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_S_b-pe-4.0.csv"
"$HS" boundary 'a S b' --mode pe --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_S_b-pe-4.1.csv"
"$HS" boundary 'a S b' --mode pe --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-pe-4.2.csv"
"$HS" boundary 'a S b' --mode pe --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-pe-4.3.csv"
"$HS" boundary 'a S b' --mode pe --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-pe-4.4.csv"
"$HS" boundary 'a S b' --mode pe --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-pe-4.5.csv"

# boundary-a_S_b-pe-16 (no timing) -> boundary.csv
"$HS" boundary 'a S b' --mode pe --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_S_b-pe-16.0.csv"
"$HS" boundary 'a S b' --mode pe --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_S_b-pe-16.1.csv"
"$HS" boundary 'a S b' --mode pe --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-pe-16.2.csv"
"$HS" boundary 'a S b' --mode pe --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-pe-16.3.csv"
"$HS" boundary 'a S b' --mode pe --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-pe-16.4.csv"
"$HS" boundary 'a S b' --mode pe --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-pe-16.5.csv"

# boundary-a_S_b-temp-4 (no timing) -> boundary.csv
"$HS" boundary 'a S b' --mode temp --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_S_b-temp-4.0.csv"
"$HS" boundary 'a S b' --mode temp --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_S_b-temp-4.1.csv"
"$HS" boundary 'a S b' --mode temp --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-temp-4.2.csv"
"$HS" boundary 'a S b' --mode temp --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-temp-4.3.csv"
"$HS" boundary 'a S b' --mode temp --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-temp-4.4.csv"
"$HS" boundary 'a S b' --mode temp --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-temp-4.5.csv"

# boundary-a_S_b-temp-16 (no timing) -> boundary.csv
"$HS" boundary 'a S b' --mode temp --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_S_b-temp-16.0.csv"
"$HS" boundary 'a S b' --mode temp --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_S_b-temp-16.1.csv"
"$HS" boundary 'a S b' --mode temp --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-temp-16.2.csv"
"$HS" boundary 'a S b' --mode temp --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-temp-16.3.csv"
"$HS" boundary 'a S b' --mode temp --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-temp-16.4.csv"
"$HS" boundary 'a S b' --mode temp --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-temp-16.5.csv"

# boundary-a_S_b-rel-4 (no timing) -> boundary.csv
"$HS" boundary 'a S b' --mode rel --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_S_b-rel-4.0.csv"
"$HS" boundary 'a S b' --mode rel --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_S_b-rel-4.1.csv"
"$HS" boundary 'a S b' --mode rel --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-rel-4.2.csv"
"$HS" boundary 'a S b' --mode rel --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-rel-4.3.csv"
"$HS" boundary 'a S b' --mode rel --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-rel-4.4.csv"
"$HS" boundary 'a S b' --mode rel --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-rel-4.5.csv"

# boundary-a_S_b-rel-16 (no timing) -> boundary.csv
"$HS" boundary 'a S b' --mode rel --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_S_b-rel-16.0.csv"
"$HS" boundary 'a S b' --mode rel --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_S_b-rel-16.1.csv"
"$HS" boundary 'a S b' --mode rel --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-rel-16.2.csv"
"$HS" boundary 'a S b' --mode rel --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-rel-16.3.csv"
"$HS" boundary 'a S b' --mode rel --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-rel-16.4.csv"
"$HS" boundary 'a S b' --mode rel --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-rel-16.5.csv"

# boundary-a_S_b-fixed-4 (no timing) -> boundary.csv
"$HS" boundary 'a S b' --mode fixed --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_S_b-fixed-4.0.csv"
"$HS" boundary 'a S b' --mode fixed --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_S_b-fixed-4.1.csv"
"$HS" boundary 'a S b' --mode fixed --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-fixed-4.2.csv"
"$HS" boundary 'a S b' --mode fixed --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-fixed-4.3.csv"
"$HS" boundary 'a S b' --mode fixed --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-fixed-4.4.csv"
"$HS" boundary 'a S b' --mode fixed --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-fixed-4.5.csv"

# boundary-a_S_b-fixed-16 (no timing) -> boundary.csv
"$HS" boundary 'a S b' --mode fixed --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_S_b-fixed-16.0.csv"
"$HS" boundary 'a S b' --mode fixed --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_S_b-fixed-16.1.csv"
"$HS" boundary 'a S b' --mode fixed --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-fixed-16.2.csv"
"$HS" boundary 'a S b' --mode fixed --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_S_b-fixed-16.3.csv"
"$HS" boundary 'a S b' --mode fixed --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-fixed-16.4.csv"
"$HS" boundary 'a S b' --mode fixed --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_S_b-fixed-16.5.csv"

# boundary-a_U_b-pe-4 (no timing) -> boundary.csv
"$HS" boundary 'a U b' --mode pe --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_U_b-pe-4.0.csv"
"$HS" boundary 'a U b' --mode pe --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_U_b-pe-4.1.csv"
"$HS" boundary 'a U b' --mode pe --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-pe-4.2.csv"
"$HS" boundary 'a U b' --mode pe --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-pe-4.3.csv"
"$HS" boundary 'a U b' --mode pe --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-pe-4.4.csv"
"$HS" boundary 'a U b' --mode pe --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-pe-4.5.csv"

# boundary-a_U_b-pe-16 (no timing) -> boundary.csv
"$HS" boundary 'a U b' --mode pe --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_U_b-pe-16.0.csv"
"$HS" boundary 'a U b' --mode pe --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_U_b-pe-16.1.csv"
"$HS" boundary 'a U b' --mode pe --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-pe-16.2.csv"
"$HS" boundary 'a U b' --mode pe --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-pe-16.3.csv"
"$HS" boundary 'a U b' --mode pe --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-pe-16.4.csv"
"$HS" boundary 'a U b' --mode pe --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-pe-16.5.csv"

# boundary-a_U_b-temp-4 (no timing) -> boundary.csv
"$HS" boundary 'a U b' --mode temp --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_U_b-temp-4.0.csv"
"$HS" boundary 'a U b' --mode temp --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_U_b-temp-4.1.csv"
"$HS" boundary 'a U b' --mode temp --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-temp-4.2.csv"
"$HS" boundary 'a U b' --mode temp --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-temp-4.3.csv"
"$HS" boundary 'a U b' --mode temp --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-temp-4.4.csv"
"$HS" boundary 'a U b' --mode temp --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-temp-4.5.csv"

# boundary-a_U_b-temp-16 (no timing) -> boundary.csv
"$HS" boundary 'a U b' --mode temp --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_U_b-temp-16.0.csv"
"$HS" boundary 'a U b' --mode temp --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_U_b-temp-16.1.csv"
"$HS" boundary 'a U b' --mode temp --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-temp-16.2.csv"
"$HS" boundary 'a U b' --mode temp --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-temp-16.3.csv"
"$HS" boundary 'a U b' --mode temp --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-temp-16.4.csv"
"$HS" boundary 'a U b' --mode temp --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-temp-16.5.csv"

# boundary-a_U_b-rel-4 (no timing) -> boundary.csv
"$HS" boundary 'a U b' --mode rel --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_U_b-rel-4.0.csv"
"$HS" boundary 'a U b' --mode rel --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_U_b-rel-4.1.csv"
"$HS" boundary 'a U b' --mode rel --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-rel-4.2.csv"
"$HS" boundary 'a U b' --mode rel --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-rel-4.3.csv"
"$HS" boundary 'a U b' --mode rel --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-rel-4.4.csv"
"$HS" boundary 'a U b' --mode rel --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-rel-4.5.csv"

# boundary-a_U_b-rel-16 (no timing) -> boundary.csv
"$HS" boundary 'a U b' --mode rel --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_U_b-rel-16.0.csv"
"$HS" boundary 'a U b' --mode rel --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_U_b-rel-16.1.csv"
"$HS" boundary 'a U b' --mode rel --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-rel-16.2.csv"
"$HS" boundary 'a U b' --mode rel --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-rel-16.3.csv"
"$HS" boundary 'a U b' --mode rel --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-rel-16.4.csv"
"$HS" boundary 'a U b' --mode rel --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-rel-16.5.csv"

# boundary-a_U_b-fixed-4 (no timing) -> boundary.csv
"$HS" boundary 'a U b' --mode fixed --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_U_b-fixed-4.0.csv"
"$HS" boundary 'a U b' --mode fixed --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_U_b-fixed-4.1.csv"
"$HS" boundary 'a U b' --mode fixed --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-fixed-4.2.csv"
"$HS" boundary 'a U b' --mode fixed --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-fixed-4.3.csv"
"$HS" boundary 'a U b' --mode fixed --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-fixed-4.4.csv"
"$HS" boundary 'a U b' --mode fixed --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-fixed-4.5.csv"

# boundary-a_U_b-fixed-16 (no timing) -> boundary.csv
"$HS" boundary 'a U b' --mode fixed --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-a_U_b-fixed-16.0.csv"
"$HS" boundary 'a U b' --mode fixed --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-a_U_b-fixed-16.1.csv"
"$HS" boundary 'a U b' --mode fixed --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-fixed-16.2.csv"
"$HS" boundary 'a U b' --mode fixed --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-a_U_b-fixed-16.3.csv"
"$HS" boundary 'a U b' --mode fixed --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-fixed-16.4.csv"
"$HS" boundary 'a U b' --mode fixed --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-a_U_b-fixed-16.5.csv"

# boundary-Y_a-pe-4 (no timing) -> boundary.csv
"$HS" boundary 'Y a' --mode pe --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-Y_a-pe-4.0.csv"
"$HS" boundary 'Y a' --mode pe --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-Y_a-pe-4.1.csv"
"$HS" boundary 'Y a' --mode pe --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-Y_a-pe-4.2.csv"
"$HS" boundary 'Y a' --mode pe --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-Y_a-pe-4.3.csv"
"$HS" boundary 'Y a' --mode pe --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-Y_a-pe-4.4.csv"
"$HS" boundary 'Y a' --mode pe --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-Y_a-pe-4.5.csv"

# boundary-Y_a-pe-16 (no timing) -> boundary.csv
"$HS" boundary 'Y a' --mode pe --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-Y_a-pe-16.0.csv"
"$HS" boundary 'Y a' --mode pe --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-Y_a-pe-16.1.csv"
"$HS" boundary 'Y a' --mode pe --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-Y_a-pe-16.2.csv"
"$HS" boundary 'Y a' --mode pe --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-Y_a-pe-16.3.csv"
"$HS" boundary 'Y a' --mode pe --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-Y_a-pe-16.4.csv"
"$HS" boundary 'Y a' --mode pe --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-Y_a-pe-16.5.csv"

# boundary-Y_a-temp-4 (no timing) -> boundary.csv
"$HS" boundary 'Y a' --mode temp --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-Y_a-temp-4.0.csv"
"$HS" boundary 'Y a' --mode temp --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-Y_a-temp-4.1.csv"
"$HS" boundary 'Y a' --mode temp --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-Y_a-temp-4.2.csv"
"$HS" boundary 'Y a' --mode temp --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-Y_a-temp-4.3.csv"
"$HS" boundary 'Y a' --mode temp --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-Y_a-temp-4.4.csv"
"$HS" boundary 'Y a' --mode temp --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-Y_a-temp-4.5.csv"

# boundary-Y_a-temp-16 (no timing) -> boundary.csv
"$HS" boundary 'Y a' --mode temp --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-Y_a-temp-16.0.csv"
"$HS" boundary 'Y a' --mode temp --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-Y_a-temp-16.1.csv"
"$HS" boundary 'Y a' --mode temp --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-Y_a-temp-16.2.csv"
"$HS" boundary 'Y a' --mode temp --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-Y_a-temp-16.3.csv"
"$HS" boundary 'Y a' --mode temp --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-Y_a-temp-16.4.csv"
"$HS" boundary 'Y a' --mode temp --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-Y_a-temp-16.5.csv"

# boundary-Y_a-rel-4 (no timing) -> boundary.csv
"$HS" boundary 'Y a' --mode rel --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-Y_a-rel-4.0.csv"
"$HS" boundary 'Y a' --mode rel --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-Y_a-rel-4.1.csv"
"$HS" boundary 'Y a' --mode rel --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-Y_a-rel-4.2.csv"
"$HS" boundary 'Y a' --mode rel --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-Y_a-rel-4.3.csv"
"$HS" boundary 'Y a' --mode rel --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-Y_a-rel-4.4.csv"
"$HS" boundary 'Y a' --mode rel --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-Y_a-rel-4.5.csv"

# boundary-Y_a-rel-16 (no timing) -> boundary.csv
"$HS" boundary 'Y a' --mode rel --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-Y_a-rel-16.0.csv"
"$HS" boundary 'Y a' --mode rel --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-Y_a-rel-16.1.csv"
"$HS" boundary 'Y a' --mode rel --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-Y_a-rel-16.2.csv"
"$HS" boundary 'Y a' --mode rel --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-Y_a-rel-16.3.csv"
"$HS" boundary 'Y a' --mode rel --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-Y_a-rel-16.4.csv"
"$HS" boundary 'Y a' --mode rel --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-Y_a-rel-16.5.csv"

# boundary-Y_a-fixed-4 (no timing) -> boundary.csv
"$HS" boundary 'Y a' --mode fixed --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-Y_a-fixed-4.0.csv"
"$HS" boundary 'Y a' --mode fixed --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-Y_a-fixed-4.1.csv"
"$HS" boundary 'Y a' --mode fixed --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-Y_a-fixed-4.2.csv"
"$HS" boundary 'Y a' --mode fixed --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-Y_a-fixed-4.3.csv"
"$HS" boundary 'Y a' --mode fixed --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-Y_a-fixed-4.4.csv"
"$HS" boundary 'Y a' --mode fixed --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-Y_a-fixed-4.5.csv"

# boundary-Y_a-fixed-16 (no timing) -> boundary.csv
"$HS" boundary 'Y a' --mode fixed --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-Y_a-fixed-16.0.csv"
"$HS" boundary 'Y a' --mode fixed --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-Y_a-fixed-16.1.csv"
"$HS" boundary 'Y a' --mode fixed --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-Y_a-fixed-16.2.csv"
"$HS" boundary 'Y a' --mode fixed --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-Y_a-fixed-16.3.csv"
"$HS" boundary 'Y a' --mode fixed --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-Y_a-fixed-16.4.csv"
"$HS" boundary 'Y a' --mode fixed --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-Y_a-fixed-16.5.csv"

# boundary-X_a-pe-4 (no timing) -> boundary.csv
"$HS" boundary 'X a' --mode pe --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-X_a-pe-4.0.csv"
"$HS" boundary 'X a' --mode pe --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-X_a-pe-4.1.csv"
"$HS" boundary 'X a' --mode pe --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-X_a-pe-4.2.csv"
"$HS" boundary 'X a' --mode pe --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-X_a-pe-4.3.csv"
"$HS" boundary 'X a' --mode pe --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-X_a-pe-4.4.csv"
"$HS" boundary 'X a' --mode pe --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-X_a-pe-4.5.csv"

# boundary-X_a-pe-16 (no timing) -> boundary.csv
"$HS" boundary 'X a' --mode pe --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-X_a-pe-16.0.csv"
"$HS" boundary 'X a' --mode pe --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-X_a-pe-16.1.csv"
"$HS" boundary 'X a' --mode pe --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-X_a-pe-16.2.csv"
"$HS" boundary 'X a' --mode pe --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-X_a-pe-16.3.csv"
"$HS" boundary 'X a' --mode pe --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-X_a-pe-16.4.csv"
"$HS" boundary 'X a' --mode pe --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-X_a-pe-16.5.csv"

# boundary-X_a-temp-4 (no timing) -> boundary.csv
"$HS" boundary 'X a' --mode temp --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-X_a-temp-4.0.csv"
"$HS" boundary 'X a' --mode temp --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-X_a-temp-4.1.csv"
"$HS" boundary 'X a' --mode temp --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-X_a-temp-4.2.csv"
"$HS" boundary 'X a' --mode temp --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-X_a-temp-4.3.csv"
"$HS" boundary 'X a' --mode temp --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-X_a-temp-4.4.csv"
"$HS" boundary 'X a' --mode temp --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-X_a-temp-4.5.csv"

# boundary-X_a-temp-16 (no timing) -> boundary.csv
"$HS" boundary 'X a' --mode temp --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-X_a-temp-16.0.csv"
"$HS" boundary 'X a' --mode temp --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-X_a-temp-16.1.csv"
"$HS" boundary 'X a' --mode temp --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-X_a-temp-16.2.csv"
"$HS" boundary 'X a' --mode temp --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-X_a-temp-16.3.csv"
"$HS" boundary 'X a' --mode temp --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-X_a-temp-16.4.csv"
"$HS" boundary 'X a' --mode temp --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-X_a-temp-16.5.csv"

# boundary-X_a-rel-4 (no timing) -> boundary.csv
"$HS" boundary 'X a' --mode rel --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-X_a-rel-4.0.csv"
"$HS" boundary 'X a' --mode rel --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-X_a-rel-4.1.csv"
"$HS" boundary 'X a' --mode rel --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-X_a-rel-4.2.csv"
"$HS" boundary 'X a' --mode rel --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-X_a-rel-4.3.csv"
"$HS" boundary 'X a' --mode rel --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-X_a-rel-4.4.csv"
"$HS" boundary 'X a' --mode rel --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-X_a-rel-4.5.csv"

# boundary-X_a-rel-16 (no timing) -> boundary.csv
"$HS" boundary 'X a' --mode rel --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-X_a-rel-16.0.csv"
"$HS" boundary 'X a' --mode rel --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-X_a-rel-16.1.csv"
"$HS" boundary 'X a' --mode rel --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-X_a-rel-16.2.csv"
"$HS" boundary 'X a' --mode rel --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-X_a-rel-16.3.csv"
"$HS" boundary 'X a' --mode rel --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-X_a-rel-16.4.csv"
"$HS" boundary 'X a' --mode rel --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-X_a-rel-16.5.csv"

# boundary-X_a-fixed-4 (no timing) -> boundary.csv
"$HS" boundary 'X a' --mode fixed --scale 4 --precision f64 --max-n 65536 --header > "$PARTS/boundary-X_a-fixed-4.0.csv"
"$HS" boundary 'X a' --mode fixed --scale 4 --precision f32 --max-n 65536 --header > "$PARTS/boundary-X_a-fixed-4.1.csv"
"$HS" boundary 'X a' --mode fixed --scale 4 --precision f16s --max-n 65536 --header > "$PARTS/boundary-X_a-fixed-4.2.csv"
"$HS" boundary 'X a' --mode fixed --scale 4 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-X_a-fixed-4.3.csv"
"$HS" boundary 'X a' --mode fixed --scale 4 --precision f16 --max-n 65536 --header > "$PARTS/boundary-X_a-fixed-4.4.csv"
"$HS" boundary 'X a' --mode fixed --scale 4 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-X_a-fixed-4.5.csv"

# boundary-X_a-fixed-16 (no timing) -> boundary.csv
"$HS" boundary 'X a' --mode fixed --scale 16 --precision f64 --max-n 65536 --header > "$PARTS/boundary-X_a-fixed-16.0.csv"
"$HS" boundary 'X a' --mode fixed --scale 16 --precision f32 --max-n 65536 --header > "$PARTS/boundary-X_a-fixed-16.1.csv"
"$HS" boundary 'X a' --mode fixed --scale 16 --precision f16s --max-n 65536 --header > "$PARTS/boundary-X_a-fixed-16.2.csv"
"$HS" boundary 'X a' --mode fixed --scale 16 --precision bf16s --max-n 65536 --header > "$PARTS/boundary-X_a-fixed-16.3.csv"
"$HS" boundary 'X a' --mode fixed --scale 16 --precision f16 --max-n 65536 --header > "$PARTS/boundary-X_a-fixed-16.4.csv"
"$HS" boundary 'X a' --mode fixed --scale 16 --precision bf16 --max-n 65536 --header > "$PARTS/boundary-X_a-fixed-16.5.csv"

# boundary-long (timing) -> boundary-long.csv
timeout 600 "$HS" boundary 'H (a -> Y (b S c))' --mode rel --scale 4 --precision bf16 --max-n 1048576 --header --quiet > "$PARTS/boundary-long.0.csv"

# simulate-after_last_b (no timing) -> simulate.csv
"$HS" simulate bench/models/after-last-b.safetensors --alphabet ab --lengths 16,256,4096 --samples 3 --scale 4 --csv --header > "$PARTS/simulate-after_last_b.0.csv" || [ $? = 1 ]

# simulate-dyck1_prefix (no timing) -> simulate.csv
"$HS" simulate bench/models/dyck1-prefix.safetensors --alphabet ab --lengths 16,256,4096 --samples 3 --scale 4 --csv --header > "$PARTS/simulate-dyck1_prefix.0.csv" || [ $? = 1 ]

# simulate-first_equals_last (no timing) -> simulate.csv
"$HS" simulate bench/models/first-equals-last.safetensors --alphabet ab --lengths 16,256,4096 --samples 3 --scale 4 --csv --header > "$PARTS/simulate-first_equals_last.0.csv" || [ $? = 1 ]

# simulate-majority (no timing) -> simulate.csv
"$HS" simulate bench/models/majority.safetensors --alphabet ab --lengths 16,256,4096 --samples 3 --scale 4 --csv --header > "$PARTS/simulate-majority.0.csv" || [ $? = 1 ]

# simulate-compiled-Y-a (no timing) -> simulate.csv
"$HS" compile 'Y a' --mode hard -o "$TMP"/compiled-Y-a.safetensors
"$HS" simulate "$TMP"/compiled-Y-a.safetensors --alphabet ab --lengths 16,256,4096 --samples 3 --scale 4 --csv --header > "$PARTS/simulate-compiled-Y-a.1.csv" || [ $? = 1 ]

# simulate-compiled-a-S-b (no timing) -> simulate.csv
"$HS" compile 'a S b' --mode hard -o "$TMP"/compiled-a-S-b.safetensors
"$HS" simulate "$TMP"/compiled-a-S-b.safetensors --alphabet ab --lengths 16,256,4096 --samples 3 --scale 4 --csv --header > "$PARTS/simulate-compiled-a-S-b.1.csv" || [ $? = 1 ]

# simulate-compiled-a-U-b (no timing) -> simulate.csv
"$HS" compile 'a U b' --mode hard -o "$TMP"/compiled-a-U-b.safetensors
"$HS" simulate "$TMP"/compiled-a-U-b.safetensors --alphabet ab --lengths 16,256,4096 --samples 3 --scale 4 --csv --header > "$PARTS/simulate-compiled-a-U-b.1.csv" || [ $? = 1 ]

# simulate-compiled-depth4 (no timing) -> simulate.csv
"$HS" compile '(a S (b & X (c U Y a))) | G (b -> Y a)' --mode hard -o "$TMP"/compiled-depth4.safetensors
"$HS" simulate "$TMP"/compiled-depth4.safetensors --alphabet ab --lengths 16,256,4096 --samples 3 --scale 4 --csv --header > "$PARTS/simulate-compiled-depth4.1.csv" || [ $? = 1 ]

# counting-layernorm (no timing) -> sweep-counting.csv
"$HS" bench --formula '#<(a) > #<(b)' --formula '#<(a) - 2*#<(b) >= 0 & Y c' --modes hard,pe,temp,fixed --scales 4,16 --lengths 16,256,4096 --isas "$best" --repeat 1 --error-max-n 4096 --sign layernorm --quiet --csv "$PARTS/counting-layernorm.0.csv"

# counting-layernorm-mixed (no timing) -> sweep-counting.csv
"$HS" bench --formula '#<(a) > #>(b)' --modes hard,pe,temp --scales 4,16 --lengths 16,256,4096 --isas "$best" --repeat 1 --error-max-n 4096 --sign layernorm --quiet --csv "$PARTS/counting-layernorm-mixed.0.csv"

# counting-temp (no timing) -> sweep-counting.csv
"$HS" bench --formula '#<(a) > #<(b)' --formula '#<(a) - 2*#<(b) >= 0 & Y c' --modes hard,pe,temp,fixed --scales 4,16 --lengths 16,256,4096 --isas "$best" --repeat 1 --error-max-n 4096 --sign temp --quiet --csv "$PARTS/counting-temp.0.csv"

# counting-temp-mixed (no timing) -> sweep-counting.csv
"$HS" bench --formula '#<(a) > #>(b)' --modes hard,pe,temp --scales 4,16 --lengths 16,256,4096 --isas "$best" --repeat 1 --error-max-n 4096 --sign temp --quiet --csv "$PARTS/counting-temp-mixed.0.csv"

# rel (timing) -> sweep-rel.csv
"$HS" bench --formula 'a S b' --formula 'a U b' --formula '(a S (b & X (c U Y a))) | G (b -> Y a)' --modes pe,rel --scales 4 --lengths 4096 --isas "$best" --repeat 5 --error-max-n 0 --quiet --csv "$PARTS/rel.0.csv"

# threads (timing) -> sweep-threads.csv
"$HS" bench --formula 'a S b' --formula '(a S (b & X (c U Y a))) | G (b -> Y a)' --modes pe --scales 4 --lengths 4096,16384 --isas "$best" --threads 1,2 --repeat 7 --error-max-n 0 --quiet --csv "$PARTS/threads.0.csv"

# skip (timing) -> sweep-skip.csv
"$HS" bench --formula 'a S b' --formula '(a S (b & X (c U Y a))) | G (b -> Y a)' --modes pe --scales 8,32 --lengths 4096,16384 --isas "$best" --skip auto,online,on,off --repeat 5 --error-max-n 0 --quiet --csv "$PARTS/skip.0.csv"

# paths-mu4 (timing) -> sweep-paths.csv
"$HS" bench --formula 'a S b' --formula '(a S (b & X (c U Y a))) | G (b -> Y a)' --modes pe --scales 4 --lengths 4096 --isas "$isas" --threads 1 --skip auto,online --repeat 5 --error-max-n 0 --phases --quiet --csv "$PARTS/paths-mu4.0.csv"

# paths-mu8 (timing) -> sweep-paths.csv
"$HS" bench --formula 'a S b' --formula '(a S (b & X (c U Y a))) | G (b -> Y a)' --modes pe --scales 8 --lengths 16384 --isas "$isas" --threads 1 --skip auto,online --repeat 5 --error-max-n 0 --phases --quiet --csv "$PARTS/paths-mu8.0.csv"

# skip-suite (timing) -> sweep-skip-suite.csv
"$HS" bench --formulas bench/formulas.txt --modes pe --scales 8 --lengths 4096 --isas "$best" --threads 1 --skip auto,online --repeat 11 --error-max-n 0 --quiet --csv "$PARTS/skip-suite.0.csv"

# growth (timing) -> sweep-growth.csv
"$HS" bench --formula 'a S b' --modes pe --scales 8 --lengths 16384,262144 --isas "$best" --threads 1 --repeat 3 --error-max-n 0 --quiet --csv "$PARTS/growth.0.csv"

# growth-big (timing) -> sweep-growth.csv
timeout 60 "$HS" bench --formula 'a S b' --modes pe --scales 8 --lengths 1048576 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/growth-big.0.csv"

# hardf64 (timing) -> sweep-hardf64.csv
"$HS" bench --formula 'a S b' --formula '(a S (b & X (c U Y a))) | G (b -> Y a)' --modes hard,pe --scales 4 --lengths 4096 --isas "$best" --threads 1 --precisions f32,f64 --repeat 5 --error-max-n 0 --quiet --csv "$PARTS/hardf64.0.csv"

# isa (timing) -> sweep-isa.csv
"$HS" bench --formula 'a S b' --formula '(a S (b & X (c U Y a))) | G (b -> Y a)' --modes pe --scales 4 --lengths 4096,8192 --isas "$wide" --repeat 5 --error-max-n 0 --skip online --quiet --csv "$PARTS/isa.0.csv"

# depth6 (timing) -> sweep-depth6.csv
"$HS" bench --formula 'G (a -> X (b U (c & Y (a S (b & X c)))))' --modes pe --scales 4 --lengths 65536 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/depth6.0.csv"

# programs (no timing) -> sweep-programs.csv
"$HS" bench -f tests/programs/dyck1.cr --lang crasp --modes hard,pe,temp --scales 16 --lengths 256,1024,4096 --isas "$best" --repeat 5 --quiet --csv "$PARTS/programs.0.csv"

# count-scale-majority-pe (timing) -> sweep-counting-scale.csv
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes pe --scales 4 --lengths 1024 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-pe.0.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes pe --scales 4 --lengths 2048 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-pe.1.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes pe --scales 4 --lengths 4096 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-pe.2.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes pe --scales 4 --lengths 8192 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-pe.3.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes pe --scales 4 --lengths 16384 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-pe.4.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes pe --scales 4 --lengths 32768 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-pe.5.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes pe --scales 4 --lengths 65536 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-pe.6.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes pe --scales 4 --lengths 131072 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-pe.7.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes pe --scales 4 --lengths 262144 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-pe.8.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes pe --scales 4 --lengths 524288 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-pe.9.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes pe --scales 4 --lengths 1048576 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-pe.10.csv"

# count-scale-majority-rel (timing) -> sweep-counting-scale.csv
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes rel --scales 4 --lengths 1024 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-rel.0.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes rel --scales 4 --lengths 2048 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-rel.1.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes rel --scales 4 --lengths 4096 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-rel.2.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes rel --scales 4 --lengths 8192 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-rel.3.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes rel --scales 4 --lengths 16384 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-rel.4.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes rel --scales 4 --lengths 32768 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-rel.5.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes rel --scales 4 --lengths 65536 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-rel.6.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes rel --scales 4 --lengths 131072 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-rel.7.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes rel --scales 4 --lengths 262144 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-rel.8.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes rel --scales 4 --lengths 524288 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-rel.9.csv"
timeout 10 "$HS" bench --formula '#<(a) > #<(b)' --modes rel --scales 4 --lengths 1048576 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-majority-rel.10.csv"

# count-scale-dyck1-pe (timing) -> sweep-counting-scale.csv
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes pe --scales 4 --lengths 1024 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-pe.0.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes pe --scales 4 --lengths 2048 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-pe.1.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes pe --scales 4 --lengths 4096 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-pe.2.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes pe --scales 4 --lengths 8192 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-pe.3.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes pe --scales 4 --lengths 16384 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-pe.4.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes pe --scales 4 --lengths 32768 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-pe.5.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes pe --scales 4 --lengths 65536 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-pe.6.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes pe --scales 4 --lengths 131072 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-pe.7.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes pe --scales 4 --lengths 262144 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-pe.8.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes pe --scales 4 --lengths 524288 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-pe.9.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes pe --scales 4 --lengths 1048576 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-pe.10.csv"

# count-scale-dyck1-rel (timing) -> sweep-counting-scale.csv
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes rel --scales 4 --lengths 1024 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-rel.0.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes rel --scales 4 --lengths 2048 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-rel.1.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes rel --scales 4 --lengths 4096 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-rel.2.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes rel --scales 4 --lengths 8192 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-rel.3.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes rel --scales 4 --lengths 16384 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-rel.4.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes rel --scales 4 --lengths 32768 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-rel.5.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes rel --scales 4 --lengths 65536 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-rel.6.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes rel --scales 4 --lengths 131072 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-rel.7.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes rel --scales 4 --lengths 262144 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-rel.8.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes rel --scales 4 --lengths 524288 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-rel.9.csv"
timeout 10 "$HS" bench --formula 'H(#<(a) >= #<(b)) & #<(a) = #<(b)' --modes rel --scales 4 --lengths 1048576 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-dyck1-rel.10.csv"

# count-scale-count3-pe (timing) -> sweep-counting-scale.csv
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes pe --scales 4 --lengths 1024 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-pe.0.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes pe --scales 4 --lengths 2048 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-pe.1.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes pe --scales 4 --lengths 4096 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-pe.2.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes pe --scales 4 --lengths 8192 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-pe.3.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes pe --scales 4 --lengths 16384 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-pe.4.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes pe --scales 4 --lengths 32768 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-pe.5.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes pe --scales 4 --lengths 65536 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-pe.6.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes pe --scales 4 --lengths 131072 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-pe.7.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes pe --scales 4 --lengths 262144 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-pe.8.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes pe --scales 4 --lengths 524288 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-pe.9.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes pe --scales 4 --lengths 1048576 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-pe.10.csv"

# count-scale-count3-rel (timing) -> sweep-counting-scale.csv
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes rel --scales 4 --lengths 1024 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-rel.0.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes rel --scales 4 --lengths 2048 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-rel.1.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes rel --scales 4 --lengths 4096 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-rel.2.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes rel --scales 4 --lengths 8192 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-rel.3.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes rel --scales 4 --lengths 16384 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-rel.4.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes rel --scales 4 --lengths 32768 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-rel.5.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes rel --scales 4 --lengths 65536 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-rel.6.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes rel --scales 4 --lengths 131072 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-rel.7.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes rel --scales 4 --lengths 262144 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-rel.8.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes rel --scales 4 --lengths 524288 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-rel.9.csv"
timeout 10 "$HS" bench -f tests/programs/count3.cr --lang crasp --modes rel --scales 4 --lengths 1048576 --isas "$best" --threads 1 --repeat 1 --error-max-n 0 --quiet --csv "$PARTS/count-scale-count3-rel.10.csv"

# bformulas-00-rel-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a S b' --mode rel --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-00-rel-f16.0.csv"

# bformulas-00-rel-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a S b' --mode rel --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-00-rel-bf16.0.csv"

# bformulas-00-rel-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a S b' --mode rel --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-00-rel-f32.0.csv"

# bformulas-00-pe-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a S b' --mode pe --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-00-pe-f16.0.csv"

# bformulas-00-pe-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a S b' --mode pe --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-00-pe-bf16.0.csv"

# bformulas-00-pe-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a S b' --mode pe --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-00-pe-f32.0.csv"

# bformulas-00-temp-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a S b' --mode temp --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-00-temp-f16.0.csv"

# bformulas-00-temp-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a S b' --mode temp --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-00-temp-bf16.0.csv"

# bformulas-00-temp-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a S b' --mode temp --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-00-temp-f32.0.csv"

# bformulas-01-rel-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a U b' --mode rel --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-01-rel-f16.0.csv"

# bformulas-01-rel-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a U b' --mode rel --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-01-rel-bf16.0.csv"

# bformulas-01-rel-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a U b' --mode rel --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-01-rel-f32.0.csv"

# bformulas-01-pe-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a U b' --mode pe --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-01-pe-f16.0.csv"

# bformulas-01-pe-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a U b' --mode pe --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-01-pe-bf16.0.csv"

# bformulas-01-pe-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a U b' --mode pe --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-01-pe-f32.0.csv"

# bformulas-01-temp-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a U b' --mode temp --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-01-temp-f16.0.csv"

# bformulas-01-temp-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a U b' --mode temp --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-01-temp-bf16.0.csv"

# bformulas-01-temp-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'a U b' --mode temp --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-01-temp-f32.0.csv"

# bformulas-02-rel-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'Y a' --mode rel --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-02-rel-f16.0.csv"

# bformulas-02-rel-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'Y a' --mode rel --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-02-rel-bf16.0.csv"

# bformulas-02-rel-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'Y a' --mode rel --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-02-rel-f32.0.csv"

# bformulas-02-pe-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'Y a' --mode pe --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-02-pe-f16.0.csv"

# bformulas-02-pe-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'Y a' --mode pe --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-02-pe-bf16.0.csv"

# bformulas-02-pe-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'Y a' --mode pe --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-02-pe-f32.0.csv"

# bformulas-02-temp-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'Y a' --mode temp --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-02-temp-f16.0.csv"

# bformulas-02-temp-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'Y a' --mode temp --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-02-temp-bf16.0.csv"

# bformulas-02-temp-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'Y a' --mode temp --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-02-temp-f32.0.csv"

# bformulas-03-rel-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'X a' --mode rel --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-03-rel-f16.0.csv"

# bformulas-03-rel-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'X a' --mode rel --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-03-rel-bf16.0.csv"

# bformulas-03-rel-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'X a' --mode rel --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-03-rel-f32.0.csv"

# bformulas-03-pe-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'X a' --mode pe --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-03-pe-f16.0.csv"

# bformulas-03-pe-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'X a' --mode pe --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-03-pe-bf16.0.csv"

# bformulas-03-pe-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'X a' --mode pe --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-03-pe-f32.0.csv"

# bformulas-03-temp-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'X a' --mode temp --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-03-temp-f16.0.csv"

# bformulas-03-temp-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'X a' --mode temp --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-03-temp-bf16.0.csv"

# bformulas-03-temp-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'X a' --mode temp --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-03-temp-f32.0.csv"

# bformulas-04-rel-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> F b)' --mode rel --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-04-rel-f16.0.csv"

# bformulas-04-rel-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> F b)' --mode rel --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-04-rel-bf16.0.csv"

# bformulas-04-rel-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> F b)' --mode rel --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-04-rel-f32.0.csv"

# bformulas-04-pe-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> F b)' --mode pe --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-04-pe-f16.0.csv"

# bformulas-04-pe-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> F b)' --mode pe --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-04-pe-bf16.0.csv"

# bformulas-04-pe-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> F b)' --mode pe --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-04-pe-f32.0.csv"

# bformulas-04-temp-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> F b)' --mode temp --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-04-temp-f16.0.csv"

# bformulas-04-temp-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> F b)' --mode temp --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-04-temp-bf16.0.csv"

# bformulas-04-temp-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> F b)' --mode temp --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-04-temp-f32.0.csv"

# bformulas-05-rel-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S b) & X (b U c)' --mode rel --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-05-rel-f16.0.csv"

# bformulas-05-rel-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S b) & X (b U c)' --mode rel --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-05-rel-bf16.0.csv"

# bformulas-05-rel-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S b) & X (b U c)' --mode rel --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-05-rel-f32.0.csv"

# bformulas-05-pe-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S b) & X (b U c)' --mode pe --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-05-pe-f16.0.csv"

# bformulas-05-pe-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S b) & X (b U c)' --mode pe --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-05-pe-bf16.0.csv"

# bformulas-05-pe-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S b) & X (b U c)' --mode pe --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-05-pe-f32.0.csv"

# bformulas-05-temp-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S b) & X (b U c)' --mode temp --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-05-temp-f16.0.csv"

# bformulas-05-temp-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S b) & X (b U c)' --mode temp --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-05-temp-bf16.0.csv"

# bformulas-05-temp-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S b) & X (b U c)' --mode temp --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-05-temp-f32.0.csv"

# bformulas-06-rel-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'H (a -> Y (b S c))' --mode rel --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-06-rel-f16.0.csv"

# bformulas-06-rel-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'H (a -> Y (b S c))' --mode rel --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-06-rel-bf16.0.csv"

# bformulas-06-rel-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'H (a -> Y (b S c))' --mode rel --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-06-rel-f32.0.csv"

# bformulas-06-pe-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'H (a -> Y (b S c))' --mode pe --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-06-pe-f16.0.csv"

# bformulas-06-pe-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'H (a -> Y (b S c))' --mode pe --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-06-pe-bf16.0.csv"

# bformulas-06-pe-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'H (a -> Y (b S c))' --mode pe --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-06-pe-f32.0.csv"

# bformulas-06-temp-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'H (a -> Y (b S c))' --mode temp --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-06-temp-f16.0.csv"

# bformulas-06-temp-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'H (a -> Y (b S c))' --mode temp --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-06-temp-bf16.0.csv"

# bformulas-06-temp-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'H (a -> Y (b S c))' --mode temp --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-06-temp-f32.0.csv"

# bformulas-07-rel-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> (b U X c)) & O (X a)' --mode rel --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-07-rel-f16.0.csv"

# bformulas-07-rel-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> (b U X c)) & O (X a)' --mode rel --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-07-rel-bf16.0.csv"

# bformulas-07-rel-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> (b U X c)) & O (X a)' --mode rel --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-07-rel-f32.0.csv"

# bformulas-07-pe-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> (b U X c)) & O (X a)' --mode pe --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-07-pe-f16.0.csv"

# bformulas-07-pe-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> (b U X c)) & O (X a)' --mode pe --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-07-pe-bf16.0.csv"

# bformulas-07-pe-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> (b U X c)) & O (X a)' --mode pe --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-07-pe-f32.0.csv"

# bformulas-07-temp-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> (b U X c)) & O (X a)' --mode temp --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-07-temp-f16.0.csv"

# bformulas-07-temp-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> (b U X c)) & O (X a)' --mode temp --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-07-temp-bf16.0.csv"

# bformulas-07-temp-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> (b U X c)) & O (X a)' --mode temp --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-07-temp-f32.0.csv"

# bformulas-08-rel-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S (b & X (c U Y a))) | G (b -> Y a)' --mode rel --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-08-rel-f16.0.csv"

# bformulas-08-rel-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S (b & X (c U Y a))) | G (b -> Y a)' --mode rel --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-08-rel-bf16.0.csv"

# bformulas-08-rel-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S (b & X (c U Y a))) | G (b -> Y a)' --mode rel --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-08-rel-f32.0.csv"

# bformulas-08-pe-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S (b & X (c U Y a))) | G (b -> Y a)' --mode pe --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-08-pe-f16.0.csv"

# bformulas-08-pe-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S (b & X (c U Y a))) | G (b -> Y a)' --mode pe --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-08-pe-bf16.0.csv"

# bformulas-08-pe-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S (b & X (c U Y a))) | G (b -> Y a)' --mode pe --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-08-pe-f32.0.csv"

# bformulas-08-temp-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S (b & X (c U Y a))) | G (b -> Y a)' --mode temp --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-08-temp-f16.0.csv"

# bformulas-08-temp-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S (b & X (c U Y a))) | G (b -> Y a)' --mode temp --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-08-temp-bf16.0.csv"

# bformulas-08-temp-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary '(a S (b & X (c U Y a))) | G (b -> Y a)' --mode temp --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-08-temp-f32.0.csv"

# bformulas-09-rel-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'F (a & X (b S (c & Y (a U b))))' --mode rel --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-09-rel-f16.0.csv"

# bformulas-09-rel-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'F (a & X (b S (c & Y (a U b))))' --mode rel --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-09-rel-bf16.0.csv"

# bformulas-09-rel-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'F (a & X (b S (c & Y (a U b))))' --mode rel --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-09-rel-f32.0.csv"

# bformulas-09-pe-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'F (a & X (b S (c & Y (a U b))))' --mode pe --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-09-pe-f16.0.csv"

# bformulas-09-pe-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'F (a & X (b S (c & Y (a U b))))' --mode pe --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-09-pe-bf16.0.csv"

# bformulas-09-pe-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'F (a & X (b S (c & Y (a U b))))' --mode pe --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-09-pe-f32.0.csv"

# bformulas-09-temp-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'F (a & X (b S (c & Y (a U b))))' --mode temp --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-09-temp-f16.0.csv"

# bformulas-09-temp-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'F (a & X (b S (c & Y (a U b))))' --mode temp --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-09-temp-bf16.0.csv"

# bformulas-09-temp-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'F (a & X (b S (c & Y (a U b))))' --mode temp --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-09-temp-f32.0.csv"

# bformulas-10-rel-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> X (b U (c & Y (a S (b & X c)))))' --mode rel --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-10-rel-f16.0.csv"

# bformulas-10-rel-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> X (b U (c & Y (a S (b & X c)))))' --mode rel --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-10-rel-bf16.0.csv"

# bformulas-10-rel-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> X (b U (c & Y (a S (b & X c)))))' --mode rel --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-10-rel-f32.0.csv"

# bformulas-10-pe-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> X (b U (c & Y (a S (b & X c)))))' --mode pe --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-10-pe-f16.0.csv"

# bformulas-10-pe-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> X (b U (c & Y (a S (b & X c)))))' --mode pe --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-10-pe-bf16.0.csv"

# bformulas-10-pe-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> X (b U (c & Y (a S (b & X c)))))' --mode pe --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-10-pe-f32.0.csv"

# bformulas-10-temp-f16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> X (b U (c & Y (a S (b & X c)))))' --mode temp --scale 4 --precision f16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-10-temp-f16.0.csv"

# bformulas-10-temp-bf16 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> X (b U (c & Y (a S (b & X c)))))' --mode temp --scale 4 --precision bf16 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-10-temp-bf16.0.csv"

# bformulas-10-temp-f32 (no timing) -> boundary-formulas.csv
"$HS" boundary 'G (a -> X (b U (c & Y (a S (b & X c)))))' --mode temp --scale 4 --precision f32 --max-n 4096 --threads 1 --header --quiet > "$PARTS/bformulas-10-temp-f32.0.csv"

# tasks (timing) -> tasks
BUILD="$BUILD" "$PYTHON" examples/tasks/table.py "$PARTS/tasks"

# hyperfine (timing) -> hyperfine.md
BUILD="$BUILD" sh bench/hyperfine.sh "$PARTS/hyperfine.0.md"

# attention (no timing) -> attention-asb.png
"$HS" attention 'a S b' --mode pe --scales 1,2,4,8 aabcabbacabbbaacabbcaaab --png "$PARTS/attention.0.png"
