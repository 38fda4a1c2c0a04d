#!/usr/bin/env bash
# scripts/deps.sh - make sure the build and test tools are installed.
#
# Checks for re2c, lemon, ninja, prove, the xxhash and zstd headers, a C compiler
# and clang with its libFuzzer runtime.  Missing ones are installed with apt-get when running as root
# (Debian 12); otherwise the apt-get line is printed and the script fails.
# CUDA (nvcc) is optional: without it the tests that compile CUDA skip.
set -euo pipefail

pkgs=(re2c lemon libxxhash-dev libzstd-dev ninja-build perl gcc clang-14 libclang-rt-14-dev)

missing() {
    local m=()
    command -v re2c >/dev/null 2>&1 || m+=(re2c)
    command -v lemon >/dev/null 2>&1 || m+=(lemon)
    [ -f /usr/share/lemon/lempar.c ] || m+=(lempar.c)
    command -v ninja >/dev/null 2>&1 || m+=(ninja)
    command -v prove >/dev/null 2>&1 || m+=(prove)
    command -v gcc >/dev/null 2>&1 || m+=(gcc)
    [ -f /usr/include/xxhash.h ] || m+=(xxhash.h)
    [ -f /usr/include/zstd.h ] || m+=(zstd.h)
    # clang's libFuzzer runtime, for the bounded fuzzing run of the test suite (scripts/fuzz.sh)
    command -v clang >/dev/null 2>&1 || m+=(clang)
    compgen -G '/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a' >/dev/null ||
        m+=(libclang-rt-dev)
    echo "${m[@]+"${m[@]}"}"
}

# Not installable from Debian: CUDA's headers, which runtime/cudart_*.c compile against.
if [ ! -f /usr/local/cuda/include/cuda_runtime_api.h ]; then
    echo "deps.sh: warning: /usr/local/cuda/include/cuda_runtime_api.h not found" \
        "(CUDA 13 toolkit); libcudart.so.13 will not build" >&2
fi

# Optional: Chromium, for the headless-browser check of the timing report page
# (tests/timing_report.t; it skips without a browser). Installed when running as root; a
# failed install only warns, since nothing else needs it.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] &&
    [ -z "${PTXEMU_NO_BROWSER:-}" ]; then
    echo "deps.sh: installing chromium (optional: the report page's browser check)" >&2
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; } \
        </dev/null >&2 || echo "deps.sh: warning: chromium not installed; the browser check skips" >&2
fi

need=$(missing)
if [ -z "$need" ]; then
    exit 0
fi

line="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${pkgs[*]}"
if [ "$(id -u)" -ne 0 ]; then
    echo "deps.sh: missing: $need" >&2
    echo "deps.sh: run as root:" >&2
    echo "  $line" >&2
    exit 1
fi

echo "deps.sh: missing: $need; installing" >&2
apt-get update -q </dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${pkgs[@]}" </dev/null

need=$(missing)
if [ -n "$need" ]; then
    echo "deps.sh: still missing after install: $need" >&2
    exit 1
fi
