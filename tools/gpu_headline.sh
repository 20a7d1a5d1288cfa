#!/usr/bin/env bash
# The headline cases of every lesson on one GPU, in one call: each best version beside its library
# bar in the same run (alternated, two rounds), rows appended to $OUT/<gpu>.csv. For a second GPU,
# where a full `make bench` would not fit in one borrowed session:
#   OUT=logs bash tools/gpu_headline.sh            then  python3 plot.py --merge logs/<gpu>.csv --into results/<gpu>.csv
# This is tools/gpu_batch.sh's headline step, where the cases, the build and the GPU's name live:
# ROUNDS, LESSONS, ARCH and JOBS work as they do there; headline.log, headline_build.log and the
# batch's digest.txt land in $OUT. Exit 77 without a GPU.
STEPS=headline exec bash "$(dirname "$0")/gpu_batch.sh"
