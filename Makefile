# GPU Primitives — build, test, benchmark and plot every program of the course.
# `make help` lists the targets. Every program builds out of source into build/.

NVCC       ?= nvcc
ARCH       ?= native
PYTHON     ?= python3
BUILD      ?= build
# Extra flags for every nvcc command, e.g.  make NVCCFLAGS="-O3 -Xptxas -v"
NVCCFLAGS  ?= -O3
QUICK      ?=
# Which lessons `make bench` / `make sanitize` cover, e.g.  make bench LESSONS=lesson02_scan
LESSONS    ?= lesson01_topk lesson02_scan lesson03_compact_spmv lesson04_sort lesson05_histogram
# Builds run in parallel without being asked: one nvcc per core unless you give -j yourself.
JOBS       ?= $(shell nproc 2>/dev/null || echo 4)
ifeq (,$(findstring -j,$(MAKEFLAGS)))
  ifeq ($(MAKELEVEL),0)   # a recursive make (bench, grade) shares its parent's jobs
    MAKEFLAGS += -j$(JOBS)
  endif
endif
# Each program's compiler messages stay together when several compile at once.
MAKEFLAGS += --output-sync=target

# ARCH: native, or a list of 75 80 86 89 90 100 120 (machine code for those GPUs), or compute_75
# etc. (PTX only: the driver JIT-compiles it, so an H100 runs exactly the code a T4 would run;
# pair it with COURSE_GPU_PROFILE=t4 for the T4's limits: README, "The GPUs it runs on").
# ARCH=native where no GPU is found (nvidia-smi -L lists none, e.g. CI or a laptop): a documented
# default instead of nvcc's own guess: sm_75 (T4) and sm_90 (H100/H200) machine code, and compute_90
# PTX that newer GPUs JIT-compile. One line says so.
NATIVE_DEFAULT := -gencode arch=compute_75,code=sm_75 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
ifeq ($(ARCH),native)
  ifeq ($(shell nvidia-smi -L 2>/dev/null | grep -c '^GPU'),0)
    ARCHFLAGS := $(NATIVE_DEFAULT)
    ifeq ($(MAKELEVEL),0)
      ifneq ($(filter-out help clean plot,$(or $(MAKECMDGOALS),all)),)
        $(info note: no GPU found (nvidia-smi -L): ARCH=native builds sm_75 + sm_90 code and compute_90 PTX; for your GPU give e.g. ARCH=86)
      endif
    endif
  else
    ARCHFLAGS := -arch=native
  endif
else
  comma := ,
  ARCHFLAGS := $(foreach a,$(ARCH),$(if $(findstring compute_,$(a)),-gencode arch=$(a)$(comma)code=$(a),-gencode arch=compute_$(a)$(comma)code=sm_$(a)))
endif
ifeq ($(DEBUG),1)
  NVCCFLAGS := -O0 -g -G
endif
# -lineinfo lets compute-sanitizer and ncu point at source lines; it does not slow the code.
ALLFLAGS := $(NVCCFLAGS) $(ARCHFLAGS) -std=c++17 -lineinfo -Xcompiler -pthread -Wno-deprecated-gpu-targets

# make bench writes rows that name the commit they measured: it refuses a tree whose tracked files
# have uncommitted changes, in one line (exit 2), before anything is built.
ifneq ($(filter bench bench-run,$(MAKECMDGOALS)),)
  ifneq ($(shell git status --porcelain --untracked-files=no 2>/dev/null | head -1),)
    $(error make bench measures committed code only: commit the changes `git status` shows, or set them aside)
  endif
endif

ALL_LESSONS := lesson01_topk lesson02_scan lesson03_compact_spmv lesson04_sort lesson05_histogram
ALL_SOURCES := $(sort $(foreach l,$(ALL_LESSONS),$(wildcard $(l)/*.cu $(l)/intro/*.cu $(l)/wrong/*.cu $(l)/exercises/*.cu)))
# Optional dependencies (an issue gives each one's reason): programs named *multi_gpu*.cu need
# NCCL, programs named *00_cub_*topk*.cu need CCCL 3.2+ headers (DeviceTopK). common/optional.mk
# finds them (pip's nvidia-nccl-cu13 / nvidia-cuda-cccl, or NCCL_HOME / CCCL_INCLUDE) and says in
# one line what it leaves out.
include common/optional.mk
SOURCES  := $(filter-out $(OPTIONAL_MISSING),$(ALL_SOURCES))
PROGRAMS := $(patsubst %.cu,$(BUILD)/%,$(SOURCES))
HOST_TEST_SOURCES := $(wildcard tests/*.cu)
HOST_TESTS := $(patsubst tests/%.cu,$(BUILD)/tests/%,$(HOST_TEST_SOURCES))

.PHONY: all help check test bench bench-run plot sanitize grade clean \
        lesson01 lesson02 lesson03 lesson04 lesson05 host-tests
all: $(PROGRAMS) $(HOST_TESTS)

# Changing ARCH, DEBUG, NVCCFLAGS or the compiler rebuilds everything: the flags are kept in a
# stamp file that every program depends on, rewritten only when they change.
FLAGS_STAMP := $(BUILD)/.flags
FLAGS_NOW := $(NVCC) $(ALLFLAGS) $(NCCL_FLAGS) $(CCCL_FLAGS)
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(FLAGS_STAMP) 2>/dev/null)" = "$(FLAGS_NOW)" ] || echo "$(FLAGS_NOW)" > $(FLAGS_STAMP); })

# ptxas says "... will be ignored" when a __launch_bounds__ minimum or a resource request cannot be
# met on the architecture being built (e.g. 4 x 512 threads on a 1024-thread sm_75 SM): that plan
# is wrong for that GPU, so the build fails instead of warning. ptxas's resource report (registers
# and static shared memory of every kernel, per architecture) is kept beside each program as
# <program>.res: tests/test_plans.py checks every launch plan against it.
COMPILE = $(NVCC) $(ALLFLAGS) --resource-usage -MMD -MP -o $@ $< $(1) > $@.res 2>&1; rc=$$?; \
	grep -v -e "^ptxas info" -e "bytes stack frame" $@.res >&2; \
	if [ $$rc -eq 0 ] && grep -qi "ptxas.*warning.*ignored" $@.res; then \
	  echo "error: $<: ptxas ignored a launch bound or resource request (above): fix the plan for that architecture" >&2; \
	  rm -f $@; exit 1; fi; exit $$rc

# One rule for every program: the lesson folder's headers are dependencies through -MMD.
$(BUILD)/%: %.cu $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "$(NVCC) $(ALLFLAGS) -o $@ $< $(LIBS_$(firstword $(subst /, ,$*))) $(EXTRA_$(notdir $*))"
	@$(call COMPILE,$(LIBS_$(firstword $(subst /, ,$*))) $(EXTRA_$(notdir $*)))

$(BUILD)/tests/%: tests/%.cu $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "$(NVCC) $(ALLFLAGS) -o $@ $< $(LIBS_tests)"
	@$(call COMPILE,$(LIBS_tests))

# Libraries a lesson links (cuSPARSE is the SpMV baseline).
LIBS_lesson03_compact_spmv := -lcusparse
LIBS_tests := -lcusparse
# Programs that launch kernels from kernels (dynamic parallelism) need relocatable device code.
EXTRA_09_quicksort := -rdc=true -lcudadevrt
# The optional programs' flags (common/optional.mk): NCCL's include and library, CCCL's headers.
$(foreach s,$(NCCL_SOURCES),$(eval EXTRA_$(notdir $(basename $(s))) := $(NCCL_FLAGS)))
$(foreach s,$(CCCL_SOURCES),$(eval EXTRA_$(notdir $(basename $(s))) := $(CCCL_FLAGS)))

-include $(PROGRAMS:=.d) $(HOST_TESTS:=.d)

host-tests: $(HOST_TESTS)

# make lessonNN: build the lesson's versions (in parallel), run each once at its default size,
# print one table. Its wrong/ and exercises/ programs are built by `make`, `make test`, `make grade`.
define lesson_target
lesson$(1): $$(patsubst %.cu,$(BUILD)/%,$$(wildcard $(2)/*.cu))
	@bash tools/lesson_table.sh $(BUILD) $(2) $(PYTHON)
endef
$(eval $(call lesson_target,01,lesson01_topk))
$(eval $(call lesson_target,02,lesson02_scan))
$(eval $(call lesson_target,03,lesson03_compact_spmv))
$(eval $(call lesson_target,04,lesson04_sort))
$(eval $(call lesson_target,05,lesson05_histogram))

# Every test that needs no GPU (host tests, notes, plans, plot, fuzzers, the command line of what it
# builds), building only what they use: the host tests and one program or two of each lesson.
CHECK_SET := lesson01_topk/topk_05_radix_select lesson02_scan/00_cub lesson02_scan/06_decoupled_lookback \
             lesson03_compact_spmv/compact_03_lookback lesson03_compact_spmv/spmv_05_merge_path \
             lesson04_sort/08_radix_onesweep lesson05_histogram/04_per_lane_copies
CHECK_PROGRAMS := $(filter $(addprefix $(BUILD)/,$(CHECK_SET)),$(PROGRAMS))
check: $(CHECK_PROGRAMS) $(HOST_TESTS)
	$(PYTHON) tests/run_tests.py --build $(BUILD) --host-only

# The README's test command: make check's tests over every program, then the GPU part where a GPU
# is present (else each GPU case is reported skipped, never passed).
test: all
	$(PYTHON) tests/run_tests.py --build $(BUILD) $(if $(QUICK),--quick)

# Benchmark sweeps into results/<gpu>.csv (GPU only). Old rows of the same cases are replaced.
# Every row names the commit that measured it (COURSE_COMMIT), so a tree with uncommitted changes
# to tracked files is refused (exit 2, one line) before anything is built: see the top of this file.
bench: all
	@$(MAKE) --no-print-directory bench-run

# The sweep itself, over whatever is built (tools/gpu_batch.sh calls it after `make -k`): every
# version of LESSONS, or only BENCH_PROGRAMS="build/lesson04_sort/00_cub ..." when given. On a
# machine without git (a copied tree), pass the commit: COURSE_COMMIT=<git rev-parse --short=12 HEAD>.
bench-run:
	@export COURSE_COMMIT=$${COURSE_COMMIT:-$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}; \
	gpu=$$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | sed 's/^NVIDIA //; s/[^A-Za-z0-9._-]/_/g'); \
	if [ -z "$$gpu" ]; then echo "make bench needs a GPU (nvidia-smi found none)"; exit 77; fi; \
	mkdir -p results; out=results/$$gpu.csv; tmp=$(BUILD)/bench.csv; \
	progs="$(BENCH_PROGRAMS)"; \
	if [ -z "$$progs" ]; then for l in $(LESSONS); do for src in $$l/*.cu; do progs="$$progs $(BUILD)/$${src%.cu}"; done; done; fi; \
	for p in $$progs; do rm -f $$tmp; \
	  echo "== $$p"; $$p --sweep --csv $$tmp || echo "!! $$p exited $$?"; \
	  [ -f $$tmp ] && $(PYTHON) plot.py --merge $$tmp --into $$out; done; \
	echo "results in $$out"

plot:
	$(PYTHON) plot.py results/*.csv

# compute-sanitizer's four tools on every version at small sizes (GPU only).
sanitize: all
	$(PYTHON) tests/sanitize.py --build $(BUILD) --lessons "$(LESSONS)"

# Grade the exercises on a GPU: each passes its battery once completed. EX=name grades one, building
# only it, the course's version of the same step and the library bar (tests/grade_board.txt), and
# prints beside PASS/FAIL the three programs' times at the lesson's default size, run one after the
# other. Without a GPU (nvidia-smi -L lists none) it says so in one line and fails (run_tests: 77):
#   make grade EX=lookback_loop
EX_PROGRAM = $(filter %/exercises/$(EX),$(PROGRAMS))
EX_BOARD = $(filter $(addprefix $(BUILD)/,$(shell awk '$$1 == "$(EX)" {print $$2; print $$3}' tests/grade_board.txt)),$(PROGRAMS))
grade:
	@$(if $(EX),$(if $(EX_PROGRAM),,echo "error: no exercise named '$(EX)' (ls lesson*/exercises/)" >&2; exit 2))
	@nvidia-smi -L 2>/dev/null | grep -q '^GPU' || { echo "make grade needs a GPU: nvidia-smi lists none, so nothing was graded (exit 77)" >&2; exit 77; }
	@$(MAKE) --no-print-directory $(if $(EX),$(EX_PROGRAM) $(EX_BOARD),all)
	$(PYTHON) tests/run_tests.py --build $(BUILD) --grade $(if $(EX),--only 'exercises/$(EX)\.cu$$')

clean:
	rm -rf $(BUILD)

help:
	@echo "make               build every program into $(BUILD)/ (ARCH=native; ARCH=\"75 90\" for both; no GPU: 75 + 90)"
	@echo "make lesson01..05  build a lesson, run each version at its default size, print one table"
	@echo "make check         every test that needs no GPU, building only what they use (a few minutes)"
	@echo "make test          make check's tests over every program, then every --test where a GPU is present"
	@echo "                   (QUICK=1: smaller battery); ends with 'N passed, N failed, N skipped'"
	@echo "make bench         GPU: every version's --sweep into results/<gpu>.csv (LESSONS=... to narrow)"
	@echo "make plot          results/*.csv -> plots/*.png and the tables in each lesson README"
	@echo "make sanitize      GPU: compute-sanitizer memcheck, racecheck, synccheck, initcheck"
	@echo "make grade         GPU: the exercises' batteries (they fail until completed); EX=name grades one,"
	@echo "                   beside the course's version and the library bar (no GPU: one line, fails)"
	@echo "one program        make build/lesson02_scan/06_decoupled_lookback"
	@echo "                   build/lesson02_scan/06_decoupled_lookback --n 2^24     (--help, --test, --plan)"
	@echo "another GPU        make BUILD=build_t4 ARCH=compute_75, then COURSE_GPU_PROFILE=t4 build_t4/...: the code and"
	@echo "                   limits of a T4 on this GPU (profiles: t4 a100 rtx3090 l4 rtx4090 h100 h200 b200 rtx5090)"
	@echo "make clean         remove $(BUILD)/"
	@echo "variables: ARCH (native | 75 90 ... | compute_75) NVCCFLAGS DEBUG=1 (-G) QUICK=1 BUILD=dir EX=name"
	@echo "           LESSONS=\"lesson02_scan ...\" BENCH_PROGRAMS=\"build/... ...\"  (changing ARCH/NVCCFLAGS/DEBUG rebuilds)"
