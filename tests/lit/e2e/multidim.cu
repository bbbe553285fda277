// 2-D and 3-D launches: indices in every coordinate and extent, row pitches
// and plane sizes as parameters, 2-D indices rebuilt from a linear one by /
// and %. Forwarding needs distinct threads to touch distinct elements; where
// only the launch's values can tell (a pitch at least the row's width), the
// manifest carries `le` guards, and footprints span the checked rows.
// REQUIRES: cuda
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o %t.ll 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: grep '^@__kfuse_manifest' %t.ll | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S %s -o %t.ptx 2>/dev/null
// RUN: %ptxas -arch=%cuda_arch %t.ptx -o /dev/null

#define KMAP __global__ __attribute__((kfuse_map))
#define XY int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y

// A pitched image: t[y * pitch + x] under `x < w && y < h`, then the same
// element under an early return.
KMAP void brighten(const float *in, float *t, int w, int h, int pitch, float g)
{ XY; if (x < w && y < h) t[y * pitch + x] = in[y * pitch + x] * g; }
KMAP void clamp01(const float *t, float *u, int w, int h, int pitch)
{ XY; if (x >= w || y >= h) return;
  float v = t[y * pitch + x]; u[y * pitch + x] = v < 0.f ? 0.f : v > 1.f ? 1.f : v; }
void image(const float *in, float *t, float *u, int w, int h, int pitch)
{
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  brighten<<<grid, block>>>(in, t, w, h, pitch, 1.5f);
  clamp01<<<grid, block>>>(t, u, w, h, pitch);
}
// REMARK-DAG: fused launches 0..1 (brighten, clamp01) of sequence [[IMG:[0-9]+]] into __kfuse_fused_{{[0-9a-f]+}}_[[IMG]]_0_1: t in registers
// The row is at most min(bx*gx, w) floats; rows must not overlap: 4*w <= 4*|pitch|.
// MANIFEST: kernel 0 _Z8brightenPKfPfiiif 6
// MANIFEST: le 0 4+4*(max(min(bx*gx,s2),1)-1) max(4*s4,-(4*s4)){{$}}
// MANIFEST-NOT: le
// MANIFEST: footprint 0.1 w min(0,4*s4*(max(min(by*gy,s3),1)-1)) 4*(max(min(bx*gx,s2),1)-1)+max(0,4*s4*(max(min(by*gy,s3),1)-1))+4{{$}}
// MANIFEST: end

// A 3-D field in double, `((k * ny) + j) * nx + i` in 64 bits.
KMAP void field_a(const double *a, double *b, int nx, int ny, int nz)
{ int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y,
      k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < nx && j < ny && k < nz) { size_t id = ((size_t)k * ny + j) * nx + i; b[id] = 2.0 * a[id] + 1.0; } }
KMAP void field_b(const double *b, double *c, int nx, int ny, int nz)
{ int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y,
      k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < nx && j < ny && k < nz) { size_t id = ((size_t)k * ny + j) * nx + i; c[id] = b[id] * b[id]; } }
void field(const double *a, double *b, double *c, int nx, int ny, int nz)
{
  dim3 block(8, 8, 4), grid((nx + 7) / 8, (ny + 7) / 8, (nz + 3) / 4);
  field_a<<<grid, block>>>(a, b, nx, ny, nz);
  field_b<<<grid, block>>>(b, c, nx, ny, nz);
}
// REMARK-DAG: fused launches 0..1 (field_a, field_b) of sequence {{[0-9]+}} into {{.*}}: b in registers
// MANIFEST: kernel 0 _Z7field_aPKdPdiii 5
// MANIFEST: le 0 8+8*(max(min(bx*gx,s2),1)-1) max(8*s2,-(8*s2)){{$}}
// MANIFEST-NEXT: le 0 8+8*(max(min(bx*gx,s2),1)-1)+max(8*s2,-(8*s2))*(max(min(by*gy,s3),1)-1) max(8*s2*s3,-(8*s2*s3)){{$}}
// MANIFEST: end

// A linear id split into row and column by / and % of the padded width;
// row * (nx + 4) + col is the id again.
KMAP void lin_a(const float *a, float *b, int nx, int ny)
{ int id = blockIdx.x * blockDim.x + threadIdx.x, row = id / (nx + 4), col = id % (nx + 4);
  if (row < ny && col < nx) b[row * (nx + 4) + col] = a[row * (nx + 4) + col] + 1.f; }
KMAP void lin_b(const float *b, float *c, int nx, int ny)
{ int id = blockIdx.x * blockDim.x + threadIdx.x, row = id / (nx + 4), col = id % (nx + 4);
  if (row < ny && col < nx) c[row * (nx + 4) + col] = b[row * (nx + 4) + col] * 3.f; }
void linear(const float *a, float *b, float *c, int nx, int ny)
{
  int n = (nx + 4) * ny;
  lin_a<<<(n + 255) / 256, 256>>>(a, b, nx, ny);
  lin_b<<<(n + 255) / 256, 256>>>(b, c, nx, ny);
}
// REMARK-DAG: fused launches 0..1 (lin_a, lin_b) of sequence {{[0-9]+}} into {{.*}}: b in registers
// A quotient that does not cancel is no polynomial.
KMAP void lin_bad(const float *a, float *b, int nx, int ny)
{ int id = blockIdx.x * blockDim.x + threadIdx.x, row = id / (nx + 4), col = id % (nx + 4);
  if (row < ny && col < nx) b[row * nx + col] = a[id]; }
// REMARK-DAG: kernel 'lin_bad(float const*, float*, int, int)' cannot be fused: has a non-affine or unknown index

// A block size written into the index (16): threads of a row stay apart
// only while blockDim.x <= 16.
KMAP void tile_a(const float *a, float *b, int w)
{ int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y; b[y * 1024 + x] = a[y * 1024 + x] * 2.f; }
KMAP void tile_b(const float *b, float *c, int w)
{ int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y; c[y * 1024 + x] = b[y * 1024 + x] + 1.f; }
void tiles(const float *a, float *b, float *c, int w)
{
  dim3 block(16, 16), grid(64, 64);
  tile_a<<<grid, block>>>(a, b, w);
  tile_b<<<grid, block>>>(b, c, w);
}
// REMARK-DAG: fused launches 0..1 (tile_a, tile_b) of sequence {{[0-9]+}} into {{.*}}: b in registers
// MANIFEST: kernel 0 _Z6tile_aPKfPfi 3
// MANIFEST: le 0 4+4*(bx-1) 64{{$}}
// MANIFEST-NEXT: le 0 4+4*(bx-1)+64*(gx-1) 4096{{$}}
// MANIFEST-NEXT: le 0 4+4*(bx-1)+64*(gx-1)+4096*(by-1) 65536{{$}}
// MANIFEST: end

// Only thread row 0 writes t[x]; threads of other rows read it. Unfused
// they see row 0's value; fused only where blocks have one row.
KMAP void row_zero(const float *in, float *t, int n)
{ int x = blockIdx.x * blockDim.x + threadIdx.x; if (x < n && threadIdx.y == 0) t[x] = in[x] + 1.f; }
KMAP void row_read(const float *t, float *u, int n)
{ int x = blockIdx.x * blockDim.x + threadIdx.x; if (x < n) u[x] = t[x] * 3.f; }
void rows(const float *in, float *t, float *u, int n)
{
  dim3 block(128, 2);
  row_zero<<<(n + 127) / 128, block>>>(in, t, n);
  row_read<<<(n + 127) / 128, block>>>(t, u, n);
}
// MANIFEST: kernel 0 _Z8row_zeroPKfPfi 3
// MANIFEST: le 0 by 1{{$}}
// MANIFEST: end

// Another thread's element of the same block: staged in shared memory. A
// transpose within the block (square blocks: `le` guards bx <= by and
// by <= bx) and a mirror in x within the block; the tile slot is the
// element's in-block coordinates.
KMAP void block_transpose(const float *t, float *u, int w, int h, int pitch)
{ int x = blockIdx.x * blockDim.x + threadIdx.y, y = blockIdx.y * blockDim.y + threadIdx.x;
  int ox = blockIdx.x * blockDim.x + threadIdx.x, oy = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h && ox < w && oy < h) u[oy * pitch + ox] = t[y * pitch + x]; }
KMAP void block_mirror(const float *t, float *u, int w, int h, int pitch)
{ int x = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x), y = blockIdx.y * blockDim.y + threadIdx.y;
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < w && y < h && ox < w) u[y * pitch + ox] = t[y * pitch + x]; }
void staged(const float *in, float *t, float *u, float *v, int w, int h, int pitch)
{
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  brighten<<<grid, block>>>(in, t, w, h, pitch, 2.f);
  block_transpose<<<grid, block>>>(t, u, w, h, pitch);
  block_mirror<<<grid, block>>>(t, v, w, h, pitch);
}
// REMARK-DAG: fused launches 0..2 (brighten, block_transpose, block_mirror) of sequence {{[0-9]+}} into {{.*}}: t through shared memory, with barriers
// MANIFEST: kernel 0 _Z8brightenPKfPfiiif 6
// MANIFEST-NEXT: kernel 1 _Z15block_transposePKfPfiii 5
// MANIFEST: le 0 4+4*(max(min(bx*gx,s2),1)-1) max(4*s4,-(4*s4)){{$}}
// MANIFEST-NEXT: le 1 bx-1 by-1{{$}}
// MANIFEST-NEXT: le 1 by-1 bx-1{{$}}
// MANIFEST: end

// Refused: another thread's element (a transposed read). The row below
// fuses with a 2-D halo (lit e2e/halo2d.cu).
KMAP void transposed(const float *t, float *u, int w, int h, int pitch)
{ XY; if (x < w && y < h) u[y * pitch + x] = t[x * pitch + y]; }
KMAP void below(const float *t, float *u, int w, int h, int pitch)
{ XY; if (x < w && y + 1 < h) u[y * pitch + x] = t[(y + 1) * pitch + x]; }
void refused(const float *in, float *t, float *u, int w, int h, int pitch)
{
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  brighten<<<grid, block>>>(in, t, w, h, pitch, 2.f);
  transposed<<<grid, block>>>(t, u, w, h, pitch);
  brighten<<<grid, block>>>(in, t, w, h, pitch, 2.f);
  below<<<grid, block>>>(t, u, w, h, pitch);
}
// REMARK-DAG: launches 0..1 (brighten, transposed) of sequence {{[0-9]+}} at {{.*}} not fused: buffer 't': launch 0 (brighten) writes it at byte offset 4*blockDim.y*blockIdx.y*pitch+4*threadIdx.y*pitch+4*blockDim.x*blockIdx.x+4*threadIdx.x and launch 1 (transposed) reads it at byte offset 4*blockDim.y*blockIdx.y+4*threadIdx.y+4*blockDim.x*blockIdx.x*pitch+4*threadIdx.x*pitch; neither the same thread nor the same block (access across blocks or unrelated indices)
// REMARK-DAG: fused launches 2..3 (brighten, below) of sequence {{[0-9]+}} into {{.*}}: t through shared memory with a halo of 0 before and 1 after in y around each block's box, recomputed by launch 2 (brighten)
