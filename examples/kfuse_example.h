/* The kfuse_map attribute for the GPU test programs and kfuse-bench, which
 * include this name; the definition is the public header's. */
#ifndef KFUSE_EXAMPLE_H
#define KFUSE_EXAMPLE_H

#include "kfuse/kfuse.h"

#endif
