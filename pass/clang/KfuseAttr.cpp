//===- KfuseAttr.cpp - the kfuse_map attribute ------------------------------===//
//
// Placeholder registration; the plugin proper lives in this folder.
//
//===----------------------------------------------------------------------===//
#include "clang/Sema/ParsedAttr.h"
