#!/usr/bin/env bash
# Regenerates the checked-in PTX of tests/data/ptx from its CUDA sources with nvcc.
# Usage: tests/data/ptx/generate.sh [NVCC]   (CUDA 13.0 produced the files in the repository)
set -euo pipefail
cd "$(dirname "$0")"
NVCC=${1:-nvcc}
"$NVCC" -O3 -lineinfo -arch=sm_80 --ptx smem_kernels.cu -o smem_kernels.ptx
"$NVCC" -O3 -lineinfo -arch=sm_90 --ptx smem_sm90.cu -o smem_sm90.ptx
"$NVCC" -O3 -lineinfo -arch=sm_90 --ptx launch_kernels.cu -o launch_kernels.ptx
"$NVCC" -O3 -lineinfo -arch=sm_90 --ptx launch_elsewhere.cu -o launch_elsewhere.ptx
"$NVCC" -O3 -lineinfo -arch=sm_90 --ptx dynamic_stride.cu -o dynamic_stride.ptx
"$NVCC" -O3 -lineinfo -arch=sm_90 --ptx data_dependent.cu -o data_dependent.ptx
# The CuTe kernel needs the CuTe headers of the pinned nvidia-cutlass==4.2.0.0 wheel.
CUTE=$(python3 -c "import cutlass_library, os; print(os.path.dirname(cutlass_library.__file__))")/source/include
"$NVCC" -O3 -lineinfo -arch=sm_80 -std=c++17 --expt-relaxed-constexpr -I"$CUTE" --ptx cute_sm80_mainloop.cu -o cute_sm80_mainloop.ptx
