"""Write a Hub-ready MediConfusion folder (``medvigil mediconfusion-build``).

As the MedVIGIL export (:mod:`medvigil.hub.export_engine`), plus ``roco_sha256.txt`` (``sha256sum``
list of the ROCO images used). Images: ROCO's, **CC BY-NC-SA 4.0: non-commercial use only,
attribution, share-alike**; annotations: the authors' (MIT). A synthetic build contains no ROCO
image.
"""

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from string import Template

from medvigil.files.atomic_output import staged_folder
from medvigil.hub import export_engine
from medvigil.hub.card_metadata import DatasetFacts, front_matter, load_lines, markdown_table
from medvigil.hub.export_engine import (
    README,
    build_digest,
    check_destination,
    check_max_shard_bytes,
    write_configs,
    write_metadata,
)
from medvigil.hub.parquet_shards import DEFAULT_MAX_SHARD_BYTES, shards_line
from medvigil.suites.mediconfusion import dataset_configs as configs
from medvigil.suites.mediconfusion.categories import CATEGORIES
from medvigil.suites.mediconfusion.dataset_rows import RocoSource
from medvigil.suites.mediconfusion.roco import checksum_text
from medvigil.suites.mediconfusion.synthetic import SYNTHETIC_NOTICE

CHECKSUMS = "roco_sha256.txt"

ROCO_LICENCE = ("cc-by-nc-sa-4.0", "https://creativecommons.org/licenses/by-nc-sa/4.0/")
ANNOTATION_LICENCE = ("mit", "https://opensource.org/licenses/MIT")
SYNTHETIC_LICENCE = ("apache-2.0", "https://www.apache.org/licenses/LICENSE-2.0")


@dataclass
class BuildReport(export_engine.BuildReport):
    """What a build wrote."""

    BUILDER = "mediconfusion"

    source_digest: str
    n_images: int

    def input_digest(self) -> tuple[str, str]:
        return "source", self.source_digest

    def info_head(self) -> dict:
        return {"synthetic": self.synthetic}

    def info_tail(self) -> dict:
        return {"n_images": self.n_images}

    def out_marker(self) -> str:
        return "  (SYNTHETIC)" if self.synthetic else ""

    def summary_tail(self) -> list[str]:
        return [f"images:  {self.n_images} distinct ROCO files", shards_line(self.shards)]


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

    ``checksums_file``: optional ``sha256sum`` list every image must match; ``repo_id``: the Hub
    repository meant (card and Croissant URL); ``force``: replace an existing ``out`` once the new
    build succeeded. Raises DataError, FileExistsError (``out`` exists, no ``force``) or
    NotADirectoryError.
    """
    out = Path(out)
    check_max_shard_bytes(max_shard_bytes)
    inputs = {"DATASET_JSON": dataset_json, "--images": images_dir, "--checksums": checksums_file}
    check_destination(out, inputs, force=force, kind="mediconfusion-build")
    source = RocoSource.open(dataset_json, images_dir, checksums_file)
    with staged_folder(out, inputs=inputs, replace=force, kind="mediconfusion-build") as tmp:
        report = _write(source, tmp, max_shard_bytes=max_shard_bytes, repo_id=repo_id)
    report.out = out
    return report


def _write(
    source: RocoSource, tmp: Path, *, max_shard_bytes: int, repo_id: str | None
) -> BuildReport:
    features = {c: configs.FEATURES[c] for c in configs.CONFIG_NAMES}
    rows, shards = write_configs(
        tmp,
        features,
        source.iter_rows,
        max_shard_bytes=max_shard_bytes,
        payload_size=_payload_size,
        group_column="pair_id",
    )
    report = BuildReport(
        out=tmp,
        version=str(configs.VERSION),
        synthetic=source.release.synthetic,
        rows=rows,
        shards=shards,
        build_digest=build_digest(
            "mediconfusion", str(configs.VERSION), [("source", source.source_digest)], shards
        ),
        source_digest=source.source_digest,
        n_images=len(source.located),
    )
    facts = dataset_facts(report)
    texts = {
        README: dataset_card(source.release, report, facts, features, repo_id=repo_id),
        CHECKSUMS: checksum_text(source.located.values()),
    }
    write_metadata(tmp, report, facts, features, texts, repo_id=repo_id)
    return report


def _payload_size(row: dict) -> int:
    """What a row adds to its shard's size: its image bytes plus 1 KiB for the other fields."""
    return (
        sum(len(v["bytes"]) for v in row.values() if isinstance(v, dict) and v.get("bytes")) + 1024
    )


def dataset_facts(report: BuildReport) -> DatasetFacts:
    """Card and Croissant facts of a build."""
    description = (
        f"{configs.DESCRIPTION} Source digest sha256:{report.source_digest}; "
        f"build digest sha256:{report.build_digest}."
    )
    if report.synthetic:
        description += f" {SYNTHETIC_NOTICE}: phantom images, no ROCO data."
    else:
        description += " Images: ROCO, CC BY-NC-SA 4.0 (non-commercial use only)."
    return DatasetFacts(
        name="mediconfusion-synthetic" if report.synthetic else "mediconfusion",
        pretty_name="MediConfusion (synthetic stand-in)" if report.synthetic else "MediConfusion",
        description=description,
        version=report.version,
        date_published=configs.DATE_PUBLISHED,
        homepage=configs.HOMEPAGE,
        citation=configs.CITATION,
        licences=[SYNTHETIC_LICENCE] if report.synthetic else [ROCO_LICENCE, ANNOTATION_LICENCE],
        keywords=[
            "medical imaging",
            "radiology",
            "visual question answering",
            "reliability",
            "evaluation",
        ],
        creators=["MediConfusion authors (Sepehri, Fabian, Soltanolkotabi, Soltanolkotabi)"],
        task_categories=["visual-question-answering", "multiple-choice"],
        tags=["medical", "radiology", "reliability", "evaluation"]
        + (["synthetic"] if report.synthetic else ["non-commercial"]),
        size_category="n<1K",
        default_config="questions",
        column_descriptions=configs.COLUMN_DESCRIPTIONS,
        rai=_RAI,
        digests_key="mediconfusion",
        digests={
            "version": report.version,
            "source_digest": report.source_digest,
            "build_digest": report.build_digest,
            "synthetic": report.synthetic,
        },
    )


# Croissant RAI properties of the dataset
_RAI = {
    "dataCollection": "Image pairs mined from ROCO with sim_BiomedCLIP >= 0.9 and "
    "sim_DINOv2 <= 0.75; questions generated by GPT-4 from the "
    "captions, then filtered and revised by a radiologist.",
    "dataUseCases": "Evaluation of multimodal medical models "
    "only; not for training or clinical use.",
    "dataLimitations": "176 pairs; one radiologist; categories assigned by an LLM and revised; "
    "images and captions are likely in the pretraining data of evaluated models.",
    "dataBiases": "Categories are unevenly represented (Cerebral, "
    "Vascular, Head and Neck dominate).",
    "personalSensitiveInformation": "Figures from published open-access articles; no "
    "patient identifiers are known to be present.",
}


_CARD = Template(
    """---
$front_matter
---

# $title

$notice

## Dataset description

MediConfusion (Sepehri et al., NeurIPS 2024 workshop) probes whether multimodal medical models can
tell apart radiology images that their vision encoders confuse. Each of its pairs joins two ROCO
images whose BiomedCLIP embeddings are similar (cosine >= 0.9) but whose DINOv2 embeddings are not
(<= 0.75), with one two-option question whose correct answer differs between the two images. A model
that cannot tell the images apart can answer at most one of them correctly, so answering from the
text alone cannot beat 50 % individual accuracy or 0 % set accuracy on a pair.

- Paper: *MediConfusion: Can you trust your AI radiologist? Probing the reliability of multimodal
  medical foundation models*. Code and annotations: <$homepage> (MIT).
- Metrics: set accuracy (both images of a pair right), individual accuracy, confusion score (same
  valid answer for both images), invalid answers; random guessing gives 25 % set and 50 % individual
  accuracy.

## How to load

```python
from datasets import load_dataset

$load_examples
```

The `medvigil` package ships the matching lmms-eval tasks (`mediconfusion_mc`, `_gd`, `_ps`, `_ff`;
set `MEDICONFUSION_DATA` to this folder or repository) and the scoring
(`medvigil score --suite mediconfusion`).

## Dataset structure

Every config has one split, `test`.

$table_configs

`questions` columns: $questions_columns.

`pairs` columns: every field of the authors' `dataset.json` (`im_1`/`im_2` stay the ROCO paths) plus
the images `image_1`/`image_2` and `synthetic`.

Images are the original ROCO files, embedded unchanged (no resizing or re-encoding).

$table_categories

## Dataset creation

Pairs were mined automatically from ROCO (radiology figures of PubMed Central open-access articles),
questions generated by GPT-4 from the two captions and then filtered and revised by a radiologist
(paper, Sec. 2); categories were assigned by an LLM from the captions and revised. This folder was
built by `medvigil mediconfusion-build` from the authors' `dataset.json` and a local ROCO copy;
every image was located, decoded and checksummed (`roco_sha256.txt` lists the SHA-256 of each image
used, so anyone can check their own copy with `sha256sum -c`).$synthetic_creation

## Considerations

- **Licence of the images: CC BY-NC-SA 4.0 (ROCO).** Non-commercial use only; attribute the original
  articles (ROCO) and share derivatives under the same licence. The annotations are MIT-licensed.
- Evaluation only. Not a clinical tool, not for training: the images and captions are public and
  likely part of the pretraining data of the models evaluated.
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


def dataset_card(
    release, report: BuildReport, facts: DatasetFacts, features: dict, *, repo_id: str | None
) -> str:
    """README.md text of a build."""
    images = Counter(
        cat for pair, key in release.images() for cat in pair.categories(key)
    )  # categories: CATEGORIES only
    if report.synthetic:
        notice = (
            f"> **Synthetic data.** {SYNTHETIC_NOTICE}. Procedural phantom images "
            f"and templated questions in the layout of the real release; invented "
            f"similarity scores. No ROCO image is included; for testing the toolchain "
            f"only. The sections below describe the real benchmark."
        )
        creation = (
            "\n\n**This build was made from a synthetic stand-in** (`medvigil "
            "mediconfusion-sample`): phantom chest radiographs and head CT/MRI "
            "slices; nothing here was authored by a clinician."
        )
    else:
        notice = (
            "> **Licence: CC BY-NC-SA 4.0 (images, from ROCO) "
            "— non-commercial use only.** Annotations: MIT."
        )
        creation = ""
    config_rows = [
        (
            f"`{c}`" + (" (default)" if c == "questions" else ""),
            report.rows[c],
            configs.CONFIG_DESCRIPTIONS[c],
        )
        for c in features
    ]
    return (
        _CARD.substitute(
            front_matter=front_matter(facts, features, report.rows, report.shards),
            title=facts.pretty_name,
            notice=notice,
            homepage=configs.HOMEPAGE,
            load_examples=load_lines(repo_id, features, "questions"),
            table_configs=markdown_table(("config", "rows", "one row per"), config_rows),
            questions_columns=", ".join(f"`{c}`" for c in features.get("questions", {})),
            table_categories=markdown_table(
                ("category", "images"), [(c, images[c]) for c in CATEGORIES if images[c]]
            ),
            synthetic_creation=creation,
            version=report.version,
            date_published=configs.DATE_PUBLISHED,
            source_digest=report.source_digest,
            build_digest=report.build_digest,
            citation=configs.CITATION,
        ).rstrip()
        + "\n"
    )
