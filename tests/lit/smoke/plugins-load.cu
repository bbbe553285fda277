// Both plugins load into a CUDA compilation and leave a kernel-free file alone.
// RUN: %clang_cuda %kfuse_plugins --cuda-device-only -O2 -S -emit-llvm %s -o - | FileCheck %s
// CHECK: target triple = "nvptx64-nvidia-cuda"
int host_only(int x) { return x + 1; }
