"""The MedVIGIL Hub dataset's configs (split ``test`` each) and identity, for the `datasets` builder
and the Hub export."""

import json
from string import Template

import datasets

from medvigil import citations
from medvigil.cards import CARDS_DIR
from medvigil.suites.medvigil.release.release_format import PROBE_KINDS

VERSION = datasets.Version("1.0.0")
DATE_PUBLISHED = "2026-11-22"  # date of VERSION; keep in step with CHANGELOG.md
HOMEPAGE = "https://huggingface.co/datasets/jhq0709/MedVIGIL"
CITATION = citations.MEDVIGIL
DESCRIPTION = (
    "MedVIGIL: trust audit of medical vision-language models under broken evidence "
    "(hallucination traps, ROI masking, paraphrase, negation, laterality flips). "
    "Evaluation only; not a clinical-deployment licence."
)
LICENSE = (
    "Per source: VQA-RAD CC0-1.0, SLAKE CC-BY-SA-4.0, ROCO "
    "CC-BY-NC-SA-4.0; CXR images not redistributed."
)

CONFIG_NAMES = ("mcq", "mcq_shuffled", "mcq_circular", "cases", "open", "triplets")

_str = datasets.Value("string")
_bool = datasets.Value("bool")
_CASE_COLUMNS = {
    "case_id": _str,
    "risk_tier": _str,
    "source_dataset": _str,
    "modality": _str,
    "text_only_answerable": _bool,
    "laterality_dependent": _bool,
    "roi_bbox": datasets.List(datasets.Value("float64")),
    "credentialed": _bool,
}
_IMAGE_COLUMNS = {"image_kind": _str, "image_status": _str, "image": datasets.Image()}
_MCQ_COLUMNS = {
    "probe_id": _str,
    "probe_kind": _str,
    "question": _str,
    "options": datasets.List(_str),
    "correct_letter": _str,
    "image_file": _str,
}
_ORDER_COLUMNS = {"permutation": _str, "published_correct_letter": _str}

FEATURES: dict[str, datasets.Features] = {
    "mcq": datasets.Features({**_MCQ_COLUMNS, **_CASE_COLUMNS, **_IMAGE_COLUMNS}),
    "mcq_shuffled": datasets.Features(
        {
            **_MCQ_COLUMNS,
            **_ORDER_COLUMNS,
            "shuffle_seed": datasets.Value("int64"),
            **_CASE_COLUMNS,
            **_IMAGE_COLUMNS,
        }
    ),
    "mcq_circular": datasets.Features(
        {
            **_MCQ_COLUMNS,
            **_ORDER_COLUMNS,
            "rotation": datasets.Value("int32"),
            **_CASE_COLUMNS,
            **_IMAGE_COLUMNS,
        }
    ),
    "cases": datasets.Features(
        {
            **_CASE_COLUMNS,
            "image_file": _str,
            "question": _str,
            "gold_answer": _str,
            "gold_after_lr_flip": _str,
            "annotator_notes": _str,
            "roi_usable": _bool,
            "rationale": _str,
            "differential_set": datasets.List(_str),
            "clinical_context": _str,
            "pointer_source_path": _str,
            "pointer_sha256": _str,
            **_IMAGE_COLUMNS,
        }
    ),
    "open": datasets.Features(
        {
            "probe_id": _str,
            "probe_axis": _str,
            "probe_kind": _str,
            "question": _str,
            "expected_behavior": _str,
            "expected_answer_or_set": datasets.List(_str),
            "halluc_explanation": _str,
            "provenance": _str,
            "image_file": _str,
            **_CASE_COLUMNS,
            **_IMAGE_COLUMNS,
        }
    ),
    "triplets": datasets.Features(
        {
            **{
                column: _str
                for column in (
                    "anchor_question",
                    "tcf_question",
                    "vcf_question",
                    "anchor_gold",
                    "tcf_gold",
                    "vcf_gold",
                )
            },
            **_CASE_COLUMNS,
            **_IMAGE_COLUMNS,
        }
    ),
}

CONFIG_DESCRIPTIONS = {
    "mcq": "one row per MCQ probe, options in the published "
    "order (gold A on text probes, safe action E)",
    "mcq_shuffled": "one row per MCQ probe, options permuted per "
    "probe from (seed, probe_id); letter remapped",
    "mcq_circular": "five rows per MCQ probe: the five rotations of its options (CircularEval)",
    "cases": "one row per case: manifest and grounding fields with the case image",
    "open": "one row per open-ended probe",
    "triplets": "one row per counterfactual triplet (anchor, T-CF, V-CF) with the case image",
}

# Croissant field descriptions, per column name (template in ``cards/``)
COLUMN_DESCRIPTIONS: dict[str, str] = json.loads(
    Template((CARDS_DIR / "medvigil_columns.json").read_text(encoding="utf-8")).substitute(
        probe_kinds=", ".join(PROBE_KINDS)
    )
)
