/* The cost model: roofline time of a group from a device profile, or the sum
 * of per-routine timing tables (psi of Fousek et al.), plus launch overhead.
 * Occupancy from registers, shared memory and block size scales throughput. */
#include <math.h>
#include <string.h>
#include "plan_int.h"

struct kf_model {
  kf_profile_t prof;
  kf_model_kind_t kind;
  kf_cost_fn fn;
  void *user;
};

int kf_model_create(kf_model **out, const kf_profile_t *prof, kf_model_kind_t kind)
{
  if (!out || (kind != KF_MODEL_ROOFLINE && kind != KF_MODEL_PSI))
    return KF_EINVAL;
  if (prof && kf__profile_check(prof, NULL, 0))
    return KF_ERANGE;
  kf_model *m = calloc(1, sizeof *m);
  if (!m)
    return KF_ENOMEM;
  if (prof)
    m->prof = *prof;
  else
    kf_profile_default(&m->prof);
  m->kind = kind;
  *out = m;
  return 0;
}

void kf_model_destroy(kf_model *m) { free(m); }

void kf_model_set_cost(kf_model *m, kf_cost_fn fn, void *user)
{
  if (!m)
    return;
  m->fn = fn;
  m->user = user;
}

const kf_profile_t *kf_model_profile(const kf_model *m) { return m ? &m->prof : NULL; }

/* psi(routine, ipb, extra shared): the entry with the nearest instances per
 * block, then the smallest extra shared memory covering the request (the
 * largest measured if none covers it). Negative if the routine is unknown. */
static double kf__psi_lookup(const kf_problem *p, const char *r, int ipb, int smem)
{
  int best = -1;
  for (int i = 0; i < p->npsi; i++) {
    const kf__psi *e = &p->psi[i];
    if (strcmp(e->routine, r) != 0)
      continue;
    if (best < 0) {
      best = i;
      continue;
    }
    const kf__psi *b = &p->psi[best];
    int de = abs(e->ipb - ipb), db = abs(b->ipb - ipb);
    if (de != db) {
      if (de < db)
        best = i;
      continue;
    }
    int ce = e->smem >= smem, cb = b->smem >= smem;
    if (ce != cb ? ce : (ce ? e->smem < b->smem : e->smem > b->smem))
      best = i;
  }
  return best < 0 ? -1.0 : p->psi[best].seconds;
}

int kf_model_estimate(const kf_model *m, const kf_problem *p, const int *order,
                      const int *variants, int n, kf_estimate_t *out)
{
  if (!m || !p || !order || !variants || !out || n < 1 || n > KF__MAXK)
    return KF_EINVAL;
  for (int i = 0; i < n; i++)
    if (order[i] < 0 || order[i] >= p->nl || variants[i] < 0 ||
        variants[i] >= kf__variant_count(p, order[i]))
      return KF_EINVAL;
  memset(out, 0, sizeof *out);
  if (m->fn)
    return m->fn(m->user, p, order, variants, n, out);
  const kf_profile_t *pr = &m->prof;
  const kf__variant *v[KF__MAXK];
  int ipb = 1 << 30, maxtpi = 1, regs = 0, own = 0;
  for (int i = 0; i < n; i++) {
    v[i] = kf__variant_of(p, order[i], variants[i]);
    if (v[i]->ipb < ipb)
      ipb = v[i]->ipb;
    if (v[i]->tpi > maxtpi)
      maxtpi = v[i]->tpi;
    if (v[i]->regs > regs)
      regs = v[i]->regs;
    if (v[i]->smem > own)
      own = v[i]->smem;
  }
  /* The block: the seed paper's holds every member's threads, lowering the
   * instances per block to fit; kfuse's (kf_problem_set_fused_block) has
   * at most fused_block threads, and a member with more loops over them. */
  long long want = (long long)ipb * maxtpi;
  int tpb;
  out->time = INFINITY;
  if (p->fused_block > 0) {
    int cap = p->fused_block < pr->max_threads_per_block ? p->fused_block
                                                          : pr->max_threads_per_block;
    tpb = want < cap ? (int)want : cap;
  } else {
    if (want > pr->max_threads_per_block)
      ipb = pr->max_threads_per_block / maxtpi;
    if (ipb < 1)
      return 0;
    tpb = ipb * maxtpi;
  }
  int st[64], en[64], sz[64], off[64];
  int nst = n > 1 ? kf__staging_intervals(p, order, n, st, en, sz, 64) : 0;
  int extent = kf__allocate(st, en, sz, nst, off);
  out->staging_bytes = extent;
  out->fragmentation = extent - kf__live_peak(st, en, sz, nst);
  double smem = (double)extent * ipb + own;
  out->shared_bytes = smem > 2e9 ? 2000000000 : (int)smem;
  out->instances_per_block = ipb;
  out->threads_per_block = tpb;
  if (smem > pr->shared_per_block)
    return 0;
  long long warps_regs = (long long)((regs + 7) / 8 * 8) * ((tpb + 31) / 32 * 32);
  int blocks = pr->max_blocks_per_sm;
  if (pr->max_threads_per_sm / tpb < blocks)
    blocks = pr->max_threads_per_sm / tpb;
  if (pr->regs_per_sm / warps_regs < blocks)
    blocks = (int)(pr->regs_per_sm / warps_regs);
  if (smem > 0 && (int)(pr->shared_per_sm / smem) < blocks)
    blocks = (int)(pr->shared_per_sm / smem);
  if (blocks < 1)
    return 0;
  out->occupancy = (double)blocks * tpb / pr->max_threads_per_sm;
  /* Halo recomputation: a member that writes a buffer a later member reads
   * at neighbouring instances runs again, in every block, for the widest
   * such halo: its loads and flops count (1 + halo / ipb) times. */
  double again[KF__MAXK];
  for (int i = 0; i < n; i++) {
    const kf__launch *l = &p->l[order[i]];
    int h = 0;
    for (int a = 0; a < l->nacc; a++)
      for (int q = i + 1; q < n && (l->acc[a].mode & KF_WRITE); q++) {
        const kf__launch *lq = &p->l[order[q]];
        for (int c = 0; c < lq->nacc; c++)
          if (lq->acc[c].buffer == l->acc[a].buffer && lq->acc[c].halo > h)
            h = lq->acc[c].halo;
      }
    again[i] = 1.0 + (double)h / ipb;
  }
  /* Global traffic: each buffer loaded once if read before the group writes
   * it, stored unless dead after the sequence with every access inside. */
  double bytes = 0, inst_max = 0;
  double mem_psi = 0, comp_psi = 0;
  int psi_ok = m->kind == KF_MODEL_PSI;
  for (int i = 0; i < n; i++) {
    const kf__launch *l = &p->l[order[i]];
    if (l->instances > inst_max)
      inst_max = l->instances;
    for (int a = 0; a < l->nacc; a++) {
      const kf__access *ac = &l->acc[a];
      int b = ac->buffer, written_before = 0, read_before = 0, users = 0;
      int written_after = 0;
      for (int q = 0; q < n; q++) {
        const kf__launch *lq = &p->l[order[q]];
        for (int c = 0; c < lq->nacc; c++) {
          if (lq->acc[c].buffer != b)
            continue;
          users++;
          if (q < i && (lq->acc[c].mode & KF_WRITE))
            written_before = 1;
          if (q < i && (lq->acc[c].mode & KF_READ))
            read_before = 1;
          if (q > i && (lq->acc[c].mode & KF_WRITE))
            written_after = 1;
        }
      }
      double t = 0;
      if ((ac->mode & KF_READ) && !written_before && !read_before)
        t += ac->bytes * l->instances * again[i];
      if ((ac->mode & KF_WRITE) && !written_after &&
          !(p->b[b].dead_after && users == p->b[b].users && n > 1))
        t += ac->bytes * l->instances;
      /* A group writing a buffer keeps its last store only. */
      bytes += t;
      if (psi_ok && t > 0) {
        double s = ac->psi ? kf__psi_lookup(p, ac->psi, ipb, extent * ipb) : -1;
        if (s < 0)
          s = t / pr->bandwidth;
        mem_psi += s;
      }
    }
  }
  double peak = pr->sm_count * pr->clock_hz * pr->flops_per_cycle_per_sm;
  double nblocks = ceil(inst_max / ipb);
  double fill = nblocks / ((double)pr->sm_count * blocks);
  double eff = fmin(1.0, out->occupancy / pr->hide_occupancy) * fmin(1.0, fill > 0 ? fill : 1);
  double comp = 0, flops = 0;
  for (int i = 0; i < n; i++) {
    double f = v[i]->flops * p->l[order[i]].instances * again[i];
    /* Idle threads of the stage: of its trips over the block, the last
     * may be partly empty, and with fewer threads than the block some of
     * the block idles throughout. */
    double virt = (double)v[i]->tpi * ipb;
    double util = virt / (ceil(virt / tpb) * tpb);
    flops += f;
    double t = f / (peak * util);
    if (psi_ok) {
      double s = v[i]->psi_compute ? kf__psi_lookup(p, v[i]->psi_compute, ipb,
                                             extent * ipb + own - v[i]->smem) : -1;
      comp_psi += s >= 0 ? s : t / eff;
    }
    comp += t;
  }
  out->bytes = bytes;
  out->flops = flops;
  if (psi_ok) {
    out->memory_time = mem_psi;
    out->compute_time = comp_psi;
  } else {
    out->memory_time = bytes / (pr->bandwidth * eff);
    out->compute_time = comp / eff;
  }
  out->time = fmax(out->memory_time, out->compute_time);
  if (psi_ok) {
    /* Block dispatch of the group's configuration (the routines' tables
     * leave it out), overlapped with the work like memory and compute. */
    double disp = kf__psi_lookup(p, KF_PSI_DISPATCH, ipb, extent * ipb + own);
    if (disp > out->time)
      out->time = disp;
  }
  out->time += pr->launch_overhead;
  return 0;
}
