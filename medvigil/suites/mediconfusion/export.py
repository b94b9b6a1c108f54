"""Write a Hub-ready MediConfusion folder (``medvigil mediconfusion-build``).

Layout of the output folder::

    README.md            dataset card: YAML front matter (configs, dataset_info, licence, tags,
                         digests) and the card sections (description, structure, creation,
                         considerations incl. the ROCO licence, additional information)
    croissant.json       Croissant 1.0 JSON-LD; mlcroissant reports no error and no warning
    build_info.json      versions, digests, row counts, shard checksums, whether synthetic
    roco_sha256.txt      ``sha256sum`` list of the ROCO images used (to check other copies)
    data/<config>/test-NNNNN-of-MMMMM.parquet   images embedded (original bytes)

Guarantees, as for the MedVIGIL export (:mod:`medvigil.suites.medvigil.export`): the inputs are checked
before anything is written (the strict release reader, then every image located and
decoded, all problems reported at once); everything is written to a hidden sibling folder
renamed onto ``out`` at the end (no partial output); no clock, random state or absolute
path enters the files, so two builds of the same inputs are byte-identical.

Licence: the images are ROCO's (PubMed Central open-access figures), **CC BY-NC-SA 4.0:
non-commercial use only, attribution, share-alike**; the annotations (``dataset.json``)
are the authors' (MIT). A synthetic build (medvigil's phantoms) contains no ROCO image.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

from medvigil.files.atomic_output import staged_folder
from medvigil.files.output_guard import refuse_overlap
from medvigil.hub import croissant
from medvigil.hub.card_metadata import configs_and_info, markdown_table
from medvigil.hub.parquet_shards import (
    DATA_DIR,
    DEFAULT_MAX_SHARD_BYTES,
    SPLIT,
    checksum_lines,
    shards_line,
    shards_to_json,
    write_shards,
)

README = "README.md"
CROISSANT = "croissant.json"
BUILD_INFO = "build_info.json"
CHECKSUMS = "roco_sha256.txt"

ROCO_LICENCE = ("cc-by-nc-sa-4.0", "https://creativecommons.org/licenses/by-nc-sa/4.0/")
ANNOTATION_LICENCE = ("mit", "https://opensource.org/licenses/MIT")
SYNTHETIC_LICENCE = ("apache-2.0", "https://www.apache.org/licenses/LICENSE-2.0")


@dataclass
class BuildReport:
    """What a build wrote."""

    out: Path
    version: str
    source_digest: str
    build_digest: str
    synthetic: bool
    rows: dict[str, int]
    shards: list[croissant.Shard] = field(default_factory=list)
    n_images: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "builder": "mediconfusion",
            "version": self.version,
            "source_digest": self.source_digest,
            "build_digest": self.build_digest,
            "synthetic": self.synthetic,
            "rows": self.rows,
            "n_images": self.n_images,
            "shards": shards_to_json(self.shards),
        }

    def format(self) -> str:
        return "\n".join(
            [
                f"built:   {self.out}" + ("  (SYNTHETIC)" if self.synthetic else ""),
                f"version: {self.version}",
                f"source digest: {self.source_digest}",
                f"build digest:  {self.build_digest}",
                "rows:    " + ", ".join(f"{c} {n}" for c, n in self.rows.items()),
                f"images:  {self.n_images} distinct ROCO files",
                shards_line(self.shards),
            ]
        )


def build(
    dataset_json: Path | str,
    images_dir: Path | str,
    out: Path | str,
    *,
    checksums_file: Path | str | None = None,
    repo_id: str | None = None,
    max_shard_bytes: int = DEFAULT_MAX_SHARD_BYTES,
    force: bool = False,
) -> BuildReport:
    """Check the inputs and write the Hub-ready folder ``out`` atomically.

    Args:
        dataset_json: the authors' ``dataset.json`` (or ``dataset.csv``).
        images_dir: the user's ROCO copy (data folder or repository root).
        out: destination; must not exist unless ``force``.
        checksums_file: optional ``sha256sum`` list every image must match.
        repo_id: the Hub repository the folder is meant for (card and Croissant URL).
        max_shard_bytes: close a Parquet shard once its payload passes this size.
        force: replace an existing ``out`` (only after the new build succeeded).

    Raises:
        DataError: bad release or images (all problems at once).
        FileExistsError: ``out`` exists and ``force`` is false.
        NotADirectoryError: ``images_dir`` is not a folder.
    """
    from medvigil.builders.mediconfusion.builder import (
        CONFIG_NAMES,
        MediconfusionBuilder,
    )

    out = Path(out)
    if isinstance(max_shard_bytes, bool) or not isinstance(max_shard_bytes, int) or max_shard_bytes < 1:
        raise ValueError(f"max_shard_bytes must be a positive int, got {max_shard_bytes!r}")
    inputs = {"DATASET_JSON": dataset_json, "--images": images_dir, "--checksums": checksums_file}
    refuse_overlap({"--out": out}, inputs, replace=force)
    if out.exists() and not force:
        raise FileExistsError(f"{out} already exists; pass --force to replace it")
    cache = Path(tempfile.mkdtemp(prefix="medvigil-mediconfusion-cache-"))
    try:
        builders = {
            config: MediconfusionBuilder(
                config_name=config,
                dataset_json=dataset_json,
                images_dir=images_dir,
                checksums_file=checksums_file,
                cache_dir=str(cache),
            )
            for config in CONFIG_NAMES
        }
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    with staged_folder(out, inputs=inputs, replace=force) as tmp:
        report = _write(builders, tmp, max_shard_bytes=max_shard_bytes, repo_id=repo_id)
    report.out = out
    return report


def _write(builders: dict, tmp: Path, *, max_shard_bytes: int, repo_id: str | None) -> BuildReport:
    from medvigil.builders.mediconfusion.builder import FEATURES, VERSION
    from medvigil.reconstruct.roco import checksum_text

    first = next(iter(builders.values()))
    release, located = first.release, first.located
    rows: dict[str, int] = {}
    shards: list[croissant.Shard] = []
    for config, builder in builders.items():
        count, config_shards = write_shards(builder.iter_rows(), FEATURES[config], tmp, config, max_shard_bytes, _payload_size)
        rows[config] = count
        shards.extend(config_shards)
    report = BuildReport(
        out=tmp,
        version=str(VERSION),
        source_digest=first.config.source_digest,
        build_digest=build_digest(str(VERSION), first.config.source_digest, shards),
        synthetic=release.synthetic,
        rows=rows,
        shards=shards,
        n_images=len(located),
    )
    features = {c: FEATURES[c] for c in builders}
    (tmp / CROISSANT).write_text(croissant.dumps(croissant_document(report, features, repo_id=repo_id)), encoding="utf-8")
    errors, warnings = croissant.validate(tmp / CROISSANT)
    if errors or warnings:
        raise RuntimeError("croissant.json does not validate cleanly:\n" + "\n".join([*errors, *warnings]))
    (tmp / README).write_text(dataset_card(release, report, features, repo_id=repo_id), encoding="utf-8")
    (tmp / CHECKSUMS).write_text(checksum_text(located.values()), encoding="utf-8")
    (tmp / BUILD_INFO).write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return report


def _payload_size(row: dict) -> int:
    """What a row adds to its shard's size: its image bytes plus 1 KiB for the other fields."""
    return sum(len(v["bytes"]) for v in row.values() if isinstance(v, dict) and v.get("bytes")) + 1024


def build_digest(version: str, source_digest: str, shards: list[croissant.Shard]) -> str:
    """SHA-256 over ``mediconfusion-build <version>``, ``source <digest>`` and every shard's checksum."""
    h = hashlib.sha256(f"mediconfusion-build {version}\nsource {source_digest}\n".encode())
    h.update(checksum_lines(shards).encode())
    return h.hexdigest()


# --------------------------------------------------------------------------- metadata


def _licences(synthetic: bool) -> list[tuple[str, str]]:
    return [SYNTHETIC_LICENCE] if synthetic else [ROCO_LICENCE, ANNOTATION_LICENCE]


def croissant_document(report: BuildReport, features: dict, *, repo_id: str | None) -> dict:
    """The Croissant 1.0 document of a build (see :mod:`medvigil.hub.croissant`)."""
    from medvigil.builders.mediconfusion import builder as b
    from medvigil.suites.mediconfusion.synthetic import SYNTHETIC_NOTICE

    description = f"{b.DESCRIPTION} Source digest sha256:{report.source_digest}; build digest sha256:{report.build_digest}."
    if report.synthetic:
        description += f" {SYNTHETIC_NOTICE}: phantom images, no ROCO data."
    else:
        description += " Images: ROCO, CC BY-NC-SA 4.0 (non-commercial use only)."
    return croissant.build_metadata(
        name="mediconfusion-synthetic" if report.synthetic else "mediconfusion",
        description=description,
        version=report.version,
        date_published=b.DATE_PUBLISHED,
        license=[url for _, url in _licences(report.synthetic)],
        url=f"https://huggingface.co/datasets/{repo_id}" if repo_id else b.HOMEPAGE,
        cite_as=b.CITATION,
        keywords=["medical imaging", "radiology", "visual question answering", "reliability", "evaluation"],
        creators=["MediConfusion authors (Sepehri, Fabian, Soltanolkotabi, Soltanolkotabi)"],
        shards=report.shards,
        features_by_config=features,
        column_descriptions=b.COLUMN_DESCRIPTIONS,
        rai={
            "dataCollection": "Image pairs mined from ROCO with sim_BiomedCLIP >= 0.9 and sim_DINOv2 <= 0.75; "
            "questions generated by GPT-4 from the captions, then filtered and revised by a radiologist.",
            "dataUseCases": "Evaluation of multimodal medical models only; not for training or clinical use.",
            "dataLimitations": "176 pairs; one radiologist; categories assigned by an LLM and revised; "
            "images and captions are likely in the pretraining data of evaluated models.",
            "dataBiases": "Categories are unevenly represented (Cerebral, Vascular, Head and Neck dominate).",
            "personalSensitiveInformation": "Figures from published open-access articles; no patient identifiers "
            "are known to be present.",
        },
    )


def _front_matter(report: BuildReport, features: dict) -> str:
    import yaml

    configs, dataset_info = configs_and_info(features, report.rows, report.shards, default="questions", split=SPLIT,
                                             data_dir=DATA_DIR)
    head = {
        "pretty_name": "MediConfusion (synthetic stand-in)" if report.synthetic else "MediConfusion",
        "license": [lic for lic, _ in _licences(report.synthetic)],
        "language": ["en"],
        "task_categories": ["visual-question-answering", "multiple-choice"],
        "tags": ["medical", "radiology", "reliability", "evaluation"] + (["synthetic"] if report.synthetic else ["non-commercial"]),
        "size_categories": ["n<1K"],
        "configs": configs,
        "dataset_info": dataset_info,
        "mediconfusion": {
            "version": report.version,
            "source_digest": report.source_digest,
            "build_digest": report.build_digest,
            "synthetic": report.synthetic,
        },
    }
    return yaml.safe_dump(head, sort_keys=False, allow_unicode=True, width=1000).strip()


_CARD = Template(
    """---
$front_matter
---

# $title

$notice

## Dataset description

MediConfusion (Sepehri et al., NeurIPS 2024 workshop) probes whether multimodal medical models can tell
apart radiology images that their vision encoders confuse. Each of its pairs joins two ROCO images whose
BiomedCLIP embeddings are similar (cosine >= 0.9) but whose DINOv2 embeddings are not (<= 0.75), with one
two-option question whose correct answer differs between the two images. A model that cannot tell the
images apart can answer at most one of them correctly, so answering from the text alone cannot beat
50 % individual accuracy or 0 % set accuracy on a pair.

- Paper: *MediConfusion: Can you trust your AI radiologist? Probing the reliability of multimodal medical
  foundation models*. Code and annotations: <$homepage> (MIT).
- Metrics: set accuracy (both images of a pair right), individual accuracy, confusion score (same valid
  answer for both images), invalid answers; random guessing gives 25 % set and 50 % individual accuracy.

## How to load

```python
from datasets import load_dataset

questions = load_dataset("$load_path", "questions", split="test")   # default: one row per image
pairs = load_dataset("$load_path", "pairs", split="test")           # one row per pair
```

The `medvigil` package ships the matching lmms-eval tasks (`mediconfusion_mc`, `_gd`, `_ps`, `_ff`;
set `MEDICONFUSION_DATA` to this folder or repository) and the scoring (`medvigil score --suite mediconfusion`).

## Dataset structure

Every config has one split, `test`.

$table_configs

`questions` columns: $questions_columns.

`pairs` columns: every field of the authors' `dataset.json` (`im_1`/`im_2` stay the ROCO paths) plus the
images `image_1`/`image_2` and `synthetic`.

Images are the original ROCO files, embedded unchanged (no resizing or re-encoding).

$table_categories

## Dataset creation

Pairs were mined automatically from ROCO (radiology figures of PubMed Central open-access articles),
questions generated by GPT-4 from the two captions and then filtered and revised by a radiologist
(paper, Sec. 2); categories were assigned by an LLM from the captions and revised. This folder was
built by `medvigil mediconfusion-build` from the authors' `dataset.json` and a local ROCO copy; every
image was located, decoded and checksummed (`roco_sha256.txt` lists the SHA-256 of each image used,
so anyone can check their own copy with `sha256sum -c`).$synthetic_creation

## Considerations

- **Licence of the images: CC BY-NC-SA 4.0 (ROCO).** Non-commercial use only; attribute the original
  articles (ROCO) and share derivatives under the same licence. The annotations are MIT-licensed.
- Evaluation only. Not a clinical tool, not for training: the images and captions are public and likely
  part of the pretraining data of the models evaluated.
- 176 pairs, one radiologist; categories are unevenly represented.

## Additional information

Version $version (builder), data of $date_published. Source digest `$source_digest`; build digest
`$build_digest` (also in `build_info.json`).

```bibtex
$citation
```

### Changelog

- 1.0.0 — first medvigil build: configs `questions` (default) and `pairs`, original image bytes,
  Croissant 1.0 metadata, ROCO checksum list.
"""
)


def dataset_card(release, report: BuildReport, features: dict, *, repo_id: str | None) -> str:
    """README.md text of a build."""
    from medvigil.builders.mediconfusion import builder as b
    from medvigil.suites.mediconfusion.categories import CATEGORIES
    from medvigil.suites.mediconfusion.synthetic import SYNTHETIC_NOTICE

    counts = {c: 0 for c in CATEGORIES}
    for pair, key in release.images():
        for cat in pair.categories(key):
            counts[cat] += 1
    if report.synthetic:
        notice = (
            f"> **Synthetic data.** {SYNTHETIC_NOTICE}. Procedural phantom images and templated questions in "
            "the layout of the real release; invented similarity scores. No ROCO image is included; for testing "
            "the toolchain only. The sections below describe the real benchmark."
        )
        creation = (
            "\n\n**This build was made from a synthetic stand-in** (`medvigil mediconfusion-sample`): phantom "
            "chest radiographs and head CT/MRI slices; nothing here was authored by a clinician."
        )
    else:
        notice = "> **Licence: CC BY-NC-SA 4.0 (images, from ROCO) — non-commercial use only.** Annotations: MIT."
        creation = ""
    return _CARD.substitute(
        front_matter=_front_matter(report, features),
        title="MediConfusion (synthetic stand-in)" if report.synthetic else "MediConfusion",
        notice=notice,
        homepage=b.HOMEPAGE,
        load_path=repo_id or "path/to/this/folder",
        table_configs=markdown_table(
            ("config", "rows", "one row per"), [(f"`{c}`" + (" (default)" if c == "questions" else ""), report.rows[c], b.CONFIG_DESCRIPTIONS[c]) for c in features]
        ),
        questions_columns=", ".join(f"`{c}`" for c in features.get("questions", {})),
        table_categories=markdown_table(("category", "images"), [(c, n) for c, n in counts.items() if n]),
        synthetic_creation=creation,
        version=report.version,
        date_published=b.DATE_PUBLISHED,
        source_digest=report.source_digest,
        build_digest=report.build_digest,
        citation=b.CITATION,
    ).rstrip() + "\n"
