# lit configuration for kfuse. Substitutions:
#   %clang_cuda_dev   clang++ -cc1-level CUDA device compile of %s with the Clang plugin
#   %clang_cuda       clang++ in CUDA mode (no plugins); add %kfuse_plugins yourself
#   %clangxx          clang++ itself (links objects), %cuda_path the toolkit
#   %kfuse_plugins    -fplugin=<clang plugin> -fpass-plugin=<llvm plugin>
#   %kfuse_clang_plugin, %kfuse_llvm_plugin, %opt, %ptxas, %nvlink, %fatbinary, %cuda_arch,
#   %cuda_sm (the number of %cuda_arch, as fatbinary's --image3=...,sm= takes it)
#   %cuda_path (the CUDA toolkit)
import os
import lit.formats

config.name = "kfuse"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".ll", ".cu", ".c", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kfuse_obj_root, "tests", "lit")

config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])

clangxx = os.path.join(config.llvm_tools_dir, "clang++")
cuda_flags = ("-x cuda --cuda-path=%s --cuda-gpu-arch=%s -Wno-unknown-cuda-version -nocudalib"
              % (config.cuda_path, config.cuda_arch))
plugins = "-fplugin=%s -fpass-plugin=%s" % (config.kfuse_clang_plugin, config.kfuse_llvm_plugin)

# clang 22 passes -target-sdk-version only to the host cc1 for a CUDA newer than
# it knows (13.0); with -nocudalib the device cc1 then expects the pre-9.2 launch
# API (cudaConfigureCall) and rejects every <<<...>>>. State the version on both.
config.substitutions.append(("%kfuse_cuda_sdk", "-Xclang -target-sdk-version=12.9"))
config.substitutions.append(("%kfuse_plugins", plugins))
config.substitutions.append(("%kfuse_clang_plugin", config.kfuse_clang_plugin))
config.substitutions.append(("%kfuse_llvm_plugin", config.kfuse_llvm_plugin))
config.substitutions.append(("%clang_cuda", "%s %s" % (clangxx, cuda_flags)))
config.substitutions.append(("%opt", os.path.join(config.llvm_tools_dir, "opt")))
config.substitutions.append(("%clangxx", clangxx))
config.substitutions.append(("%cuda_path", config.cuda_path))
config.substitutions.append(("%cuda_arch", config.cuda_arch))
config.substitutions.append(("%cuda_path", config.cuda_path))
config.substitutions.append(("%cuda_sm", config.cuda_arch.replace("sm_", "")))
config.substitutions.append(("%kfuse_obj_root", config.kfuse_obj_root))
config.substitutions.append(("%kfuse_src_root", config.kfuse_src_root))

if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))
# nvlink sits next to ptxas in the toolkit; clang's offload linker
# (clang-linker-wrapper) drives it for -fgpu-rdc programs.
nvlink = os.path.join(os.path.dirname(config.ptxas), "nvlink") if config.ptxas else ""
if nvlink and os.path.exists(nvlink) and os.path.exists(os.path.join(config.llvm_tools_dir, "clang-linker-wrapper")):
    config.available_features.add("nvlink")
    config.substitutions.append(("%nvlink", nvlink))
if config.fatbinary and os.path.exists(config.fatbinary):
    config.available_features.add("fatbinary")
    config.substitutions.append(("%fatbinary", config.fatbinary))
if os.path.exists(os.path.join(config.cuda_path, "include", "cuda_runtime.h")):
    config.available_features.add("cuda")
