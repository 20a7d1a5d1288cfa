#!/usr/bin/env bash
# tests/lesson01_gpu_check.sh A|B — lesson 01's GPU checks for the 16-bit, ragged and CUB-bar work, in
# two calls that each fit a borrowed GPU session (one H100/H200, 16 cores), from the repo root:
#   A (~7 min): builds the new programs and the old 05/06 (commit 9945977, from build/old_l01 or git),
#               host test, every changed program's --test --quick (06 also full), the CUB bars with
#               --raw, wrong/row_float4 (must exit 1), a T4 profile, compute-sanitizer on the new paths.
#   B (~5 min, the same warm machine): old 06 | new 06 float32 | bfloat16 | CUB's bars | the sort bar
#               on every benchmark shape, two rounds; the ragged serving case; 05 against DeviceTopK;
#               torch.topk (float32, bfloat16). Rows go to $LOG/l01_bench.csv and $LOG/l01_torch.csv.
# Without git on the GPU machine, first run here: mkdir -p build/old_l01 && git archive 9945977 |
# tar -x -C build/old_l01   (and carry build/old_l01). CCCL 3.5 headers: pip's nvidia-cuda-cccl, or
# CCCL_INCLUDE=/path/holding/cub (then carry that folder too).
set -u
LOG=${OUT:-logs}   # on a borrowed GPU, $OUT comes back
mkdir -p "$LOG"
B=build/lesson01_topk
OLD=build/old_l01
export CCCL_INCLUDE=${CCCL_INCLUDE:-$(python3 -c "import sysconfig;print(sysconfig.get_paths()['purelib'])")/nvidia/cu13/include/cccl}
step=${1:-A}

if [ "$step" = A ]; then
  [ -f "$CCCL_INCLUDE/cub/device/device_topk.cuh" ] || echo "no CCCL 3.5 headers at $CCCL_INCLUDE: the 00_cub_*topk bars are skipped"
  [ -f $OLD/Makefile ] || { mkdir -p $OLD && git archive 9945977 | tar -x -C $OLD; } || echo "no old build (no git here)"
  make -j12 ARCH=90 CCCL_INCLUDE="$CCCL_INCLUDE" $B/05_radix_select $B/06_rowwise $B/00_cub_sort $B/00_cub_segmented_rows \
    $B/00_cub_device_topk $B/00_cub_batched_topk_rows $B/wrong/row_float4 $B/exercises/row_warp_select \
    build/tests/lesson01_host 2>&1 | tail -2 &
  [ -f $OLD/Makefile ] && make -C $OLD -j4 ARCH=90 build/lesson01_topk/06_rowwise build/lesson01_topk/05_radix_select > $LOG/l01_old_build.log 2>&1 &
  wait
  build/tests/lesson01_host | tail -1
  for p in 06_rowwise 05_radix_select 00_cub_segmented_rows 00_cub_batched_topk_rows 00_cub_device_topk 00_cub_sort; do
    timeout 200 $B/$p --test --quick > $LOG/l01_test_$p.log 2>&1
    echo "$p --test --quick rc=$? | $(tail -1 $LOG/l01_test_$p.log)"
  done
  for p in 00_cub_device_topk 00_cub_batched_topk_rows; do
    timeout 100 $B/$p --raw --test --quick > $LOG/l01_raw_$p.log 2>&1
    echo "$p --raw --test --quick rc=$? | $(tail -1 $LOG/l01_raw_$p.log)"
  done
  timeout 200 $B/06_rowwise --test > $LOG/l01_test_06_full.log 2>&1
  echo "06_rowwise --test (full) rc=$? | $(tail -1 $LOG/l01_test_06_full.log)"
  $B/wrong/row_float4 --test --quick > /dev/null 2>&1; echo "wrong/row_float4 rc=$? (want 1: caught)"
  for p in 05_radix_select 06_rowwise; do
    COURSE_GPU_PROFILE=t4 timeout 100 $B/$p --test --quick > $LOG/l01_t4_$p.log 2>&1
    echo "t4 profile: $p rc=$? | $(tail -1 $LOG/l01_t4_$p.log)"
  done
  for a in "--rows 2 --n 40001 --k 3000" "--rows 3 --n 40001 --k 50 --type bfloat16" "--rows 1 --n 300001 --k 50 --type float16" \
           "--dist ragged --rows 16 --n 4097 --k 50 --type bfloat16" "--dist serving --rows 2 --n 20000 --k 2048"; do
    for t in memcheck racecheck synccheck initcheck; do
      timeout 60 compute-sanitizer --tool $t --error-exitcode 9 $B/06_rowwise $a --reps 1 > /dev/null 2>&1
      echo "06 $t [$a] rc=$?"
    done
  done
  for a in "--n 2^22 --k 2048 --type bfloat16" "--n 4097 --k 33 --type float16" "--n 2^22 --k 64 --dist equal --type float16"; do
    timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/05_radix_select $a --reps 1 > /dev/null 2>&1
    echo "05 memcheck [$a] rc=$?"
  done
  exit 0
fi

O=$OLD/build/lesson01_topk
C=$LOG/l01_bench.csv
for s in "1 128256 50" "64 128256 50" "256 256000 1024" "4096 256 8" "16384 128 8" "65536 64 2" "4 16777216 1024" \
         "64 131072 256" "256 262144 256"; do
  set -- $s
  for round in 1 2; do
    [ -x $O/06_rowwise ] && $O/06_rowwise --rows $1 --n $2 --k $3 | tail -1 | sed 's/^/OLD /'
    $B/06_rowwise --rows $1 --n $2 --k $3 --csv $C | tail -1
    $B/06_rowwise --rows $1 --n $2 --k $3 --type bfloat16 --csv $C | tail -1
  done
  if [ $2 -le 4096 ]; then
    $B/00_cub_batched_topk_rows --rows $1 --n $2 --k $3 --csv $C | tail -1
    $B/00_cub_batched_topk_rows --raw --rows $1 --n $2 --k $3 | tail -1
  fi
  $B/00_cub_segmented_rows --rows $1 --n $2 --k $3 --reps 5 --csv $C | tail -1
done
for t in float32 bfloat16; do
  $B/06_rowwise --dist serving --rows 64 --n 131072 --k 2048 --type $t --csv $C | tail -1
  $B/00_cub_segmented_rows --dist serving --rows 64 --n 131072 --k 2048 --type $t --reps 5 --csv $C | tail -1
done
for n in 2^20 2^24 2^28; do
  for k in 32 1024; do
    [ -x $O/05_radix_select ] && $O/05_radix_select --n $n --k $k | tail -1 | sed 's/^/OLD /'
    $B/05_radix_select --n $n --k $k --csv $C | tail -1
    $B/05_radix_select --n $n --k $k --type bfloat16 --csv $C | tail -1
    $B/00_cub_device_topk --n $n --k $k --csv $C | tail -1
    $B/00_cub_device_topk --raw --n $n --k $k | tail -1
  done
done
python3 tests/torch_topk_rows.py --types float32,bfloat16 --reps 30 --csv $LOG/l01_torch.csv
