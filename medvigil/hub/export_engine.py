"""The one Hub-export engine of every suite: destination checks, Parquet shards, build digest, build
report, and the card / Croissant / build-info files, all inside a staging folder.

A suite calls :func:`check_destination`, then inside ``staged_folder`` :func:`write_configs`,
:func:`build_digest` and :func:`write_metadata` (which writes the build's manifest last). No clock,
random state or absolute path enters the files: two builds of the same inputs with the same settings
are byte-identical.
"""

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

from medvigil.files.atomic_output import refuse_unowned
from medvigil.files.output_guard import Inputs, refuse_overlap
from medvigil.hub import croissant
from medvigil.hub.build_manifest import write_manifest
from medvigil.hub.card_metadata import DatasetFacts
from medvigil.hub.parquet_shards import checksum_lines, shards_line, write_shards

README = "README.md"
CROISSANT = "croissant.json"
BUILD_INFO = "build_info.json"

Rows = Iterable[tuple[str, dict]]


def check_max_shard_bytes(value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"max_shard_bytes must be a positive int, got {value!r}")


def check_destination(out: Path, inputs: Inputs, *, force: bool, kind: str) -> None:
    """Refuse, before anything is read or written, an ``out`` that overlaps an input or exists
    (with ``force``: that ``medvigil <kind>`` did not write, :func:`refuse_unowned`)."""
    refuse_overlap({"--out": out}, inputs, replace=force)
    if out.exists() and not force:
        raise FileExistsError(f"{out} already exists; pass --force to replace it")
    if force:
        refuse_unowned(out, kind)


def write_configs(
    tmp: Path,
    features: Mapping[str, Any],
    rows_of: Callable[[str], Rows],
    *,
    max_shard_bytes: int,
    payload_size: Callable[[dict], int],
    group_column: str | None = None,
) -> tuple[dict[str, int], list[croissant.Shard]]:
    """Stream ``rows_of(config)`` of every config into its Parquet shards; return row counts and
    shards. Consecutive rows with one ``group_column`` value (a case, a pair) share a row group, so
    each of their images is stored once (:mod:`medvigil.hub.parquet_shards`)."""
    from tqdm.auto import tqdm

    rows: dict[str, int] = {}
    shards: list[croissant.Shard] = []
    for config, config_features in features.items():
        # progress on a terminal only (disable=None), so logs and tests stay clean
        stream = tqdm(
            rows_of(config), desc=f"build {config}", unit=" rows", disable=None, leave=False
        )
        rows[config], config_shards = write_shards(
            stream, config_features, tmp, config, max_shard_bytes, payload_size, group_column
        )
        shards.extend(config_shards)
    return rows, shards


def build_digest(
    builder: str, version: str, facts: Sequence[tuple[str, str]], shards: Iterable[croissant.Shard]
) -> str:
    """SHA-256 identifying a build, of the lines ``<builder>-build <version>``, ``<name> <value>``
    for every fact (e.g. the input digest, the settings as sorted JSON), then ``<shard
    path>\\t<sha256>`` in path order."""
    head = f"{builder}-build {version}\n" + "".join(f"{name} {value}\n" for name, value in facts)
    return hashlib.sha256((head + checksum_lines(shards)).encode()).hexdigest()


@dataclass
class BuildReport:
    """What a build wrote; a suite adds its own facts (the hooks below) to this common part."""

    BUILDER: ClassVar[str] = ""

    out: Path
    version: str
    build_digest: str
    synthetic: bool
    rows: dict[str, int]
    shards: list[croissant.Shard]

    # a suite's report also defines info_head() and info_tail() (its facts of build_info.json before
    # ``rows`` and between ``rows`` and ``shards``) and out_marker() (appended to the summary's
    # ``built:`` line)
    def input_digest(self) -> tuple[str, str]:
        """``(name, digest)`` of what was built from, e.g. ``("release", ...)``."""
        raise NotImplementedError

    def summary_tail(self) -> list[str]:
        """Summary lines after ``rows:`` (the default: the shards line)."""
        return [shards_line(self.shards)]

    def to_dict(self) -> dict[str, Any]:
        name, digest = self.input_digest()
        return {
            "builder": self.BUILDER,
            "version": self.version,
            f"{name}_digest": digest,
            "build_digest": self.build_digest,
            **self.info_head(),
            "rows": self.rows,
            **self.info_tail(),
            "shards": [asdict(s) for s in self.shards],
        }

    def format(self) -> str:
        name, digest = self.input_digest()
        labels = (f"{name} digest:", "build digest:")
        width = max(map(len, labels)) + 1
        lines = [
            f"built:   {self.out}" + self.out_marker(),
            f"version: {self.version}",
            labels[0].ljust(width) + digest,
            labels[1].ljust(width) + self.build_digest,
            "rows:    " + ", ".join(f"{c} {n}" for c, n in self.rows.items()),
        ]
        return "\n".join(lines + self.summary_tail())


def write_metadata(
    tmp: Path,
    report: BuildReport,
    facts: DatasetFacts,
    features: Mapping[str, Any],
    texts: Mapping[str, str],
    *,
    repo_id: str | None,
) -> None:
    """Write ``croissant.json`` (which must validate cleanly), the suite's ``texts``,
    ``build_info.json`` and, last, the allowlist of every file written
    (:mod:`medvigil.hub.build_manifest`)."""
    url = f"https://huggingface.co/datasets/{repo_id}" if repo_id else facts.homepage
    (tmp / CROISSANT).write_text(
        croissant.dumps(croissant.build_metadata(facts, features, report.shards, url=url)),
        encoding="utf-8",
    )
    errors, warnings = croissant.validate(tmp / CROISSANT)
    if errors or warnings:
        raise RuntimeError(
            "croissant.json does not validate cleanly:\n" + "\n".join([*errors, *warnings])
        )
    for name, text in texts.items():
        (tmp / name).write_text(text, encoding="utf-8")
    (tmp / BUILD_INFO).write_text(
        json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    write_manifest(tmp)
