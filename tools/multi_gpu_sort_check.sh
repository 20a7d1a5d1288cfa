#!/usr/bin/env bash
# tools/multi_gpu_sort_check.sh — the multi-GPU sorts (10_multi_gpu: partition first; 11_merge_multi_gpu:
# sort first, then merge) on one multi-GPU machine, from the repo root. Steps (STEPS, in this order):
#   build     08 (the one-GPU bar), 10, 11 and the host test (make finds NCCL: pip's nvidia-nccl-cu13
#             or NCCL_HOME=...), then the host test
#   test      11's --test batteries (TESTS="quick full") on 1 GPU, 3 (an odd count: one GPU sits each
#             pairing of the exchange out) and every count of GPUS (TEST_GPUS overrides: "1 2 4"); 10's
#             quick battery on the largest count (10 and 11 share their scaffolding, multi_gpu_sort.cuh)
#   bench     08 on one GPU, then 10 and 11 on each count of GPUS, at N (2^29) uint32 keys and pairs,
#             ROUNDS rounds (2) interleaved; each round's ratio 08 time / version time, and the target
#   sanitize  (asked for by name) racecheck, initcheck and memcheck of 11 on 2 GPUs at multi-tile sizes,
#             and memcheck of 10 (expected, NCCL's own: racecheck hazards in its SendRecv kernel;
#             memcheck's host-API errors inside ncclCommInitRank and ncclCommSplit, its probes of
#             kernels built for other GPUs: 16 a communicator's creation per process; and inside
#             ncclMemAlloc, one cuMemCreate refused per allocation: it asks for a FABRIC handle first)
#   beyond    (asked for by name) sizes one GPU refuses, checked: 11 at 2^31 - 2^20 keys and pairs on
#             2 GPUs and 2^32 - 2^21 keys on 4; 10 at 2^30 on 2 (its receive margin stops below 2^31)
#   others    (asked for by name) the other lessons' multi-GPU programs (lesson 01's two top-k, lesson
#             02's scan, lesson 05's histogram): built, then their TESTS batteries on TEST_GPUS
#   ncclinfo  (asked for by name) 11 at N on the largest count with NCCL_DEBUG=INFO: its channel lines
# OLD=dir: a second tree (git archive of an older commit, built there) whose 10 and 11 run beside
# these in the bench on OLD_GPUS (default 4), named 10old / 11old in the summary.
# Every run's whole output goes to $LOGS (default build/msort_logs: a warm machine keeps it between
# calls); $OUT gets three files: msort_summary.txt (one line a run, also printed; appended by each
# call), msort_bench.csv (the bench rows) and msort_logs.tar.gz (the logs so far).
# On a lent machine (10 minutes a call) split it, e.g.
#   OUT=$OUT GPUS="2 4" STEPS="build test" TESTS=quick tools/multi_gpu_sort_check.sh
#   OUT=$OUT TEST_GPUS="1 2" STEPS=test TESTS=full tools/multi_gpu_sort_check.sh   (then TEST_GPUS=4)
#   OUT=$OUT GPUS="2 4" STEPS=bench tools/multi_gpu_sort_check.sh
# Without a GPU it says so, builds nothing and exits 77.
set -u
OUT=${OUT:-logs}
GPUS=${GPUS:-2 4}
STEPS=${STEPS:-build test bench}
TESTS=${TESTS:-quick full}
TEST_GPUS=${TEST_GPUS:-1 3 $GPUS}
ROUNDS=${ROUNDS:-2}
ARCH=${ARCH:-90}
N=${N:-2^29}
TIMEOUT=${TIMEOUT:-540}
LOGS=${LOGS:-build/msort_logs}
OLD=${OLD:-}
OLD_GPUS=${OLD_GPUS:-4}
B=build/lesson04_sort

have=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU")
if [ "$have" -eq 0 ]; then echo "no GPU (nvidia-smi lists none): skipped"; exit 77; fi
mkdir -p "$OUT" "$LOGS"
SUM=$OUT/msort_summary.txt
CSV=$OUT/msort_bench.csv
status=0
say() { echo "$*" | tee -a "$SUM"; }
say "# $(date -u +%FT%TZ) STEPS='$STEPS' GPUS='$GPUS' TESTS='$TESTS' on $have x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
# The GPU counts asked for that this machine has.
fits() { for p in "$@"; do [ "$p" -le "$have" ] && echo -n " $p"; done; }
counts=$(fits $GPUS)
test_counts=$(fits $TEST_GPUS)
for p in $(echo $GPUS $TEST_GPUS | tr " " "\n" | sort -un); do [ "$p" -gt "$have" ] && say "skip gpus=$p: this machine has $have"; done
largest=1
for p in $test_counts; do [ "$p" -gt "$largest" ] && largest=$p; done

# run NAME CMD...: the whole output into $LOGS/NAME.log; one summary line with the exit status and
# the last line (a battery's 'N passed, N failed').
run() {
  local name=$1; shift
  timeout "$TIMEOUT" "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  [ $rc -ne 0 ] && status=1
  say "$name rc=$rc | $(tail -1 "$LOGS/$name.log" | cut -c1-160)"
}
# ms LOGFILE: the time on the first result line (the number before 'ms').
ms() { grep -m1 -E " (PASS|FAIL)$" "$1" | awk '{for (i = 1; i < NF; ++i) if ($(i + 1) == "ms") { print $i; exit }}'; }

for step in $STEPS; do
  case $step in
  build)
    make -j"$(nproc)" ARCH="$ARCH" $B/08_radix_onesweep $B/10_multi_gpu $B/11_merge_multi_gpu \
      build/tests/lesson_multi_gpu_host > "$LOGS/build.log" 2>&1
    rc=$?; [ $rc -ne 0 ] && status=1
    say "build rc=$rc | $(grep -m1 -iE "error|NCCL not found" "$LOGS/build.log" | cut -c1-160)"
    for p in 08_radix_onesweep 10_multi_gpu 11_merge_multi_gpu; do
      [ -x $B/$p ] || { say "!! $B/$p not built (NCCL missing? see $LOGS/build.log)"; status=1; }
    done
    if [ -n "$OLD" ]; then
      make -C "$OLD" -j"$(nproc)" ARCH="$ARCH" $B/10_multi_gpu $B/11_merge_multi_gpu > "$LOGS/build_old.log" 2>&1
      say "build OLD ($OLD) rc=$? | $(grep -m1 -iE "error|NCCL not found" "$LOGS/build_old.log" | cut -c1-160)"
    fi
    run host_test build/tests/lesson_multi_gpu_host
    ;;
  test)
    for t in $TESTS; do
      q=""; [ "$t" = quick ] && q="--quick"
      for p in $test_counts; do run "test_${t}_11_gpus$p" $B/11_merge_multi_gpu --test $q --gpus "$p"; done
      [ "$t" = quick ] && [ "$largest" -gt 1 ] && run "test_quick_10_gpus$largest" $B/10_multi_gpu --test --quick --gpus "$largest"
    done
    ;;
  bench)
    for round in $(seq "$ROUNDS"); do
      for type in uint32 pairs; do
        run "bench_r${round}_${type}_08" $B/08_radix_onesweep --n "$N" --type $type --csv "$CSV"
        one=$(ms "$LOGS/bench_r${round}_${type}_08.log")
        for p in $counts; do
          line="$type n=$N gpus=$p round $round: 08 ${one:-?} ms"
          versions="$B/10_multi_gpu $B/11_merge_multi_gpu"
          [ -n "$OLD" ] && [[ " $OLD_GPUS " == *" $p "* ]] && versions="$versions $OLD/$B/10_multi_gpu $OLD/$B/11_merge_multi_gpu"
          for bin in $versions; do
            v=$(basename "$bin"); tag=${v%%_*}; [[ $bin == "$OLD"/* && -n "$OLD" ]] && tag=${tag}old
            log=bench_r${round}_${type}_${tag}_gpus$p
            run "$log" "$bin" --n "$N" --type $type --gpus "$p" --csv "$CSV"
            grep "steps:" "$LOGS/$log.log" | sed "s/^ */  $tag: /" | tee -a "$SUM"
            t=$(ms "$LOGS/$log.log")
            r=$(awk -v a="${one:-0}" -v b="${t:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b; else print "?" }')
            line="$line | $tag ${t:-?} ms ($r)"
          done
          case $p in 2) line="$line; target 1.25x" ;; 4) line="$line; target 2x" ;; esac
          say "$line"
        done
      done
    done
    ;;
  sanitize)
    p=2; [ "$have" -lt 2 ] && p=1
    for tool in racecheck initcheck memcheck; do
      for a in "--n 50001" "--n 50001 --type pairs" "--n 20001 --type uint64" "--n 50001 --dist few" "--n 50001 --dist equal --type pairs"; do
        name="sanitize_${tool}_$(echo "$a" | tr -d ' -')"
        timeout "$TIMEOUT" compute-sanitizer --tool $tool --target-processes all $B/11_merge_multi_gpu $a --gpus $p --reps 1 \
          > "$LOGS/$name.log" 2>&1
        rc=$?
        say "$name rc=$rc | $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$LOGS/$name.log" | sort | uniq -c | tr -s ' ' | head -3 | tr '\n' ';')"
      done
    done
    for a in "--n 50001 --type pairs" "--n 50001 --dist few"; do
      name="sanitize_memcheck_10_$(echo "$a" | tr -d ' -')"
      timeout "$TIMEOUT" compute-sanitizer --tool memcheck --target-processes all $B/10_multi_gpu $a --gpus $p --reps 1 \
        > "$LOGS/$name.log" 2>&1
      say "$name rc=$? | $(grep -E "ERROR SUMMARY|Invalid" "$LOGS/$name.log" | sort | uniq -c | tr -s ' ' | head -3 | tr '\n' ';')"
    done
    ;;
  beyond)
    [ "$have" -ge 2 ] && run beyond_11_gpus2 $B/11_merge_multi_gpu --n 2146435072 --gpus 2 --reps 3 --csv "$CSV"
    [ "$have" -ge 2 ] && run beyond_11_pairs_gpus2 $B/11_merge_multi_gpu --n 2146435072 --type pairs --gpus 2 --reps 3 --csv "$CSV"
    [ "$have" -ge 4 ] && run beyond_11_gpus4 $B/11_merge_multi_gpu --n 4292870144 --gpus 4 --reps 3 --csv "$CSV"
    [ "$have" -ge 2 ] && run beyond_10_gpus2 $B/10_multi_gpu --n 2^30 --gpus 2 --reps 3 --csv "$CSV"
    ;;
  others)
    progs="build/lesson01_topk/07_multi_gpu build/lesson01_topk/rows_06_multi_gpu build/lesson02_scan/07_multi_gpu build/lesson05_histogram/07_multi_gpu"
    make -j"$(nproc)" ARCH="$ARCH" $progs > "$LOGS/build_others.log" 2>&1
    say "build others rc=$? | $(grep -m1 -iE "error|NCCL not found" "$LOGS/build_others.log" | cut -c1-160)"
    for t in $TESTS; do
      q=""; [ "$t" = quick ] && q="--quick"
      for bin in $progs; do
        for p in $test_counts; do run "test_${t}_$(basename "$(dirname "$bin")" | cut -c1-8)_$(basename "$bin")_gpus$p" "$bin" --test $q --gpus "$p"; done
      done
    done
    ;;
  ncclinfo)
    NCCL_DEBUG=INFO run ncclinfo_11_gpus$largest $B/11_merge_multi_gpu --n "$N" --gpus "$largest" --reps 3
    grep -E "channels|P2P|via" "$LOGS/ncclinfo_11_gpus$largest.log" | sort | uniq -c | sort -rn | head -20 | tee -a "$SUM"
    ;;
  *) say "unknown step '$step' (build test bench sanitize beyond ncclinfo)"; status=2 ;;
  esac
done
tar -czf "$OUT/msort_logs.tar.gz" -C "$(dirname "$LOGS")" "$(basename "$LOGS")"
say "done: status $status; logs in $OUT/msort_logs.tar.gz"
exit $status
