// Record staging: a fused kernel whose threads each access a record of their
// own instance, several fields R bytes apart, moves the block's records with
// consecutive threads through a shared tile (RecordStaging.cpp): the
// RecordsStaged remark, the tile, the barriers. Records a warp already reads
// whole, records written in part, bodies with a division by a variable or a
// branch around a store are left as they are; -kfuse-record-staging=0 turns
// it off.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse %s -o %t.ptx 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -Rpass=kfuse -mllvm -kfuse-record-staging=0 %s -o %t.off.ptx 2>%t.off.remarks
// RUN: FileCheck %s --check-prefix=OFF < %t.off.remarks
// RUN: FileCheck %s --check-prefix=OFF-PTX < %t.off.ptx
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-record-copy-batch=2 %s -o %t.b2.ptx
// RUN: FileCheck %s --check-prefix=BATCH2 < %t.b2.ptx
// RUN: %ptxas -arch=sm_90 %t.b2.ptx -o %t.b2.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.ll
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -mllvm -kfuse-record-vector-copy=0 %s -o %t.words.ptx
// RUN: FileCheck %s --check-prefix=WORDS < %t.words.ptx

// The particles (28-byte records) and forces (12 bytes) are loaded, the
// new particles stored, q in registers and stored too (nothing says it is
// dead), all through a tile of 256 instances. records.
// REMARK: remark: fused launches 0..1 (kick, drift) of sequence 0 into [[K0:__kfuse_fused_[0-9a-f]+_0_0_1]]: q in registers
// REMARK: remark: [[K0]]: records of p (28 bytes), f (12 bytes) loaded and of q (28 bytes), r (28 bytes) stored by consecutive threads through shared memory (14336 bytes per block), in 16-byte words: the runtime checks p, q and r 16-byte aligned and the block's threads a multiple of 4, and runs the original launches where they are not [-Rpass=kfuse]
// A float4 is one access a warp reads whole: no staging.
// REMARK: remark: fused launches 0..1 (brighten4, dim4) of sequence 1 into [[K1:__kfuse_fused_[0-9a-f]+_1_0_1]]
// REMARK-NOT: [[K1]]: records
// Written in part (x and z of three floats): u staged, w not.
// REMARK: remark: [[K2:__kfuse_fused_[0-9a-f]+_2_0_1]]: records of u (12 bytes) loaded by consecutive threads through shared memory (3072 bytes per block) [-Rpass=kfuse]
// A division by a parameter could trap in a thread past n: no staging.
// REMARK: remark: fused launches 0..1 (divide, triple) of sequence 3 into [[K3:__kfuse_fused_[0-9a-f]+_3_0_1]]
// REMARK-NOT: [[K3]]: records
// A store on one side of a branch: the body is not one block.
// REMARK: remark: fused launches 0..1 (clip, triple) of sequence 4 into [[K4:__kfuse_fused_[0-9a-f]+_4_0_1]]
// REMARK-NOT: [[K4]]: records

// The tile, the block's copies and the barriers around them; every global
// load of the staged kernel is a word of a block copy (read-only path). The
// 28-byte records lie in the tile as in memory (7 words, an odd number), so
// a round's records are one range, copied in 16-byte words and a tail of
// 4-byte words; each thread then copies its own record in 4-byte words.
// CHECK-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// CHECK: .shared .align 16 .b8 __kfuse_fused_{{[0-9a-f]+}}_0_0_1_{{\$}}_records[14336];
// CHECK: ld.global.nc.v4.b32
// CHECK: st.shared.v4.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32
// CHECK: bar.sync 0;
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: st.global.v4.b32
// CHECK: ret;
// Those copies assume each staged buffer's start 16-byte aligned and the
// block's threads a multiple of 4 (28 * 4 bytes, a multiple of 16, so that
// every round starts aligned): the runtime checks both.
// MANIFEST: group __kfuse_fused_{{[0-9a-f]+}}_0_0_1 2\0A
// MANIFEST-SAME: \0Aalign 0.0 16\0Aalign 0.2 16\0Aalign 1.1 16\0Ale 0 bx-(bx/4)*4 0\0Alaunch 0 0 0\0A
// Without the vector copy, 4-byte words and no such guards.
// WORDS-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// WORDS-NOT: .v4.
// WORDS: ret;

// The block copies the records of a point in one loop, at most
// -kfuse-record-copy-batch words a trip, a 16-byte word counting as two:
// at 2, p's 28 bytes (two 16-byte words, the second cut short) and f's 3
// words in 4 trips of 1 + 1, and p's tail of three 4-byte words once, so
// each of the kernel's two bodies (the dead mask's versions) holds 3 loads
// where straight-line copies would hold 7 + 3; every one is a word of a
// copy (read-only path).
// BATCH2-LABEL: .visible .entry __kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// BATCH2-COUNT-6: ld.global.nc.{{b32|v4.b32}}
// BATCH2-NOT: ld.global
// BATCH2: ret;

// OFF-NOT: records of
// OFF-PTX-NOT: _records
// OFF-PTX-NOT: bar.sync

#define KM __attribute__((kfuse_map))

struct Particle { float x, y, z, vx, vy, vz, m; };

__global__ KM void kick(const Particle *p, const float3 *f, Particle *q, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float s = dt / p[i].m;
  q[i].x = p[i].x, q[i].y = p[i].y, q[i].z = p[i].z, q[i].m = p[i].m;
  q[i].vx = p[i].vx + s * f[i].x;
  q[i].vy = p[i].vy + s * f[i].y;
  q[i].vz = p[i].vz + s * f[i].z;
}
__global__ KM void drift(const Particle *q, Particle *r, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    r[i].x = q[i].x + dt * q[i].vx, r[i].y = q[i].y + dt * q[i].vy;
    r[i].z = q[i].z + dt * q[i].vz;
    r[i].vx = q[i].vx, r[i].vy = q[i].vy, r[i].vz = q[i].vz, r[i].m = q[i].m;
  }
}
void step(const Particle *p, const float3 *f, Particle *q, Particle *r, int n) {
  kick<<<(n + 255) / 256, 256>>>(p, f, q, 0.01f, n);
  drift<<<(n + 255) / 256, 256>>>(q, r, 0.01f, n);
}

__global__ KM void brighten4(const float4 *u, float4 *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[i] = make_float4(u[i].x + 1.0f, u[i].y + 1.0f, u[i].z + 1.0f, u[i].w);
}
__global__ KM void dim4(const float4 *t, float4 *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = make_float4(0.5f * t[i].x, 0.5f * t[i].y, 0.5f * t[i].z, t[i].w);
}
void pixels(const float4 *u, float4 *t, float4 *o, int n) {
  brighten4<<<(n + 255) / 256, 256>>>(u, t, n);
  dim4<<<(n + 255) / 256, 256>>>(t, o, n);
}

__global__ KM void ends(const float *u, float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    w[3 * i] = u[3 * i] + u[3 * i + 1];
    w[3 * i + 2] = u[3 * i + 2];
  }
}
__global__ KM void triple(const float *w, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = 3.0f * w[3 * i];
}
void partial(const float *u, float *w, float *o, int n) {
  ends<<<(n + 63) / 64, 64>>>(u, w, n);
  triple<<<(n + 63) / 64, 64>>>(w, o, n);
}

__global__ KM void divide(const float *u, float *w, int c, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float q = (float)(c / m);
    w[3 * i] = q * u[3 * i], w[3 * i + 1] = q * u[3 * i + 1], w[3 * i + 2] = q * u[3 * i + 2];
  }
}
void divided(const float *u, float *w, float *o, int c, int m, int n) {
  divide<<<(n + 63) / 64, 64>>>(u, w, c, m, n);
  triple<<<(n + 63) / 64, 64>>>(w, o, n);
}

__global__ KM void clip(const float *u, float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    w[3 * i] = u[3 * i];
    if (u[3 * i + 1] > 0.0f)
      w[3 * i + 1] = u[3 * i + 1], w[3 * i + 2] = u[3 * i + 2];
  }
}
void clipped(const float *u, float *w, float *o, int n) {
  clip<<<(n + 63) / 64, 64>>>(u, w, n);
  triple<<<(n + 63) / 64, 64>>>(w, o, n);
}
