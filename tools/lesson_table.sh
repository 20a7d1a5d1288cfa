#!/usr/bin/env bash
# make lessonNN's second half: run each version of one lesson once at its default size, then print
# one table. GPU runs of two lessons never overlap (make builds in parallel, and `make lesson02
# lesson05` would otherwise time both lessons at once on one GPU): they take turns on a lock.
#   tools/lesson_table.sh build lesson04_sort python3
set -u
build=$1 lesson=$2 python=${3:-python3}
csv="$build/$lesson.summary.csv"
rm -f "$csv"
run_all() {
  for src in $(ls "$lesson"/*.cu | sort); do
    prog="$build/${src%.cu}"
    "$prog" --csv "$csv" || true
  done
}
if command -v flock >/dev/null 2>&1; then
  exec 9>"$build/.gpu-lock"
  flock 9
fi
run_all
"$python" plot.py --summary "$csv"
