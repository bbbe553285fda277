// Launch sequences the Clang plugin and the host pass once saw differently:
// a `case` label, `return (void)k<<<...>>>`, a comma, a cast to void,
// launch helpers with locals, a reference parameter or as member functions.
// Each is now one sequence on both sides: the device pass fuses it, the
// manifest binds the group to the sequence's first launch, and the host
// pass hands exactly that run over. What one side cannot take stays plain
// launches on both, with a remark saying why.
// REQUIRES: ptxas, fatbinary
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -S -emit-llvm %s -o %t/dev.ll
// RUN: grep '^@__kfuse_manifest' %t/dev.ll | sed -e 's/\\0A/\n/g' | FileCheck %s --check-prefix=MANIFEST
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-device-only -O2 -c -Rpass-missed=kfuse %s -o %t/dev.cubin 2> %t/dev.remarks
// RUN: FileCheck %s --check-prefix=DEVICE < %t/dev.remarks
// RUN: %fatbinary -64 --create %t/dev.fatbin --image3=kind=elf,sm=%cuda_sm,file=%t/dev.cubin
// RUN: %clang_cuda %kfuse_plugins %kfuse_cuda_sdk --cuda-host-only -O0 -Xclang -fcuda-include-gpubinary -Xclang %t/dev.fatbin \
// RUN:   -S -emit-llvm -Rpass=kfuse -Rpass-missed=kfuse %s -o %t/host.ll 2> %t/remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t/remarks
// RUN: FileCheck %s < %t/host.ll

#define KMAP __global__ __attribute__((kfuse_map))
#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x
KMAP void scale(const float *x, float *t, int n) { IDX; if (i < n) t[i] = 2.0f * x[i]; }
KMAP void add(const float *a, const float *b, float *o, int n) { IDX; if (i < n) o[i] = a[i] + b[i]; }

// MANIFEST: kfuse-manifest 1

// A label is a way in: the statement it labels starts a sequence.
// CHECK-LABEL: define {{.*}}void @_Z7by_caseiPKfPfS0_S1_i(
// CHECK: call void @kf_rt_launch_seq(ptr @kfuse.site{{[.0-9]*}}, ptr %{{[0-9a-z.]+}}, i32 2)
// CHECK-NOT: kf_rt_launch_seq
// CHECK: ret void
void by_case(int m, const float *x, float *t, const float *y, float *o, int n) {
  switch (m) {
  case 0:
  // MANIFEST: at 0 2 [[@LINE+2]]:10 _Z7by_caseiPKfPfS0_S1_i
  // REMARK: seq-corners.cu:[[@LINE+1]]:5: remark: handed 2 launches (scale, add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_0_0_1 when
    scale<<<(n + 255) / 256, 256>>>(x, t, n);
    add<<<(n + 255) / 256, 256>>>(t, y, o, n);
    break;
  case 1:
    scale<<<(n + 255) / 256, 256>>>(x, t, n);
  // DEVICE: seq-corners.cu:[[@LINE+1]]:3: remark: launch of 'add' is not fused with the launch of 'scale' before it: a 'case' label ends the launch sequence [-Rpass-missed=kfuse]
  case 2:
    add<<<(n + 255) / 256, 256>>>(t, y, o, n);
    break;
  }
}

// The return's value is launched, then the function returns.
// CHECK-LABEL: define {{.*}}void @_Z9by_returnPKfPfS0_S1_i(
// CHECK: call void @kf_rt_launch_seq(
void by_return(const float *x, float *t, const float *y, float *o, int n) {
  // MANIFEST: at 0 2 [[@LINE+2]]:8 _Z9by_returnPKfPfS0_S1_i
  // REMARK: seq-corners.cu:[[@LINE+1]]:3: remark: handed 2 launches (scale, add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_1_0_1 when
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  return (void)add<<<(n + 255) / 256, 256>>>(t, y, o, n);
}

// A comma's operands, and a cast to void's, run in turn.
// CHECK-LABEL: define {{.*}}void @_Z8by_commaPKfPfS0_S1_S1_i(
// CHECK: call void @kf_rt_launch_seq({{.*}}, i32 3)
void by_comma(const float *x, float *t, const float *y, float *o, float *u, int n) {
  // MANIFEST: at 0 3 [[@LINE+2]]:8 _Z8by_commaPKfPfS0_S1_S1_i
  // REMARK: seq-corners.cu:[[@LINE+1]]:3: remark: handed 3 launches (scale, add, scale) to the runtime, which runs launches 0..2 as __kfuse_fused_{{[0-9a-f]+}}_2_0_2 when
  scale<<<(n + 255) / 256, 256>>>(x, t, n), add<<<(n + 255) / 256, 256>>>(t, y, o, n);
  (void)scale<<<(n + 255) / 256, 256>>>(o, u, n);
}

// Helpers with locals, a reference parameter, member functions.
static void scale_local(const float *x, float *t, int n) {
  int g = (n + 255) / 256;
  scale<<<g, 256>>>(x, t, n);
}
static void add_ref(const float *a, const float *b, float *o, const int &n) {
  add<<<(n + 255) / 256, 256>>>(a, b, o, n);
}
// CHECK-LABEL: define {{.*}}void @_Z10by_helpersPKfPfS0_S1_i(
// CHECK: call void @kf_rt_launch_seq(
void by_helpers(const float *x, float *t, const float *y, float *o, int n) {
  // MANIFEST: at 0 2 [[@LINE+2]]:3 _Z10by_helpersPKfPfS0_S1_i
  // REMARK: seq-corners.cu:[[@LINE+1]]:3: remark: handed 2 launches (scale, add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_3_0_1 when
  scale_local(x, t, n);
  add_ref(t, y, o, n);
}
struct Pipe {
  float *t;
  void s(const float *x, float *t, int n) { scale<<<(n + 255) / 256, 256>>>(x, t, n); }
  void a(const float *x, const float *y, float *o, int n) { add<<<(n + 255) / 256, 256>>>(x, y, o, n); }
  void own(const float *x, int n) { scale<<<(n + 255) / 256, 256>>>(x, t, n); }
};
// A member call's position is its member name's, on both sides.
// CHECK-LABEL: define {{.*}}void @_Z10by_membersR4PipePKfPfS2_S3_i(
// CHECK: call void @kf_rt_launch_seq(
void by_members(Pipe &p, const float *x, float *t, const float *y, float *o, int n) {
  // MANIFEST: at 0 2 [[@LINE+2]]:5 _Z10by_membersR4PipePKfPfS2_S3_i
  // REMARK: seq-corners.cu:[[@LINE+1]]:5: remark: handed 2 launches (scale, add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_4_0_1 when
  p.s(x, t, n);
  p.a(t, y, o, n);
}

// A member function that reads its object is no helper for the Clang
// plugin; the host pass inlines it and sees two launches in a row, but no
// sequence starts there: plain launches, a remark on each side.
// CHECK-LABEL: define {{.*}}void @_Z9by_objectR4PipePKfS2_Pfi(
// CHECK-NOT: kf_rt_launch_seq
// CHECK: ret void
void by_object(Pipe &p, const float *x, const float *y, float *o, int n) {
  // DEVICE: seq-corners.cu:[[@LINE+2]]:3: remark: launch of 'add' is not fused with the launch of 'scale' before it: 'scale' is launched in 'Pipe::own', which is not a launch helper (it reads members of its object) [-Rpass-missed=kfuse]
  // REMARK: seq-corners.cu:[[@LINE+1]]:5: remark: 2 launches (scale, add) left as they are: the device code has no fused kernel for them, and the device compilation recorded no reason (it saw no launch sequence of these launches here) [-Rpass-missed=kfuse]
  p.own(x, n);
  p.a(p.t, y, o, n);
}

// The host pass runs on past a call the Clang plugin ends the sequence at
// (an accessor defined here that only reads): two runs for the host, one
// sequence for the plugin, handed over alone; the launch before stays a
// plain launch, with a remark.
static float *get(Pipe &p) { return p.t; }
// CHECK-LABEL: define {{.*}}void @_Z8by_splitR4PipePKfS2_Pfi(
// CHECK: call void @kf_rt_launch_seq({{.*}}, i32 2)
// CHECK-NOT: kf_rt_launch_seq
// CHECK: ret void
void by_split(Pipe &p, const float *x, const float *y, float *o, int n) {
  // REMARK-DAG: seq-corners.cu:[[@LINE+1]]:3: remark: launch of scale left as it is: the device compilation recorded no launch sequence that starts at this launch (-Rpass-missed=kfuse on the device side says why) [-Rpass-missed=kfuse]
  scale<<<(n + 255) / 256, 256>>>(x, o, n);
  float *t = get(p);
  // MANIFEST: at 0 2 [[@LINE+2]]:8 _Z8by_splitR4PipePKfS2_Pfi
  // REMARK-DAG: seq-corners.cu:[[@LINE+1]]:3: remark: handed 2 launches (scale, add) to the runtime, which runs launches 0..1 as __kfuse_fused_{{[0-9a-f]+}}_5_0_1 when
  scale<<<(n + 255) / 256, 256>>>(x, t, n);
  add<<<(n + 255) / 256, 256>>>(t, y, o, n);
}

// One macro expanding to two sequences: both start at the macro's position,
// which the host pass cannot tell apart, so the device pass fuses neither
// and says why; the host pass leaves both plain, quoting it.
#define TWO_SEQUENCES(x, t, y, o, n)                                                               \
  scale<<<(n + 255) / 256, 256>>>(x, t, n);                                                        \
  add<<<(n + 255) / 256, 256>>>(t, y, o, n);                                                       \
  cudaDeviceSynchronize();                                                                         \
  scale<<<(n + 255) / 256, 256>>>(x, t, n);                                                        \
  add<<<(n + 255) / 256, 256>>>(t, o, o, n)
// CHECK-LABEL: define {{.*}}void @_Z8by_macroPKfPfS0_S1_i(
// CHECK-NOT: kf_rt_launch_seq
// CHECK: ret void
void by_macro(const float *x, float *t, const float *y, float *o, int n) {
  // MANIFEST: missed _Z8by_macroPKfPfS0_S1_i [[@LINE+4]] 2 0 1 another launch sequence of the same host function starts at the same line and column
  // MANIFEST: missed _Z8by_macroPKfPfS0_S1_i [[@LINE+3]] 2 0 1 another launch sequence
  // REMARK: seq-corners.cu:[[@LINE+2]]:3: remark: 2 launches (scale, add) left as they are: the device code has no fused kernel for them; launches 0..1 not fused: another launch sequence
  // REMARK: seq-corners.cu:[[@LINE+1]]:3: remark: 2 launches (scale, add) left as they are: the device code has no fused kernel for them; launches 0..1 not fused: another launch sequence
  TWO_SEQUENCES(x, t, y, o, n);
}
// MANIFEST-NOT: group
// REMARK-NOT: handed
