#!/usr/bin/env bash
# One batch on a GPU machine: build everything, then any of: the tests, the sanitizers, the
# benchmark. Logs go to $OUT (default gpu-logs/); a short digest is printed last.
#   STEPS="build test sanitize bench" LESSONS="lesson02_scan lesson05_histogram" QUICK=1 tests/gpu_batch.sh
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
for step in $STEPS; do
  start=$(date +%s)
  case $step in
    build)
      make -k -j"$JOBS" ARCH="$ARCH" all > "$OUT/build.log" 2>&1
      echo "build: exit $? ($(grep -c ' error' "$OUT/build.log") error lines)" >> "$digest"
      grep -B1 -A3 ' error' "$OUT/build.log" | head -40 >> "$digest" ;;
    test)
      python3 tests/run_tests.py --build build ${QUICK:+--quick} --jobs "${TEST_JOBS:-4}" > "$OUT/test.log" 2>&1
      echo "test: $(tail -n 1 "$OUT/test.log")" >> "$digest"
      grep -E '^(FAIL|SKIP)' "$OUT/test.log" | cut -c1-400 | head -60 >> "$digest" ;;
    sanitize)
      python3 tests/sanitize.py --build build --lessons "$LESSONS" ${SANITIZE_TOOLS:+--tools $SANITIZE_TOOLS} ${SANITIZE_SIZES:+--sizes $SANITIZE_SIZES} > "$OUT/sanitize.log" 2>&1
      echo "sanitize: $(tail -n 1 "$OUT/sanitize.log")" >> "$digest"
      grep -E '^FAIL' "$OUT/sanitize.log" | cut -c1-300 | head -30 >> "$digest" ;;
    bench)   # one lesson at a time, so a call cut short keeps the lessons already measured
      for l in $LESSONS; do
        make bench-run LESSONS="$l" >> "$OUT/bench.log" 2>&1
        echo "bench $l: exit $? after $(( $(date +%s) - start )) s" >> "$digest"
        cp results/*.csv "$OUT/" 2>/dev/null
      done
      grep -E 'FAIL|!!|error' "$OUT/bench.log" | head -20 >> "$digest" ;;
    *) echo "unknown step $step" >> "$digest" ;;
  esac
  echo "  ($step took $(( $(date +%s) - start )) s)" >> "$digest"
done
cat "$digest"
