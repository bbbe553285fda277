/* Recursive-descent compiler from footprint expressions to a postfix
 * program, and its evaluator (128-bit, overflow checked). */
#include "manifest/expr.h"

#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 kf__i128;

enum {
  KF__OP_CONST,
  KF__OP_SYM, /* a: 0..5 gx gy gz bx by bz; 6 scalar, param in b */
  KF__OP_ADD,
  KF__OP_SUB,
  KF__OP_MUL,
  KF__OP_NEG,
  KF__OP_MIN,
  KF__OP_MAX,
  KF__OP_DIV /* floor division by a positive divisor */
};

enum { KF__SYM_SCALAR = 6 };

/* Limits that keep a malformed or hostile manifest from costing more than a
 * few microseconds or overflowing the native stack. */
#define KF__EXPR_MAX_OPS 256
#define KF__EXPR_MAX_DEPTH 64
#define KF__EXPR_MAX_STACK 64
#define KF__EXPR_MAX_PARAM 4096
#define KF__EXPR_MAX_FIELD_OFFSET 65535

typedef struct kf__expr_op {
  uint8_t kind;
  uint8_t sym;
  uint32_t param;
  int64_t value;
} kf__expr_op_t;

struct kf__expr {
  uint32_t nops;
  kf__expr_op_t ops[];
};

typedef struct kf__expr_parser {
  const char *p;
  const char *end;
  int depth;
  int stack;     /* values on the evaluation stack after the ops so far */
  int err;
  uint32_t nops;
  kf__expr_op_t *ops; /* KF__EXPR_MAX_OPS entries */
} kf__expr_parser_t;

static void kf__expr_emit(kf__expr_parser_t *ps, kf__expr_op_t op)
{
  if (ps->err)
    return;
  if (ps->nops >= KF__EXPR_MAX_OPS) {
    ps->err = KF_ERANGE;
    return;
  }
  if (op.kind == KF__OP_CONST || op.kind == KF__OP_SYM)
    ps->stack++;
  else if (op.kind != KF__OP_NEG)
    ps->stack--;
  if (ps->stack > KF__EXPR_MAX_STACK) {
    ps->err = KF_ERANGE;
    return;
  }
  ps->ops[ps->nops++] = op;
}

static int kf__expr_peek(const kf__expr_parser_t *ps)
{
  return ps->p < ps->end ? (unsigned char)*ps->p : -1;
}

static int kf__expr_accept(kf__expr_parser_t *ps, char c)
{
  if (kf__expr_peek(ps) == c) {
    ps->p++;
    return 1;
  }
  return 0;
}

static int kf__expr_isdigit(int c) { return c >= '0' && c <= '9'; }
static int kf__expr_isalpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

static void kf__expr_sum(kf__expr_parser_t *ps);

/* Reads decimal digits into *v; fails on none or on a value beyond @p max. */
static void kf__expr_number(kf__expr_parser_t *ps, uint64_t max, uint64_t *v)
{
  uint64_t x = 0;
  const char *start = ps->p;
  while (kf__expr_isdigit(kf__expr_peek(ps))) {
    unsigned d = (unsigned)(*ps->p++ - '0');
    if (x > (max - d) / 10) {
      ps->err = KF_ERANGE;
      return;
    }
    x = x * 10 + d;
  }
  if (ps->p == start)
    ps->err = KF_EPARSE;
  *v = x;
}

static void kf__expr_primary(kf__expr_parser_t *ps)
{
  int c = kf__expr_peek(ps);
  kf__expr_op_t op = {0};
  if (ps->err)
    return;
  if (++ps->depth > KF__EXPR_MAX_DEPTH) {
    ps->err = KF_ERANGE;
    return;
  }
  if (c == '(') {
    ps->p++;
    kf__expr_sum(ps);
    if (!kf__expr_accept(ps, ')'))
      ps->err = ps->err ? ps->err : KF_EPARSE;
  } else if (c == '-') {
    ps->p++;
    kf__expr_primary(ps);
    op.kind = KF__OP_NEG;
    kf__expr_emit(ps, op);
  } else if (kf__expr_isdigit(c)) {
    uint64_t v = 0;
    kf__expr_number(ps, INT64_MAX, &v);
    op.kind = KF__OP_CONST;
    op.value = (int64_t)v;
    kf__expr_emit(ps, op);
  } else if (kf__expr_isalpha(c)) {
    static const char *const dims[] = {"gx", "gy", "gz", "bx", "by", "bz"};
    const char *start = ps->p;
    size_t n;
    while (kf__expr_isalpha(kf__expr_peek(ps)) || kf__expr_isdigit(kf__expr_peek(ps)))
      ps->p++;
    n = (size_t)(ps->p - start);
    if (n == 3 && (memcmp(start, "min", 3) == 0 || memcmp(start, "max", 3) == 0)) {
      if (!kf__expr_accept(ps, '(')) {
        ps->err = KF_EPARSE;
        goto out;
      }
      kf__expr_sum(ps);
      if (!kf__expr_accept(ps, ',')) {
        ps->err = ps->err ? ps->err : KF_EPARSE;
        goto out;
      }
      kf__expr_sum(ps);
      if (!kf__expr_accept(ps, ')')) {
        ps->err = ps->err ? ps->err : KF_EPARSE;
        goto out;
      }
      op.kind = start[1] == 'i' ? KF__OP_MIN : KF__OP_MAX;
      kf__expr_emit(ps, op);
      goto out;
    }
    op.kind = KF__OP_SYM;
    for (int i = 0; i < 6; i++)
      if (n == 2 && memcmp(start, dims[i], 2) == 0) {
        op.sym = (uint8_t)i;
        kf__expr_emit(ps, op);
        goto out;
      }
    if (n >= 2 && start[0] == 's' && kf__expr_isdigit((unsigned char)start[1])) {
      uint64_t param = 0;
      kf__expr_parser_t sub = {start + 1, start + n, 0, 0, 0, 0, NULL};
      kf__expr_number(&sub, KF__EXPR_MAX_PARAM, &param);
      if (sub.err || sub.p != sub.end) {
        ps->err = sub.err == KF_ERANGE ? KF_ERANGE : KF_EPARSE;
        goto out;
      }
      op.sym = KF__SYM_SCALAR;
      op.param = (uint32_t)param;
      /* s<p>.<off>.<bytes>: an integer field of a by-value aggregate. */
      if (kf__expr_accept(ps, '.')) {
        uint64_t off = 0, bytes = 0;
        kf__expr_number(ps, KF__EXPR_MAX_FIELD_OFFSET, &off);
        if (!ps->err && !kf__expr_accept(ps, '.'))
          ps->err = KF_EPARSE;
        if (!ps->err)
          kf__expr_number(ps, 8, &bytes);
        if (!ps->err && bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
          ps->err = KF_EPARSE;
        if (ps->err)
          goto out;
        op.value = (int64_t)(off << 8 | bytes);
      }
      kf__expr_emit(ps, op);
      goto out;
    }
    ps->err = KF_EPARSE; /* unknown symbol */
  } else {
    ps->err = KF_EPARSE;
  }
out:
  ps->depth--;
}

static void kf__expr_product(kf__expr_parser_t *ps)
{
  kf__expr_primary(ps);
  while (!ps->err) {
    kf__expr_op_t op = {0};
    if (kf__expr_accept(ps, '*'))
      op.kind = KF__OP_MUL;
    else if (kf__expr_accept(ps, '/'))
      op.kind = KF__OP_DIV;
    else
      break;
    kf__expr_primary(ps);
    kf__expr_emit(ps, op);
  }
}

static void kf__expr_sum(kf__expr_parser_t *ps)
{
  if (++ps->depth > KF__EXPR_MAX_DEPTH) {
    ps->err = KF_ERANGE;
    return;
  }
  kf__expr_product(ps);
  while (!ps->err) {
    kf__expr_op_t op = {0};
    if (kf__expr_accept(ps, '+'))
      op.kind = KF__OP_ADD;
    else if (kf__expr_accept(ps, '-'))
      op.kind = KF__OP_SUB;
    else
      break;
    kf__expr_product(ps);
    kf__expr_emit(ps, op);
  }
  ps->depth--;
}

int kf__expr_compile(const char *text, size_t len, kf__expr_t **out)
{
  kf__expr_op_t ops[KF__EXPR_MAX_OPS];
  kf__expr_parser_t ps = {text, text + len, 0, 0, 0, 0, ops};
  kf__expr_t *e;
  *out = NULL;
  if (text == NULL || len == 0)
    return KF_EPARSE;
  kf__expr_sum(&ps);
  if (ps.err == 0 && ps.p != ps.end)
    ps.err = KF_EPARSE; /* trailing garbage, such as a stray ')' */
  if (ps.err != 0)
    return ps.err;
  e = malloc(sizeof *e + ps.nops * sizeof ops[0]);
  if (e == NULL)
    return KF_ENOMEM;
  e->nops = ps.nops;
  memcpy(e->ops, ops, ps.nops * sizeof ops[0]);
  *out = e;
  return 0;
}

/* Argument @p p of @p l, sign-extended; with @p field (offset << 8 | bytes,
 * nonzero) the integer of that many bytes at that offset of it. */
static int kf__expr_scalar(const kf_launch_t *l, uint32_t p, int64_t field, kf__i128 *v)
{
  const unsigned char *a;
  uint64_t size;
  if (p >= l->nargs || l->args == NULL || l->arg_sizes == NULL || l->args[p] == NULL)
    return KF_EINVAL;
  a = (const unsigned char *)l->args[p];
  size = l->arg_sizes[p];
  if (field != 0) {
    uint64_t off = (uint64_t)field >> 8;
    size = (uint64_t)field & 0xff;
    if (off + size > l->arg_sizes[p])
      return KF_EINVAL;
    a += off;
  }
  switch (size) {
  case 1: { int8_t x; memcpy(&x, a, 1); *v = x; return 0; }
  case 2: { int16_t x; memcpy(&x, a, 2); *v = x; return 0; }
  case 4: { int32_t x; memcpy(&x, a, 4); *v = x; return 0; }
  case 8: { int64_t x; memcpy(&x, a, 8); *v = x; return 0; }
  default: return KF_EINVAL;
  }
}

/* The stack machine, once per width (manifest/expr_run.inc): in int64, the
 * common case with no 128-bit multiply, returning 1 when an intermediate
 * leaves int64; in 128 bits, where only the result must fit in int64. */
#define KF__RUN_NAME kf__expr_run64
#define KF__RUN_T int64_t
#define KF__RUN_OVERFLOW 1
#include "manifest/expr_run.inc"

#define KF__RUN_NAME kf__expr_run128
#define KF__RUN_T kf__i128
#define KF__RUN_OVERFLOW KF_ERANGE
#include "manifest/expr_run.inc"

int kf__expr_eval(const kf__expr_t *e, const kf_launch_t *l, int64_t *out)
{
  kf__i128 wide;
  int rc;
  if (e == NULL || l == NULL)
    return KF_EINVAL;
  if ((rc = kf__expr_run64(e, l, out)) != 1)
    return rc;
  if ((rc = kf__expr_run128(e, l, &wide)) != 0)
    return rc;
  if (wide > INT64_MAX || wide < INT64_MIN)
    return KF_ERANGE;
  *out = (int64_t)wide;
  return 0;
}

int kf__expr_same(const kf__expr_t *a, const kf__expr_t *b)
{
  if (a == NULL || b == NULL || a->nops != b->nops)
    return 0;
  for (uint32_t i = 0; i < a->nops; i++)
    if (a->ops[i].kind != b->ops[i].kind || a->ops[i].sym != b->ops[i].sym ||
        a->ops[i].param != b->ops[i].param || a->ops[i].value != b->ops[i].value)
      return 0;
  return 1;
}

void kf__expr_free(kf__expr_t *e)
{
  free(e);
}
