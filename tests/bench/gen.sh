#!/bin/sh
# Regenerate the committed PTX of the benchmark kernels (needs nvcc).
set -eu
cd "$(dirname "$0")"
nvcc -arch=sm_80 -ptx -O3 kernels.cu -o kernels_sm80.ptx
