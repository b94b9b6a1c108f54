"""Write a Hub-ready MedQ-DEG-Bench folder from the authors' TSVs (``medvigil medqdeg-build``).

Through the shared engine (:mod:`medvigil.hub.export_engine`): each TSV is one config (split
``test``) holding exactly its rows, in order, with its column names; ``image`` is a
``datasets.Image`` column holding the original image file (the decoded base64 bytes, not
re-encoded); every other column is text (an empty cell is null). One column is added,
``medvigil_pair_key``: the key pairing a clean row with its degraded versions
(:mod:`medvigil.suites.medqdeg.bench_tsv`, "Pairing"), null where the data does not pair the row.
Every file is checked whole before anything is written; rows are then streamed, so memory stays
bounded whatever the number of images.
"""

import hashlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import datasets

from medvigil import citations
from medvigil.files.atomic_output import staged_folder
from medvigil.files.digest import file_sha256
from medvigil.hub import export_engine
from medvigil.hub.card_metadata import DatasetFacts, front_matter, markdown_table
from medvigil.hub.export_engine import README, build_digest, check_destination, write_configs
from medvigil.hub.parquet_shards import DEFAULT_MAX_SHARD_BYTES
from medvigil.suites.medqdeg.bench_tsv import TsvFile, check_tsv, iter_rows, split_of

VERSION = "1.0.0"
PAIR_KEY = "medvigil_pair_key"
HOMEPAGE = "https://huggingface.co/datasets/jiyaoliufd/MedQ-DEG-Bench"
DATE_PUBLISHED = "2026-03-08"  # arXiv:2603.07769v1
COLUMN_DESCRIPTIONS = {
    "index": "Row id of the release (text).",
    "image": "The image the question is asked of, the release's original file.",
    "question": "Question text.",
    **{c: f"Option {c} (null when the question has fewer options)." for c in "ABCDE"},
    "answer": "Correct option letter.",
    "modality": "Imaging modality.",
    "degradation_type": "Degradation applied to the image (clean rows: as the release says).",
    "degradation_severity": "Degradation severity (L0 clean, L1, L2; the release's spelling).",
    "source": "Benchmark the question comes from.",
    PAIR_KEY: "medvigil: key shared by a clean row and its degraded versions (null: not paired).",
}


@dataclass
class BuildReport(export_engine.BuildReport):
    """What a build wrote."""

    BUILDER = "medqdeg-bench"

    source_digest: str
    files: dict[str, str]  # config -> TSV file name
    pairing: dict[str, dict[str, int]]  # config -> paired / unpaired / ambiguous row counts

    def input_digest(self) -> tuple[str, str]:
        return "source", self.source_digest

    def info_head(self) -> dict:
        return {"synthetic": self.synthetic, "files": self.files}

    def info_tail(self) -> dict:
        return {"pairing": self.pairing}

    def out_marker(self) -> str:
        return ""

    def summary_tail(self) -> list[str]:
        lines = [
            f"pairing: {c} " + ", ".join(f"{k} {v}" for k, v in counts.items())
            for c, counts in self.pairing.items()
        ]
        return lines + super().summary_tail()


def pair_keys(files: list[TsvFile]) -> tuple[dict[str, list[str | None]], dict[str, dict]]:
    """Per config, each row's pair key (None: unpaired) and the counts ``paired`` / ``unpaired`` /
    ``ambiguous``: a key pairs when exactly one row of ``good_<split>`` has it and a row of
    ``simulate_<split>`` has it too; ``ambiguous``: several clean rows share it."""
    good = {split_of(f.config): Counter(f.keys) for f in files if f.kind == "good"}
    simulated = {split_of(f.config): set(f.keys) for f in files if f.kind == "simulate"}
    keys, counts = {}, {}
    for f in files:
        clean = good.get(split_of(f.config), Counter()) if f.kind else Counter()
        partner = simulated.get(split_of(f.config), set()) if f.kind == "good" else set(clean)
        paired = [k if clean[k] == 1 and k in partner else None for k in f.keys]
        ambiguous = sum(clean[k] > 1 for k in f.keys)
        n_paired = len(paired) - paired.count(None)
        keys[f.config] = paired
        counts[f.config] = {
            "paired": n_paired,
            "unpaired": len(paired) - n_paired - ambiguous,
            "ambiguous": ambiguous,
        }
    return keys, counts


def features_of(tsv: TsvFile) -> datasets.Features:
    columns = {
        c: datasets.Image() if c == "image" else datasets.Value("string") for c in tsv.header
    }
    if PAIR_KEY in columns:
        raise ValueError(f"{tsv.path}: has a column {PAIR_KEY!r}, the name medvigil adds")
    return datasets.Features({**columns, PAIR_KEY: datasets.Value("string")})


def build(
    tsvs: list[Path | str],
    out: Path | str,
    *,
    repo_id: str | None = None,
    max_shard_bytes: int = DEFAULT_MAX_SHARD_BYTES,
    force: bool = False,
) -> BuildReport:
    """Check every TSV, then write the Hub-ready folder ``out`` atomically (DataError: nothing
    written)."""
    out, paths = Path(out), [Path(p) for p in tsvs]
    export_engine.check_max_shard_bytes(max_shard_bytes)
    inputs = {f"TSV {p}": p for p in paths}
    check_destination(out, inputs, force=force, kind="medqdeg-build")
    files = [check_tsv(p) for p in paths]
    configs = [f.config for f in files]
    twice = sorted({c for c in configs if configs.count(c) > 1})
    if twice:
        raise ValueError(f"two TSVs make the same config {', '.join(twice)}; rename one")
    with staged_folder(out, inputs=inputs, replace=force, kind="medqdeg-build") as tmp:
        report = _write(files, tmp, max_shard_bytes=max_shard_bytes, repo_id=repo_id)
    report.out = out
    return report


def _write(files: list[TsvFile], tmp: Path, *, max_shard_bytes: int, repo_id: str | None):
    by_config = {f.config: f for f in files}
    features = {f.config: features_of(f) for f in files}
    keys, pairing = pair_keys(files)

    def rows_of(config: str):
        for n, (row, key) in enumerate(zip(iter_rows(by_config[config]), keys[config])):
            yield str(n), {**row, PAIR_KEY: key}

    rows, shards = write_configs(
        tmp, features, rows_of, max_shard_bytes=max_shard_bytes, payload_size=_payload_size
    )
    source = "".join(f"{f.config}\t{file_sha256(f.path)}\n" for f in files)
    source_digest = hashlib.sha256(source.encode()).hexdigest()
    report = BuildReport(
        out=tmp,
        version=VERSION,
        synthetic=False,
        rows=rows,
        shards=shards,
        build_digest=build_digest("medqdeg-bench", VERSION, [("source", source_digest)], shards),
        source_digest=source_digest,
        files={f.config: f.path.name for f in files},
        pairing=pairing,
    )
    facts = dataset_facts(report, files)
    card = dataset_card(report, facts, features, repo_id=repo_id)
    export_engine.write_metadata(tmp, report, facts, features, {README: card}, repo_id=repo_id)
    return report


def _payload_size(row: dict) -> int:
    return len(row["image"]["bytes"]) + 1024


def dataset_facts(report: BuildReport, files: list[TsvFile]) -> DatasetFacts:
    n = sum(report.rows.values())
    descriptions = dict(COLUMN_DESCRIPTIONS)
    for f in files:
        for c in f.header:
            descriptions.setdefault(c, "A further column of the release, kept as text.")
    return DatasetFacts(
        name="medq-deg-bench",
        pretty_name="MedQ-DEG-Bench (medvigil build)",
        description=(
            "MedQ-Deg benchmark questions on clean and degraded medical images, built from the "
            f"authors' TSVs. Source digest sha256:{report.source_digest}; build digest "
            f"sha256:{report.build_digest}."
        ),
        version=report.version,
        date_published=DATE_PUBLISHED,
        homepage=HOMEPAGE,
        citation=citations.MEDQDEG,
        licences=[("apache-2.0", "https://www.apache.org/licenses/LICENSE-2.0")],
        keywords=["medical imaging", "image quality", "degradation", "robustness", "calibration"],
        creators=["MedQ-Deg authors (Liu et al.)"],
        task_categories=["visual-question-answering", "multiple-choice"],
        tags=["medical", "degradation", "robustness", "evaluation"],
        size_category="n<1K" if n < 1000 else "1K<n<10K" if n < 10_000 else "10K<n<100K",
        default_config=next(iter(report.rows)),
        column_descriptions=descriptions,
        rai=_RAI,
        digests_key="medqdeg_bench",
        digests={
            "version": report.version,
            "source_digest": report.source_digest,
            "build_digest": report.build_digest,
            "files": report.files,
        },
    )


_RAI = {
    "dataCollection": "Questions from OmniMedVQA, GMAI-MMBench and MedXpertQA (deduplicated); "
    "each clean image degraded by three modality-specific degradations "
    "at two radiologist-calibrated severities.",
    "dataUseCases": "Evaluation of multimodal medical models under "
    "image degradation; not for clinical use.",
    "dataLimitations": "Degradations are simulated; 8.3% of pairs were removed by a human filter.",
    "dataBiases": "Modalities and degradation types are unevenly represented (seed 002, Table 5).",
    "personalSensitiveInformation": "Images come from public benchmarks; no identifiers are known.",
}


_CARD = """---
{front_matter}
---

# MedQ-DEG-Bench (medvigil build)

MedQ-Deg (Liu et al., arXiv:2603.07769) asks medical multiple-choice questions of clean images (L0)
and of the same images degraded by 18 modality-specific degradations at two radiologist-calibrated
severities (L1, L2), to measure how accuracy and perceived confidence move as image quality drops
(Calibration Shift, the AI Dunning-Kruger effect). This folder holds the authors' release
({homepage}, the TSVs VLMEvalKit's `MedQDEGBench_*` datasets read) as Parquet, one config per TSV.

## How to load

```python
from datasets import load_dataset

rows = load_dataset("{load_path}", "{first}", split="test")
```

The `medvigil` package runs it with lmms-eval (`MEDQDEG_DATA` = this folder or repository; tasks
`medqdeg_bench`, the paper's Appendix B prompt, T trials per question for perceived confidence) and
scores the logs (`medvigil score --suite medqdeg RUN_FOLDER`).

## Dataset structure

Every config has one split, `test`: exactly the rows of its TSV, in order, with its columns.

{configs}

`image` is the release's image file, decoded from base64 and stored unchanged; every other column is
text as in the TSV (empty cells are null). `medvigil_pair_key` is added: a clean row and its
degraded versions share it. The release has no column linking them and a degraded image differs from
its original, so the key is the hash of the question's stripped text, options, answer, modality and
source; it pairs a `simulate_<split>` row with the one `good_<split>` row of the same key. Questions
asked of several clean images with the same text (templated questions) cannot be told apart and are
left unpaired (`ambiguous`):

{pairing}

## Considerations

Evaluation only; not a clinical tool. Degradations are simulated (the paper's Section 4.6 compares
them with real degraded images). Licence of the release: Apache-2.0 (the Hub dataset's card); the
images come from OmniMedVQA, GMAI-MMBench and MedXpertQA, whose own terms apply.

## Additional information

Builder version {version}. Source digest `{source_digest}`; build digest `{build_digest}` (also in
`build_info.json`).

```bibtex
{citation}
```
"""


def dataset_card(report: BuildReport, facts: DatasetFacts, features: dict, *, repo_id) -> str:
    """README.md text of a build."""
    configs = markdown_table(
        ("config", "TSV", "rows"), [(f"`{c}`", report.files[c], report.rows[c]) for c in features]
    )
    pairing = markdown_table(
        ("config", "paired", "unpaired", "ambiguous"),
        [(f"`{c}`", *report.pairing[c].values()) for c in features],
    )
    return _CARD.format(
        front_matter=front_matter(facts, features, report.rows, report.shards),
        homepage=HOMEPAGE,
        load_path=repo_id or "path/to/this/folder",
        first=facts.default_config,
        configs=configs,
        pairing=pairing,
        version=report.version,
        source_digest=report.source_digest,
        build_digest=report.build_digest,
        citation=citations.MEDQDEG,
    )
