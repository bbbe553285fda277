// A kernel argument of a class that is not trivially copyable (`__half2`,
// a struct with its own copy constructor) reaches the stub by address, the
// caller's temporary, not byval. The host pass takes its size from the
// callers' temporaries and copies its bytes into a slot of its own, since
// the temporary ends with the launch's statement and the run launches
// later; the record's argument points to the copy. (The kernels are
// annotated the way the Clang plugin spells kfuse_map.)
// REQUIRES: cuda
// RUN: %clang_cuda --cuda-host-only -O2 -fpass-plugin=%kfuse_llvm_plugin \
// RUN:   -Rpass=kfuse -S -emit-llvm %s -o %t.ll 2> %t.remarks
// RUN: FileCheck %s < %t.ll
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks

struct Pair {
  float a, b;
  __host__ __device__ Pair(float a, float b) : a(a), b(b) {}
  __host__ __device__ Pair(const Pair &o) : a(o.a), b(o.b) {}
};

__global__ __attribute__((annotate("kfuse_map"))) void affine(const float *x, float *t, Pair p, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) t[i] = p.a * x[i] + p.b; }
__global__ __attribute__((annotate("kfuse_map"))) void square(const float *t, float *o, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) o[i] = t[i] * t[i]; }

void run(const float *x, float *t, float *o, int n, cudaStream_t s) {
  affine<<<(n + 255) / 256, 256, 0, s>>>(x, t, Pair(2.0f, 1.0f), n);
  square<<<(n + 255) / 256, 256, 0, s>>>(t, o, n);
}

// The copy holds Pair(2.0f, 1.0f) (0x40000000, 0x3f800000) and is
// argument 2 of the first record.
// CHECK-LABEL: define {{.*}}@_Z3runPKfPfS1_iP11CUstream_st(
// CHECK: %[[COPY:[0-9]+]] = alloca [8 x i8], align 4
// CHECK: %[[ARGS:[0-9]+]] = alloca [4 x ptr]
// CHECK: store i32 1073741824, ptr %[[COPY]], align 4
// CHECK: store i32 1065353216, ptr
// CHECK: [[A2:%[0-9]+]] = getelementptr inbounds nuw i8, ptr %[[ARGS]], i64 16
// CHECK-NEXT: store ptr %[[COPY]], ptr [[A2]]
// CHECK: call void @kf_rt_launch_seq(
// REMARK: remark: handed 2 launches (affine, square) to the runtime
// REMARK-NOT: left alone
