#!/usr/bin/env python3
"""torch_peer: kfuse-bench's element-wise workloads through torch.compile (and
eager PyTorch), timed the way kfuse-bench times them: CUDA events, warm-up,
median of repetitions, batches of sequences at the launch-bound size. The
workloads and coefficients mirror tools/kfuse_bench.h and
tools/kfuse_bench_workloads.cu; bytes are counted the same way (inputs read
once, every output written once), so the GB/s columns compare directly."""
import argparse
import csv
import statistics
import sys

COEF = [0.75, 1.125, 0.875, 1.0625, 0.625, 0.9375, 1.25, 0.8125]  # kb_coef
EPI_COLS, EPI_S = 4096, 0.5


def chain(length):
    def f(x, y, z):
        outs, v = [], x
        for j in range(length):
            v = COEF[j] * v + y if j % 2 == 0 else v * z + COEF[j]
            outs.append(v)
        return outs
    return f


def blas1(x, y, z):
    w1 = 1.5 * x + y
    w2 = 0.625 * w1 + 1.375 * z
    return [w1, w2, 0.8125 * w2]


def epilogue(x, r, bias):
    import torch
    h1 = (x.view(-1, EPI_COLS) + bias[:EPI_COLS]).view(-1)
    h2 = 0.5 * h1 * (1.0 + torch.erf(h1 * 0.70710678118654752))
    h3 = EPI_S * h2
    return [h1, h2, h3, h3 + r]


# name, dtype, function, outputs (bytes per element = (3 inputs + outputs) * size,
# the epilogue's bias counted as kfuse-bench does: not at all)
WORKLOADS = [
    ("chain2", "f32", chain(2), 2), ("chain4", "f32", chain(4), 4), ("chain8", "f32", chain(8), 8),
    ("chain2", "f64", chain(2), 2), ("chain4", "f64", chain(4), 4), ("chain8", "f64", chain(8), 8),
    ("blas1", "f64", blas1, 3), ("epilogue", "f32", epilogue, 4),
]


def median_ms(fn, warmup, reps, iters):
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        start.record()
        for _ in range(iters):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / iters)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1 << 25)
    ap.add_argument("--small-n", type=int, default=1 << 16, help="0: skip the launch-bound size")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--only", default="", help="only workloads whose name-dtype contains this")
    ap.add_argument("--csv", help="write one row per workload, size and variant")
    a = ap.parse_args()

    try:
        import torch
    except ImportError as e:
        print(f"torch_peer: {e}", file=sys.stderr)
        return 77
    # Each workload function is compiled once per size and type; dynamo's
    # default limit (8 per function) would leave the later ones uncompiled.
    import torch._dynamo
    for knob in ("recompile_limit", "cache_size_limit"):
        if hasattr(torch._dynamo.config, knob):
            setattr(torch._dynamo.config, knob, 256)
    if not torch.cuda.is_available():
        print("torch_peer: no CUDA device", file=sys.stderr)
        return 77
    torch.manual_seed(1)
    dev = torch.device("cuda")
    print(f"# {torch.cuda.get_device_name(0)}, torch {torch.__version__}; median of {a.reps} reps")
    out = open(a.csv, "w", newline="") if a.csv else None
    w = csv.writer(out) if out else None
    if w:
        w.writerow(["workload", "dtype", "n", "bytes", "variant", "median_ms", "gbps", "frac_copy",
                    "speedup_vs_eager", "check"])
    print(f"{'workload':14} {'n':>9} {'eager_ms':>10} {'compile_ms':>10} {'copy_ms':>9} "
          f"{'GB/s':>8} {'of_copy':>7} {'speedup':>7}  check")
    ok_all = True
    for n in (a.n, a.small_n):
        if n <= 0:
            continue
        iters = 100 if n < (1 << 20) else 1
        for name, dt, fn, nout in WORKLOADS:
            label = f"{name}-{dt}"
            if a.only and a.only not in label:
                continue
            dtype = torch.float32 if dt == "f32" else torch.float64
            ins = [torch.rand(n, device=dev, dtype=dtype) + 0.5 for _ in range(3)]
            if name == "epilogue":
                ins[0] = ins[0] * 6.0 - 6.0  # x in [-3, 3)
            nbytes = (3 - (name == "epilogue") + nout) * n * ins[0].element_size()
            compiled = torch.compile(fn, dynamic=False)
            ref, got = fn(*ins), compiled(*ins)
            tol = 1e-5 if dt == "f32" else 1e-12
            check = all(torch.allclose(g, r, rtol=tol, atol=tol * r.abs().mean().item())
                        for g, r in zip(got, ref))
            ok_all = ok_all and check
            t_eager = median_ms(lambda: fn(*ins), a.warmup, a.reps, iters)
            t_comp = median_ms(lambda: compiled(*ins), a.warmup, a.reps, iters)
            src = torch.empty(nbytes // 2, dtype=torch.uint8, device=dev)
            dst = torch.empty_like(src)
            t_copy = median_ms(lambda: dst.copy_(src), a.warmup, a.reps, iters)
            copy_gbps = nbytes / (t_copy * 1e6)
            for variant, t in (("eager", t_eager), ("compile", t_comp), ("copy", t_copy)):
                gbps = nbytes / (t * 1e6)
                if w:
                    w.writerow([name, dt, n, nbytes, variant, f"{t:.5f}", f"{gbps:.1f}",
                                f"{gbps / copy_gbps:.3f}", f"{t_eager / t:.3f}",
                                "ok" if check else "FAIL"])
            if out:
                out.flush()
            gbps = nbytes / (t_comp * 1e6)
            print(f"{label:14} {n:>9} {t_eager:>10.4f} {t_comp:>10.4f} {t_copy:>9.4f} "
                  f"{gbps:>8.1f} {gbps / copy_gbps:>7.3f} {t_eager / t_comp:>7.2f}  "
                  f"{'ok' if check else 'FAIL'}", flush=True)
            del ins, ref, got, src, dst
            torch.cuda.empty_cache()
    if out:
        out.close()
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
