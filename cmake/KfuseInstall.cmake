# Install rules and the CMake package: after `cmake --install`, a project does
#   find_package(kfuse CONFIG REQUIRED)
#   kfuse_enable(my_cuda_target)
# to compile the target's CUDA sources with both plugins and link the runtime.
include(CMakePackageConfigHelpers)

set(KFUSE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/kfuse)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/kfuseConfig.cmake.in
  ${PROJECT_BINARY_DIR}/kfuseConfig.cmake
  INSTALL_DESTINATION ${KFUSE_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/kfuseConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kfuseConfig.cmake ${PROJECT_BINARY_DIR}/kfuseConfigVersion.cmake
        DESTINATION ${KFUSE_INSTALL_CMAKEDIR})
# The wrapper made for the install tree (tools/CMakeLists.txt), not the
# build tree's, which names the build's plugins and the source's headers.
install(PROGRAMS ${PROJECT_BINARY_DIR}/kfuse-clang++.install DESTINATION ${CMAKE_INSTALL_BINDIR}
        RENAME kfuse-clang++)
if(TARGET kfuse_rt)
  install(TARGETS kfuse_rt ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
