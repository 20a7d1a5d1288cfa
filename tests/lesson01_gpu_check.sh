#!/usr/bin/env bash
# tests/lesson01_gpu_check.sh A|B — lesson 01's GPU checks for the row-wise serving work (08_sampled_rows,
# the 16-bit and ragged inputs, CUB's top-k bars), in two calls that each fit a borrowed GPU session
# (one H100/H200, 16 cores), from the repo root:
#   A (~7 min): builds the lesson's row-wise programs, the 1-D 05 and the bars, and the old 06/08 (OLD_REV,
#               from build/old_l01 or git), host test, 08's, 06's and the row bars' full batteries, the others'
#               --test --quick, wrong/row_float4 (must exit 1), 08 from compute_75 PTX as a T4, 06 and 08 from
#               compute_80 / compute_89 PTX as an A100 / an L4 (and 08's first-call plan as an A100), and
#               compute-sanitizer (memcheck, racecheck, synccheck, initcheck) on 08's and 06's paths.
#   B (~5 min, the same warm machine): old 08 | 06 | 08 | 08's variants (float32, bfloat16) | CUB's bars | the sort bar
#               on every benchmark shape, two rounds; the ragged serving case; 05 against DeviceTopK;
#               torch.topk (float32, bfloat16). Rows go to $LOG/l01_bench.csv and $LOG/l01_torch.csv.
# Without git on the GPU machine, first run here: mkdir -p build/old_l01 && git archive $OLD_REV |
# tar -x -C build/old_l01   (and carry build/old_l01). CCCL 3.5 headers: pip's nvidia-cuda-cccl, or
# CCCL_INCLUDE=/path/holding/cub (then carry that folder too).
set -u
LOG=${OUT:-logs}   # on a borrowed GPU, $OUT comes back
mkdir -p "$LOG"
B=build/lesson01_topk
OLD=build/old_l01
OLD_REV=${OLD_REV:-5445239}
export CCCL_INCLUDE=${CCCL_INCLUDE:-$(python3 -c "import sysconfig;print(sysconfig.get_paths()['purelib'])")/nvidia/cu13/include/cccl}
step=${1:-A}

if [ "$step" = A ]; then
  [ -f "$CCCL_INCLUDE/cub/device/device_topk.cuh" ] || echo "no CCCL 3.5 headers at $CCCL_INCLUDE: the 00_cub_*topk bars are skipped"
  [ -f $OLD/Makefile ] || { mkdir -p $OLD && git archive $OLD_REV | tar -x -C $OLD; } || echo "no old build (no git here)"
  make -j14 ARCH=90 CCCL_INCLUDE="$CCCL_INCLUDE" $B/05_radix_select $B/06_rowwise $B/08_sampled_rows $B/00_cub_sort \
    $B/00_cub_segmented_rows $B/00_cub_device_topk $B/00_cub_batched_topk_rows $B/wrong/row_float4 \
    $B/exercises/row_warp_select build/tests/lesson01_host 2>&1 | grep -E "error|warning" | head &
  make -j2 BUILD=build_compute_75 ARCH=compute_75 build_compute_75/lesson01_topk/08_sampled_rows > $LOG/l01_t4_build.log 2>&1 &
  for a in 80 89; do   # an A100's and an L4's code paths (PTX only), run below with their limits
    make -j2 BUILD=build_compute_$a ARCH=compute_$a build_compute_$a/lesson01_topk/08_sampled_rows \
      build_compute_$a/lesson01_topk/06_rowwise > $LOG/l01_compute_${a}_build.log 2>&1 &
  done
  [ -f $OLD/Makefile ] && make -C $OLD -j2 ARCH=90 build/lesson01_topk/06_rowwise build/lesson01_topk/08_sampled_rows > $LOG/l01_old_build.log 2>&1 &
  # Two one-line variants of 08 for the record (TUNING.md): no L2 prefetch; a floor of cap/8 candidates.
  mkdir -p build/var
  ( sed 's/if (len > cap) prefetch_l2(/if (false) prefetch_l2(/' lesson01_topk/08_sampled_rows.cu > lesson01_topk/v_nopf.cu
    sed 's|max(4 \* kk, cap / 4)|max(4 * kk, cap / 8)|' lesson01_topk/08_sampled_rows.cu > lesson01_topk/v_floor8.cu
    for v in v_nopf v_floor8; do nvcc -O3 -std=c++17 -arch=sm_90 -Xcompiler -pthread -o build/var/$v lesson01_topk/$v.cu & done
    wait; rm -f lesson01_topk/v_nopf.cu lesson01_topk/v_floor8.cu ) > $LOG/l01_var_build.log 2>&1 &
  wait
  build/tests/lesson01_host | tail -1
  for p in 08_sampled_rows 06_rowwise; do
    timeout 300 $B/$p --test > $LOG/l01_test_full_$p.log 2>&1
    echo "$p --test (full) rc=$? | $(tail -1 $LOG/l01_test_full_$p.log)"
  done
  for p in 00_cub_batched_topk_rows 00_cub_segmented_rows; do   # the row bars: full batteries and memcheck too
    timeout 200 $B/$p --test > $LOG/l01_test_full_$p.log 2>&1
    echo "$p --test (full) rc=$? | $(tail -1 $LOG/l01_test_full_$p.log)"
    timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/$p --rows 4096 --n 256 --k 8 --reps 1 > /dev/null 2>&1
    echo "$p memcheck [--rows 4096 --n 256 --k 8] rc=$?"   # a shape within DeviceBatchedTopK's 4096 columns
  done
  for p in 05_radix_select 00_cub_device_topk 00_cub_sort exercises/row_warp_select; do
    timeout 200 $B/$p --test --quick > $LOG/l01_test_${p#*/}.log 2>&1
    echo "$p --test --quick rc=$? | $(tail -1 $LOG/l01_test_${p#*/}.log)"
  done
  $B/wrong/row_float4 --test --quick > /dev/null 2>&1; echo "wrong/row_float4 rc=$? (want 1: caught)"
  COURSE_GPU_PROFILE=t4 timeout 200 build_compute_75/lesson01_topk/08_sampled_rows --test --quick > $LOG/l01_t4_08.log 2>&1
  echo "08 from compute_75 PTX as a T4: rc=$? | $(tail -1 $LOG/l01_t4_08.log)"
  for pa in a100:80 l4:89; do
    for p in 08_sampled_rows 06_rowwise; do
      COURSE_GPU_PROFILE=${pa%%:*} timeout 200 build_compute_${pa##*:}/lesson01_topk/$p --test --quick > $LOG/l01_${pa%%:*}_$p.log 2>&1
      echo "$p from compute_${pa##*:} PTX as ${pa%%:*}: rc=$? | $(tail -1 $LOG/l01_${pa%%:*}_$p.log)"
    done
  done
  # The first call's plan must match the plan without a GPU (long rows fill every resident slot: 54 blocks
  # a row on an A100's 108 SMs): resident_blocks once answered 0 for 48 KB of dynamic plus 24 KB of static
  # shared memory (TUNING.md).
  COURSE_GPU_PROFILE=a100 build_compute_80/lesson01_topk/08_sampled_rows --rows 4 --n 16777216 --k 1024 --plan \
    | grep -q "54 blocks a row" && echo "08 --plan as an A100: PASS (54 blocks a row)" || echo "08 --plan as an A100: FAIL (first call planned another chunking)"
  for a in "--rows 2 --n 40001 --k 3000" "--rows 3 --n 40001 --k 50 --type bfloat16" "--rows 1 --n 300001 --k 50 --type float16" \
           "--rows 7 --n 128256 --k 256" "--rows 5 --n 65537 --k 33 --dist equal" "--rows 4 --n 200003 --k 2048 --smallest" \
           "--dist ragged --rows 16 --n 4097 --k 50 --type bfloat16" "--dist serving --rows 4 --n 131072 --k 2048" \
           "--rows 2 --n 2097157 --k 50" "--rows 2 --n 2097157 --k 2048 --dist sorted" "--rows 2 --n 2097157 --k 50 --dist equal" \
           "--rows 3 --n 2097157 --k 1024 --type bfloat16 --smallest" "--dist ragged --rows 4 --n 2097157 --k 1024"; do
    for t in memcheck racecheck; do
      timeout 90 compute-sanitizer --tool $t --error-exitcode 9 $B/08_sampled_rows $a --reps 1 > /dev/null 2>&1
      echo "08_sampled_rows $t [$a] rc=$?"
    done
  done
  for a in "--rows 7 --n 128256 --k 256" "--rows 5 --n 65537 --k 33 --dist equal" "--dist ragged --rows 16 --n 4097 --k 50" \
           "--rows 2 --n 2097157 --k 50 --dist equal" "--rows 2 --n 2097157 --k 2048 --dist sorted"; do
    for t in synccheck initcheck; do
      timeout 90 compute-sanitizer --tool $t --error-exitcode 9 $B/08_sampled_rows $a --reps 1 > /dev/null 2>&1
      echo "08_sampled_rows $t [$a] rc=$?"
    done
    for t in memcheck racecheck; do
      timeout 90 compute-sanitizer --tool $t --error-exitcode 9 $B/06_rowwise $a --reps 1 > /dev/null 2>&1
      echo "06_rowwise $t [$a] rc=$?"
    done
  done
  exit 0
fi

make -j14 ARCH=90 CCCL_INCLUDE="$CCCL_INCLUDE" $B/05_radix_select $B/06_rowwise $B/08_sampled_rows $B/00_cub_segmented_rows \
  $B/00_cub_device_topk $B/00_cub_batched_topk_rows 2>&1 | grep -E "error|warning" | head   # nothing to do after A
[ -x $OLD/build/lesson01_topk/08_sampled_rows ] || make -C $OLD -j4 ARCH=90 build/lesson01_topk/08_sampled_rows > /dev/null 2>&1
O=$OLD/build/lesson01_topk
C=$LOG/l01_bench.csv
for s in "1 128256 50" "64 128256 50" "256 256000 1024" "4096 256 8" "16384 128 8" "65536 64 2" "4 16777216 1024" \
         "64 131072 256" "256 262144 256"; do
  set -- $s
  for round in 1 2; do
    for t in float32 bfloat16; do
      [ -x $O/08_sampled_rows ] && $O/08_sampled_rows --rows $1 --n $2 --k $3 --type $t | tail -1 | sed 's/^/OLD /'
      $B/06_rowwise --rows $1 --n $2 --k $3 --type $t --csv $C | tail -1
      $B/08_sampled_rows --rows $1 --n $2 --k $3 --type $t --csv $C | tail -1
      for v in v_nopf v_floor8; do [ -x build/var/$v ] && build/var/$v --rows $1 --n $2 --k $3 --type $t | tail -1 | sed "s/^/$v /"; done
    done
  done
  if [ $2 -le 4096 ]; then
    $B/00_cub_batched_topk_rows --rows $1 --n $2 --k $3 --csv $C | tail -1
    $B/00_cub_batched_topk_rows --raw --rows $1 --n $2 --k $3 | tail -1
  fi
  $B/00_cub_segmented_rows --rows $1 --n $2 --k $3 --reps 5 --csv $C | tail -1
done
for t in float32 bfloat16; do
  for d in serving ragged; do
    [ -x $O/08_sampled_rows ] && $O/08_sampled_rows --dist $d --rows 64 --n 131072 --k 2048 --type $t | tail -1 | sed 's/^/OLD /'
    $B/06_rowwise --dist $d --rows 64 --n 131072 --k 2048 --type $t --csv $C | tail -1
    $B/08_sampled_rows --dist $d --rows 64 --n 131072 --k 2048 --type $t --csv $C | tail -1
  done
  $B/00_cub_segmented_rows --dist serving --rows 64 --n 131072 --k 2048 --type $t --reps 5 --csv $C | tail -1
done
for n in 2^20 2^24 2^28; do
  for k in 32 1024; do
    $B/05_radix_select --n $n --k $k --csv $C | tail -1
    $B/05_radix_select --n $n --k $k --type bfloat16 --csv $C | tail -1
    $B/00_cub_device_topk --n $n --k $k --csv $C | tail -1
    $B/00_cub_device_topk --raw --n $n --k $k | tail -1
  done
done
python3 tests/torch_topk_rows.py --types float32,bfloat16 --reps 30 --csv $LOG/l01_torch.csv
