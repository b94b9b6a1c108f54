"""The configs of the MedVIGIL Hub dataset (split ``test`` each; :data:`CONFIG_DESCRIPTIONS`): names,
features, descriptions and the dataset's identity, served by both the `datasets` builder
(:mod:`medvigil.builders.medvigil`) and the Hub export (:mod:`.export`); rows come from :mod:`.dataset_rows`.
"""

from __future__ import annotations

import datasets

from medvigil import citations
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
LICENSE = "Per source: VQA-RAD CC0-1.0, SLAKE CC-BY-SA-4.0, ROCO CC-BY-NC-SA-4.0; CXR images not redistributed."

CONFIG_NAMES = ("mcq", "mcq_shuffled", "mcq_circular", "cases", "open", "triplets")

_str = datasets.Value("string")
_bool = datasets.Value("bool")
_CASE_COLUMNS = {
    "case_id": _str, "risk_tier": _str, "source_dataset": _str, "modality": _str, "text_only_answerable": _bool,
    "laterality_dependent": _bool, "roi_bbox": datasets.List(datasets.Value("float64")), "credentialed": _bool,
}
_IMAGE_COLUMNS = {"image_kind": _str, "image_status": _str, "image": datasets.Image()}
_MCQ_COLUMNS = {
    "probe_id": _str, "probe_kind": _str, "question": _str, "options": datasets.List(_str), "correct_letter": _str, "image_file": _str,
}
_ORDER_COLUMNS = {"permutation": _str, "published_correct_letter": _str}

FEATURES: dict[str, datasets.Features] = {
    "mcq": datasets.Features({**_MCQ_COLUMNS, **_CASE_COLUMNS, **_IMAGE_COLUMNS}),
    "mcq_shuffled": datasets.Features(
        {**_MCQ_COLUMNS, **_ORDER_COLUMNS, "shuffle_seed": datasets.Value("int64"), **_CASE_COLUMNS, **_IMAGE_COLUMNS}
    ),
    "mcq_circular": datasets.Features(
        {**_MCQ_COLUMNS, **_ORDER_COLUMNS, "rotation": datasets.Value("int32"), **_CASE_COLUMNS, **_IMAGE_COLUMNS}
    ),
    "cases": datasets.Features({
        **_CASE_COLUMNS, "image_file": _str, "question": _str, "gold_answer": _str, "gold_after_lr_flip": _str,
        "annotator_notes": _str, "roi_usable": _bool, "rationale": _str, "differential_set": datasets.List(_str),
        "clinical_context": _str, "pointer_source_path": _str, "pointer_sha256": _str, **_IMAGE_COLUMNS,
    }),
    "open": datasets.Features({
        "probe_id": _str, "probe_axis": _str, "probe_kind": _str, "question": _str, "expected_behavior": _str,
        "expected_answer_or_set": datasets.List(_str), "halluc_explanation": _str, "provenance": _str, "image_file": _str,
        **_CASE_COLUMNS, **_IMAGE_COLUMNS,
    }),
    "triplets": datasets.Features({
        **{column: _str for column in ("anchor_question", "tcf_question", "vcf_question", "anchor_gold", "tcf_gold", "vcf_gold")},
        **_CASE_COLUMNS, **_IMAGE_COLUMNS,
    }),
}

CONFIG_DESCRIPTIONS = {
    "mcq": "one row per MCQ probe, options in the published order (gold A on text probes, safe action E)",
    "mcq_shuffled": "one row per MCQ probe, options permuted per probe from (seed, probe_id); letter remapped",
    "mcq_circular": "five rows per MCQ probe: the five rotations of its options (CircularEval)",
    "cases": "one row per case: manifest and grounding fields with the case image",
    "open": "one row per open-ended probe",
    "triplets": "one row per counterfactual triplet (anchor, T-CF, V-CF) with the case image",
}

# Croissant field descriptions, per column name
COLUMN_DESCRIPTIONS = {
    "probe_id": "Probe identifier (immutable).",
    "case_id": "Case identifier (immutable).",
    "probe_kind": "Probe family: " + ", ".join(PROBE_KINDS) + ".",
    "question": "Question text shown to the model (already perturbed for non-original probes).",
    "options": "The five option texts, displayed as A..E in this order.",
    "correct_letter": "Correct letter in the displayed order.",
    "published_correct_letter": "Correct letter in the published order.",
    "permutation": "Published letters in displayed order (e.g. CAEBD: displayed A is published C).",
    "shuffle_seed": "Seed of the per-probe option permutation.",
    "rotation": "CircularEval rotation index 0..4 (0 = published order).",
    "image_file": "Image path as written in the release (relative).",
    "risk_tier": "Clinical risk tier L1 (meta) .. L5 (time-critical).",
    "source_dataset": "Source corpus as the release spells it: VQA-RAD, SLAKE, ROCO or CXR (credentialed), or a "
    "spelling such as vqa-rad, cxr, MIMIC-CXR, CheXpert.",
    "modality": "Imaging modality.",
    "text_only_answerable": "Whether the question is answerable from its wording alone.",
    "laterality_dependent": "Whether the gold answer changes under a left-right flip.",
    "roi_bbox": "Region of interest [x0, y0, x1, y1], normalised to the image size; null when missing.",
    "roi_usable": "Whether the ROI box can drive the ROI probes.",
    "credentialed": "Whether the case comes from a credentialed source (image withheld).",
    "image_kind": "Which image the row shows: case, roi_masked, roi_only, lr_flip or none.",
    "image_status": "embedded, withheld_credentialed, local_reconstruction or no_image.",
    "image": "The exact image the model must see (JPEG); null when none or withheld.",
    "gold_answer": "Doctor-finalised gold answer of the case question.",
    "gold_after_lr_flip": "Gold answer after a left-right flip (differs only for laterality-dependent cases).",
    "annotator_notes": "Annotator notes from the manifest.",
    "rationale": "Answer rationale (grounding layer).",
    "differential_set": "Plausible alternatives (grounding layer).",
    "clinical_context": "Clinical context summary (grounding layer).",
    "probe_axis": "Open-ended probe axis.",
    "expected_behavior": "Expected behaviour for the open-ended probe (answer, refuse, correct the premise, ...).",
    "expected_answer_or_set": "Accepted answers for the open-ended probe.",
    "halluc_explanation": "Why the premise of a hallucination trap is false.",
    "provenance": "Provenance of the open-ended probe.",
    "anchor_question": "Triplet anchor question (the original probe).",
    "tcf_question": "Textual counterfactual: reworded anchor, same gold.",
    "vcf_question": "Visual counterfactual: anchor with a hypothetical condition, different gold.",
    "anchor_gold": "Gold answer of the anchor.",
    "tcf_gold": "Gold answer of the textual counterfactual (equals the anchor gold).",
    "vcf_gold": "Gold answer of the visual counterfactual (differs from the anchor gold).",
    "pointer_source_path": "Credentialed cases: path of the source image in the licensed copy (MIMIC-CXR / CheXpert).",
    "pointer_sha256": "Credentialed cases: SHA-256 of that source file, checked by `medvigil reconstruct`.",
}
