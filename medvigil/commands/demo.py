"""``medvigil demo``: the whole audit on the embedded synthetic release, end to end."""

from medvigil.cli_options import MAX_RESAMPLES, int_range
from medvigil.files.output_guard import declare


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "demo",
        help="sample a synthetic release, build it, run lmms-eval with the four baselines on "
        "every suite, score and report",
    )
    p.add_argument("--out", default="demo_out", help="output folder (default: demo_out)")
    p.add_argument("--cases", type=int_range(1), default=40, help="synthetic cases (default 40)")
    p.add_argument("--seed", type=int_range(0), default=0)
    p.add_argument(
        "--tasks",
        default=None,
        help="comma-separated lmms-eval tasks (default: mcq, noimg, shuffled, ROI decay, blur)",
    )
    p.add_argument(
        "--n-resamples",
        type=int_range(0, MAX_RESAMPLES),
        default=500,
        help="bootstrap resamples (default 500, as the paper)",
    )
    p.add_argument(
        "--no-stress",
        action="store_true",
        help="MedVIGIL tasks only: skip the Readiness, CbD and MedQ-Deg runs and report sections",
    )
    p.add_argument("--force", action="store_true", help="replace an existing output folder")
    declare(p, inputs=(), outputs=("out",))  # the output guard checks these (medvigil.cli)


def run(args) -> int:
    from medvigil.pipeline import run_demo

    tasks = tuple(t for t in args.tasks.split(",") if t) if args.tasks else None
    report = run_demo(
        args.out,
        cases=args.cases,
        seed=args.seed,
        tasks=tasks,
        n_resamples=args.n_resamples,
        stress=not args.no_stress,
        force=args.force,
    )
    print(f"report: {report / 'report.html'}")
    print(f"        {report / 'report.md'}")
    return 0
