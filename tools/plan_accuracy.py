#!/usr/bin/env python3
"""Predicted against measured time for every plan of each kfuse-bench workload.

Reads the CSV of `kfuse-bench --plans REMARKS --csv FILE` (one row per plan:
the cost model's prediction and the measured median) and reports, per
workload:

  - rho: Spearman's rank correlation of predicted and measured times over
    all its plans (ties get their average rank);
  - best_gap: how much slower the plan the model ranks first (rank 0) runs
    than the fastest plan measured, in percent;
  - the measured rank of the predicted best, and the predicted rank of the
    measured best;
  - scale: the median of measured/predicted (how far the absolute times are off).

With --png it draws the scatter of predicted against measured time (one
colour per workload, both axes logarithmic, the line measured = predicted),
and, per workload, measured time against the plans' predicted order.

Usage: plan_accuracy.py PLANS.csv [--png FILE] [--goal-rho 0.9] [--goal-gap 3]
Exit status: 0, or 1 when the CSV is unusable; the goals are reported, not
enforced (these are measurements, not tests).
"""

import argparse
import csv
import math
import statistics
import sys


def ranks(values):
    """1-based ranks, ties sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return out


def pearson(x, y):
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        return float("nan")
    return sxy / math.sqrt(sxx * syy)


def spearman(x, y):
    """Spearman's rho with average ranks for ties; nan when either side is constant."""
    return pearson(ranks(x), ranks(y))


def load(path):
    rows = []
    with open(path, newline="") as f:
        for line, r in enumerate(csv.DictReader(f), start=2):
            try:
                rows.append({
                    "workload": "%s-%s" % (r["workload"], r["dtype"]),
                    "n": int(r["n"]),
                    "rank": int(r["rank"]),
                    "groups": r["groups"],
                    "predicted": float(r["predicted_ms"]),
                    "measured": float(r["measured_ms"]),
                    "check": r["check"],
                })
            except (KeyError, ValueError) as e:
                raise SystemExit("%s:%d: not a kfuse-bench --plans row (%s)" % (path, line, e))
    if not rows:
        raise SystemExit("%s: no plans" % path)
    return rows


def summarise(rows):
    by = {}
    for r in rows:
        by.setdefault((r["workload"], r["n"]), []).append(r)
    out = []
    for (w, n), rs in by.items():
        rs.sort(key=lambda r: r["rank"])
        pred = [r["predicted"] for r in rs]
        meas = [r["measured"] for r in rs]
        best_meas = min(meas)
        first = rs[0]  # rank 0: the model's choice
        pred_rank_of_best = 1 + sorted(pred).index(pred[meas.index(best_meas)])
        meas_rank_of_first = 1 + sorted(meas).index(first["measured"])
        out.append({
            "workload": w, "n": n, "plans": len(rs),
            "rho": spearman(pred, meas) if len(rs) > 1 else float("nan"),
            "best_gap": 100.0 * (first["measured"] / best_meas - 1.0),
            "first_groups": first["groups"],
            "best_groups": rs[meas.index(best_meas)]["groups"],
            "meas_rank_of_first": meas_rank_of_first,
            "pred_rank_of_best": pred_rank_of_best,
            "scale": statistics.median(m / p for m, p in zip(meas, pred) if p > 0),
            "failed": sum(r["check"] != "ok" for r in rs),
        })
    return out


def report(summary, rows, goal_rho, goal_gap, f=sys.stdout):
    print("%-12s %9s %5s %7s %8s %6s %6s %6s  %s" % (
        "workload", "n", "plans", "rho", "best_gap", "m_rank", "p_rank", "scale",
        "predicted best -> measured best"), file=f)
    for s in summary:
        print("%-12s %9d %5d %7.3f %7.2f%% %6d %6d %6.3f  %s -> %s%s" % (
            s["workload"], s["n"], s["plans"], s["rho"], s["best_gap"], s["meas_rank_of_first"],
            s["pred_rank_of_best"], s["scale"], s["first_groups"], s["best_groups"],
            "  (%d plans FAILED the check)" % s["failed"] if s["failed"] else ""), file=f)
    multi = [s for s in summary if s["plans"] > 2 and not math.isnan(s["rho"])]
    pooled = spearman([r["predicted"] for r in rows], [r["measured"] for r in rows])
    print("pooled rho over %d plans: %.3f" % (len(rows), pooled), file=f)
    if multi:
        print("median rho over workloads with more than 2 plans: %.3f (goal >= %.2f): %d of %d meet it" % (
            statistics.median(s["rho"] for s in multi), goal_rho,
            sum(s["rho"] >= goal_rho for s in multi), len(multi)), file=f)
    print("predicted best within %.0f%% of measured best: %d of %d workloads; worst %.2f%%" % (
        goal_gap, sum(s["best_gap"] <= goal_gap for s in summary), len(summary),
        max(s["best_gap"] for s in summary)), file=f)


def size_name(n):
    for shift, unit in ((20, "M"), (10, "K")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return "%d%s" % (n >> shift, unit)
    return str(n)


def plot(summary, rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plan_accuracy: matplotlib is not available; no %s" % path, file=sys.stderr)
        return False
    names = [s["workload"] for s in summary]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(14, 6))
    cmap = plt.get_cmap("tab20")
    lo, hi = float("inf"), 0.0
    for i, s in enumerate(summary):
        rs = [r for r in rows if r["workload"] == s["workload"] and r["n"] == s["n"]]
        x = [r["predicted"] for r in rs]
        y = [r["measured"] for r in rs]
        lo, hi = min(lo, min(x), min(y)), max(hi, max(x), max(y))
        label = "%s n=%s" % (s["workload"], size_name(s["n"]))
        colour = cmap(i % 20)
        ax.scatter(x, y, s=12, color=colour, label="%s (rho %.2f)" % (label, s["rho"]))
        ax.scatter([rs[0]["predicted"]], [rs[0]["measured"]], s=60, facecolors="none",
                   edgecolors=colour)
        rs = sorted(rs, key=lambda r: (r["predicted"], r["rank"]))
        best = min(r["measured"] for r in rs)
        bx.plot(range(1, len(rs) + 1), [r["measured"] / best for r in rs], marker=".",
                color=colour, label=label)
    ax.plot([lo, hi], [lo, hi], color="grey", linewidth=0.8, linestyle="--", label="measured = predicted")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("predicted time per sequence (ms)")
    ax.set_ylabel("measured time per sequence (ms, median)")
    ax.set_title("every plan: predicted vs measured (circled: the model's choice)")
    ax.legend(fontsize=6, ncol=2)
    bx.set_xscale("log")
    bx.set_xlabel("plans in predicted order (1 = predicted best)")
    bx.set_ylabel("measured time / fastest measured plan")
    bx.set_title("measured time of the plans in predicted order")
    bx.axhline(1.0, color="grey", linewidth=0.8)
    bx.legend(fontsize=6, ncol=2)
    fig.suptitle("kfuse cost model against the GPU, %d plans of %d workloads" % (len(rows), len(names)))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--png")
    ap.add_argument("--goal-rho", type=float, default=0.9)
    ap.add_argument("--goal-gap", type=float, default=3.0)
    a = ap.parse_args()
    rows = load(a.csv)
    summary = summarise(rows)
    report(summary, rows, a.goal_rho, a.goal_gap)
    if a.png and not plot(summary, rows, a.png):
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
