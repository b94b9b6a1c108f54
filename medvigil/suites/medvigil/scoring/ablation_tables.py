"""The MedVIGIL report's ablation tables: the matched no-image gap (Table 12), visual information
decay (Table 13), ROI decay (Appendix K) and ROI decay as the authors ran it, by modal vote (their
``visual_token_ablation.csv``, Figure 7 per tier, Table 14)."""

from collections.abc import Mapping
from typing import Any

from medvigil.report.render import Table, fmt, fmt_ci

__all__ = ["TRAJECTORY_CASES_PER_TIER", "ablation_tables", "protocol_tables"]

TRAJECTORY_CASES_PER_TIER = (
    1  # Table 14 shows one case per tier (the paper hand-picked five); the JSON keeps all
)


def ablation_tables(result: Mapping[str, Any]) -> list[Table]:
    abl = result.get("ablations") or {}
    out = []
    if abl.get("no_image"):
        out.append(
            Table(
                "Matched no-image ablation (Table 12 layout)",
                ["Model", "Overall vision/no-image", "Original vision/no-image", "Δorig (pp)"],
                [
                    [
                        n,
                        f"{fmt(r.get('overall_vision'))}/{fmt(r.get('overall_noimg'))}",
                        f"{fmt(r.get('orig_vision'))}/{fmt(r.get('orig_noimg'))}",
                        fmt(r.get("delta_orig"), signed=True),
                    ]
                    for n, r in sorted(abl["no_image"].items())
                ],
            )
        )
    if abl.get("blur"):
        sigmas = next(iter(abl["blur"].values()))["sigmas"]
        rows = []
        for n, r in sorted(abl["blur"].items()):
            curve = r.get(f"accuracy_{r.get('takeover_subset', 'all')}", [])
            l_star = r.get("takeover_sigma")
            rows.append(
                [n]
                + [fmt(x) for x in curve]
                + [
                    fmt(r.get(f"noimg_{r.get('takeover_subset', 'all')}")),
                    fmt(r.get("drop")),
                    "—" if l_star is None else f"{l_star:g}",
                ]
            )
        out.append(
            Table(
                "Visual information decay (Table 13 layout; accuracy %)",
                ["Model"] + [f"σ={s:g}" for s in sigmas] + ["no-img", "drop", "L*"],
                rows,
                "L* is the smallest σ at which at least 80% of the visual contribution is lost.",
            )
        )
    if abl.get("roi_decay"):
        rows = [
            [n, str(step), _rate_ci(r, "refusal", i), _rate_ci(r, "switch", i), str(r["n"][i])]
            for n, r in sorted(abl["roi_decay"].items())
            for i, step in enumerate(r["steps"])
        ]
        out.append(
            Table(
                "ROI decay (Appendix K): refusal and letter-switch rates with Wilson 95% CIs",
                ["Model", "step k", "refusal % [CI]", "switch vs step 0 % [CI]", "n"],
                rows,
                "Step k greys the top k/3 of the ROI; step 3 equals ROI-masked.",
            )
        )
    return out


def _rate_ci(r: Mapping[str, Any], key: str, i: int) -> str:
    """The ``key`` rate at step ``i`` with its Wilson interval."""
    return fmt_ci(r[f"{key}_rate"][i], dict(zip(("low", "high"), r[f"{key}_ci"][i])))


def protocol_tables(result: Mapping[str, Any]) -> list[Table]:
    """Appendix K as the authors ran it (modal vote): summary, per tier, Table 14."""
    modal = (result.get("ablations") or {}).get("roi_decay_modal") or {}
    if not modal:
        return []
    rows, tier_rows, traj_rows = [], [], []
    for name, r in sorted(modal.items()):
        rows += _modal_rows(name, r)
        for tier, t in sorted((r.get("by_tier") or {}).items()):
            tier_rows.append(
                [name, tier, str(max(t["n"], default=0))]
                + [f"{fmt(a)} / {fmt(b)}" for a, b in zip(t["refusal_rate"], t["switch_rate"])]
            )
        traj_rows += _trajectory_rows(name, r)
    steps = [f"step {s}" for s in next(iter(modal.values()))["steps"]]
    return [
        Table(
            "ROI decay as the authors ran it (Appendix K; visual_token_ablation.csv layout; %)",
            [
                "Model",
                "step k",
                "cases",
                "refusal [Wilson 95%]",
                "switch from step 0 [Wilson 95%]",
                "letter stability",
                "mean modal share",
            ],
            rows,
            "Each (model, case, step) answered several times (paper: 5 samples "
            "at T = 0.7) and scored by its modal letter; refusal = modal letter "
            "E; switch = modal letter empty or different from step 0.",
        ),
        Table(
            "ROI decay by risk tier (Figure 7 per tier): refusal / switch %",
            ["Model", "tier", "cases"] + steps,
            tier_rows,
        ),
        Table(
            "Per-case letter trajectories (Table 14 layout): modal letter (modal share %)",
            ["Model on case (CRT)"] + steps,
            traj_rows,
            f"{TRAJECTORY_CASES_PER_TIER} case per tier shown (the first in case order); every "
            f"case is in scores.json under ablations.roi_decay_modal.*.trajectories.",
        ),
    ]


def _modal_rows(name: str, r: Mapping[str, Any]) -> list[list[str]]:
    """One row per step of model ``name``'s modal-vote rates."""
    return [
        [
            name,
            str(step),
            str(r["n"][i]),
            _rate_ci(r, "refusal", i),
            _rate_ci(r, "switch", i),
            fmt(r["letter_stability"][i]),
            fmt(r["mean_modal_share"][i]),
        ]
        for i, step in enumerate(r["steps"])
    ]


def _trajectory_rows(name: str, r: Mapping[str, Any]) -> list[list[str]]:
    """The first :data:`TRAJECTORY_CASES_PER_TIER` cases per tier of model ``name``: its modal
    letter and share per step."""
    rows, shown = [], {}
    for case, traj in (r.get("trajectories") or {}).items():
        tier = traj.get("risk_tier") or "?"
        if shown.get(tier, 0) >= TRAJECTORY_CASES_PER_TIER:
            continue
        shown[tier] = shown.get(tier, 0) + 1
        cells = [
            f"{letter or '—'} ({fmt(share) if share is not None else '—'})"
            for letter, share in zip(traj["letters"], traj["modal_share"])
        ]
        rows.append([f"{name} on {case} ({tier})"] + cells)
    return rows
