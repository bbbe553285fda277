/* Footprint expressions of the manifest ("4*s3", "min(gx*bx,s2)*8"):
 * compiled once to a postfix program, evaluated per launch. */
#ifndef KFUSE_MANIFEST_EXPR_H
#define KFUSE_MANIFEST_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "kfuse/rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kf__expr kf__expr_t;

/**
 * Compiles the @p len bytes at @p text (no NUL needed). Grammar: decimal
 * constants, symbols gx gy gz bx by bz s<p> (kernel argument p, an integer
 * read sign-extended) and s<p>.<off>.<bytes> (the integer of 1, 2, 4 or 8
 * bytes at byte off of argument p, a by-value aggregate, sign-extended),
 * binary + - * /, unary -,
 * parentheses, min(a,b), max(a,b); no spaces. a/b rounds toward minus
 * infinity; a divisor that is not positive fails the evaluation.
 * @param out receives the program; free it with kf__expr_free().
 * @returns 0, KF_EPARSE for malformed text or an unknown symbol, KF_ERANGE
 * for a constant beyond int64 or an expression too deep/long, KF_ENOMEM.
 */
int kf__expr_compile(const char *text, size_t len, kf__expr_t **out);

/**
 * Evaluates @p e for launch @p l (grid/block and its scalar arguments; s<p>
 * reads argument p as a signed 1-, 2-, 4- or 8-byte integer) in 128-bit
 * arithmetic with overflow checks.
 * @returns 0 and the value in @p out; KF_EINVAL when s<p> names a missing
 * argument or one of another size; KF_ERANGE on overflow or a result beyond int64.
 */
int kf__expr_eval(const kf__expr_t *e, const kf_launch_t *l, int64_t *out);

/** @returns nonzero when @p a and @p b are the same program (so evaluate
 * alike on every launch); 0 when either is NULL. */
int kf__expr_same(const kf__expr_t *a, const kf__expr_t *b);

/** Frees @p e; NULL is fine. */
void kf__expr_free(kf__expr_t *e);

#ifdef __cplusplus
}
#endif
#endif
