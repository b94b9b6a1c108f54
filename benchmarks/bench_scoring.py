"""Benchmark the MedVIGIL scoring core (``medvigil.suites.medvigil.scoring.scoring.audit``).

Synthesises per-probe records for M models on C cases with the release's probe mix
(every case: original, tcf, two traps, lr_flip; negation, specificity-drop,
knowledge-only and the two ROI variants at the release's rates: 8.52 probes per case on
average, 2,556 for 300 cases), tiers 71:31:118:43:37, four sources, 1% parse failures
and 0.5% errors, and times the full audit: every metric, strata, the case-clustered
bootstrap and the Table 17 sensitivity table.

Usage (see benchmarks/README.md):

    python benchmarks/bench_scoring.py --models 18 --cases 3000      # one audit, timed
    python benchmarks/bench_scoring.py --models 18 --cases 3000 --whole-process 5
    python benchmarks/bench_scoring.py --scaling                     # linear-growth check
    python benchmarks/bench_scoring.py --models 18 --cases 300 --from-records

Records are synthesised directly as columns (:class:`medvigil.scoring.table.RecordTable`);
``--from-records`` instead builds probe-record dicts and times their conversion too.
"""

import time

_T0 = time.perf_counter()  # before numpy / medvigil are imported

import os
import sys

if "--blas-threads" in sys.argv:  # must be set before numpy loads OpenBLAS
    _n = sys.argv[sys.argv.index("--blas-threads") + 1]
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = _n

import argparse
import json
import math
import resource
import statistics
import subprocess

import numpy as np

from medvigil.scoring.categorical import Categorical
from medvigil.scoring.table import RecordTable
from medvigil.suites.medvigil.release.release_format import PROBE_KINDS, TIERS
from medvigil.suites.medvigil.scoring.axes import TRIPLET_KINDS
from medvigil.suites.medvigil.scoring.scoring import audit

_T_IMPORTED = time.perf_counter()

TIER_SHARE = np.array([71, 31, 118, 43, 37]) / 300.0
SOURCES = ("VQA-RAD", "SLAKE", "ROCO", "CXR")
SOURCE_SHARE = np.array([120, 60, 60, 60]) / 300.0
MODALITIES = ("CT", "MRI", "X-ray", "Ultrasound")
# probes per case: kind -> (copies, inclusion probability); 2,556 / 300 = 8.52 per case
MIX = {
    "original": (1, 1.0),
    "tcf": (1, 1.0),
    "halluc_trap": (2, 1.0),
    "negation": (1, 225 / 300),
    "specificity_drop": (1, 164 / 300),
    "knowledge_only": (1, 283 / 300),
    "lr_flip": (1, 1.0),
    "roi_only": (1, 192 / 300),
    "roi_masked": (1, 192 / 300),
}
GOLD_E = ("halluc_trap", "roi_masked")


def probes_per_case(triplets: bool) -> float:
    return sum(c * p for c, p in MIX.values()) + (3 * 240 / 300 if triplets else 0.0)


def synthesise(
    n_models: int, n_cases: int, *, seed: int = 0, triplets: bool = False
) -> RecordTable:
    """A RecordTable of ``n_models x (about 8.52 n_cases)`` records, built with numpy only."""
    rng = np.random.default_rng(seed)
    kinds = PROBE_KINDS + (TRIPLET_KINDS if triplets else ())
    case_tier = rng.choice(len(TIERS), size=n_cases, p=TIER_SHARE).astype(np.int32)
    case_source = rng.choice(len(SOURCES), size=n_cases, p=SOURCE_SHARE).astype(np.int32)
    case_modality = rng.integers(0, len(MODALITIES), n_cases).astype(np.int32)
    case_text_only = (rng.random(n_cases) < 0.2).astype(np.int32)
    # the probe list of the release (shared by every model); both ROI variants exist for
    # the same cases (those with a usable ROI box)
    has_roi = rng.random(n_cases) < MIX["roi_only"][1]
    p_case, p_kind = [], []
    for k, kind in enumerate(PROBE_KINDS):
        copies, share = MIX[kind]
        included = has_roi if kind.startswith("roi_") else rng.random(n_cases) < share
        cases = np.flatnonzero(included)
        p_case += [cases] * copies
        p_kind += [np.full(len(cases), k)] * copies
    if triplets:
        with_triplet = np.flatnonzero(rng.random(n_cases) < 240 / 300)
        for a in range(3):
            p_case.append(with_triplet)
            p_kind.append(np.full(len(with_triplet), len(PROBE_KINDS) + a))
    p_case = np.concatenate(p_case).astype(np.int32)
    p_kind = np.concatenate(p_kind).astype(np.int32)
    n_p = len(p_case)
    # correct letters: E on traps and ROI-masked probes, B on the V-CF arm, A elsewhere
    gold_code = np.zeros(n_p, dtype=np.int8)
    gold_code[np.isin(p_kind, [kinds.index(k) for k in GOLD_E])] = 4
    if triplets:
        gold_code[p_kind == kinds.index("triplet_vcf")] = 1
    # tile for models
    model = np.repeat(np.arange(n_models, dtype=np.int32), n_p)
    case = np.tile(p_case, n_models)
    kind = np.tile(p_kind, n_models)
    gold = np.tile(gold_code, n_models)
    n = len(case)
    skill = np.linspace(0.3, 0.85, n_models)[model]
    u = rng.random(n)
    status = np.where(u < 0.005, 2, np.where(u < 0.015, 1, 0)).astype(np.int8)
    right = rng.random(n) < skill
    wrong_letter = ((gold + 1 + rng.integers(0, 4, n)) % 5).astype(np.int8)
    pred = np.where(status == 0, np.where(right, gold, wrong_letter), -1).astype(np.int8)
    probe_levels = tuple(f"p{i}" for i in range(n_p))
    return RecordTable(
        suite=Categorical(np.zeros(n, np.int32), ("medvigil",)),
        model=Categorical(model, tuple(f"model-{m:02d}" for m in range(n_models))),
        condition=Categorical(np.zeros(n, np.int32), ("default",)),
        probe_kind=Categorical(kind, kinds),
        risk_tier=Categorical(case_tier[case], TIERS),
        source_dataset=Categorical(case_source[case], SOURCES),
        modality=Categorical(case_modality[case], MODALITIES),
        text_only=Categorical(case_text_only[case], ("false", "true")),
        case=Categorical(case, tuple(f"MVB-{c:06d}" for c in range(n_cases))),
        gold=gold,
        pred=pred,
        status=status,
        probe=Categorical(np.tile(np.arange(n_p, dtype=np.int32), n_models), probe_levels),
    )


def as_records(table: RecordTable) -> list[dict]:
    """The same data as probe-record dicts (what adapters produce)."""
    cols = {
        "model": table.model.values(),
        "case_id": table.case.values(),
        "probe_kind": table.probe_kind.values(),
        "risk_tier": table.risk_tier.values(),
        "source_dataset": table.source_dataset.values(),
        "modality": table.modality.values(),
        "probe_id": table.probe.values(),
    }
    text_only = [bool(c) for c in table.text_only.codes.tolist()]
    gold = [chr(65 + g) for g in table.gold.tolist()]
    pred = [None if p < 0 else chr(65 + p) for p in table.pred.tolist()]
    status = [("ok", "parse_failure", "error")[s] for s in table.status.tolist()]
    return [
        {
            "suite": "medvigil",
            "model": m,
            "probe_id": pid,
            "case_id": c,
            "probe_kind": k,
            "risk_tier": t,
            "source_dataset": s,
            "modality": mo,
            "text_only_answerable": to,
            "correct_letter": g,
            "predicted_letter": p,
            "parse_status": st,
        }
        for m, pid, c, k, t, s, mo, to, g, p, st in zip(
            cols["model"],
            cols["probe_id"],
            cols["case_id"],
            cols["probe_kind"],
            cols["risk_tier"],
            cols["source_dataset"],
            cols["modality"],
            text_only,
            gold,
            pred,
            status,
        )
    ]


def run_once(args) -> dict:
    t = time.perf_counter()
    table = synthesise(args.models, args.cases, seed=args.seed, triplets=args.triplets)
    t_synth = time.perf_counter() - t
    out = {
        "models": args.models,
        "cases": args.cases,
        "probes": len(table),
        "resamples": args.resamples,
    }
    if args.from_records:
        records = as_records(table)
        t = time.perf_counter()
        table = RecordTable.from_records(records)
        out["records_to_table_s"] = time.perf_counter() - t
        del records
    t = time.perf_counter()
    result = audit(table, n_resamples=args.resamples)
    out["audit_s"] = time.perf_counter() - t
    out["imports_s"] = _T_IMPORTED - _T0
    out["synthesis_s"] = t_synth
    out["in_process_total_s"] = time.perf_counter() - _T0
    if args.breakdown:
        out["breakdown_s"] = {
            "metrics_only": time_audit_opts(table, n_resamples=0, strata=False, sensitivity=False),
            "plus_strata": time_audit_opts(table, n_resamples=0, strata=True, sensitivity=False),
            "plus_bootstrap": time_audit_opts(
                table, n_resamples=args.resamples, strata=True, sensitivity=False
            ),
            "full": time_audit_opts(
                table, n_resamples=args.resamples, strata=True, sensitivity=True
            ),
        }
    assert len(result["models"]) == args.models
    return out


def time_audit_opts(table, **kwargs) -> float:
    t = time.perf_counter()
    audit(table, ablations=False, **kwargs)
    return time.perf_counter() - t


def whole_process(args, runs: int) -> dict:
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--models",
        str(args.models),
        "--cases",
        str(args.cases),
        "--resamples",
        str(args.resamples),
        "--seed",
        str(args.seed),
        "--quiet",
    ]
    if args.triplets:
        cmd.append("--triplets")
    if args.from_records:
        cmd.append("--from-records")
    if args.blas_threads:
        cmd += ["--blas-threads", str(args.blas_threads)]
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return {
        "whole_process_runs": runs,
        "whole_process_min_s": min(walls),
        "whole_process_median_s": statistics.median(walls),
        "whole_process_cpu_median_s": statistics.median(cpus),
        "load_average_1min": os.getloadavg()[0],
        "cpus": os.cpu_count(),
    }


def _min_time(fn, repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def scaling(args) -> dict:
    """Growth of the audit with probes (cases) and of the bootstrap with resamples.

    Times are the minimum of ``--repeat`` runs (robust to other load on the machine).
    The resample series times the bootstrap stage alone (draws + ``W @ T`` + metrics of
    every resample), since at 500 resamples it is a small part of the whole audit.
    """
    from medvigil.suites.medvigil.scoring import scoring as core

    per_case = probes_per_case(args.triplets)
    weights = np.array([1.0, 2.0, 3.0, 5.0, 8.0])
    rows: dict = {"cases": [], "resamples": []}
    for cases in (750, 1500, 3000, 6000):
        table = synthesise(args.models, cases, seed=args.seed, triplets=args.triplets)
        audit(table, n_resamples=args.resamples)  # warm-up
        rows["cases"].append(
            {
                "cases": cases,
                "probes": len(table),
                "audit_s": _min_time(
                    lambda t=table: audit(t, n_resamples=args.resamples), args.repeat
                ),
            }
        )
    table = synthesise(args.models, 3000, seed=args.seed, triplets=args.triplets)
    feats, _ = core._score(table, weights, "present", False)
    for b in (250, 500, 1000, 2000):
        rows["resamples"].append(
            {
                "resamples": b,
                "bootstrap_s": _min_time(
                    lambda b=b: core._bootstrap(feats, weights, "present", b, args.seed),
                    args.repeat,
                ),
            }
        )
    million = math.ceil(1_000_000 / (args.models * per_case))
    table = synthesise(args.models, million, seed=args.seed, triplets=args.triplets)
    rows["million"] = {
        "cases": million,
        "probes": len(table),
        "audit_s": _min_time(lambda: audit(table, n_resamples=args.resamples), args.repeat),
    }
    for key, unit, y_key in (
        ("cases", "probes", "audit_s"),
        ("resamples", "resamples", "bootstrap_s"),
    ):
        r = rows[key]
        x = np.array([row[unit] for row in r], float)
        y = np.array([row[y_key] for row in r])
        slope, intercept = np.polyfit(x, y, 1)
        pred = slope * x + intercept
        rows[f"{key}_fit"] = {
            "seconds_per_unit": float(slope),
            "intercept_s": float(intercept),
            "r2": float(1 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2)),
            "time_ratio_last_first": float(y[-1] / y[0]),
            "size_ratio_last_first": float(x[-1] / x[0]),
        }
    rows["load_average_1min"] = os.getloadavg()[0]
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", type=int, default=18)
    p.add_argument("--cases", type=int, default=3000)
    p.add_argument("--resamples", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--triplets",
        action="store_true",
        help="add triplet_anchor/tcf/vcf probes for 80%% of cases",
    )
    p.add_argument(
        "--from-records",
        action="store_true",
        help="feed probe-record dicts (times the conversion too)",
    )
    p.add_argument(
        "--breakdown",
        action="store_true",
        help="also time metrics / strata / bootstrap / sensitivity separately",
    )
    p.add_argument(
        "--whole-process",
        type=int,
        metavar="N",
        default=0,
        help="time N fresh interpreter runs of this command",
    )
    p.add_argument(
        "--scaling",
        action="store_true",
        help="linear-growth check over cases and resamples, plus 1M probes",
    )
    p.add_argument(
        "--blas-threads",
        type=int,
        default=0,
        help="set OPENBLAS/OMP/MKL_NUM_THREADS before numpy loads (0: library default)",
    )
    p.add_argument(
        "--repeat", type=int, default=5, help="--scaling: minimum over this many runs (default 5)"
    )
    p.add_argument("--json", metavar="OUT", help="write the numbers as JSON")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    if args.scaling:
        out = scaling(args)
    elif args.whole_process:
        out = {
            "models": args.models,
            "cases": args.cases,
            "resamples": args.resamples,
            **whole_process(args, args.whole_process),
        }
    else:
        out = run_once(args)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=2)
    if not args.quiet:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
