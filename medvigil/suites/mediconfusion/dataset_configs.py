"""The configs of the MediConfusion Hub dataset (names, features, descriptions, identity): one
schema for the `datasets` builder and the Hub export; rows:
:mod:`medvigil.suites.mediconfusion.dataset_rows`.

Configs (split ``test``): ``questions`` (default), one row per image (352); ``pairs``, one row per
pair (176).
"""

import datasets

from medvigil import citations

VERSION = datasets.Version("1.0.0")
DATE_PUBLISHED = "2024-10-09"  # the authors' dataset.json (HEAD 40a8b41 of their repository)
HOMEPAGE = "https://github.com/MShahabSepehri/MediConfusion"
CITATION = citations.MEDICONFUSION
DESCRIPTION = (
    "MediConfusion: 176 pairs of ROCO radiology images that medical vision-language models "
    "confuse (similar BiomedCLIP embeddings, dissimilar DINOv2 embeddings), each with one "
    "two-option question whose correct answer differs between the two images. Evaluation only."
)
LICENSE = (
    "Images: ROCO (PubMed Central open access), CC BY-NC-SA "
    "4.0, non-commercial use only. Annotations: MIT."
)

CONFIG_NAMES = ("questions", "pairs")

_str = datasets.Value("string")
_f64 = datasets.Value("float64")
_i64 = datasets.Value("int64")
_bool = datasets.Value("bool")
_cats = datasets.List(_str)

FEATURES: dict[str, datasets.Features] = {
    "questions": datasets.Features(
        {
            "pair_id": _str,
            "image_key": _str,
            "image": datasets.Image(),
            "image_path": _str,
            "question": _str,
            "option_A": _str,
            "option_B": _str,
            "correct_letter": _str,
            "categories": _cats,
            "caption": _str,
            "BiomedCLIP_sim": _f64,
            "DINO_sim": _f64,
            "synthetic": _bool,
        }
    ),
    "pairs": datasets.Features(
        {
            "pair_id": _str,
            "image_1": datasets.Image(),
            "image_2": datasets.Image(),
            "im_1": _str,
            "im_2": _str,
            "im_1_local": _i64,
            "im_2_local": _i64,
            "cap_1": _str,
            "cap_2": _str,
            "category_1": _cats,
            "category_2": _cats,
            "BiomedCLIP_sim": _f64,
            "DINO_sim": _f64,
            "question": _str,
            "option_A": _str,
            "option_B": _str,
            "im_1_correct": _str,
            "im_2_correct": _str,
            "AI_question": _str,
            "AI_option_A": _str,
            "AI_option_B": _str,
            "synthetic": _bool,
        }
    ),
}

CONFIG_DESCRIPTIONS = {
    "questions": "one row per image: the pair's question asked "
    "about that image, with its correct letter",
    "pairs": "one row per pair: every field of the authors' dataset.json and both images",
}

COLUMN_DESCRIPTIONS = {
    "pair_id": "Pair identifier of the authors' release (e.g. '10001').",
    "image_key": "Which image of the pair the row asks about: 'im1' or 'im2'.",
    "image": "The image (original ROCO file bytes).",
    "image_path": "The image's path relative to the ROCO data folder.",
    "image_1": "Image 1 of the pair (original ROCO file bytes).",
    "image_2": "Image 2 of the pair (original ROCO file bytes).",
    "im_1": "Path of image 1 relative to the ROCO data folder.",
    "im_2": "Path of image 2 relative to the ROCO data folder.",
    "im_1_local": "The authors' integer id of image 1.",
    "im_2_local": "The authors' integer id of image 2.",
    "cap_1": "ROCO caption of image 1.",
    "cap_2": "ROCO caption of image 2.",
    "caption": "ROCO caption of the image.",
    "categories": "Medical categories of the image (one or more of nine).",
    "category_1": "Medical categories of image 1.",
    "category_2": "Medical categories of image 2.",
    "BiomedCLIP_sim": "Cosine similarity of the two images in BiomedCLIP "
    "space (>= 0.9 by construction).",
    "DINO_sim": "Cosine similarity of the two images in DINOv2 space (<= 0.75 by construction).",
    "question": "The two-option question shared by both images (radiologist-revised).",
    "option_A": "Answer option A.",
    "option_B": "Answer option B.",
    "correct_letter": "Correct option for this image: 'A' or 'B'.",
    "im_1_correct": "Correct option for image 1.",
    "im_2_correct": "Correct option for image 2 (always the other letter).",
    "AI_question": "The LLM-generated question before radiologist revision.",
    "AI_option_A": "The LLM-generated option A before revision.",
    "AI_option_B": "The LLM-generated option B before revision.",
    "synthetic": "True for medvigil's synthetic stand-in pairs "
    "(phantom images), false for the real release.",
}
