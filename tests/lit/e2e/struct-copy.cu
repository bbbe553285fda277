// Structs copied whole: `Particle a = p[i]; ...; q[i] = a;` leaves clang's
// llvm.memmove (or memcpy) of the fields the code does not change, and
// `q[i] = Particle{}` a memset. The device pass analyses a twin of the
// kernel in which each copy of at most 256 bytes is loads and stores of the
// struct's own fields (floats stay floats, so the next kernel's float loads
// meet float stores), and fuses it.
// REQUIRES: ptxas
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ll 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S %s -o %t.ptx 2>/dev/null
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

// REMARK: remark: fused launches 0..1 (kick, drift) of sequence 0 into __kfuse_fused_{{[0-9a-f]+}}_0_0_1: q in registers
// REMARK: remark: fused launches 0..1 (reset, count) of sequence 1 into __kfuse_fused_{{[0-9a-f]+}}_1_0_1: c in registers
// A struct with padding between its fields: copied as words, which the
// next kernel's float load overlaps in part.
// REMARK: remark: launches 0..1 (copy_padded, use_padded) of sequence 2 at {{.*}} not fused: buffer 'q'{{.*}}the accesses overlap in part
// REMARK-NOT: cannot be fused

// The particles' footprints end at the n-th record, not at the grid's:
// the last block runs past n, and a footprint past the allocation would
// fail KFUSE_VERIFY's snapshot and could meet the next allocation.
// IR: footprint 0.0 r 0 24+28*(max(min(bx*gx,s4),1)-1)+4\0Afootprint 0.1 r 0 8+12*(max(min(bx*gx,s4),1)-1)+4\0Afootprint 0.2 w 0 24+28*(max(min(bx*gx,s4),1)-1)+4

// The kernels themselves keep their copies; the twins are gone.
// IR-LABEL: define {{.*}} @_Z4kickPK8ParticlePK6float3PS_fi(
// IR: call void @llvm.memmove
// IR-NOT: kfuse.copied
// IR-LABEL: define {{.*}} @__kfuse_fused_{{[0-9a-f]+}}_0_0_1(
// IR-NOT: call void @llvm.mem

#define KM __attribute__((kfuse_map))

struct Particle { float x, y, z, vx, vy, vz, m; };

__global__ KM void kick(const Particle *p, const float3 *f, Particle *q, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  Particle a = p[i];
  float3 g = f[i];
  float s = dt / a.m;
  a.vx += s * g.x, a.vy += s * g.y, a.vz += s * g.z;
  q[i] = a;
}
__global__ KM void drift(const Particle *q, Particle *r, float dt, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Particle a = q[i];
    a.x += dt * a.vx, a.y += dt * a.vy, a.z += dt * a.vz;
    r[i] = a;
  }
}
void step(const Particle *p, const float3 *f, Particle *q, Particle *r, int n) {
  kick<<<(n + 255) / 256, 256>>>(p, f, q, 0.01f, n);
  drift<<<(n + 255) / 256, 256>>>(q, r, 0.01f, n);
}

struct Cell { int hits[6]; float w; };
__global__ KM void reset(Cell *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = Cell{};
}
__global__ KM void count(const Cell *c, int *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = c[i].hits[0] + c[i].hits[5] + (int)c[i].w;
}
void clear(Cell *c, int *o, int n) {
  reset<<<(n + 255) / 256, 256>>>(c, n);
  count<<<(n + 255) / 256, 256>>>(c, o, n);
}

struct Padded { float a; double b; };
__global__ KM void copy_padded(const Padded *p, Padded *q, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    Padded t = p[i];
    t.b *= 2.0;
    q[i] = t;
  }
}
__global__ KM void use_padded(const Padded *q, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    o[i] = q[i].a;
}
void padded(const Padded *p, Padded *q, float *o, int n) {
  copy_padded<<<(n + 255) / 256, 256>>>(p, q, n);
  use_padded<<<(n + 255) / 256, 256>>>(q, o, n);
}
