/* branch_order: consumers that store an intermediate on one side of a branch
 * and read it on the other. The device pass runs the store side first and
 * the fallback load (where no stage stored) after it, joined at a
 * `kfuse.ordered` block (pass/llvm/FusedKernel.cpp; bench/HISTORY.md, GPU
 * run 15); these shapes exercise that rewrite. Every producer stores t only
 * where x > 0.5, so each consumer also reads t's initial contents.
 *
 *   twice     if (y < 0) { t = y; t = t * 2; }  o = t + 1
 *   nested    the diamond inside `i % 3 != 0`; o untouched elsewhere
 *   early     if (y < 0) { t = y; o = y; return; }  o = t
 *   loadfirst if (y >= 0) o = t; else { t = y; o = y; }
 *   chain     if (y < -1) t = y; else if (y > 1) t = -y;  o = 3 t
 *   switched  switch ((int)y): 0 stores t, 1 writes o and returns (not ordered: a switch)
 *   twophase  if (y < 0) t = y; else o = t;  if (y < 0.5) t = t + 1;  o += t
 *   record    float2 records, the field .a stored on one side, both read after
 *
 * Fused and unfused runs must agree bit for bit (tools/gpu-check), and with
 * the host reference below, which computes each value with the same single
 * float operations. */
#include "common.h"
#include "kfuse_example.h"

#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x

__global__ KFUSE_MAP void produce(const float *x, float *t, int n)
{
  IDX;
  if (i < n && x[i] > 0.5f)
    t[i] = x[i] * 2.0f;
}

__global__ KFUSE_MAP void twice(float *t, const float *y, float *o, int n)
{
  IDX;
  if (i < n) {
    float w = y[i];
    if (w < 0.0f) {
      t[i] = w;
      t[i] = t[i] * 2.0f;
    }
    o[i] = t[i] + 1.0f;
  }
}

__global__ KFUSE_MAP void nested(float *t, const float *y, float *o, int n)
{
  IDX;
  if (i < n && i % 3 != 0) {
    if (y[i] < 0.0f)
      t[i] = y[i];
    o[i] = t[i] + 1.0f;
  }
}

__global__ KFUSE_MAP void early(float *t, const float *y, float *o, int n)
{
  IDX;
  if (i >= n)
    return;
  float w = y[i];
  if (w < 0.0f) {
    t[i] = w;
    o[i] = w;
    return;
  }
  o[i] = t[i];
}

__global__ KFUSE_MAP void loadfirst(float *t, const float *y, float *o, int n)
{
  IDX;
  if (i >= n)
    return;
  float w = y[i];
  if (w >= 0.0f) {
    o[i] = t[i];
  } else {
    t[i] = w;
    o[i] = w;
  }
}

__global__ KFUSE_MAP void chain(float *t, const float *y, float *o, int n)
{
  IDX;
  if (i >= n)
    return;
  float w = y[i];
  if (w < -1.0f)
    t[i] = w;
  else if (w > 1.0f)
    t[i] = -w;
  o[i] = t[i] * 3.0f;
}

__global__ KFUSE_MAP void switched(float *t, const float *y, float *o, int n)
{
  IDX;
  if (i >= n)
    return;
  switch ((int)y[i]) {
  case 0:
    t[i] = 1.0f;
    break;
  case 1:
    o[i] = 2.0f;
    return;
  default:
    break;
  }
  o[i] = t[i];
}

__global__ KFUSE_MAP void twophase(float *t, const float *y, float *o, int n)
{
  IDX;
  if (i >= n)
    return;
  float w = y[i];
  if (w < 0.0f)
    t[i] = w;
  else
    o[i] = t[i];
  if (w < 0.5f)
    t[i] = t[i] + 1.0f;
  o[i] += t[i];
}

struct Pair {
  float a, b;
};

__global__ KFUSE_MAP void produce_pair(const float *x, Pair *t, int n)
{
  IDX;
  if (i < n) {
    float v = x[i];
    if (v > 0.5f)
      t[i].a = v;
    t[i].b = -v;
  }
}

__global__ KFUSE_MAP void record(Pair *t, const float *y, float *o, int n)
{
  IDX;
  if (i < n) {
    if (y[i] < 0.0f)
      t[i].a = y[i];
    o[i] = t[i].a + t[i].b;
  }
}

#define SEQ(name, consumer)                                                                   \
  static void name##_seq(const float *x, const float *y, float *t, float *o, int n, int block, \
                         cudaStream_t s)                                                      \
  {                                                                                           \
    unsigned grid = kfx::grid_for(n, block);                                                  \
    produce<<<grid, block, 0, s>>>(x, t, n);                                                  \
    consumer<<<grid, block, 0, s>>>(t, y, o, n);                                              \
  }
SEQ(twice, twice)
SEQ(nested, nested)
SEQ(early, early)
SEQ(loadfirst, loadfirst)
SEQ(chain, chain)
SEQ(switched, switched)
SEQ(twophase, twophase)
#undef SEQ

static void record_seq(const float *x, const float *y, Pair *t, float *o, int n, int block,
                       cudaStream_t s)
{
  unsigned grid = kfx::grid_for(n, block);
  produce_pair<<<grid, block, 0, s>>>(x, t, n);
  record<<<grid, block, 0, s>>>(t, y, o, n);
}

enum { TWICE, NESTED, EARLY, LOADFIRST, CHAIN, SELECT, TWOPHASE, NSEQ };

int main(int argc, char **argv)
{
  kfx::Args a = kfx::parse_args(argc, argv, "branch_order", 1 << 24);
  kfx::require_device("branch_order");
  const size_t n = (size_t)a.n;
  kfx::Buf<float> x(n), y(n), t_init(n);
  kfx::Buf<Pair> tp_init(n), tp(n);
  kfx::fill_uniform(x.h, a.seed, 1, -2.0, 2.0);
  kfx::fill_uniform(y.h, a.seed, 2, -2.0, 2.0);
  kfx::fill_uniform(t_init.h, a.seed, 3, -2.0, 2.0);
  for (size_t i = 0; i < n; i++)
    tp_init.h[i] = {t_init.h[i], -t_init.h[i]};
  x.upload();
  y.upload();
  t_init.upload();
  tp_init.upload();
  std::vector<kfx::Buf<float> *> t, o;
  for (int k = 0; k < NSEQ; k++)
    t.push_back(new kfx::Buf<float>(n));
  for (int k = 0; k < NSEQ + 1; k++)
    o.push_back(new kfx::Buf<float>(n));
  cudaStream_t s;
  KFX_CHECK(cudaStreamCreate(&s));

  auto check = [&] {
    std::vector<float> rt[NSEQ], ro[NSEQ + 1], rp(2 * n);
    for (int k = 0; k < NSEQ; k++)
      rt[k].resize(n), ro[k].resize(n);
    ro[NSEQ].resize(n);
    for (size_t i = 0; i < n; i++) {
      const float v = x.h[i], w = y.h[i], t0 = t_init.h[i];
      const float p = v > 0.5f ? v * 2.0f : t0;
      rt[TWICE][i] = w < 0.0f ? w * 2.0f : p;
      ro[TWICE][i] = rt[TWICE][i] + 1.0f;
      rt[NESTED][i] = i % 3 != 0 && w < 0.0f ? w : p;
      ro[NESTED][i] = i % 3 != 0 ? rt[NESTED][i] + 1.0f : 0.0f;
      rt[EARLY][i] = rt[LOADFIRST][i] = w < 0.0f ? w : p;
      ro[EARLY][i] = ro[LOADFIRST][i] = rt[EARLY][i];
      rt[CHAIN][i] = w < -1.0f ? w : w > 1.0f ? -w : p;
      ro[CHAIN][i] = rt[CHAIN][i] * 3.0f;
      const int sel = (int)w;
      rt[SELECT][i] = sel == 0 ? 1.0f : p;
      ro[SELECT][i] = sel == 1 ? 2.0f : rt[SELECT][i];
      const float t1 = w < 0.0f ? w : p, o1 = w < 0.0f ? 0.0f : p;
      rt[TWOPHASE][i] = w < 0.5f ? t1 + 1.0f : t1;
      ro[TWOPHASE][i] = o1 + rt[TWOPHASE][i];
      const float pa = v > 0.5f ? v : t0, ra = w < 0.0f ? w : pa;
      rp[2 * i] = ra;
      rp[2 * i + 1] = -v;
      ro[NSEQ][i] = ra + -v;
    }
    static const char *name[NSEQ + 1] = {"twice", "nested", "early", "ldfrst", "chain",
                                         "switch", "2phase", "record"};
    bool ok = true;
    for (int k = 0; k < NSEQ; k++) {
      ok = kfx::check_close(name[k], t[k]->h.data(), rt[k].data(), n, 0) && ok;
      ok = kfx::check_close(name[k], o[k]->h.data(), ro[k].data(), n, 0) && ok;
    }
    ok = kfx::check_close("pairs", (const float *)tp.h.data(), rp.data(), 2 * n, 0) && ok;
    return kfx::check_close(name[NSEQ], o[NSEQ]->h.data(), ro[NSEQ].data(), n, 0) && ok;
  };
  int rc = kfx::run_and_report(
      "branch_order", a, s, (double)NSEQ * 5.0 * n * sizeof(float) + 7.0 * n * sizeof(float),
      [&] {
        for (int k = 0; k < NSEQ; k++)
          KFX_CHECK(cudaMemcpyAsync(t[k]->d, t_init.d, t_init.bytes(), cudaMemcpyDeviceToDevice, s));
        KFX_CHECK(cudaMemcpyAsync(tp.d, tp_init.d, tp_init.bytes(), cudaMemcpyDeviceToDevice, s));
        for (int k : {NESTED, TWOPHASE})
          KFX_CHECK(cudaMemsetAsync(o[k]->d, 0, o[k]->bytes(), s));
        twice_seq(x.d, y.d, t[TWICE]->d, o[TWICE]->d, (int)n, a.block, s);
        nested_seq(x.d, y.d, t[NESTED]->d, o[NESTED]->d, (int)n, a.block, s);
        early_seq(x.d, y.d, t[EARLY]->d, o[EARLY]->d, (int)n, a.block, s);
        loadfirst_seq(x.d, y.d, t[LOADFIRST]->d, o[LOADFIRST]->d, (int)n, a.block, s);
        chain_seq(x.d, y.d, t[CHAIN]->d, o[CHAIN]->d, (int)n, a.block, s);
        switched_seq(x.d, y.d, t[SELECT]->d, o[SELECT]->d, (int)n, a.block, s);
        twophase_seq(x.d, y.d, t[TWOPHASE]->d, o[TWOPHASE]->d, (int)n, a.block, s);
        record_seq(x.d, y.d, tp.d, o[NSEQ]->d, (int)n, a.block, s);
      },
      check, *t[TWICE], *o[TWICE], *t[NESTED], *o[NESTED], *t[EARLY], *o[EARLY], *t[LOADFIRST],
      *o[LOADFIRST], *t[CHAIN], *o[CHAIN], *t[SELECT], *o[SELECT], *t[TWOPHASE], *o[TWOPHASE], tp,
      *o[NSEQ]);
  KFX_CHECK(cudaStreamDestroy(s));
  for (kfx::Buf<float> *b : t)
    delete b;
  for (kfx::Buf<float> *b : o)
    delete b;
  return rc;
}
