// tests/gpu/gathers.cu (run fused and unfused on the GPU by tools/gpu-check)
// through the device pass: what it fuses, and the footprints it gives.
// REQUIRES: cuda
// RUN: %kfuse_obj_root/bin/kfuse-clang++ -O2 -std=c++17 -I%kfuse_src_root/examples -I%kfuse_src_root/include \
// RUN:   -Rpass=kfuse -Rpass-missed=kfuse -Rpass-analysis=kfuse --cuda-device-only -S -emit-llvm \
// RUN:   %kfuse_src_root/tests/gpu/gathers.cu -o %t.ll 2> %t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: grep '^@__kfuse_manifest' %t.ll | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST

// t[i & 15] is a mask of the index (ScalarEvolution: zext(trunc(i to i4))),
// not t[i]: a gather of a buffer the first launch writes, so no fusion (the
// pass once forwarded t in a register here). Its range is 16 floats.
// REMARK-DAG: kernel 'mask_read(float const*, float*, int)': 8 bytes and 0 flops per element; gathers through parameter 1 ('t') within bytes [0, 64){{ }}
// REMARK-DAG: launches 0..1 (scale, mask_read) of sequence 0 at {{.*}} not fused: buffer 't': launch 1 (mask_read) reads it at an unknown index (a gather) and launch 0 (scale) writes it; a gathered buffer must be read-only in the group
// Signed remainder by a parameter, unsigned remainder by a constant (which
// ScalarEvolution spells X - 5 * (X /u 5)): bounded, read-only, fused.
// REMARK-DAG: kernel 'bias_mod(float const*, float const*, float*, int, int)': 12 bytes and 1 flops per element; gathers through parameter 2 ('bias') within bytes [0, 4*min(blockDim.x*gridDim.x-1,max(cols,-cols)-1)+4){{ }}
// REMARK-DAG: kernel 'table_u5(float const*, float const*, float*, unsigned int)': 12 bytes and 1 flops per element; gathers through parameter 2 ('tab') within bytes [0, 4*min(blockDim.x*gridDim.x-1,4)+4){{ }}
// REMARK-DAG: fused launches 0..2 (bias_mod, table_u5, add) of sequence 1 into __kfuse_fused_1_0_2: h in registers, g in registers
// REMARK-NOT: __kfuse_fused_0_

// MANIFEST: group __kfuse_fused_1_0_2 3
// MANIFEST: footprint 0.0 r 0 min(4*bx*gx,4*s4){{$}}
// MANIFEST-NEXT: footprint 0.1 r 0 4*min(bx*gx-1,max(s3,-s3)-1)+4{{$}}
// table_u5's `i < n` compares unsigned: an n of 2^31 or more reads negative
// as s3 and then bounds nothing (the grid's extent instead).
// MANIFEST: footprint 1.0 r 0 max(min(4*bx*gx,4*s3),min(4*bx*gx,-s3*(4*bx*gx))){{$}}
// MANIFEST-NEXT: footprint 1.1 r 0 4*min(bx*gx-1,4)+4{{$}}
// MANIFEST-NEXT: footprint 1.2 w 0 max(min(4*bx*gx,4*s3),min(4*bx*gx,-s3*(4*bx*gx))){{$}}
// MANIFEST: end
// MANIFEST-NOT: {{^}}group
// The refused sequence leaves its reason.
// MANIFEST: {{^}}missed _ZL6maskedPKfPfS1_fiiP11CUstream_st {{[0-9]+}} 2 0 1 buffer 't': launch 1 (mask_read) reads it at an unknown index (a gather) and launch 0 (scale) writes it; a gathered buffer must be read-only in the group{{$}}
// MANIFEST-NOT: {{^}}group
