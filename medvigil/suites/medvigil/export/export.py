"""Write a Hub-ready folder from a MedVIGIL release (``medvigil build``): card, ``DATASHEET.md``
(Appendix C), ``croissant.json``, ``build_info.json`` and Parquet shards, atomically and
deterministically (:mod:`medvigil.hub.export_engine`, rows of :mod:`.dataset_rows`). Credentialed
images never leave: ``image = None`` except in a marked ``local_only`` build (refused by ``medvigil
publish``), and every build re-scans its shards.
"""

import json
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medvigil.errors import DataError, Problem
from medvigil.files.atomic_output import staged_folder
from medvigil.hub import export_engine
from medvigil.hub.export_engine import (
    README,
    build_digest,
    check_destination,
    check_max_shard_bytes,
    write_configs,
    write_metadata,
)
from medvigil.hub.parquet_shards import DEFAULT_MAX_SHARD_BYTES
from medvigil.suites.medvigil.export.dataset_configs import CONFIG_NAMES, FEATURES, VERSION
from medvigil.suites.medvigil.export.dataset_rows import ReleaseRows, check_row_settings
from medvigil.suites.medvigil.export.export_card import dataset_card, dataset_facts
from medvigil.suites.medvigil.export.publish_check import (
    DATASHEET,
    LOCAL_ONLY_MARKER,
    credentialed_problems,
)
from medvigil.suites.medvigil.export.variants import compare_shipped_variants
from medvigil.suites.medvigil.validate.validate import leave_out_bad_probes, validate_release


@dataclass
class BuildReport(export_engine.BuildReport):
    """What a build wrote and left out."""

    BUILDER = "medvigil"

    release_digest: str
    local_only: bool
    settings: dict[str, Any]
    skipped: dict[str, int]
    notes: dict[str, int]
    variant_comparison: dict[str, Any] | None
    credentialed_case_ids: list[str]
    images: dict[str, dict[str, int]] = field(
        default_factory=dict
    )  # config -> image_status -> rows
    credentialed_sha256: list[str] = field(
        default_factory=list
    )  # the withheld source files (publish checks content)
    left_out_problems: list[Problem] = field(
        default_factory=list
    )  # named rows behind skipped["...: probe left out ..."]

    def input_digest(self) -> tuple[str, str]:
        return "release", self.release_digest

    def info_head(self) -> dict[str, Any]:
        return {
            "local_only": self.local_only,
            "synthetic": self.synthetic,
            "settings": self.settings,
        }

    def info_tail(self) -> dict[str, Any]:
        keys = (
            "images",
            "skipped",
            "notes",
            "credentialed_case_ids",
            "credentialed_sha256",
            "variant_comparison",
        )
        return {key: getattr(self, key) for key in keys}

    def out_marker(self) -> str:
        return "  (LOCAL ONLY: never publish)" if self.local_only else ""

    def summary_tail(self) -> list[str]:
        lines = super().summary_tail()
        lines += [f"skipped: {count:5d}  {reason}" for reason, count in self.skipped.items()]
        lines += [f"note:    {count:5d}  {note}" for note, count in self.notes.items()]
        if self.variant_comparison is not None:
            counts = self.variant_comparison["counts"]
            lines.append(
                "shipped variants vs. render: "
                + (", ".join(f"{k} {v}" for k, v in counts.items()) or "none shipped")
            )
            lines += [
                f"  differs: {d['case_id']} {d['variant']} {d['shipped_file']} [{d['status']}]"
                for d in self.variant_comparison["mismatches"][:20]
            ]
        return lines


def build(
    release_dir: Path | str,
    out: Path | str,
    *,
    reconstructed: Path | str | None = None,
    local_only: bool = False,
    configs: tuple[str, ...] | None = None,
    shuffle_seed: int = 0,
    variant_source: str = "render",
    max_shard_bytes: int = DEFAULT_MAX_SHARD_BYTES,
    repo_id: str | None = None,
    force: bool = False,
    skip_invalid_rows: bool = False,
) -> BuildReport:
    """Validate ``release_dir`` and write the Hub-ready folder ``out`` atomically (an existing
    ``out`` only with ``force``, replaced after success). ``reconstructed`` needs ``local_only``;
    ``configs``: default all; ``max_shard_bytes`` closes a shard; ``repo_id`` goes into card and
    Croissant; ``skip_invalid_rows``: :func:`.validate.leave_out_bad_probes`. Raises DataError when
    the release does not validate, FileExistsError, ValueError on inconsistent arguments."""
    release_dir, out = Path(release_dir), Path(out)
    configs = tuple(configs or CONFIG_NAMES)
    _check_arguments(
        release_dir,
        configs,
        shuffle_seed,
        variant_source,
        reconstructed,
        local_only,
        max_shard_bytes,
    )
    inputs = {"RELEASE": release_dir, "--reconstructed": reconstructed}
    check_destination(out, inputs, force=force, kind="build")
    release, left_out, left_out_problems = _validated(release_dir, skip_invalid_rows)
    with (
        tempfile.TemporaryDirectory(prefix="medvigil-build-cache-") as cache,
        staged_folder(out, inputs=inputs, replace=force, kind="build") as tmp,
    ):
        result = _write(
            release,
            tmp,
            Path(cache),
            configs=configs,
            shuffle_seed=shuffle_seed,
            variant_source=variant_source,
            reconstructed=reconstructed,
            local_only=local_only,
            max_shard_bytes=max_shard_bytes,
            repo_id=repo_id,
            left_out=left_out,
        )
        if not local_only:
            problems = credentialed_problems(tmp)
            if problems:  # a bug, not a user error: the rows must never embed these
                raise DataError(problems)
    result.out = out
    result.left_out_problems = left_out_problems
    return result


def _check_arguments(
    release_dir: Path,
    configs: tuple[str, ...],
    shuffle_seed: int,
    variant_source: str,
    reconstructed: Path | str | None,
    local_only: bool,
    max_shard_bytes: int,
) -> None:
    """Refuse settings no build could be made with, before anything is read or written."""
    unknown = [c for c in configs if c not in CONFIG_NAMES]
    if unknown:
        raise ValueError(f"unknown config(s) {unknown}; available: {', '.join(CONFIG_NAMES)}")
    check_row_settings(shuffle_seed, variant_source)
    if reconstructed is not None and not local_only:
        raise ValueError(
            "reconstructed credentialed images may only go into a local-only build (--local-only): "
            "they must never be redistributed"
        )
    if local_only and reconstructed is None:
        raise ValueError(
            "--local-only needs --reconstructed DIR (the output of `medvigil reconstruct`)"
        )
    check_max_shard_bytes(max_shard_bytes)
    if not release_dir.is_dir():
        raise NotADirectoryError(
            f"release folder {str(release_dir)!r} does not exist or is not a folder"
        )


def _validated(release_dir: Path, skip_invalid_rows: bool) -> tuple[Any, dict, list[Problem]]:
    """``(release, left-out counts, left-out problems)`` of a release that validates (with
    ``skip_invalid_rows``: once the probes with bad rows are left out); DataError otherwise."""
    report = validate_release(release_dir)
    left_out: dict[str, int] = {}
    left_out_problems: list[Problem] = []
    if not report.ok and skip_invalid_rows and not report.unusable:
        left_out_problems, fatal, left_out = leave_out_bad_probes(report)
        if fatal:
            raise DataError(fatal)
    elif not report.ok:
        raise DataError(report.errors or report.problems)
    return report.release, left_out, left_out_problems


class _Tally:
    """The rows of every config, counted as they are written: image statuses per config and, in
    ``mcq``, probe kinds (the card's composition table)."""

    def __init__(self, rows: ReleaseRows):
        self._rows = rows
        self.statuses: dict[str, Counter[str]] = {}
        self.kinds: Counter[str] = Counter()

    def rows(self, config: str):
        self.statuses[config] = Counter()
        for key, row in self._rows.iter_rows(config):
            self.statuses[config][row["image_status"]] += 1
            if config == "mcq":
                self.kinds[row["probe_kind"]] += 1
            yield key, row


def _write(release, tmp: Path, cache: Path, **opts) -> BuildReport:
    rows = ReleaseRows(
        release,
        shuffle_seed=opts["shuffle_seed"],
        variant_source=opts["variant_source"],
        reconstructed_dir=str(opts["reconstructed"]) if opts["reconstructed"] else None,
        image_store=cache / "images",
    )  # render each image once for all configs
    tally = _Tally(rows)
    features = {c: FEATURES[c] for c in opts["configs"]}
    counts, shards = write_configs(
        tmp,
        features,
        tally.rows,
        max_shard_bytes=opts["max_shard_bytes"],
        payload_size=_payload_size,
        group_column="case_id",
    )
    kinds = tally.kinds
    if "mcq" not in opts["configs"]:  # the card's composition table still needs the kinds
        kinds = Counter(p.probe_kind for p in release.probes_mcq)
    comparison = None
    if any((release.root / "images_perturbed").glob("*")):
        comparison = compare_shipped_variants(release, rows.rendered_image).to_dict()
    skipped = Counter(opts["left_out"])
    skipped.update(rows.skipped)
    settings = _settings(opts)
    facts = [("release", release.digest), ("settings", json.dumps(settings, sort_keys=True))]
    report = BuildReport(
        out=tmp,
        version=str(VERSION),
        build_digest=build_digest("medvigil", str(VERSION), facts, shards),
        synthetic=release.synthetic,
        rows=counts,
        shards=shards,
        release_digest=release.digest,
        local_only=opts["local_only"],
        settings=settings,
        skipped=dict(sorted(skipped.items())),
        notes=_notes(release),
        variant_comparison=comparison,
        credentialed_case_ids=sorted(c.case_id for c in release.cases.values() if c.credentialed),
        images={c: dict(sorted(tally.statuses[c].items())) for c in opts["configs"]},
        credentialed_sha256=sorted({sha.lower() for _, sha in release.pointers.values()}),
    )
    _write_texts(release, tmp, report, features, kinds, opts)
    return report


def _settings(opts: dict) -> dict[str, Any]:
    """The build's settings as ``build_info.json`` records them (repo_id: the repository the card
    and Croissant name, which publish checks)."""
    keys = ("shuffle_seed", "variant_source", "local_only", "max_shard_bytes", "repo_id")
    return {"configs": list(opts["configs"]), **{key: opts[key] for key in keys}}


def _notes(release) -> dict[str, int]:
    """What the build records beside what it skipped."""
    notes: dict[str, int] = {}
    no_roi = sum(not case.roi_usable for case in release.cases.values())
    if no_roi:
        notes[
            "cases without a usable ROI box (the release has "
            "no roi_masked / roi_only probes for them)"
        ] = no_roi
    return notes


def _write_texts(
    release, tmp: Path, report: BuildReport, features: dict, kinds: Counter, opts: dict
) -> None:
    """Card, datasheet, Croissant, build info (and a local-only build's marker)."""
    card_facts = dataset_facts(release, report)
    card, datasheet = dataset_card(
        release, report, card_facts, features, kinds, repo_id=opts["repo_id"]
    )
    texts = {README: card, DATASHEET: datasheet}
    if opts["local_only"]:
        texts[LOCAL_ONLY_MARKER] = (
            "This build embeds credentialed images re-derived from a local licensed copy.\n"
            "It is for local evaluation only. Never upload or share it.\n"
        )
    write_metadata(tmp, report, card_facts, features, texts, repo_id=opts["repo_id"])


def _payload_size(row: dict) -> int:
    """What a row adds to its shard: image bytes, UTF-8 text, 8 bytes per other value."""
    size = 0
    for value in row.values():
        if isinstance(value, dict) and value.get("bytes") is not None:
            size += len(value["bytes"])
        elif isinstance(value, str):
            size += len(value.encode("utf-8"))
        elif isinstance(value, list):
            size += sum(len(v.encode("utf-8")) if isinstance(v, str) else 8 for v in value)
        else:
            size += 8
    return size
