# Install rules for the CMake package (find_package(kfuse) + kfuse_enable()).
