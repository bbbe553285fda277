# Building CUDA programs with kfuse-clang++ from CMake custom commands, used by
# examples/, tests/gpu/ and kfuse-bench. Each program is built fused (the
# plugins on, linked with libkfuse_rt) and unfused (KFUSE_NO_PLUGINS=1).
# Each of those directories includes this file (no include guard: the
# variables below must be set in each includer's scope).

set(KFUSE_CXX_DRIVER ${PROJECT_BINARY_DIR}/bin/kfuse-clang++)
set(KFUSE_PROGRAM_FLAGS -O2 -std=c++17 -Wall -Wextra
    -I${PROJECT_SOURCE_DIR}/examples -I${PROJECT_SOURCE_DIR}/include)
# Without the runtime the fused variant could not link once the host pass
# emits kf_rt_launch_seq calls, so then only the unfused variant is built.
if(TARGET kfuse_rt)
  set(KFUSE_HAVE_RT ON)
  set(KFUSE_FUSED_DEPS kfuse_clang kfuse_llvm kfuse_rt)
else()
  set(KFUSE_HAVE_RT OFF)
  set(KFUSE_FUSED_DEPS kfuse_clang kfuse_llvm)
endif()
find_program(KFUSE_PTXAS ptxas HINTS ${KFUSE_CUDA_PATH}/bin)

# Every program these functions build, as <dir>/<name> relative to the build
# directory's bin/, one per line in bin/kfuse-programs.txt (written at
# configure time): tools/gpu-check runs exactly these, never a binary left
# in bin/ by a program that no longer exists.
function(kfuse_program_list_add outdir name)
  file(RELATIVE_PATH rel ${PROJECT_BINARY_DIR}/bin ${outdir}/${name})
  set_property(GLOBAL APPEND PROPERTY KFUSE_PROGRAMS ${rel})
  get_property(all GLOBAL PROPERTY KFUSE_PROGRAMS)
  list(SORT all)
  list(JOIN all "\n" text)
  file(WRITE ${PROJECT_BINARY_DIR}/bin/kfuse-programs.txt "${text}\n")
endfunction()

# kfuse_cuda_program(<name> SOURCE <file.cu> | SOURCES <files.cu...> OUTDIR <dir>
#                    [HEADERS <files...>] [FLAGS <flags...>] [TARGET <custom-target>])
# Builds <OUTDIR>/<name> (fused, when the runtime exists) and
# <OUTDIR>/<name>.unfused, and adds them to the custom target (default
# kfuse_<name>, built by `all`). Several SOURCES are compiled and linked in
# one kfuse-clang++ command, as separate translation units; FLAGS go to
# compile and link (-fgpu-rdc: relocatable device code, linked by clang's
# offload linker).
function(kfuse_cuda_program name)
  cmake_parse_arguments(P "" "SOURCE;OUTDIR;TARGET" "SOURCES;HEADERS;FLAGS" ${ARGN})
  if(NOT P_TARGET)
    set(P_TARGET kfuse_${name})
  endif()
  set(srcs ${P_SOURCE} ${P_SOURCES})
  kfuse_program_list_add(${P_OUTDIR} ${name})
  set(outs ${P_OUTDIR}/${name}.unfused)
  add_custom_command(OUTPUT ${P_OUTDIR}/${name}.unfused
    COMMAND ${CMAKE_COMMAND} -E make_directory ${P_OUTDIR}
    COMMAND ${CMAKE_COMMAND} -E env KFUSE_NO_PLUGINS=1
            ${KFUSE_CXX_DRIVER} ${KFUSE_PROGRAM_FLAGS} ${P_FLAGS} ${srcs} -o ${P_OUTDIR}/${name}.unfused
    DEPENDS ${srcs} ${P_HEADERS} ${KFUSE_CXX_DRIVER}
    COMMENT "kfuse-clang++ (unfused) ${name}" VERBATIM)
  if(KFUSE_HAVE_RT)
    list(APPEND outs ${P_OUTDIR}/${name})
    add_custom_command(OUTPUT ${P_OUTDIR}/${name}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${P_OUTDIR}
      COMMAND ${KFUSE_CXX_DRIVER} ${KFUSE_PROGRAM_FLAGS} ${P_FLAGS} ${srcs} -o ${P_OUTDIR}/${name}
      DEPENDS ${srcs} ${P_HEADERS} ${KFUSE_CXX_DRIVER} ${KFUSE_FUSED_DEPS}
      COMMENT "kfuse-clang++ (fused) ${name}" VERBATIM)
  endif()
  add_custom_target(${P_TARGET} ALL DEPENDS ${outs})
endfunction()

# Inside a function building each variant of program <name> into <outdir>:
# kfuse__variants() sets `variants` (unfused, and fused where the runtime
# exists); kfuse__variant(<variant> <name> <outdir>) sets `env` (what the
# variant's commands run under), `deps` (the plugin and runtime targets of
# the fused one), `suffix` ("" or ".unfused") and `out` (the program).
macro(kfuse__variants)
  set(variants unfused)
  if(KFUSE_HAVE_RT)
    list(APPEND variants fused)
  endif()
endmacro()
macro(kfuse__variant variant name outdir)
  if("${variant}" STREQUAL "fused")
    set(env)
    set(deps ${KFUSE_FUSED_DEPS})
    set(suffix "")
  else()
    set(env KFUSE_NO_PLUGINS=1)
    set(deps)
    set(suffix .unfused)
  endif()
  set(out ${outdir}/${name}${suffix})
endmacro()

# kfuse_cuda_rdc_program(<name> SOURCES <file.cu...> OUTDIR <dir>
#                        [HEADERS <files...>] [TARGET <custom-target>])
# Like kfuse_cuda_program, for a program of several files compiled separately
# with -fgpu-rdc (`kfuse-clang++ -fgpu-rdc -c`) and linked by kfuse-clang++,
# whose link runs the device link: the files may call each other's
# __device__ functions.
function(kfuse_cuda_rdc_program name)
  cmake_parse_arguments(P "" "OUTDIR;TARGET" "SOURCES;HEADERS" ${ARGN})
  if(NOT P_TARGET)
    set(P_TARGET kfuse_${name})
  endif()
  kfuse_program_list_add(${P_OUTDIR} ${name})
  kfuse__variants()
  set(outs)
  foreach(variant ${variants})
    set(objdir ${CMAKE_CURRENT_BINARY_DIR}/${name}.${variant})
    kfuse__variant(${variant} ${name} ${P_OUTDIR})
    set(objs)
    foreach(src ${P_SOURCES})
      get_filename_component(base ${src} NAME_WE)
      set(obj ${objdir}/${base}.o)
      add_custom_command(OUTPUT ${obj}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${objdir}
        COMMAND ${CMAKE_COMMAND} -E env ${env}
                ${KFUSE_CXX_DRIVER} ${KFUSE_PROGRAM_FLAGS} -fgpu-rdc -c ${src} -o ${obj}
        DEPENDS ${src} ${P_HEADERS} ${KFUSE_CXX_DRIVER} ${deps}
        COMMENT "kfuse-clang++ (${variant}, -fgpu-rdc) ${name}: ${base}" VERBATIM)
      list(APPEND objs ${obj})
    endforeach()
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${P_OUTDIR}
      COMMAND ${CMAKE_COMMAND} -E env ${env} ${KFUSE_CXX_DRIVER} ${objs} -o ${out}
      DEPENDS ${objs} ${KFUSE_CXX_DRIVER} ${deps}
      COMMENT "Linking ${name} (${variant})" VERBATIM)
    list(APPEND outs ${out})
  endforeach()
  add_custom_target(${P_TARGET} ALL DEPENDS ${outs})
endfunction()

# kfuse_cuda_shlib_program(<name> LIB_SOURCES <files.cu...> SOURCES <files.cu...>
#                          OUTDIR <dir> [HEADERS <files...>] [FLAGS <flags...>]
#                          [TARGET <custom-target>])
# A program linked with a shared library, as kfuse-clang++ builds them: the
# LIB_SOURCES into <OUTDIR>/lib/lib<name>.so (-fPIC -shared, with its own
# device code), the SOURCES into <OUTDIR>/<name>, linked with the library
# and finding it through its rpath ($ORIGIN/lib). The unfused variant's
# library is lib<name>.unfused.so. FLAGS go to every compile and link
# (-fgpu-rdc: relocatable device code in the library and in the program).
function(kfuse_cuda_shlib_program name)
  cmake_parse_arguments(P "" "OUTDIR;TARGET" "LIB_SOURCES;SOURCES;HEADERS;FLAGS" ${ARGN})
  if(NOT P_TARGET)
    set(P_TARGET kfuse_${name})
  endif()
  kfuse_program_list_add(${P_OUTDIR} ${name})
  kfuse__variants()
  set(outs)
  foreach(variant ${variants})
    kfuse__variant(${variant} ${name} ${P_OUTDIR})
    set(soname lib${name}${suffix}.so)
    set(lib ${P_OUTDIR}/lib/${soname})
    add_custom_command(OUTPUT ${lib}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${P_OUTDIR}/lib
      COMMAND ${CMAKE_COMMAND} -E env ${env}
              ${KFUSE_CXX_DRIVER} ${KFUSE_PROGRAM_FLAGS} ${P_FLAGS} -fPIC -shared
              -Wl,-soname,${soname} ${P_LIB_SOURCES} -o ${lib}
      DEPENDS ${P_LIB_SOURCES} ${P_HEADERS} ${KFUSE_CXX_DRIVER} ${deps}
      COMMENT "kfuse-clang++ (${variant}) ${soname}" VERBATIM)
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E env ${env}
              ${KFUSE_CXX_DRIVER} ${KFUSE_PROGRAM_FLAGS} ${P_FLAGS} ${P_SOURCES} ${lib}
              "-Wl,-rpath,$ORIGIN/lib" -o ${out}
      DEPENDS ${P_SOURCES} ${P_HEADERS} ${lib} ${KFUSE_CXX_DRIVER} ${deps}
      COMMENT "kfuse-clang++ (${variant}) ${name}" VERBATIM)
    list(APPEND outs ${lib} ${out})
  endforeach()
  add_custom_target(${P_TARGET} ALL DEPENDS ${outs})
endfunction()

# kfuse_ptx_test(<name> SOURCE <file.cu> [FLAGS <flags>...]): a CTest test that compiles the
# device side with the plugins to PTX, printing the fusion remarks, and
# assembles the PTX with ptxas (no GPU needed).
function(kfuse_ptx_test name)
  cmake_parse_arguments(P "" "SOURCE" "FLAGS" ${ARGN})
  if(NOT KFUSE_BUILD_TESTS OR NOT KFUSE_PTXAS)
    return()
  endif()
  set(ptx ${CMAKE_CURRENT_BINARY_DIR}/${name}.ptx)
  string(JOIN " " flags ${KFUSE_PROGRAM_FLAGS} ${P_FLAGS})
  add_test(NAME ptx.${name}
    COMMAND sh -c "set -e; \"$0\" ${flags} --cuda-device-only -S -Rpass=kfuse -Rpass-missed=kfuse \"$1\" -o \"$2\"; \"$3\" -arch=${KFUSE_CUDA_ARCH} \"$2\" -o \"$2.cubin\""
            ${KFUSE_CXX_DRIVER} ${P_SOURCE} ${ptx} ${KFUSE_PTXAS})
  set_tests_properties(ptx.${name} PROPERTIES LABELS ptx TIMEOUT 300)
endfunction()
