"""Write a synthetic release in the published layout, into a temporary sibling renamed into place at
the end. Case ``i`` depends only on ``(seed, i)`` (:func:`.plan.case_rngs`), with no time stamps and
fixed JPEG parameters: byte-identical for the same ``seed`` and ``cases``, and a prefix of any
larger release but for summaries.
"""

import csv
import hashlib
import io
import json
import os
import shutil
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from string import Template

from PIL import Image

from medvigil import __version__
from medvigil.cards import CARDS_DIR
from medvigil.files.atomic_output import mark, refuse_unowned
from medvigil.files.digest import release_digest
from medvigil.files.held_signals import held
from medvigil.images.imaging import decode_image, encode_jpeg, render_variant, to_published
from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.synthetic.cases import author_case
from medvigil.suites.medvigil.synthetic.phantoms import MODALITIES, draw_phantom
from medvigil.suites.medvigil.synthetic.plan import SOURCES, case_rngs, plan_case

POINTERS_FILE = "cxr_pointers.csv"
POINTER_COLUMNS = ("case_id", "source_path", "sha256")
SOURCE_JPEG_QUALITY = 95  # quality of the withheld "credentialed" source files
IMAGE_EXT = "jpg"
KIND = "sample"  # the command whose marker the outputs hold (medvigil.files.atomic_output.mark)

# Simulated construction-blind reader: probability of a correct letter per (probe kind, tier),
# calibrated to the independent radiologist R4 of the paper (Appendix G, Table 10); for
# halluc_trap it is 1 - SFR. Used only to fill clinician_baseline.csv of the synthetic release.
READER_P_CORRECT = {
    "original": (1.000, 0.968, 0.958, 0.907, 0.892),
    "tcf": (1.000, 0.935, 0.941, 0.860, 0.811),
    "halluc_trap": (1.000, 0.952, 0.941, 0.895, 0.878),
    "negation": (0.962, 0.913, 0.921, 0.813, 0.857),
    "specificity_drop": (0.974, 0.882, 0.922, 0.875, 0.850),
    "knowledge_only": (0.985, 0.931, 0.946, 0.902, 0.857),
    "lr_flip": (0.958, 0.903, 0.924, 0.860, 0.811),
    "roi_only": (1.000, 0.950, 0.925, 0.881, 0.875),
    "roi_masked": (1.000, 0.950, 0.888, 0.809, 0.800),
}


@dataclass
class ReleaseSummary:
    """What :func:`generate_release` wrote."""

    root: Path
    digest: str
    cases: int
    seed: int
    rows: dict = field(default_factory=dict)  # file (relative) -> data rows
    probe_kinds: Counter = field(default_factory=Counter)
    tiers: Counter = field(default_factory=Counter)
    sources: Counter = field(default_factory=Counter)
    modalities: Counter = field(default_factory=Counter)
    images: int = 0
    perturbed: int = 0
    credentialed_files: int = 0
    credentialed_root: Path | None = None

    def format(self) -> str:
        lines = [
            f"synthetic MedVIGIL release: {self.root}",
            f"  cases {self.cases}, seed {self.seed}",
            "files (data rows):",
        ]
        lines += [f"  {name:<40} {n:>7}" for name, n in self.rows.items()]
        lines.append(f"  {rf.IMAGES_DIR + '/':<40} {self.images:>7} images")
        lines.append(f"  {rf.PERTURBED_DIR + '/':<40} {self.perturbed:>7} images")
        if self.credentialed_root is not None:
            lines.append(
                f"  withheld CXR sources in {self.credentialed_root}: "
                f"{self.credentialed_files} files"
            )
        for title, counter, order in (
            ("MCQ probes per kind", self.probe_kinds, rf.PROBE_KINDS),
            ("cases per tier", self.tiers, rf.TIERS),
            ("cases per source", self.sources, SOURCES),
            ("cases per modality", self.modalities, MODALITIES),
        ):
            lines.append(f"{title}:")
            lines += [f"  {key:<40} {counter.get(key, 0):>7}" for key in order]
        lines.append(f"release digest (sha256): {self.digest}")
        return "\n".join(lines)


class _CsvOut:
    """A CSV file written row by row (UTF-8, ``\\n``, QUOTE_MINIMAL): the columns, then the
    synthetic notice."""

    def __init__(self, path: Path, columns: tuple):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.columns = tuple(columns)
        self.rows = 0
        self._fh = open(path, "w", encoding="utf-8", newline="")
        self._writer = csv.writer(self._fh, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        self._writer.writerow(list(self.columns) + [rf.SYNTHETIC_COLUMN])

    def write(self, row: dict) -> None:
        self._writer.writerow([row[c] for c in self.columns] + [rf.SYNTHETIC_NOTICE])
        self.rows += 1

    def close(self) -> None:
        self._fh.close()


def _check_count(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}: {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def _prepare(path: Path, force: bool, what: str) -> None:
    """Refuse a non-empty existing target unless ``force``; never replace a dangerous path."""
    if path.exists() and not path.is_dir():
        raise FileExistsError(f"{what} {path} exists and is not a directory")
    if path.is_dir() and any(path.iterdir()):
        if not force:
            raise FileExistsError(
                f"{what} {path} exists and is not empty; use --force to replace it"
            )
        resolved = path.resolve()
        cwd = Path.cwd().resolve()
        if (
            resolved == Path(resolved.anchor)
            or resolved == Path.home().resolve()
            or cwd.is_relative_to(resolved)
        ):
            raise FileExistsError(
                f"refusing to replace {resolved} (root, home or current directory)"
            )
        refuse_unowned(path, KIND)  # --force replaces only an earlier `medvigil sample` output


def _sibling(path: Path, tag: str) -> Path:
    """The hidden sibling ``.NAME.TAG-PID`` of ``path``: named before it is made, so its cleanup can
    be set first."""
    return path.parent / f".{path.name}.{tag}-{os.getpid()}"


def _make_empty(folder: Path) -> None:
    """Make ``folder`` (and its parents), removing a stale one left by a dead process with this
    pid."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()


def _commit(tmp: Path, path: Path) -> None:
    """Move ``tmp`` to ``path``, replacing an existing directory only after the new one is
    complete."""
    if path.exists():
        old = _sibling(path, "old")
        if old.exists():
            shutil.rmtree(old)
        path.rename(old)
        tmp.rename(path)
        shutil.rmtree(old)
    else:
        tmp.rename(path)


def _pointer_path(seed: int, case: str) -> str:
    """A MIMIC-CXR-JPG-like relative path, deterministic in (seed, case id)."""
    h = hashlib.sha256(f"medvigil-synthetic:{seed}:{case}".encode()).hexdigest()
    subject = 10_000_000 + int(h[:8], 16) % 9_000_000
    study = 50_000_000 + int(h[8:16], 16) % 9_000_000
    dicom = "-".join(h[16 + 8 * k : 24 + 8 * k] for k in range(5))
    return f"files/p{str(subject)[:2]}/p{subject}/s{study}/{dicom}.jpg"


def _encode_source(img: Image.Image) -> bytes:
    """The withheld credentialed 'source file': native-size greyscale JPEG, quality 95."""
    exif = Image.Exif()
    exif[0x010E] = rf.SYNTHETIC_NOTICE
    buf = io.BytesIO()
    img.convert("L").save(
        buf,
        format="JPEG",
        quality=SOURCE_JPEG_QUALITY,
        optimize=False,
        progressive=False,
        comment=rf.SYNTHETIC_NOTICE.encode(),
        exif=exif.tobytes(),
    )
    return buf.getvalue()


def _dump_json(path: Path, groups: dict) -> None:
    payload = {rf.SYNTHETIC_JSON_KEY: rf.SYNTHETIC_NOTICE, **groups}
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _ordered(groups: dict, order) -> dict:
    """Non-empty groups in a fixed key order (then any others, sorted)."""
    keys = [k for k in order if groups.get(k)] + sorted(
        k for k in groups if k not in order and groups[k]
    )
    return {k: groups[k] for k in keys}


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
        _prepare(cred_root, force, "credentialed-out directory")
    _prepare(root, force, "output directory")

    tmp = _sibling(root, "partial")
    cred_tmp = _sibling(cred_root, "partial") if cred_root is not None else None
    partials = [folder for folder in (tmp, cred_tmp) if folder is not None]
    try:
        for (
            folder
        ) in partials:  # made inside the try: a Ctrl-C or SIGTERM just after a mkdir removes it too
            _make_empty(folder)
        summary = _write(tmp, cases, seed, cred_tmp, progress, jobs)
        summary.digest = release_digest(tmp)
        (tmp / rf.DIGEST_FILE).write_text(summary.digest + "\n", encoding="utf-8")
        for folder in partials:
            mark(folder, KIND)  # (outside the digest, as the digest file)
        with held():  # the outputs are moved in whole: a signal meanwhile is raised once they are
            if cred_root is not None and cred_tmp is not None:
                _commit(cred_tmp, cred_root)
            _commit(tmp, root)
    except BaseException:
        with held():  # a second Ctrl-C does not cut the removal short
            for folder in partials:
                shutil.rmtree(folder, ignore_errors=True)
        raise
    summary.root, summary.credentialed_root = root, cred_root
    return summary


@dataclass
class _CaseOutput:
    """Everything one case contributes, computed without touching the output folder."""

    rec: object  # cases.CaseRecords
    files: list  # [(path relative to the release root, bytes)]
    source: tuple | None  # (source_path, sha256, bytes or None) for a credentialed case
    reader: list  # simulated reader: correct (True/False) per MCQ probe, in row order


def _build_case(seed: int, index: int, keep_source: bool) -> _CaseOutput:
    """Plan, draw, author and encode case ``index`` (a pure function of its arguments)."""
    plan_rng, image_rng, reader_rng = case_rngs(seed, index)
    plan = plan_case(index, plan_rng)
    phantom = draw_phantom(plan.scene, image_rng)
    rec = author_case(plan, phantom, plan_rng, IMAGE_EXT)
    tier_i = rf.TIERS.index(plan.tier)
    reader = [
        float(reader_rng.random()) < READER_P_CORRECT[row["probe_kind"]][tier_i] for row in rec.mcq
    ]
    files: list = []
    source = None
    if plan.credentialed:
        data = _encode_source(phantom.image)
        source = (
            _pointer_path(seed, plan.case_id),
            hashlib.sha256(data).hexdigest(),
            data if keep_source else None,
        )
    else:
        name = rec.manifest["image_file"]
        original = encode_jpeg(to_published(phantom.image), comment=rf.SYNTHETIC_NOTICE)
        files.append((f"{rf.IMAGES_DIR}/{name}", original))
        decoded = decode_image(original, name=f"{rf.IMAGES_DIR}/{name}")
        for variant in rec.variants:
            data = encode_jpeg(
                render_variant(decoded, variant, list(rec.roi)), comment=rf.SYNTHETIC_NOTICE
            )
            files.append((f"{rf.PERTURBED_DIR}/{plan.case_id}_{variant}.{IMAGE_EXT}", data))
    return _CaseOutput(rec=rec, files=files, source=source, reader=reader)


def _build_case_star(args) -> _CaseOutput:
    return _build_case(*args)


def _case_outputs(seed: int, n: int, keep_source: bool, jobs: int):
    """Case outputs in index order, computed inline or by ``jobs`` worker processes."""
    tasks = ((seed, i, keep_source) for i in range(n))
    if jobs <= 1 or n < 2:
        yield from map(_build_case_star, tasks)
        return
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(min(jobs, n)) as pool:
        yield from pool.imap(_build_case_star, tasks, chunksize=4)


def _write(
    tmp: Path, n: int, seed: int, cred_tmp: Path | None, progress, jobs: int = 1
) -> ReleaseSummary:
    for folder in (rf.IMAGES_DIR, rf.PERTURBED_DIR, rf.SPLITS_DIR):
        (tmp / folder).mkdir()
    pointers_name = f"{rf.POINTERS_DIR}/{POINTERS_FILE}"
    columns = {
        rf.MANIFEST: rf.MANIFEST_COLUMNS,
        rf.GROUNDING: rf.GROUNDING_COLUMNS,
        rf.PROBES_MCQ: rf.PROBES_MCQ_COLUMNS,
        rf.PROBES_OPEN: rf.PROBES_OPEN_COLUMNS,
        rf.TRIPLETS: rf.TRIPLETS_COLUMNS,
        pointers_name: POINTER_COLUMNS,
    }
    outs = {name: _CsvOut(tmp / name, file_columns) for name, file_columns in columns.items()}
    summary = ReleaseSummary(root=tmp, digest="", cases=n, seed=seed)
    split_orders = {
        "by_tier": rf.TIERS,
        "by_source": SOURCES,
        "by_modality": MODALITIES,
        "by_rarity": ("common", "rare"),
    }
    splits = {name: {} for name in split_orders}
    text_only: list = []
    reader = Counter()  # (kind, tier) -> n, ("ok", kind, tier) -> correct
    try:
        for i, out in enumerate(_case_outputs(seed, n, cred_tmp is not None, jobs)):
            rec = out.rec
            plan = rec.plan
            cid = plan.case_id
            outs[rf.MANIFEST].write(rec.manifest)
            outs[rf.GROUNDING].write(rec.grounding)
            for row, correct in zip(rec.mcq, out.reader, strict=True):
                outs[rf.PROBES_MCQ].write(row)
                summary.probe_kinds[row["probe_kind"]] += 1
                reader[(row["probe_kind"], plan.tier)] += 1
                reader[("ok", row["probe_kind"], plan.tier)] += int(correct)
            for row in rec.open:
                outs[rf.PROBES_OPEN].write(row)
            if rec.triplet is not None:
                outs[rf.TRIPLETS].write(rec.triplet)
            for rel, data in out.files:
                (tmp / rel).write_bytes(data)
            summary.images += sum(rel.startswith(rf.IMAGES_DIR + "/") for rel, _ in out.files)
            summary.perturbed += sum(rel.startswith(rf.PERTURBED_DIR + "/") for rel, _ in out.files)
            if out.source is not None:
                rel, sha, data = out.source
                outs[pointers_name].write({"case_id": cid, "source_path": rel, "sha256": sha})
                if cred_tmp is not None:
                    target = cred_tmp / rel
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
                    summary.credentialed_files += 1

            for split, group in (
                ("by_tier", plan.tier),
                ("by_source", plan.source),
                ("by_modality", plan.scene.modality),
                ("by_rarity", plan.rarity),
            ):
                splits[split].setdefault(group, []).append(cid)
            if rec.manifest["text_only_answerable"] == "true":
                text_only.append(cid)
            for counter, key in (
                (summary.tiers, plan.tier),
                (summary.sources, plan.source),
                (summary.modalities, plan.scene.modality),
            ):
                counter[key] += 1
            if progress is not None:
                progress(i + 1, n)
    finally:
        for handle in outs.values():
            handle.close()

    baseline = _CsvOut(tmp / rf.CLINICIAN_BASELINE, rf.CLINICIAN_BASELINE_COLUMNS)
    try:
        for kind in rf.PROBE_KINDS:
            for tier in rf.TIERS + ("ALL",):
                tiers = rf.TIERS if tier == "ALL" else (tier,)
                count = sum(reader[(kind, t)] for t in tiers)
                correct = sum(reader[("ok", kind, t)] for t in tiers)
                if count == 0:
                    continue
                rate = (count - correct) / count if kind == "halluc_trap" else correct / count
                baseline.write(
                    {
                        "probe_kind": kind,
                        "risk_tier": tier,
                        "acc_or_sfr_pct": f"{100 * rate:.1f}",
                        "n_probes": count,
                        "n_correct": correct,
                    }
                )
    finally:
        baseline.close()

    for name, order in split_orders.items():
        _dump_json(tmp / rf.SPLITS_DIR / f"{name}.json", _ordered(splits[name], order))
    _dump_json(tmp / rf.SPLITS_DIR / "text_only_subset.json", {"text_only": text_only})

    summary.rows = {name: handle.rows for name, handle in outs.items()}
    summary.rows[rf.CLINICIAN_BASELINE] = baseline.rows
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
