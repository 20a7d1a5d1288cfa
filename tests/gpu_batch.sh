#!/usr/bin/env bash
# One batch on a GPU machine: build, then any of: the tests, the sanitizers, the benchmark.
# Logs go to $OUT (default gpu-logs/); a short digest is printed last.
#   STEPS="build test sanitize bench" LESSONS="lesson02_scan lesson05_histogram" QUICK=1 tests/gpu_batch.sh
# LESSONS narrows every step (the build too: only those lessons' programs, wrong/ and exercises/).
# GPU_ONLY=1 skips the host half of the tests (and the host-test build). SWEEP="build/a build/b"
# sweeps only those programs instead of every version of LESSONS (bars included: list them); the
# rows are merged into results/<gpu>.csv there, and the CSV is copied to $OUT.
# The build keeps going past a program that fails to compile (make -k), so one broken file does
# not hide the results of the rest.
set -u
OUT=${OUT:-gpu-logs}
STEPS=${STEPS:-build test}
LESSONS=${LESSONS:-lesson01_topk lesson02_scan lesson03_compact_spmv lesson04_sort lesson05_histogram}
ARCH=${ARCH:-90}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
digest="$OUT/digest.txt"
: > "$digest"
only="^($(echo $LESSONS | tr ' ' '|'))/"
targets=""
for l in $LESSONS; do
  for src in $l/*.cu $l/wrong/*.cu $l/exercises/*.cu; do [ -f "$src" ] && targets="$targets build/${src%.cu}"; done
done
[ -z "${GPU_ONLY:-}" ] && targets="$targets host-tests"
for step in $STEPS; do
  start=$(date +%s)
  case $step in
    build)
      make -k -j"$JOBS" ARCH="$ARCH" $targets > "$OUT/build.log" 2>&1
      echo "build: exit $? ($(grep -c ' error' "$OUT/build.log") error lines)" >> "$digest"
      grep -B1 -A3 ' error' "$OUT/build.log" | head -40 >> "$digest" ;;
    test)
      python3 tests/run_tests.py --build build ${QUICK:+--quick} ${GPU_ONLY:+--gpu-only} --only "$only" \
        --jobs "${TEST_JOBS:-4}" > "$OUT/test.log" 2>&1
      echo "test: $(tail -n 1 "$OUT/test.log")" >> "$digest"
      grep -E '^(FAIL|SKIP)' "$OUT/test.log" | cut -c1-400 | head -60 >> "$digest" ;;
    sanitize)
      python3 tests/sanitize.py --build build --lessons "$LESSONS" ${SANITIZE_TOOLS:+--tools $SANITIZE_TOOLS} ${SANITIZE_SIZES:+--sizes $SANITIZE_SIZES} > "$OUT/sanitize.log" 2>&1
      echo "sanitize: $(tail -n 1 "$OUT/sanitize.log")" >> "$digest"
      grep -E '^FAIL' "$OUT/sanitize.log" | cut -c1-300 | head -30 >> "$digest" ;;
    bench)
      if [ -n "${SWEEP:-}" ]; then   # only the listed programs (list the bars too)
        make bench-run BENCH_PROGRAMS="$SWEEP" >> "$OUT/bench.log" 2>&1
        echo "bench $SWEEP: exit $? after $(( $(date +%s) - start )) s" >> "$digest"
        cp results/*.csv "$OUT/" 2>/dev/null
      else                           # one lesson at a time, so a call cut short keeps the lessons already measured
        for l in $LESSONS; do
          make bench-run LESSONS="$l" >> "$OUT/bench.log" 2>&1
          echo "bench $l: exit $? after $(( $(date +%s) - start )) s" >> "$digest"
          cp results/*.csv "$OUT/" 2>/dev/null
        done
      fi
      grep -E 'FAIL|!!|error' "$OUT/bench.log" | head -20 >> "$digest" ;;
    *) echo "unknown step $step" >> "$digest" ;;
  esac
  echo "  ($step took $(( $(date +%s) - start )) s)" >> "$digest"
done
cat "$digest"
