#!/usr/bin/env bash
# One batch on a GPU machine: build, then any of: the tests, the sanitizers, the benchmark, the
# headline cases, the ncu profiles of the gaps. Logs go to $OUT (default gpu-logs/); a short digest is printed last.
#   STEPS="build test sanitize bench" LESSONS="lesson02_scan lesson05_histogram" QUICK=1 tools/gpu_batch.sh
# LESSONS narrows every step (the build too: only those lessons' programs, wrong/ and exercises/).
# GPU_ONLY=1 skips the host half of the tests (and the host-test build). BUILD=dir runs the test,
# sanitize and bench steps over programs built elsewhere (compiled on a machine without a GPU and
# carried here: STEPS="test sanitize" BUILD=build_gpu, no build step). SWEEP="build/a build/b"
# sweeps only those programs instead of every version of LESSONS (bars included: list them); the
# rows are merged into results/<gpu>.csv there, and the CSV is copied to $OUT.
# The build keeps going past a program that fails to compile (make -k), so one broken file does
# not hide the results of the rest.
# The headline step (what tools/gpu_headline.sh runs) builds only each lesson's best versions and
# their library bars, then runs the lessons' headline cases, each best version right after its bar
# in the same run, ROUNDS rounds (default 2); rows go to $OUT/<gpu>.csv, and the table is printed
# as it runs (and kept in $OUT/headline.log). Without a GPU it does nothing and the batch exits 77.
# The targets step runs every case an open issue's targets name (scan at 2^20/2^24/2^28; radix keys
# and pairs on uniform and Zipf keys, float32 keys, 2^24 and 2^20; merge sort at 2^24 and 2^28; SpMV
# on every generated family in float32 and float64, and on the .mtx files where make_matrices.py can
# make them; histogram bytes on the five input shapes and 65536 bins; top-k at 2^28 for k = 1..2048
# and 2^20), each best version right after its bar, ROUNDS rounds, into $OUT/targets_<gpu>.csv, and
# prints each case's ratios (bar time / best time, one per round) into $OUT/targets.log. LESSONS
# splits it over calls (a round of all five lessons, build included: 255 s on an H200).
# The portability step builds every version from compute_75, compute_80 and compute_89 PTX (into
# build_compute_XX/) and runs each --test --quick as a T4, an A100 and an L4 (COURSE_GPU_PROFILE):
# PORT_PROFILES="t4:compute_75 a100:compute_80 l4:compute_89" chooses the pairs; a plain arch
# (rtx5090:90) reuses the build step's programs (the newest code an H100 runs, with that GPU's limits).
# The ncu step (what tools/ncu_gaps.sh runs) builds the best versions that still trail their library
# and those bars, and profiles each right after its bar on the same input: one launch of the kernel
# that matters, one metric set, into $OUT/ncu_gaps_<gpu>.txt as it goes (a cut-off call keeps what it
# measured). Without a GPU or without ncu it does nothing and the batch exits 77.
set -u
OUT=${OUT:-gpu-logs}
STEPS=${STEPS:-build test}
LESSONS=${LESSONS:-lesson01_topk lesson02_scan lesson03_compact_spmv lesson04_sort lesson05_histogram}
ARCH=${ARCH:-90}
BUILD=${BUILD:-build}
JOBS=${JOBS:-$(nproc)}
ROUNDS=${ROUNDS:-2}
mkdir -p "$OUT"
status=0
digest="$OUT/digest.txt"
: > "$digest"
only="^($(echo $LESSONS | tr ' ' '|'))/"
targets=""
for l in $LESSONS; do
  for src in $l/*.cu $l/wrong/*.cu $l/exercises/*.cu; do [ -f "$src" ] && targets="$targets build/${src%.cu}"; done
done
[ -z "${GPU_ONLY:-}" ] && targets="$targets host-tests"

# build_into LOG TARGET...: make -k the targets, output into $OUT/LOG; returns make's exit status.
build_into() { local log=$1; shift; make -k -j"$JOBS" ARCH="$ARCH" "$@" > "$OUT/$log" 2>&1; }
# The GPU's name as results/ names its CSV (H100_80GB_HBM3, H200), as `make bench-run` writes it.
gpu_name() { nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | sed 's/^NVIDIA //; s/[^A-Za-z0-9._-]/_/g'; }

# The headline step's programs: each lesson's best versions and their library bars.
headline_programs() {
  case $1 in
    lesson01_topk) echo topk_00_cub_sort topk_06_sampled_one_launch ;;
    lesson02_scan) echo 00_cub 06_decoupled_lookback ;;
    lesson03_compact_spmv) echo compact_00_cub compact_03_lookback expand_00_thrust expand_04_head_scatter \
                                spmv_00_cusparse spmv_04_adaptive spmv_05_merge_path ;;
    lesson04_sort) echo 00_cub 00_cub_merge 05_merge_path 08_radix_onesweep ;;
    lesson05_histogram) echo 00_cub 04_per_lane_copies 05_large_bins 06_cluster_dsmem ;;
  esac
}
# headline_run PROGRAM ARGS...: one run, its PASS/FAIL line after the program's name, its row into $csv.
headline_run() {
  local p=$1; shift
  [ -x "build/$p" ] || { echo "!! $p not built"; return; }
  "build/$p" --csv "$csv" "$@" | grep -E "PASS|FAIL" | sed "s|^|$(basename $p): |" | cut -c1-150
}
# headline_cases LESSON: one round of its cases, every best version right after its bar, same input.
headline_cases() {
  local l=$1 p k n e pct g t
  case $l in
    lesson01_topk)
      for k in 32 1024; do for p in topk_00_cub_sort topk_06_sampled_one_launch; do headline_run $l/$p --n 2^28 --k $k; done; done ;;
    lesson02_scan)
      for n in 2^28 2^24 2^20; do for e in 0 1; do for p in 00_cub 06_decoupled_lookback; do
        headline_run $l/$p --n $n --exclusive $e; done; done; done ;;
    lesson03_compact_spmv)
      for pct in 10 50; do for p in compact_00_cub compact_03_lookback; do headline_run $l/$p --n 2^28 --pct $pct; done; done
      for p in expand_00_thrust expand_04_head_scatter; do headline_run $l/$p --n 2^26 --dist uniform; done
      for g in banded random powerlaw; do for p in spmv_00_cusparse spmv_04_adaptive spmv_05_merge_path; do
        headline_run $l/$p --gen $g --n 2^22; done; done ;;
    lesson04_sort)
      for t in uint32 pairs; do for p in 00_cub 08_radix_onesweep; do headline_run $l/$p --n 2^28 --type $t; done; done
      for p in 00_cub_merge 05_merge_path; do headline_run $l/$p --n 2^28 --type uint32; done ;;
    lesson05_histogram)
      for p in 00_cub 04_per_lane_copies; do headline_run $l/$p --n 2^30; done
      for p in 00_cub 05_large_bins 06_cluster_dsmem; do headline_run $l/$p --n 2^28 --type uint32 --bins 65536; done ;;
  esac
}
# The targets step's programs (bars first) and one round of its cases.
target_programs() {
  case $1 in
    lesson01_topk) echo topk_00_cub_sort topk_06_sampled_one_launch ;;
    lesson02_scan) echo 00_cub 06_decoupled_lookback ;;
    lesson03_compact_spmv) echo spmv_00_cusparse spmv_05_merge_path ;;
    lesson04_sort) echo 00_cub 08_radix_onesweep 00_cub_merge 05_merge_path ;;
    lesson05_histogram) echo 00_cub 04_per_lane_copies 05_large_bins 06_cluster_dsmem ;;
  esac
}
target_cases() {
  local l=$1 p n e t d g k f
  case $l in
    lesson01_topk)
      headline_run $l/topk_00_cub_sort --n 2^28 --k 32
      for k in 1 32 256 1024 2048; do headline_run $l/topk_06_sampled_one_launch --n 2^28 --k $k; done
      headline_run $l/topk_00_cub_sort --n 2^20 --k 32; headline_run $l/topk_06_sampled_one_launch --n 2^20 --k 32 ;;
    lesson02_scan)
      for n in 2^28 2^24 2^20; do for e in 0 1; do for p in 00_cub 06_decoupled_lookback; do
        headline_run $l/$p --n $n --exclusive $e; done; done; done ;;
    lesson03_compact_spmv)
      for t in float32 float64; do for g in powerlaw random banded poisson2d empty_rows giant_row; do
        for p in spmv_00_cusparse spmv_05_merge_path; do headline_run $l/$p --gen $g --n 2^22 --type $t; done; done; done
      [ -d /tmp/targets_mtx ] || python3 $l/make_matrices.py --out /tmp/targets_mtx > /dev/null 2>&1 || echo "!! no .mtx files (make_matrices.py needs SciPy and NetworkX)"
      for f in /tmp/targets_mtx/*.mtx; do [ -f "$f" ] || continue; for t in float32 float64; do
        for p in spmv_00_cusparse spmv_05_merge_path; do headline_run $l/$p --matrix $f --type $t; done; done; done ;;
    lesson04_sort)
      for c in "uint32 uniform 2^28" "uint32 zipf 2^28" "pairs uniform 2^28" "pairs zipf 2^28" "float32 uniform 2^28" \
               "uint32 uniform 2^24" "uint32 uniform 2^20"; do set -- $c
        for p in 00_cub 08_radix_onesweep; do headline_run $l/$p --type $1 --dist $2 --n $3; done; done
      for n in 2^28 2^24; do for p in 00_cub_merge 05_merge_path; do headline_run $l/$p --n $n; done; done ;;
    lesson05_histogram)
      for d in uniform equal zipf hot60 text; do for p in 00_cub 04_per_lane_copies; do headline_run $l/$p --n 2^30 --dist $d; done; done
      for p in 00_cub 05_large_bins 06_cluster_dsmem; do headline_run $l/$p --n 2^28 --type uint32 --bins 65536; done ;;
  esac
}

# The ncu step's metrics: time, DRAM and SM throughput, instructions, warps in flight, registers,
# shared atomics issued and their bank conflicts, and the three stalls that explain most waits here.
ncu_metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
ncu_metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum
ncu_metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
ncu_metrics+=,smsp__inst_executed_op_shared_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
ncu_metrics+=,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio
ncu_metrics+=,smsp__average_warp_latency_issue_stalled_barrier.ratio
ncu_metrics+=,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio
# The ncu step's programs, per lesson (the best versions that trail their bar, and the bars).
ncu_programs() {
  case $1 in
    lesson02_scan) echo 00_cub 06_decoupled_lookback ;;
    lesson04_sort) echo 00_cub 08_radix_onesweep ;;
    lesson05_histogram) echo 00_cub 04_per_lane_copies ;;
  esac
}
# ncu_profile LABEL KERNEL_REGEX SKIP PROGRAM ARGS...: the (SKIP+1)-th launch of a matching kernel.
ncu_profile() {
  local label=$1 re=$2 skip=$3 prog=build/$4; shift 4
  echo "### $label: $prog $*" >> "$ncu_log"
  [ -x "$prog" ] || { echo "!! $prog not built" | tee -a "$ncu_log"; return; }
  timeout 90 ncu --clock-control none --metrics "$ncu_metrics" -k "regex:$re" -s "$skip" -c 1 \
      "$prog" "$@" --reps 1 2>&1 | grep -v '^==PROF==' >> "$ncu_log"
  local rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || echo "!! $label: exit $rc" | tee -a "$ncu_log"
  echo "$label done"
}
# ncu_cases LESSON: its profiles, the bar first.
ncu_cases() {
  local l=$1 d
  case $l in
    lesson05_histogram)   # bytes: how each spends a byte on repeated and uniform input
      for d in equal text uniform; do
        ncu_profile "histogram bytes $d, CUB" "Sweep" 0 $l/00_cub --n 2^30 --dist $d
        ncu_profile "histogram bytes $d, 04" "count_" 0 $l/04_per_lane_copies --n 2^30 --dist $d
      done ;;
    lesson04_sort)
      # CUB sorts at most 2^28 - 1 keys per onesweep launch (its "portions"), so at n = 2^28 each of
      # its passes is two launches, a full one and a 7 us one of the last tile: skip 2 to reach pass 2.
      for d in uniform zipf; do
        ncu_profile "radix keys $d, CUB pass 2 of 4 (its main portion)" "nesweep" 2 $l/00_cub --n 2^28 --dist $d
        ncu_profile "radix keys $d, 08 pass 2 of 4" "nesweep" 1 $l/08_radix_onesweep --n 2^28 --dist $d
      done ;;
    lesson02_scan)
      ncu_profile "scan int32 inclusive, CUB" "DeviceScanKernel" 0 $l/00_cub --n 2^28
      ncu_profile "scan int32 inclusive, 06" "lookback_scan_kernel" 0 $l/06_decoupled_lookback --n 2^28 ;;
  esac
}
# measure_rounds NAME PROGRAMS_FN CASES_FN LOG: the headline and targets steps, once the caller has
# found the GPU ($gpu) and named the CSV ($csv). Builds the programs PROGRAMS_FN lists for each
# lesson, then runs ROUNDS rounds of CASES_FN over LESSONS, printed as they run and kept in $OUT/LOG.
measure_rounds() {
  local name=$1 programs_fn=$2 cases_fn=$3 log=$4 list="" l p r rc
  for l in $LESSONS; do for p in $($programs_fn $l); do list="$list build/$l/$p"; done; done
  build_into ${name}_build.log $list; rc=$?
  [ $rc -ne 0 ] && echo "build: some programs failed (see ${name}_build.log)"
  echo "$name build: exit $rc ($(grep -c ' error' "$OUT/${name}_build.log") error lines)" >> "$digest"
  for r in $(seq "$ROUNDS"); do
    echo "== round $r on $gpu"
    for l in $LESSONS; do $cases_fn $l; done
  done | tee "$OUT/$log"
}
for step in $STEPS; do
  start=$(date +%s)
  case $step in
    build)
      build_into build.log $targets
      echo "build: exit $? ($(grep -c ' error' "$OUT/build.log") error lines)" >> "$digest"
      grep -B1 -A3 ' error' "$OUT/build.log" | head -40 >> "$digest" ;;
    test)
      python3 tests/run_tests.py --build "$BUILD" ${QUICK:+--quick} ${GPU_ONLY:+--gpu-only} --only "$only" \
        --jobs "${TEST_JOBS:-4}" > "$OUT/test.log" 2>&1
      echo "test: $(tail -n 1 "$OUT/test.log")" >> "$digest"
      grep -E '^(FAIL|SKIP)' "$OUT/test.log" | cut -c1-400 | head -60 >> "$digest" ;;
    sanitize)
      python3 tests/sanitize.py --build "$BUILD" --lessons "$LESSONS" ${SANITIZE_TOOLS:+--tools $SANITIZE_TOOLS} ${SANITIZE_SIZES:+--sizes $SANITIZE_SIZES} > "$OUT/sanitize.log" 2>&1
      echo "sanitize: $(tail -n 1 "$OUT/sanitize.log")" >> "$digest"
      grep -E '^FAIL' "$OUT/sanitize.log" | cut -c1-300 | head -30 >> "$digest" ;;
    bench)
      if [ -n "${SWEEP:-}" ]; then   # only the listed programs (list the bars too)
        make bench-run BUILD="$BUILD" BENCH_PROGRAMS="$SWEEP" >> "$OUT/bench.log" 2>&1
        echo "bench $SWEEP: exit $? after $(( $(date +%s) - start )) s" >> "$digest"
        cp results/*.csv "$OUT/" 2>/dev/null
      else                           # one lesson at a time, so a call cut short keeps the lessons already measured
        for l in $LESSONS; do
          make bench-run BUILD="$BUILD" LESSONS="$l" >> "$OUT/bench.log" 2>&1
          echo "bench $l: exit $? after $(( $(date +%s) - start )) s" >> "$digest"
          cp results/*.csv "$OUT/" 2>/dev/null
        done
      fi
      grep -E 'FAIL|!!|error' "$OUT/bench.log" | head -20 >> "$digest" ;;
    headline)
      gpu=$(gpu_name)
      if [ -z "$gpu" ]; then echo "no GPU"; echo "headline: no GPU (nvidia-smi found none)" >> "$digest"; status=77; continue; fi
      csv="$OUT/$gpu.csv"
      measure_rounds headline headline_programs headline_cases headline.log
      echo "rows in $csv"
      echo "headline: $(grep -c 'PASS' "$OUT/headline.log") runs passed, rows in $csv" >> "$digest"
      grep -E 'FAIL|^!!' "$OUT/headline.log" | head -20 >> "$digest" ;;
    targets)
      gpu=$(gpu_name)
      if [ -z "$gpu" ]; then echo "no GPU"; echo "targets: no GPU (nvidia-smi found none)" >> "$digest"; status=77; continue; fi
      csv="$OUT/targets_$gpu.csv"
      measure_rounds targets target_programs target_cases targets_runs.log
      python3 tools/target_ratios.py "$csv" > "$OUT/targets.log"
      cat "$OUT/targets.log"
      echo "targets: $(grep -c 'PASS' "$OUT/targets_runs.log") runs passed, $(grep -c 'FAIL' "$OUT/targets_runs.log") failed; ratios in targets.log" >> "$digest"
      grep -E 'FAIL|^!!' "$OUT/targets_runs.log" | head -20 >> "$digest" ;;
    ncu)
      gpu=$(gpu_name)
      if [ -z "$gpu" ] || ! command -v ncu > /dev/null; then
        echo "no GPU or no ncu"; echo "ncu: skipped (no GPU or no ncu)" >> "$digest"; status=77; continue
      fi
      ncu_log="$OUT/ncu_gaps_$gpu.txt"
      echo "# ncu_gaps on $gpu (clocks as found); each block: the case, then ncu's metrics for one launch" > "$ncu_log"
      ncu_targets=""
      for l in $LESSONS; do for p in $(ncu_programs $l); do ncu_targets="$ncu_targets build/$l/$p"; done; done
      build_into ncu_build.log $ncu_targets
      echo "ncu build: exit $? ($(grep -c ' error' "$OUT/ncu_build.log") error lines)" >> "$digest"
      # Priority order (a call cut short keeps the first): histogram, radix sort, scan.
      for l in lesson05_histogram lesson04_sort lesson02_scan; do
        case " $LESSONS " in *" $l "*) ncu_cases $l ;; esac
      done
      echo "ncu: $(grep -c '^###' "$ncu_log") profiles, $(grep -c '^!!' "$ncu_log") failed, in $ncu_log" >> "$digest" ;;
    portability)
      # The GPUs learners own, played by this one: each profile's PTX build (JIT-compiled here, the
      # very code that GPU would run) under its limits (COURSE_GPU_PROFILE), every version's
      # --test --quick. A one-line refusal (exit 2) is allowed; an exit 3 never is.
      export CUDA_CACHE_MAXSIZE=4294967296   # keep every JIT result of the step
      profiles=${PORT_PROFILES:-t4:compute_75 a100:compute_80 l4:compute_89}
      for pa in $profiles; do   # the builds first, side by side (they share the cores)
        prof=${pa%%:*}; arch=${pa#*:}; vt=""; dir="build_$arch"
        case $arch in compute_*) ;; *) dir=build ;; esac   # a plain arch (90): the build step's programs
        for l in $LESSONS; do for src in $l/*.cu $l/intro/*.cu; do [ -f "$src" ] && vt="$vt $dir/${src%.cu}"; done; done
        ( make -k -j"$JOBS" BUILD="$dir" ARCH="$arch" $vt > "$OUT/port_build_$prof.log" 2>&1
          echo "portability $prof build ($arch): exit $?" >> "$digest" ) &
      done
      wait
      for pa in $profiles; do
        prof=${pa%%:*}; arch=${pa#*:}; dir="build_$arch"
        case $arch in compute_*) ;; *) dir=build ;; esac
        python3 tests/run_tests.py --build "$dir" --gpu-only --quick --profile "$prof" \
          --only "$only" --jobs "${TEST_JOBS:-4}" > "$OUT/port_$prof.log" 2>&1
        echo "portability $prof ($arch): $(tail -n 1 "$OUT/port_$prof.log"); $(grep -c 'refused in one line' "$OUT/port_$prof.log") one-line refusals" >> "$digest"
        grep -E '^FAIL|refused in one line' "$OUT/port_$prof.log" | cut -c1-300 | head -30 >> "$digest"
      done ;;
    *) echo "unknown step $step" >> "$digest" ;;
  esac
  echo "  ($step took $(( $(date +%s) - start )) s)" >> "$digest"
done
cat "$digest"
exit $status
