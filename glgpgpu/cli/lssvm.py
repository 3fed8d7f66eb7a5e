"""`glgpgpu lssvm --dataset digits|breast_cancer` (Cholesky vs CG vs SVC) and
`glgpgpu lssvm --thesis fig7.8|progress` (the PLSSVM thesis's experiments); CSV + PNG."""
from __future__ import annotations

from .common import Formatter, add_out, positive_float, size_list, run_stamp

from pathlib import Path


def run(args) -> int:
    from ..bench import lssvm as exp
    from ..bench.common import device_slug, write_csv
    from ..gl import get_context

    ctx = get_context()
    out = Path(args.out)
    stamp = run_stamp()
    slug = device_slug(ctx)
    sizes = [int(s) for s in args.sizes.split(",")]
    files = []
    if args.thesis == "fig7.8":
        rows = exp.fig78(sizes, method=args.method, ctx=ctx)
        print(f"Fig. 7.8 analogue on {ctx.caps.renderer}: relative Frobenius error of the float32 L (NaN: a pivot failed)")
        for r in rows:
            print(f"  {r['matrix']:<11s} N={r['N']:>6d} jitter={r['jitter']:<6g} error={r['rel_frobenius_error']:.3e}  "
                  f"(float64 on the host: {r['float64_rel_error']:.1e})  {r['status']}")
        files += [write_csv(rows, out / f"lssvm-fig78-{slug}-{stamp}.csv"),
                  exp.plot_fig78(rows, out / f"lssvm-fig78-{slug}-{stamp}.png")]
    elif args.thesis == "progress":
        rows = exp.progress(sizes, ctx=ctx)
        print(f"Cholesky variants on {ctx.caps.renderer} (thesis, A30, N = 60000: "
              f"{exp.THESIS['cholesky_first_s']:g} s first version, {exp.THESIS['cholesky_blocked_s']:g} s blocked)")
        for r in rows:
            print(f"  N={r['N']:>6d} {r['variant']:<22s} {r['seconds']:.4f} s  {r['gflops']:.2f} GFLOP/s")
        files += [write_csv(rows, out / f"lssvm-progress-{slug}-{stamp}.csv"),
                  exp.plot_progress(rows, out / f"lssvm-progress-{slug}-{stamp}.png")]
    else:
        rows, drift = exp.dataset(args.dataset, C=args.C, ctx=ctx)
        print(f"LS-SVM on {args.dataset} ({rows[0]['n_train']} train / {rows[0]['n_test']} test) on "
              f"{ctx.caps.renderer}; thesis (MNIST, A30): Cholesky {exp.THESIS['mnist_cholesky_s']:g} s "
              f"{exp.THESIS['mnist_cholesky_acc']:.0%}, CG {exp.THESIS['mnist_cg_s']:g} s {exp.THESIS['mnist_cg_acc']:.0%}")
        for r in rows:
            extra = (f"CG iterations max {r['cg_iterations_max']}" if "cg_iterations_max" in r
                     else f"refinement steps {r['refinement_steps']}" if "refinement_steps" in r else "")
            print(f"  {r['solver']:<22s} train {r['train_s']:.3f} s  train acc {r['train_acc']:.4f}  "
                  f"test acc {r['test_acc']:.4f}  {extra}")
        last = drift[-1] if drift else None
        if last:
            print(f"  CG drift (one right-hand side, {last['iteration']} iterations): recursive residual "
                  f"{last['recursive_residual']:.2e}, true residual {last['true_residual']:.2e}, "
                  f"error vs float64 {last['error']:.2e}")
        files += [write_csv(rows, out / f"lssvm-{args.dataset}-{slug}-{stamp}.csv"),
                  write_csv(drift, out / f"lssvm-{args.dataset}-cg-drift-{slug}-{stamp}.csv"),
                  exp.plot_drift(drift, out / f"lssvm-{args.dataset}-cg-drift-{slug}-{stamp}.png")]
    for f in files:
        print("wrote", f)
    return 0


def register(sub):
    s = sub.add_parser("lssvm", help="LS-SVM: Cholesky vs CG on a dataset, or the PLSSVM thesis's experiments",
                       formatter_class=Formatter)
    s.add_argument("--dataset", choices=["digits", "breast_cancer"], default="digits",
                   help="scikit-learn data set to train on")
    s.add_argument("--thesis", choices=["fig7.8", "progress"], default=None,
                   help="one of the thesis's experiments instead of a data set")
    s.add_argument("--sizes", default="64,128,256", type=size_list, help="N for --thesis (comma-separated)")
    s.add_argument("--method", choices=["auto", "paper", "blocked", "compute"], default="auto", help="Cholesky for fig7.8")
    s.add_argument("--C", type=positive_float, default=10.0, help="the LS-SVM's regularization C")
    add_out(s)
    s.set_defaults(func=run)
