# common/optional.mk — the course's two optional dependencies, found without being asked.
#   NCCL  (programs named *multi_gpu*.cu): NCCL_HOME=/path (include/nccl.h, lib/libnccl.so*), else
#         pip's nvidia-nccl-cu13 (python3 -m pip install nvidia-nccl-cu13), else the system's or the
#         CUDA Toolkit's own (nccl.h beside nvcc's headers: nvcc finds its header and library itself).
#   CCCL  (programs named *00_cub_*topk*.cu, CUB's DeviceTopK): CCCL_INCLUDE=/path (holding
#         cub/device/device_topk.cuh), else pip's nvidia-cuda-cccl (3.2 or newer).
# A program whose dependency is missing is left out of every target, and one line says so.
PY_SITE := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_paths()['purelib'])" 2>/dev/null)

NCCL_SOURCES := $(filter %multi_gpu.cu,$(ALL_SOURCES))
NVCC_ROOT := $(abspath $(dir $(shell command -v $(NVCC) 2>/dev/null))..)
NCCL_HOME ?= $(firstword $(wildcard $(PY_SITE)/nvidia/nccl $(PY_SITE)/nvidia/cu13/nccl))
ifneq ($(wildcard $(NCCL_HOME)/include/nccl.h),)
  NCCL_FLAGS := -I$(NCCL_HOME)/include -L$(NCCL_HOME)/lib -Xlinker -rpath=$(NCCL_HOME)/lib -l:libnccl.so.2
else ifneq ($(wildcard /usr/include/nccl.h $(NVCC_ROOT)/include/nccl.h),)
  NCCL_FLAGS := -lnccl
else
  NCCL_FLAGS :=
endif

CCCL_SOURCES := $(filter $(foreach l,$(ALL_LESSONS),$(l)/00_cub_%topk.cu $(l)/00_cub_%topk_rows.cu $(l)/topk_00_cub_%topk.cu $(l)/rows_00_cub_%topk.cu),$(ALL_SOURCES))
CCCL_INCLUDE ?= $(firstword $(wildcard $(PY_SITE)/nvidia/cu13/include/cccl $(PY_SITE)/cuda/cccl/headers/include))
ifneq ($(wildcard $(CCCL_INCLUDE)/cub/device/device_topk.cuh),)
  CCCL_FLAGS := -I$(CCCL_INCLUDE)
else
  CCCL_FLAGS :=
endif

OPTIONAL_MISSING :=
ifeq ($(NCCL_FLAGS),)
  OPTIONAL_MISSING += $(NCCL_SOURCES)
  ifneq ($(NCCL_SOURCES),)
    $(info note: NCCL not found (python3 -m pip install nvidia-nccl-cu13, or NCCL_HOME=...): skipping $(words $(NCCL_SOURCES)) multi-GPU programs)
  endif
endif
ifeq ($(CCCL_FLAGS),)
  OPTIONAL_MISSING += $(CCCL_SOURCES)
  ifneq ($(CCCL_SOURCES),)
    $(info note: CCCL 3.2+ headers not found (python3 -m pip install nvidia-cuda-cccl, or CCCL_INCLUDE=...): skipping $(words $(CCCL_SOURCES)) DeviceTopK bars)
  endif
endif
