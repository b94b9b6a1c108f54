"""Write a synthetic release in the published layout, into a temporary sibling renamed into place at
the end. Case ``i`` depends only on ``(seed, i)`` (:func:`.plan.case_rngs`), with no time stamps and
fixed JPEG parameters: byte-identical for the same ``seed`` and ``cases``, and a prefix of any
larger release but for summaries.
"""

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from string import Template

from medvigil import __version__
from medvigil.cards import CARDS_DIR
from medvigil.files.atomic_output import mark
from medvigil.files.digest import release_digest
from medvigil.files.held_signals import held
from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.synthetic.case_output import case_outputs
from medvigil.suites.medvigil.synthetic.output_folder import (
    KIND,
    commit,
    make_empty,
    prepare,
    sibling,
)
from medvigil.suites.medvigil.synthetic.plan import SOURCES
from medvigil.suites.medvigil.synthetic.release_summary import ReleaseSummary
from medvigil.suites.medvigil.synthetic.release_tables import POINTERS_FILE, ReleaseTables


def _check_count(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}: {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def generate_release(
    out: str | os.PathLike,
    *,
    cases: int = 40,
    seed: int = 0,
    force: bool = False,
    credentialed_out: str | os.PathLike | None = None,
    progress: Callable[[int, int], None] | None = None,
    jobs: int = 1,
) -> ReleaseSummary:
    """Write ``cases`` cases (>= 1; every tier and source from 5 on) into ``out`` (absent or empty
    unless ``force``); ``credentialed_out`` gets the withheld CXR sources at ``cxr_pointers.csv``'s
    paths; ``jobs`` never changes the output."""
    cases = _check_count(cases, "cases", 1)
    seed = _check_count(seed, "seed", 0)
    jobs = _check_count(jobs, "jobs", 1)
    root = Path(out)
    cred_root = Path(credentialed_out) if credentialed_out is not None else None
    if cred_root is not None:
        a, b = root.resolve(), cred_root.resolve()
        if a == b or a.is_relative_to(b) or b.is_relative_to(a):
            raise ValueError(
                f"credentialed_out must not overlap the release "
                f"directory, got {cred_root} and {root}"
            )
        prepare(cred_root, force, "credentialed-out directory")
    prepare(root, force, "output directory")

    tmp = sibling(root, "partial")
    cred_tmp = sibling(cred_root, "partial") if cred_root is not None else None
    partials = [folder for folder in (tmp, cred_tmp) if folder is not None]
    try:
        for (
            folder
        ) in partials:  # made inside the try: a Ctrl-C or SIGTERM just after a mkdir removes it too
            make_empty(folder)
        summary = _write(tmp, cases, seed, cred_tmp, progress, jobs)
        summary.digest = release_digest(tmp)
        (tmp / rf.DIGEST_FILE).write_text(summary.digest + "\n", encoding="utf-8")
        for folder in partials:
            mark(folder, KIND)  # (outside the digest, as the digest file)
        with held():  # the outputs are moved in whole: a signal meanwhile is raised once they are
            if cred_root is not None and cred_tmp is not None:
                commit(cred_tmp, cred_root)
            commit(tmp, root)
    except BaseException:
        with held():  # a second Ctrl-C does not cut the removal short
            for folder in partials:
                shutil.rmtree(folder, ignore_errors=True)
        raise
    summary.root, summary.credentialed_root = root, cred_root
    return summary


def _write(
    tmp: Path, n: int, seed: int, cred_tmp: Path | None, progress, jobs: int = 1
) -> ReleaseSummary:
    for folder in (rf.IMAGES_DIR, rf.PERTURBED_DIR, rf.SPLITS_DIR):
        (tmp / folder).mkdir()
    summary = ReleaseSummary(root=tmp, digest="", cases=n, seed=seed)
    tables = ReleaseTables(tmp, cred_tmp, summary)
    try:
        for i, out in enumerate(case_outputs(seed, n, cred_tmp is not None, jobs)):
            tables.add(out)
            if progress is not None:
                progress(i + 1, n)
    finally:
        tables.close()
    tables.finish()
    (tmp / "README.md").write_text(_readme(summary), encoding="utf-8")
    return summary


def _readme(s: ReleaseSummary) -> str:
    """README.md of the release, from the template in ``cards/``."""
    return Template(
        (CARDS_DIR / "medvigil_synthetic_readme.md").read_text(encoding="utf-8")
    ).substitute(
        notice=rf.SYNTHETIC_NOTICE,
        version=__version__,
        cases=s.cases,
        seed=s.seed,
        rows="\n".join(f"| `{name}` | {n} |" for name, n in s.rows.items()),
        images=s.images,
        perturbed=s.perturbed,
        kinds=", ".join(f"{k} {s.probe_kinds.get(k, 0)}" for k in rf.PROBE_KINDS),
        tiers=", ".join(f"{t} {s.tiers.get(t, 0)}" for t in rf.TIERS),
        sources=", ".join(f"{src} {s.sources.get(src, 0)}" for src in SOURCES),
        json_key=rf.SYNTHETIC_JSON_KEY,
        column=rf.SYNTHETIC_COLUMN,
        longest_side=rf.LONGEST_SIDE,
        jpeg_quality=rf.JPEG_QUALITY,
        pointers_file=POINTERS_FILE,
    )
