#!/usr/bin/env bash
# Build the HIP-on-CUDA shim: libamdhip64.so, libhiprtc.so, libhipblas.so,
# libhipsolver.so, libhipfft.so, libMIOpen.so and librccl.so into OUTDIR/lib (default: tools/hip_on_cuda/build/lib).
# Needs gcc only: no CUDA headers or libraries (they are dlopen'ed at run time).
# Point hip-python at the result with ROCM_PATH=OUTDIR.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/build}"
lib="$out/lib"
src="$here/src"
mkdir -p "$lib"
CC="${CC:-gcc}"
CFLAGS=(-std=gnu11 -O2 -g -fPIC -fvisibility=hidden -Wall -Wextra -Werror
        -Wno-unused-parameter -Wno-missing-field-initializers)
LDFLAGS=(-shared -Wl,--no-undefined -Wl,-z,defs)
rpath='-Wl,-rpath,$ORIGIN'

"$CC" "${CFLAGS[@]}" "${LDFLAGS[@]}" -Wl,-soname,libamdhip64.so -o "$lib/libamdhip64.so" \
    "$src/hoc_loader.c" "$src/hip_errors.c" "$src/hip_device.c" "$src/hip_memory.c" \
    "$src/hip_stream.c" "$src/hip_graph.c" "$src/hip_module.c" -ldl -lpthread
"$CC" "${CFLAGS[@]}" "${LDFLAGS[@]}" -Wl,-soname,libhiprtc.so -o "$lib/libhiprtc.so" \
    "$src/hiprtc.c" "$src/hiprtc_options.c" -L"$lib" -lamdhip64 "$rpath" -lpthread
"$CC" "${CFLAGS[@]}" "${LDFLAGS[@]}" -Wl,-soname,libhipblas.so -o "$lib/libhipblas.so" \
    "$src/hipblas.c" -L"$lib" -lamdhip64 "$rpath" -lpthread
"$CC" "${CFLAGS[@]}" "${LDFLAGS[@]}" -Wl,-soname,libhipsolver.so -o "$lib/libhipsolver.so" \
    "$src/hipsolver.c" "$src/hipsolver_jacobi.c" -L"$lib" -lamdhip64 "$rpath" -lpthread
"$CC" "${CFLAGS[@]}" "${LDFLAGS[@]}" -Wl,-soname,libhipfft.so -o "$lib/libhipfft.so" \
    "$src/hipfft.c" -L"$lib" -lamdhip64 "$rpath" -lpthread
"$CC" "${CFLAGS[@]}" "${LDFLAGS[@]}" -Wl,-soname,libMIOpen.so -o "$lib/libMIOpen.so" \
    "$src/miopen_common.c" "$src/miopen_conv.c" "$src/miopen_graph.c" \
    "$src/miopen_graph_desc.c" "$src/miopen_graph_cache.c" "$src/miopen_pool.c" -L"$lib" -lamdhip64 \
    "$rpath" -lpthread
"$CC" "${CFLAGS[@]}" "${LDFLAGS[@]}" -Wl,-soname,librccl.so -o "$lib/librccl.so" \
    "$src/rccl.c" -L"$lib" -lamdhip64 "$rpath" -lpthread

# Versioned names some loaders look for.
ln -sf libamdhip64.so "$lib/libamdhip64.so.6"
ln -sf libhiprtc.so "$lib/libhiprtc.so.6"
ln -sf libhipblas.so "$lib/libhipblas.so.2"
ln -sf libMIOpen.so "$lib/libMIOpen.so.1"
ln -sf libhipsolver.so "$lib/libhipsolver.so.0"
ln -sf libhipsolver.so "$lib/libhipsolver.so.1"
ln -sf libhipfft.so "$lib/libhipfft.so.0"
ln -sf librccl.so "$lib/librccl.so.1"
echo "hip_on_cuda: built $(ls "$lib"/*.so | wc -l) libraries in $lib"
