/* The kfuse_map attribute for the example programs, spelled so that the
 * same source builds with the kfuse plugins (fused) and without them. */
#ifndef KFUSE_EXAMPLE_H
#define KFUSE_EXAMPLE_H

/* Without -fplugin=libkfuse_clang.so clang does not know the attribute and
 * would warn about it; __has_attribute also sees attributes that plugins
 * register, so the plugin build gets the real attribute. */
#ifndef KFUSE_MAP
#if defined(__has_attribute)
#if __has_attribute(kfuse_map)
#define KFUSE_MAP __attribute__((kfuse_map))
#endif
#endif
#endif
#ifndef KFUSE_MAP
#define KFUSE_MAP
#endif

#endif
