/* kfuse-header.cu's C translation unit: <kfuse/kfuse.h> is C too. */
#include <kfuse/kfuse.h>

#if KFUSE_ENABLED != EXPECT_ENABLED
#error "KFUSE_ENABLED is wrong"
#endif

/* Without the plugin the mark is nothing, wherever it is written. */
KFUSE_MAP void host_function(float *p) { (void)p; }

/* expected-no-diagnostics */
