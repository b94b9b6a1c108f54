"""Leave-one-set-out validation of the learned judge (:mod:`.judge_model`): for each labelled set,
the judge fitted on every other set judges it, and its flags are scored against the set's labels
(precision and recall with bootstrap 95% CIs, :func:`.judge_validation.axis_scores`; false refusals
among answers labelled not a refusal, false criticals among answers labelled not critical that name
a tier-4 finding -- negated, hedged, educational).

These held-out flags are also what the open-ended correction reads (:mod:`.judge_correction`): the
blind sets are training data of the judge that runs, so its figures on them in-sample would flatter
it; each blind set's flags from the judge fitted without it are held-out measurements. They are
computed once per change of the sets or the judge's code and kept (:mod:`.judge_cache`).

``medvigil judge --cross-validate`` prints :func:`format_table` of :func:`cross_validate`.
"""

from pathlib import Path

from medvigil.suites.medvigil.scoring.judge_model import AXES, fit, labelled_rows, readings

# the code that decides a held-out flag beyond the readers (a change refits)
MODULES = ("judge_model", "judge_loso")


def held_out_flags(folder: Path | None = None) -> dict:
    """Per set of ``folder``'s index (default the shipped sets): its name, whether it is blind, and
    per label the judge's held-out flag and the label of each answer that carries one."""
    from medvigil.suites.medvigil.scoring import judge_cache

    rows = labelled_rows(folder)
    cached = judge_cache.load_value("loso", rows, MODULES)
    if cached is not None:
        return cached
    with judge_cache.computing("loso", rows, MODULES):
        cached = judge_cache.load_value("loso", rows, MODULES)  # a process that held the lock
        if cached is not None:
            return cached
        out = _held_out(rows)
        judge_cache.save_value("loso", rows, out, MODULES)
    return out


def _held_out(rows: list[dict]) -> dict:
    """Each set's flags by the judge fitted on all the other sets (:func:`held_out_flags`)."""
    from tqdm.auto import tqdm

    read = readings(rows)
    out = {}
    names = list(dict.fromkeys(r["_set"] for r in rows))
    for name in tqdm(names, desc="judge: held-out fits (once; cached)", unit="set"):
        train = [i for i, r in enumerate(rows) if r["_set"] != name]
        test = [i for i, r in enumerate(rows) if r["_set"] == name]
        judge = fit([rows[i] for i in train], [read[i] for i in train])
        flags = judge.flags([read[i] for i in test])
        block = {"blind": rows[test[0]]["_blind"]}
        for axis in AXES:
            pairs = [
                (flags[axis][k], rows[i][f"label_is_{axis}"], _names_critical(read[i].flags))
                for k, i in enumerate(test)
                if isinstance(rows[i].get(f"label_is_{axis}"), bool)
            ]
            block[axis] = {key: [p[j] for p in pairs] for j, key in enumerate(_PAIR_KEYS)}
        out[name] = block
    return out


_PAIR_KEYS = ("flag", "label", "names_critical")


def _names_critical(flags: dict) -> bool:
    return any(key.startswith(("mentions=", "think=")) for key in flags)


def cross_validate(folder: Path | None = None, n_resamples: int | None = None) -> dict:
    """Per set: n and per label the held-out scores (:func:`.judge_validation.axis_scores`) with
    the false flags among its negatives (module docstring)."""
    from medvigil.suites.medvigil.scoring.judge_validation import N_RESAMPLES, axis_scores

    out = {}
    for name, block in held_out_flags(folder).items():
        entry = {"blind": block["blind"]}
        for axis in AXES:
            flag, label, naming = (block[axis][k] for k in _PAIR_KEYS)
            scores = axis_scores(flag, label, n_resamples or N_RESAMPLES)
            negatives = [
                f for f, g, n in zip(flag, label, naming) if not g and (axis == "refusal" or n)
            ]
            scores["false_flags"] = {"negatives": len(negatives), "flagged": sum(negatives)}
            entry[axis] = scores
        out[name] = entry
    return out


def _ci(value, interval) -> str:
    if value is None:
        return "-"
    if not interval:
        return f"{value:.3f}"
    return f"{value:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"


def format_table(result: dict) -> str:
    """The leave-one-set-out table (markdown): per held-out set, P and R of both labels with 95%
    CIs, false refusals among its non-refusals, false criticals among its answers naming a
    tier-4 finding unasserted."""
    lines = [
        "Leave-one-set-out: each set judged by the judge fitted on all the other sets",
        "",
        "| held-out set | blind | n | refusal P [95% CI] | refusal R [95% CI] "
        "| critical P [95% CI] | critical R [95% CI] | false refusals / not refusals "
        "| false criticals / naming, not critical |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, entry in result.items():
        cells = [name, "yes" if entry["blind"] else "no", str(entry["refusal"]["n"])]
        for axis in AXES:
            a = entry[axis]
            cells += [_ci(a["precision"], a["precision_ci"]), _ci(a["recall"], a["recall_ci"])]
        for axis in AXES:
            false = entry[axis]["false_flags"]
            cells.append(f"{false['flagged']} / {false['negatives']}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
