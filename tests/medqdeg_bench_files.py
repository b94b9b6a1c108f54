"""Synthetic MedQ-DEG-Bench files for the tests, made at test time (no download).

:func:`write_tsvs` writes TSVs in the release's format (VLMEvalKit's TSV convention: header, tab
separated, base64 PNG images, options A-E with empty trailing ones, extra columns, one image given
as a reference to another row's index). :func:`write_predictions` writes a prediction file as
VLMEvalKit's inference loop does (``vlmeval/inference.py``, ``infer_data_job``): the dataset's table
as ``MedQDEGBenchDataset.load_data`` reads it (pandas ``read_csv(sep="\\t")``, ``index`` as text
then integers when all are, ``answer`` stripped and upper-cased), the ``image`` column dropped, a
``prediction`` column of ``str`` replies, written by ``vlmeval.smp.dump`` (``.xlsx``: ``to_excel``
without the index; ``.tsv`` / ``.csv``: ``to_csv`` without the index, every field quoted).
"""

import base64
import csv
import io
from pathlib import Path

import numpy as np
from PIL import Image

HEADER = (
    "index",
    "image",
    "question",
    "A",
    "B",
    "C",
    "D",
    "E",
    "answer",
    "modality",
    "degradation_type",
    "degradation_severity",
    "source",
    "category",  # an extra column of the release: kept
)
QUESTIONS = (  # question, options, answer, modality, source
    ("Which organ is shown?", ["Liver", "Lung", "Brain", "Kidney", ""], "B", "CT", "OmniMedVQA"),
    ("Is there a fracture?", ["Yes", "No", "", "", ""], "A", "X-Ray", "GMAI-MMBench"),
    ("Which sequence is this?", ["T1", "T2", "FLAIR", "DWI", "SWI"], "C", "MRI", "MedXpertQA"),
    ("What stain is used?", ["H&E", "IHC", "PAS", "", ""], "A", "Pathology", "OmniMedVQA"),
    # the same text asked of two clean images (a templated question): ambiguous, left unpaired
    ("Which modality is this?", ["CT", "MRI", "X-Ray", "", ""], "A", "CT", "OmniMedVQA"),
    ("Which modality is this?", ["CT", "MRI", "X-Ray", "", ""], "A", "CT", "OmniMedVQA"),
)
DEGRADATIONS = {
    "CT": ("low_dose", "sparse_view"),
    "X-Ray": ("gaussian_noise", "object_rotation"),
    "MRI": ("bias_field_artifact", "ghosting_artifact"),
    "Pathology": ("blood_cell_artifact", "adjust_brightness"),
}


def png_base64(seed: int, size: int = 24) -> str:
    pixels = np.random.default_rng(seed).integers(0, 256, (size, size), dtype=np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels, "L").save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def _row(index, image, q, degradation, severity, category):
    question, options, answer, modality, source = q
    return [
        str(index),
        image,
        question,
        *options,
        answer,
        modality,
        degradation,
        severity,
        source,
        category,
    ]


def tsv_rows(kind: str) -> list[list[str]]:
    """The rows of a ``good`` (L0) or ``simulate`` (L1, L2) file."""
    rows = []
    for i, q in enumerate(QUESTIONS):
        if kind == "good":
            rows.append(_row(1000 + i, png_base64(i), q, "none", "L0", "perception"))
            continue
        for degradation in DEGRADATIONS[q[3]]:
            for level in (1, 2):
                n = len(rows)
                image = png_base64(100 + n) if n != 3 else str(2000)  # row 3 shows row 0's image
                rows.append(_row(2000 + n, image, q, degradation, f"L{level}", "reasoning"))
    return rows


def write_tsv(path: Path, rows, header=HEADER) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def write_tsvs(folder: Path) -> dict[str, Path]:
    """``MedQ-Robust-good-test.tsv`` and ``MedQ-Robust-simulate-test.tsv`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    return {
        kind: write_tsv(folder / f"MedQ-Robust-{kind}-test.tsv", tsv_rows(kind))
        for kind in ("good", "simulate")
    }


def write_predictions(tsv: Path, predictions: list, out: Path) -> Path:
    """``out`` (``<model>_MedQDEGBench_<split>.xlsx|.tsv|.csv``) as VLMEvalKit writes it."""
    import pandas as pd

    data = pd.read_csv(tsv, sep="\t")
    data = data[~pd.isna(data["image"])]
    data["index"] = [str(x) for x in data["index"]]
    data["answer"] = data["answer"].apply(lambda x: str(x).strip().upper() if pd.notna(x) else x)
    if all(x.lstrip("-").isdigit() for x in data["index"]):
        data["index"] = [int(x) for x in data["index"]]
    data["prediction"] = [str(p) for p in predictions]
    data.pop("image")
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix == ".xlsx":
        data.to_excel(out, index=False)
    else:
        sep = "\t" if out.suffix == ".tsv" else ","
        data.to_csv(out, sep=sep, index=False, encoding="utf-8", quoting=csv.QUOTE_ALL)
    return out
