"""``medvigil report``: Markdown + self-contained HTML trust report from score results."""

import sys

from medvigil.files.output_guard import declare


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "report",
        help="write a Markdown and HTML report (tables in the papers' layouts, figures) from "
        "`medvigil score --json` results",
    )
    p.add_argument(
        "scores",
        nargs="+",
        help="JSON files written by `medvigil score --json FILE`: MedVIGIL audits (merged by "
        "model) and at most one result each of --suite mediconfusion, medqdeg, readiness, "
        "cbd; and at most one `medvigil compare --json` result per suite (its significance "
        "matrix)",
    )
    p.add_argument(
        "--out", required=True, help="output folder (created; must not exist or be empty)"
    )
    p.add_argument("--title", default="MedVIGIL trust report")
    declare(p, inputs=("scores",), outputs=("out",))  # the output guard checks these (medvigil.cli)


def run(args) -> int:
    from medvigil.report.document import load_results, scored_suites, write_report
    from medvigil.suites.registry import get

    result = load_results(args.scores)
    paths = write_report(result, args.out, title=args.title, inputs=args.scores)
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    parts = [
        f"{suite} {len(get(suite).entry.models(result['suites'][suite]))} model(s)"
        for suite in scored_suites(result)
    ]
    parts += [
        f"{suite} comparison of {len(data['models'])} model(s)"
        for suite, data in sorted(result.get("comparisons", {}).items())
    ]
    print("reported: " + "; ".join(parts), file=sys.stderr)
    return 0
