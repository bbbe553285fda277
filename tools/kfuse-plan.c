/* kfuse-plan: plans the fusion of a problem file with libkfplan and prints
 * the plan, its predicted gain, the k best plans and a Graphviz picture. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kfuse/model.h"
#include "kfuse/plan.h"
#include "kfuse/profile.h"

static void usage(FILE *f)
{
  fprintf(f,
    "usage: kfuse-plan [options] PROBLEM_FILE\n"
    "       kfuse-plan --generate [--kernels N] [--arrays N] [--sharing MIN:MAX] [--seed S] [-o FILE]\n"
    "options:\n"
    "  --k N            list the N best distinct plans (default 1)\n"
    "  --assignments N  let the plans differ in variant assignments alone: each group\n"
    "                   of several launches also in its N - 1 next cheapest (1..1024,\n"
    "                   default 1: the best partitions, each in its cheapest)\n"
    "  --max-group N    largest fused group (1..8, default 4)\n"
    "  --profile FILE   device profile (default: built-in H100)\n"
    "  --model M        roofline (default) or psi (per-routine tables)\n"
    "  --work-limit N   units of work for the whole search (default 2000000): candidate\n"
    "                   groups, heuristic moves, dynamic-program states, branch-and-bound\n"
    "                   nodes and simplex iterations, so the plan is the same on any machine\n"
    "  --heuristic      greedy + local search only, no CBC\n"
    "  --exact          CBC whatever the size\n"
    "  --dot FILE       write a Graphviz picture of the best plan\n"
    "  -q               print only the summary line\n"
    "exit status: 0 optimal, 1 error, 2 usage, 3 stopped by the work limit\n");
}

/* The number after option @p opt: the whole word a decimal number in
 * [lo, hi] (an integer if asked), as the problem reader takes them. */
static int arg_num(const char *opt, const char *v, double lo, double hi, int integer,
                   double *out)
{
  int rc = v ? kf_parse_number(v, lo, hi, integer, out) : KF_EINVAL;
  if (rc) {
    fprintf(stderr, "kfuse-plan: %s needs %s in [%.15g, %.15g]%s%s%s\n", opt,
            integer ? "an integer" : "a number", lo, hi, v ? ", not '" : "", v ? v : "",
            v ? "'" : "");
    return -1;
  }
  return 0;
}

static void dot_edge(void *user, int from, int to, int kinds)
{
  FILE *f = *(FILE **)user;
  fprintf(f, "  n%d -> n%d [label=\"%s%s%s\"];\n", from, to,
          kinds & KF_DEP_RAW ? "RAW " : "", kinds & KF_DEP_WAR ? "WAR " : "",
          kinds & KF_DEP_WAW ? "WAW" : "");
}

static int write_dot(const char *path, const kf_problem *p, const kf_plan *pl)
{
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "kfuse-plan: cannot write %s\n", path);
    return -1;
  }
  fprintf(f, "digraph plan {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n");
  int ng = kf_plan_group_count(pl, 0);
  for (int g = 0; g < ng; g++) {
    kf_group_info_t gi;
    kf_plan_group(pl, 0, g, &gi);
    fprintf(f, "  subgraph cluster_%d {\n    label=\"group %d: %.3f us\";\n", g, g + 1,
            gi.time * 1e6);
    if (gi.count > 1)
      fprintf(f, "    style=filled; color=lightblue;\n");
    else
      fprintf(f, "    style=dashed;\n");
    for (int i = 0; i < gi.count; i++)
      fprintf(f, "    n%d [label=\"%s\\n%s\"];\n", gi.launches[i],
              kf_problem_launch_name(p, gi.launches[i]),
              kf_problem_variant_name(p, gi.launches[i], gi.variants[i]));
    fprintf(f, "  }\n");
  }
  kf_problem_foreach_dep(p, dot_edge, &f);
  fprintf(f, "}\n");
  return fclose(f) == 0 ? 0 : -1;
}

static void print_plan(const kf_problem *p, const kf_plan *pl, int rank, int quiet)
{
  double t = kf_plan_time(pl, rank), u = kf_plan_unfused_time(pl);
  int ng = kf_plan_group_count(pl, rank);
  printf("plan %d: %d kernels for %d launches, predicted %.3f us, unfused %.3f us, "
         "gain %.3f us (%.1f%%)\n", rank + 1, ng, kf_problem_launch_count(p), t * 1e6,
         u * 1e6, (u - t) * 1e6, u > 0 ? 100.0 * (u - t) / u : 0.0);
  if (quiet)
    return;
  for (int g = 0; g < ng; g++) {
    kf_group_info_t gi;
    kf_plan_group(pl, rank, g, &gi);
    printf("  %3d  %10.3f us  ipb=%d tpb=%d smem=%d  ", g + 1, gi.time * 1e6,
           gi.instances_per_block, gi.threads_per_block, gi.shared_bytes);
    for (int i = 0; i < gi.count; i++)
      printf("%s%s[%s]", i ? " + " : "", kf_problem_launch_name(p, gi.launches[i]),
             kf_problem_variant_name(p, gi.launches[i], gi.variants[i]));
    printf("\n");
  }
}

int main(int argc, char **argv)
{
  kf_solve_options_t o;
  kf_solve_options_init(&o);
  const char *file = NULL, *dot = NULL, *prof_path = NULL, *outp = NULL;
  int generate = 0, kernels = 50, arrays = 100, smin = 2, smax = 8, quiet = 0;
  unsigned seed = 1;
  kf_model_kind_t kind = KF_MODEL_ROOFLINE;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    double x;
    if (!strcmp(a, "--k")) {
      if (arg_num(a, v, 1, 10000, 1, &x)) return 2;
      o.k_best = (int)x, i++;
    } else if (!strcmp(a, "--assignments")) {
      if (arg_num(a, v, 1, 1024, 1, &x)) return 2;
      o.assignments = (int)x, i++;
    } else if (!strcmp(a, "--max-group")) {
      if (arg_num(a, v, 1, 8, 1, &x)) return 2;
      o.max_group = (int)x, i++;
    } else if (!strcmp(a, "--work-limit")) {
      if (arg_num(a, v, 1, (double)KF_WORK_LIMIT_MAX, 1, &x)) return 2;
      o.work_limit = (long)x, i++;
    } else if (!strcmp(a, "--time-limit")) {
      /* Deprecated: a time limit made the plan depend on the machine and
       * its load. Still taken (and checked), so old scripts run. */
      if (arg_num(a, v, 0, 1e6, 0, &x)) return 2;
      fprintf(stderr, "kfuse-plan: warning: --time-limit is ignored; the search is bounded "
                      "by --work-limit N (default %ld), the same on any machine\n",
              (long)KF_WORK_LIMIT_DEFAULT);
      i++;
    } else if (!strcmp(a, "--profile") && v) {
      prof_path = v, i++;
    } else if (!strcmp(a, "--dot") && v) {
      dot = v, i++;
    } else if (!strcmp(a, "-o") && v) {
      outp = v, i++;
    } else if (!strcmp(a, "--model") && v) {
      if (!strcmp(v, "psi")) kind = KF_MODEL_PSI;
      else if (!strcmp(v, "roofline")) kind = KF_MODEL_ROOFLINE;
      else { fprintf(stderr, "kfuse-plan: unknown model '%s'\n", v); return 2; }
      i++;
    } else if (!strcmp(a, "--heuristic")) {
      o.solver = KF_SOLVE_HEURISTIC;
    } else if (!strcmp(a, "--exact")) {
      o.solver = KF_SOLVE_EXACT;
    } else if (!strcmp(a, "-q")) {
      quiet = 1;
    } else if (!strcmp(a, "--generate")) {
      generate = 1;
    } else if (!strcmp(a, "--kernels")) {
      if (arg_num(a, v, 1, 1e6, 1, &x)) return 2;
      kernels = (int)x, i++;
    } else if (!strcmp(a, "--arrays")) {
      if (arg_num(a, v, 1, 1e6, 1, &x)) return 2;
      arrays = (int)x, i++;
    } else if (!strcmp(a, "--seed")) {
      if (arg_num(a, v, 0, 4294967295.0, 1, &x)) return 2;
      seed = (unsigned)x, i++;
    } else if (!strcmp(a, "--sharing") && v) {
      char lo[32], hi[32];
      const char *colon = strchr(v, ':');
      double x2;
      if (!colon || colon - v >= (long)sizeof lo || strlen(colon + 1) >= sizeof hi) {
        fprintf(stderr, "kfuse-plan: --sharing needs MIN:MAX\n");
        return 2;
      }
      snprintf(lo, sizeof lo, "%.*s", (int)(colon - v), v);
      snprintf(hi, sizeof hi, "%s", colon + 1);
      if (arg_num("--sharing MIN", lo, 1, 1e6, 1, &x) ||
          arg_num("--sharing MAX", hi, x, 1e6, 1, &x2))
        return 2;
      smin = (int)x, smax = (int)x2, i++;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (a[0] == '-' || file) {
      usage(stderr);
      return 2;
    } else {
      file = a;
    }
  }
  if (generate) {
    FILE *f = outp ? fopen(outp, "w") : stdout;
    if (!f) {
      fprintf(stderr, "kfuse-plan: cannot write %s\n", outp);
      return 1;
    }
    int rc = kf_problem_write_synthetic(f, kernels, arrays, smin, smax, seed);
    if (outp && fclose(f) != 0)
      rc = KF_EIO;
    if (rc)
      fprintf(stderr, "kfuse-plan: --generate: %s\n", kf_strerror(rc));
    return rc ? 1 : 0;
  }
  if (!file) {
    usage(stderr);
    return 2;
  }
  char err[512] = "";
  kf_profile_t prof;
  kf_profile_default(&prof);
  if (prof_path && kf_profile_load(&prof, prof_path, err, sizeof err)) {
    fprintf(stderr, "kfuse-plan: %s: %s\n", prof_path, err);
    return 1;
  }
  kf_problem *p;
  int rc = kf_problem_load(&p, file, err, sizeof err);
  if (rc) {
    fprintf(stderr, "kfuse-plan: %s: %s\n", file, *err ? err : kf_strerror(rc));
    return 1;
  }
  kf_model *m;
  if ((rc = kf_model_create(&m, &prof, kind)) != 0) {
    fprintf(stderr, "kfuse-plan: %s\n", kf_strerror(rc));
    kf_problem_destroy(p);
    return 1;
  }
  kf_plan *pl = NULL;
  rc = kf_plan_solve(p, m, &o, &pl);
  if (rc && rc != KF_ELIMIT) {
    fprintf(stderr, "kfuse-plan: %s: %s%s\n", file, kf_strerror(rc),
            rc == KF_ERANGE ? ": a predicted time exceeds 1e9 seconds (sizes no device runs)"
                            : "");
    kf_model_destroy(m);
    kf_problem_destroy(p);
    return 1;
  }
  kf_plan_stats_t st;
  kf_plan_stats(pl, &st);
  printf("# %s: %d launches, %d buffers, %d candidate groups (%d before pruning, k=%d), "
         "profile \"%s\"\n", file, kf_problem_launch_count(p), kf_problem_buffer_count(p),
         st.candidates, st.enumerated, o.max_group, prof.name);
  for (int r = 0; r < kf_plan_count(pl); r++)
    print_plan(p, pl, r, quiet);
  if (rc == 0)
    printf("status: optimal%s\n", kf_plan_count(pl) < o.k_best ? " (no further distinct plans)" : "");
  else
    printf("status: %s, gap %.2f%% (bound %.3f us)\n",
           kf_plan_is_heuristic(pl) ? "heuristic" : "work limit", 100 * kf_plan_gap(pl),
           kf_plan_bound(pl) * 1e6);
  printf("# solve: %.3f s, %d CBC runs, %d cycle and clique rows, %d cycle cuts, %ld sweep "
         "states, %ld work units\n",
         st.seconds, st.ilp_solves, st.conflict_rows, st.cycle_cuts, st.sweep_states, st.work);
  int bad = dot && write_dot(dot, p, pl);
  kf_plan_destroy(pl);
  kf_model_destroy(m);
  kf_problem_destroy(p);
  return bad ? 1 : rc == KF_ELIMIT ? 3 : 0;
}
