// common/harness.cuh — everything a lesson program includes. Each piece is its own short header:
//   error.cuh    CUDA_CHECK / CUDA_CHECK_LAST
//   cli.h        the shared command line (strict parsing, exit 2 on bad usage)
//   inputs.h     reproducible input distributions
//   npy.h        NumPy .npy in and out
//   check.h      comparing against the CPU reference
//   device.cuh   the GPU: device info, DeviceArray, scratch, memory checks, event timing
//   driver.cuh   the loop over cases: check, time, print, CSV
#pragma once
#include "error.cuh"
#include "cli.h"
#include "inputs.h"
#include "npy.h"
#include "check.h"
#include "device.cuh"
#include "driver.cuh"
