/* Included by fused.cu's device compile only. */
#define MF_SCALE_FACTOR 1.0f
