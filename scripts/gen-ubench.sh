#!/bin/sh
# scripts/gen-ubench.sh — regenerate fixtures/ptx/ubench/NAME.ptx from tests/ubench/NAME.cu
# (the timing-mode microbenchmarks; tests/timing.t runs the committed PTX, so machines without
# nvcc still run it). Usage: scripts/gen-ubench.sh [NAME...]   (default: every .cu there)
set -eu
cd "$(dirname "$0")/.."
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
out=fixtures/ptx/ubench
mkdir -p "$out"
if [ $# -eq 0 ]; then
    set -- $(cd tests/ubench && ls *.cu | sed 's/\.cu$//')
fi
for n in "$@"; do
    # a `// arch: sm_XX` line in the source names its architecture (default sm_80)
    arch=$(sed -n 's|^// arch: *\(sm_[0-9a-z]*\).*|\1|p' "tests/ubench/$n.cu" | head -n 1)
    "$NVCC" -arch="${arch:-sm_80}" -O3 -ptx -o "$out/$n.ptx" "tests/ubench/$n.cu"
    echo "$out/$n.ptx"
done
