/* kf_rt_launch_seq(): the entry point the host pass calls in place of a run
 * of launches. Hot path: one acquire load of the site's published state,
 * the guards, one cuLaunchKernel per fused group; no lock. */
#include "kfuse/rt.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/capture.h"
#include "runtime/cuda_api.h"
#include "runtime/discover.h"
#include "runtime/guard.h"
#include "runtime/launch.h"
#include "runtime/log.h"
#include "runtime/memo.h"
#include "runtime/poison.h"
#include "runtime/scratch.h"
#include "runtime/site.h"
#include "runtime/verify.h"

kf__config_t kf__config;
uint32_t kf__generation;

/* Every site state ever published, newest first, for KFUSE_STATS. */
static kf__site_state_t *kf__sites;

static pthread_once_t kf__rt_once = PTHREAD_ONCE_INIT;

static int kf__env_flag(const char *name)
{
  const char *v = getenv(name);
  return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static void kf__config_load(void)
{
  kf__log_level = kf__log_parse_level(getenv("KFUSE_LOG"));
  kf__config.disable = kf__env_flag("KFUSE_DISABLE");
  kf__config.stats = kf__env_flag("KFUSE_STATS");
  {
    const char *v = getenv("KFUSE_VERIFY");
    int scratch_only = v != NULL && strcmp(v, "scratch") == 0;
    kf__config.verify = kf__env_flag("KFUSE_VERIFY") && !scratch_only;
    kf__config.poison = kf__env_flag("KFUSE_VERIFY");
  }
  kf__config.observe = kf__config.stats || kf__config.verify || kf__config.poison;
  kf__config.plan = 0;
  const char *plan = getenv("KFUSE_PLAN");
  if (plan != NULL && plan[0] != '\0') {
    char *end;
    unsigned long r = strtoul(plan, &end, 10);
    if (*end != '\0' || plan[0] == '-' || plan[0] == '+' || r >= KF_RT_MAX_PLANS)
      kf__log(KF__LOG_WARN, "KFUSE_PLAN=%s is not a plan rank 0..%d: running plan 0", plan,
              KF_RT_MAX_PLANS - 1);
    else
      kf__config.plan = (uint32_t)r;
  }
}

static void kf__stats_atexit(void)
{
  kf__stats_print(stderr);
}

static void kf__rt_init(void)
{
  kf__config_load();
  /* Registered whatever KFUSE_STATS says, so a test reset that turns it on
   * still prints; the handler prints only when it is on. */
  atexit(kf__stats_atexit);
}

char *kf__strdup(const char *s)
{
  size_t n;
  char *d;
  if (s == NULL)
    return NULL;
  n = strlen(s) + 1;
  if ((d = malloc(n)) != NULL)
    memcpy(d, s, n);
  return d;
}

void kf__site_state_free(kf__site_state_t *st)
{
  if (st == NULL)
    return;
  if (st->names != NULL)
    for (uint32_t i = 0; i < st->n; i++)
      free(st->names[i]);
  if (st->segs != NULL)
    for (uint32_t s = 0; s < st->nsegs; s++)
      free(st->segs[s].memo);
  free(st->names);
  free(st->segs);
  free(st);
}

void kf__site_count_fallback(kf__site_state_t *st, kf_fallback_t reason)
{
  __atomic_fetch_add(&st->fallback, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&st->reasons[reason], 1, __ATOMIC_RELAXED);
}

const char *kf_rt_fallback_name(kf_fallback_t reason)
{
  static const char *const names[] = {
#define KF__FALLBACK_TEXT(name, text) text,
    KF_FALLBACK_MAP(KF__FALLBACK_TEXT)
#undef KF__FALLBACK_TEXT
  };
  return (unsigned)reason < KF_FALLBACK_COUNT ? names[reason] : "?";
}

/* The counters of a KFUSE_STATS line: a state's, plus those of the
 * provisional states it succeeded. */
typedef struct kf__stats_sum {
  uint64_t calls, fused, fallback, reasons[KF_FALLBACK_COUNT], captured, scratch, poisoned, scratch_reads;
} kf__stats_sum_t;

static void kf__stats_add(kf__stats_sum_t *sum, const kf__site_state_t *st)
{
  sum->calls += __atomic_load_n(&st->calls, __ATOMIC_RELAXED);
  sum->fused += __atomic_load_n(&st->fused, __ATOMIC_RELAXED);
  sum->fallback += __atomic_load_n(&st->fallback, __ATOMIC_RELAXED);
  for (int r = 0; r < KF_FALLBACK_COUNT; r++)
    sum->reasons[r] += __atomic_load_n(&st->reasons[r], __ATOMIC_RELAXED);
  sum->captured += __atomic_load_n(&st->captured, __ATOMIC_RELAXED);
  sum->scratch += __atomic_load_n(&st->scratch, __ATOMIC_RELAXED);
  sum->poisoned += __atomic_load_n(&st->poisoned, __ATOMIC_RELAXED);
  sum->scratch_reads += __atomic_load_n(&st->scratch_reads, __ATOMIC_RELAXED);
}

static void kf__stats_line(FILE *f, const kf__site_state_t *st, const kf__stats_sum_t *sum)
{
  fprintf(f, "kfuse-stats: %s: calls=%" PRIu64 " fused=%" PRIu64 " fallback=%" PRIu64, st->where ? st->where : "?",
          sum->calls, sum->fused, sum->fallback);
  for (int r = 0; r < KF_FALLBACK_COUNT; r++)
    if (sum->reasons[r] != 0)
      fprintf(f, " %s=%" PRIu64, kf_rt_fallback_name((kf_fallback_t)r), sum->reasons[r]);
  if (sum->captured != 0)
    fprintf(f, " captured=%" PRIu64, sum->captured);
  if (sum->scratch != 0)
    fprintf(f, " scratch=%" PRIu64, sum->scratch);
  if (sum->poisoned != 0)
    fprintf(f, " poisoned=%" PRIu64, sum->poisoned);
  if (sum->scratch_reads != 0)
    fprintf(f, " poison-read=%" PRIu64, sum->scratch_reads);
  if (st->plan != 0)
    fprintf(f, " plan=%" PRIu32, st->plan);
  fputc('\n', f);
}

void kf__stats_print(FILE *f)
{
  kf__site_state_t *st, **all;
  unsigned char *done;
  size_t n = 0, i = 0;
  if (!kf__config.stats)
    return;
  /* The registry is newest first; print in first-call order. Sites may still
   * be added concurrently: those published so far are printed. */
  for (st = __atomic_load_n(&kf__sites, __ATOMIC_ACQUIRE); st != NULL; st = st->next)
    n++;
  if (n == 0 || (all = malloc(n * sizeof *all)) == NULL)
    return;
  if ((done = calloc(n, 1)) == NULL) {
    free(all);
    return;
  }
  for (st = __atomic_load_n(&kf__sites, __ATOMIC_ACQUIRE); st != NULL && i < n; st = st->next)
    all[i++] = st;
  n = i;
  /* Oldest first. A provisional state is printed as part of the line of its
   * last successor (always newer), at the provisional state's place. */
  while (i-- > 0) {
    kf__stats_sum_t sum = {0};
    if (done[i])
      continue;
    st = all[i];
    kf__stats_add(&sum, st);
    for (kf__site_state_t *next; (next = __atomic_load_n(&st->successor, __ATOMIC_ACQUIRE)) != NULL;) {
      st = next;
      kf__stats_add(&sum, st);
      for (size_t k = 0; k < i; k++)
        if (all[k] == st)
          done[k] = 1;
    }
    kf__stats_line(f, st, &sum);
  }
  fflush(f);
  free(done);
  free(all);
}

static void kf__register_site(kf__site_state_t *st)
{
  kf__site_state_t *head = __atomic_load_n(&kf__sites, __ATOMIC_RELAXED);
  do
    st->next = head;
  while (!__atomic_compare_exchange_n(&kf__sites, &head, st, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* Marks, in each fused segment, the `dead` lines whose argument the site's
 * scratch table lists. */
static uint64_t kf__group_declared(const kf__group_t *g, uint32_t first, const kf_site_t *site)
{
  uint64_t bits = 0;
  for (uint32_t i = 0; i < g->ndead; i++) {
    const kf__dead_t *d = &g->dead[i];
    for (uint32_t k = 0; k < site->nscratch; k++)
      if (site->scratch[k].launch == first + d->ref.launch && site->scratch[k].param == d->ref.param)
        bits |= UINT64_C(1) << d->bit;
  }
  return bits;
}

static void kf__segments_declare(kf__site_state_t *st, const kf_site_t *site)
{
  for (uint32_t s = 0; s < st->nsegs && site->scratch != NULL; s++) {
    kf__segment_t *seg = &st->segs[s];
    if (seg->group == NULL)
      continue;
    seg->declared |= kf__group_declared(seg->group, seg->first, site);
    uint32_t k = 0;
    for (const kf__group_t *p = seg->group->part_next; p != NULL; p = p->part_next, k++)
      seg->declared_later[k] |= kf__group_declared(p, seg->first + p->part_offset, site);
  }
}

/* The published state of @p site, built and published by whichever thread
 * gets there first; NULL only without memory. A state matched before the
 * last kf_rt_select_plan() is replaced (and kept for KFUSE_STATS); so is a
 * provisional one (discovery during a stream capture that did not finish),
 * by the first discovery that gets further. */
static kf__site_state_t *kf__site_get(kf_site_t *site, const kf_launch_t *l, uint32_t n)
{
  uint32_t gen = __atomic_load_n(&kf__generation, __ATOMIC_ACQUIRE);
  void *cur = __atomic_load_n(&site->cache, __ATOMIC_ACQUIRE);
  kf__site_state_t *st, *old = cur;
  int provisional;
  if (old != NULL && old->generation == gen && !old->retry)
    return old;
  provisional = old != NULL && old->generation == gen;
  if (kf__config.disable && !kf__config.poison) {
    /* No discovery at all: KFUSE_DISABLE must not touch the driver. (With
     * KFUSE_VERIFY, discovery runs: poisoning needs the footprints.) */
    if ((st = calloc(1, sizeof *st)) == NULL)
      return NULL;
    st->where = site->where;
    st->n = n;
    st->whole = KF_FALLBACK_DISABLED;
  } else if (kf__site_discover(site, l, n, __atomic_load_n(&kf__config.plan, __ATOMIC_RELAXED),
                               kf__capturing(l, n), &st) != 0) {
    return provisional ? old : NULL;
  }
  if (provisional && st->retry) {
    /* Still capturing: keep the one provisional state (and its counters). */
    kf__site_state_free(st);
    return old;
  }
  st->generation = gen;
  for (uint32_t s = 0; s < st->nsegs; s++)
    st->planned |= st->segs[s].group != NULL && st->segs[s].group->at_function != NULL;
  kf__segments_declare(st, site);
  /* Several threads may race through discovery; one state wins, the others
   * are dropped. The mutex-protected module cache makes that cheap. */
  if (!__atomic_compare_exchange_n(&site->cache, &cur, st, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    kf__site_state_free(st);
    return cur;
  }
  if (provisional)
    __atomic_store_n(&old->successor, st, __ATOMIC_RELEASE);
  kf__register_site(st);
  return st;
}

void kf_rt_select_plan(unsigned rank)
{
  pthread_once(&kf__rt_once, kf__rt_init);
  if (rank >= KF_RT_MAX_PLANS) {
    kf__log(KF__LOG_WARN, "kf_rt_select_plan(%u): not a plan rank 0..%d: running plan 0", rank,
            KF_RT_MAX_PLANS - 1);
    rank = 0;
  }
  __atomic_store_n(&kf__config.plan, (uint32_t)rank, __ATOMIC_RELAXED);
  __atomic_fetch_add(&kf__generation, 1, __ATOMIC_RELEASE);
}

unsigned kf_rt_selected_plan(void)
{
  pthread_once(&kf__rt_once, kf__rt_init);
  return __atomic_load_n(&kf__config.plan, __ATOMIC_RELAXED);
}

/* Remembers launches @p g whose guards passed purely, in @p seg's memo
 * (@p memo, its current value), creating it at the first pure pass. */
static void kf__segment_memoize(kf__segment_t *seg, kf__memo_t *memo, const kf_launch_t *g)
{
  if (memo == NULL) {
    kf__memo_t *fresh, *expected = NULL;
    uint32_t words = kf__memo_words(g, seg->count);
    if (words == 0 || (fresh = kf__memo_new(words)) == NULL)
      return;
    if (!__atomic_compare_exchange_n(&seg->memo, &expected, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      free(fresh);
      memo = expected;
    } else {
      memo = fresh;
    }
  }
  kf__memo_store(memo, g, seg->count);
}

/* The parts of fused segment @p seg, each a segment of one group over its
 * own span, in the order they run: the segment itself, or a set's part 0,
 * then its part 1, and so on. Returns how many. */
static uint32_t kf__segment_parts(const kf__segment_t *seg, kf__segment_t part[KF__MANIFEST_MAX_PARTS])
{
  uint32_t k = 1;
  part[0] = *seg;
  part[0].count = seg->group->nlaunches;
  for (const kf__group_t *p = seg->group->part_next; p != NULL && k < KF__MANIFEST_MAX_PARTS;
       p = p->part_next, k++) {
    part[k] = *seg;
    part[k].first = seg->first + p->part_offset;
    part[k].count = p->nlaunches;
    part[k].group = p;
    part[k].fused = seg->fused_later[k - 1];
    part[k].declared = seg->declared_later[k - 1];
  }
  return k;
}

/* Where the parts' `field` lines add parameters to their launches (the
 * buffers in fields of by-value structs, docs/manifest.md): a copy of the
 * call's @p n launches, in @p local (@p size bytes, aligned for the records)
 * where it fits, else in one allocation, whose launches with fields have
 * argument arrays that go on with the address of each field's pointer in
 * its struct argument's bytes (what the kernel loads it from), sized as a
 * pointer, and the `dead` and `rerun` bits the site's field table gives
 * them. NULL where no part has fields, and NULL with *why set where a field
 * lies outside its argument or two parts disagree. */
static kf_launch_t *kf__with_fields(const kf_site_t *site, const kf__segment_t *part, uint32_t nparts,
                                    const kf_launch_t *l, uint32_t n, void *local, size_t size,
                                    kf_fallback_t *why)
{
  size_t slots = 0, bytes;
  kf_launch_t *x;
  void **args;
  uint32_t *sizes;
  uint32_t nfields = 0;
  for (uint32_t p = 0; p < nparts; p++)
    nfields += part[p].group->nfields;
  if (nfields == 0)
    return NULL;
  for (uint32_t i = 0; i < n; i++)
    slots += (size_t)l[i].nargs + KF__MANIFEST_MAX_FIELDS;
  bytes = n * sizeof *x + slots * (sizeof *args + sizeof *sizes);
  if ((x = bytes <= size ? local : malloc(bytes)) == NULL) {
    *why = KF_FALLBACK_LAYOUT;
    return NULL;
  }
  memcpy(x, l, n * sizeof *x);
  args = (void **)(x + n);
  sizes = (uint32_t *)(args + slots);
  for (uint32_t p = 0; p < nparts; p++) {
    const kf__group_t *g = part[p].group;
    for (uint32_t k = 0; k < g->nfields; k++) {
      const kf__ptrfield_t *f = &g->fields[k];
      uint32_t a = part[p].first + f->ref.launch, q = f->ref.param;
      const kf_launch_t *o = &l[a];
      kf_launch_t *e = &x[a];
      void *at;
      if (a >= n || f->param >= o->nargs || o->args == NULL || o->arg_sizes == NULL ||
          o->args[f->param] == NULL || (uint64_t)f->byte + sizeof(void *) > o->arg_sizes[f->param]) {
        *why = KF_FALLBACK_LAYOUT;
        if (x != local)
          free(x);
        return NULL;
      }
      at = (char *)o->args[f->param] + f->byte;
      if (e->args == o->args) { /* its first field: its own arrays */
        memcpy(args, o->args, o->nargs * sizeof *args);
        memcpy(sizes, o->arg_sizes, o->nargs * sizeof *sizes);
        e->args = args, e->arg_sizes = sizes;
        args += o->nargs + KF__MANIFEST_MAX_FIELDS, sizes += o->nargs + KF__MANIFEST_MAX_FIELDS;
      }
      if (q < e->nargs ? e->args[q] != at : q != e->nargs || q >= o->nargs + KF__MANIFEST_MAX_FIELDS) {
        *why = KF_FALLBACK_LAYOUT;
        if (x != local)
          free(x);
        return NULL;
      }
      e->args[q] = at;
      ((uint32_t *)e->arg_sizes)[q] = sizeof(void *);
      e->nargs = q + 1;
      /* Its `dead` or `rerun` bit: what the host pass proved of the buffer. */
      for (uint32_t j = 0; site->fields != NULL && j < site->nfields && q < 64; j++) {
        const kf_field_ptr_t *t = &site->fields[j];
        if (t->launch != a || t->param != f->param || t->byte != f->byte)
          continue;
        if (t->fate == KF_FIELD_DEAD)
          e->dead |= UINT64_C(1) << q;
        else if (t->fate == KF_FIELD_RERUN && q < 32)
          e->rerun |= UINT32_C(1) << q;
      }
    }
  }
  return x;
}

/* Runs one fused group, or a set of them: guards, all of them (skipped
 * when the memo holds these very launches), then each part fused (or
 * verified), in order; or, if any guard fails, every launch unfused in
 * program order. While @p capturing, the launches are recorded into a
 * graph, not run: no KFUSE_VERIFY work. */
static void kf__run_parts(kf__site_state_t *st, const kf_site_t *site, const kf__segment_t *seg,
                          const kf_launch_t *l, uint32_t n, int capturing)
{
  const kf_launch_t *g = &l[seg->first];
  kf__memo_t *memo = __atomic_load_n(&seg->memo, __ATOMIC_ACQUIRE);
  kf_fallback_t why = KF_FALLBACK_COUNT;
  kf__segment_t part[KF__MANIFEST_MAX_PARTS];
  uint32_t nparts = kf__segment_parts(seg, part);
  uint64_t dead[KF__MANIFEST_MAX_PARTS], declared[KF__MANIFEST_MAX_PARTS], by_range, any_declared = 0;
  int pure = 1, poison = kf__config.poison && !capturing;
  if (poison)
    for (uint32_t p = 0; p < nparts; p++)
      kf__poison_reads(st, &part[p], l);
  if (memo == NULL || !kf__memo_hit(memo, g, seg->count)) {
    for (uint32_t p = 0; p < nparts && why == KF_FALLBACK_COUNT; p++) {
      int part_pure;
      why = kf__guards_check_pure(part[p].group, &l[part[p].first], &part_pure);
      pure &= part_pure;
    }
    if (why == KF_FALLBACK_COUNT && pure)
      kf__segment_memoize((kf__segment_t *)seg, memo, g);
  }
  if (why != KF_FALLBACK_COUNT) {
    kf__log(KF__LOG_DEBUG, "%s: %s: guard failed: %s", st->where ? st->where : "?", seg->group->name,
            kf_rt_fallback_name(why));
    kf__launch_originals(g, seg->count);
    if (!kf__config.disable)
      kf__site_count_fallback(st, why);
    return;
  }
  for (uint32_t p = 0; p < nparts; p++) {
    dead[p] = kf__dead_mask_site(part[p].group, site, l, n, part[p].first, &by_range);
    declared[p] = (dead[p] & part[p].declared) | by_range;
    any_declared |= declared[p];
  }
  if (kf__config.disable) {
    /* KFUSE_DISABLE with KFUSE_VERIFY: the reference run, poisoned as the
     * fused one would be (counted `disabled` once per call). */
    kf__launch_originals(g, seg->count);
    if (poison)
      for (uint32_t p = 0; p < nparts; p++)
        kf__poison_writes(st, site, &part[p], l, declared[p]);
    return;
  }
  for (uint32_t p = 0; p < nparts; p++) {
    kf_fallback_t r = KF_FALLBACK_COUNT;
    if (kf__config.verify && !capturing)
      r = kf__verify_group(st, &part[p], &l[part[p].first], dead[p]);
    else if (kf__launch_fused(&part[p], &l[part[p].first], dead[p]) != 0)
      r = KF_FALLBACK_LAUNCH; /* it ran the part's launches unfused */
    if (why == KF_FALLBACK_COUNT)
      why = r;
  }
  if (why == KF_FALLBACK_COUNT) {
    __atomic_fetch_add(&st->fused, 1, __ATOMIC_RELAXED);
    if (any_declared != 0)
      __atomic_fetch_add(&st->scratch, 1, __ATOMIC_RELAXED);
  } else {
    kf__site_count_fallback(st, why);
  }
  if (poison)
    for (uint32_t p = 0; p < nparts; p++)
      kf__poison_writes(st, site, &part[p], l, declared[p]);
}

/* kf__run_parts() on the call's launches, with the parameters the
 * groups' `field` lines add where they have any. */
static void kf__run_group(kf__site_state_t *st, const kf_site_t *site, const kf__segment_t *seg,
                          const kf_launch_t *l, uint32_t n, int capturing)
{
  kf__segment_t part[KF__MANIFEST_MAX_PARTS];
  uint32_t nparts = kf__segment_parts(seg, part);
  kf_fallback_t why = KF_FALLBACK_COUNT;
  /* Room for a few launches' records and arguments: no allocation per call. */
  _Alignas(16) unsigned char local[4096];
  kf_launch_t *fielded = kf__with_fields(site, part, nparts, l, n, local, sizeof local, &why);
  if (why != KF_FALLBACK_COUNT) {
    kf__log(KF__LOG_DEBUG, "%s: %s: a field lies outside its argument", st->where ? st->where : "?",
            seg->group->name);
    kf__launch_originals(&l[seg->first], seg->count);
    kf__site_count_fallback(st, kf__config.disable ? KF_FALLBACK_DISABLED : why);
    return;
  }
  kf__run_parts(st, site, seg, fielded != NULL ? fielded : l, n, capturing);
  if (fielded != (kf_launch_t *)(void *)local)
    free(fielded);
}

/* KFUSE_VERIFY cannot check a captured call: its copies, synchronisations
 * and allocations would land in the graph or invalidate the capture. Say so
 * once per site, on the stream of its reports. */
static void kf__verify_skipped(kf__site_state_t *st)
{
  if (__atomic_exchange_n(&st->capture_noted, 1, __ATOMIC_RELAXED))
    return;
  fprintf(stderr, "kfuse-verify: %s: skipped: the launches are being captured into a CUDA graph, which runs "
                  "them unchecked\n", st->where ? st->where : "?");
}

/* The call's launches with @p st: whole-site fallback, or each segment. */
static void kf__run_site(kf__site_state_t *st, const kf_site_t *site, const kf_launch_t *launches, uint32_t n,
                         int capturing)
{
  int unmatched = 0;
  if (st->whole != KF_FALLBACK_COUNT || n != st->n) {
    kf__launch_originals(launches, n);
    kf__site_count_fallback(st, kf__config.disable ? KF_FALLBACK_DISABLED
                                : st->whole != KF_FALLBACK_COUNT ? st->whole : KF_FALLBACK_NO_MATCH);
    return;
  }
  for (uint32_t s = 0; s < st->nsegs; s++) {
    const kf__segment_t *seg = &st->segs[s];
    if (seg->group == NULL) {
      if (kf__config.poison && !capturing)
        kf__poison_reads(st, seg, launches);
      kf__launch_originals(&launches[seg->first], seg->count);
      unmatched |= !st->planned;
    } else {
      kf__run_group(st, site, seg, launches, n, capturing);
    }
  }
  if (kf__config.disable)
    kf__site_count_fallback(st, KF_FALLBACK_DISABLED);
  else if (unmatched)
    kf__site_count_fallback(st, KF_FALLBACK_NO_MATCH);
}

void kf_rt_launch_seq(kf_site_t *site, const kf_launch_t *launches, uint32_t n)
{
  kf__site_state_t *st;
  int checked, capturing = 0, mode = -1;
  pthread_once(&kf__rt_once, kf__rt_init);
  if (launches == NULL || n == 0)
    return;
  if (site == NULL || (st = kf__site_get(site, launches, n)) == NULL) {
    kf__launch_originals(launches, n);
    return;
  }
  __atomic_fetch_add(&st->calls, 1, __ATOMIC_RELAXED);
  /* The plain path asks nothing: guards, memo and counters are host work
   * and the launches are what a capture records. Stream status is asked
   * only to count captured calls and to keep KFUSE_VERIFY out of captures. */
  if (kf__config.observe) {
    checked = kf__config.verify || kf__config.poison;
    capturing = kf__capturing(launches, n);
    if (capturing)
      __atomic_fetch_add(&st->captured, 1, __ATOMIC_RELAXED);
    if (capturing && checked)
      kf__verify_skipped(st);
    else if (checked)
      mode = kf__capture_relax(); /* its allocations and copies, while another thread captures */
  }
  kf__run_site(st, site, launches, n, capturing);
  if (mode >= 0)
    kf__capture_restore(mode);
}

void kf__rt_test_reset(void)
{
  kf__site_state_t *st;
  pthread_once(&kf__rt_once, kf__rt_init);
  st = __atomic_exchange_n(&kf__sites, NULL, __ATOMIC_ACQ_REL);
  while (st != NULL) {
    kf__site_state_t *next = st->next;
    kf__site_state_free(st);
    st = next;
  }
  kf__modules_reset();
  kf__scratch_reset();
  kf__poison_reset();
  kf__config_load();
}
