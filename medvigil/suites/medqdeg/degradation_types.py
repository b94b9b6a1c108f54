"""The 18 MedQ-Deg degradation types (Liu et al., seed 002, Section 3.2, Table 5, App. A.4): their
L1 / L2 parameters, where they apply and how they are seeded.

Every parameter is the *proposed default* of the project spec ``docs/medqdeg-degradations.md`` ("the
spec"; the authors' numeric severities were not published). ``seed_for`` is the spec's "Seeding":
the first 8 bytes of ``sha256(image_id + kind)``. Applicability follows Table 5: nine general types
apply to every modality, three each to CT, MRI and pathology only (see :data:`MODALITY_KINDS` and
:func:`modality_family`). The image operations are :mod:`medvigil.suites.medqdeg.degradations`;
the parent categories :mod:`medvigil.suites.medqdeg.categories`.
"""

import hashlib
from typing import Any

import numpy as np

__all__ = [
    "GENERAL_KINDS",
    "KINDS",
    "LEVELS",
    "MODALITY_KINDS",
    "PARAMS",
    "applicable_kinds",
    "check_kind",
    "check_level",
    "check_seed",
    "choose_kinds",
    "modality_family",
    "parameters",
    "seed_for",
]

LEVELS = (0, 1, 2)

# Spec L1 / L2 values, by type (spec section numbers in comments).
PARAMS: dict[str, dict[int, dict[str, Any]]] = {
    "limited_angle": {1: {"arc_deg": 150.0}, 2: {"arc_deg": 120.0}},  # 1
    "sparse_view": {1: {"views": 90}, 2: {"views": 30}},  # 2
    "low_dose": {1: {"I0": 1e5}, 2: {"I0": 2.5e4}},  # 3
    "bias_field_artifact": {1: {"magnitude": 0.3}, 2: {"magnitude": 0.5}},  # 4
    "undersampling_artifact": {1: {"acceleration": 4}, 2: {"acceleration": 8}},  # 5
    "ghosting_artifact": {1: {"every": 6, "strength": 0.5}, 2: {"every": 6, "strength": 1.5}},  # 6
    "blood_cell_artifact": {1: {"cells_per_256sq": 15}, 2: {"cells_per_256sq": 40}},  # 7
    "dark_spots_artifact": {
        1: {"spots": 1, "q": 0.25, "a0": 0.45},
        2: {"spots": 2, "q": 0.30, "a0": 0.65},
    },  # 8
    "object_rotation": {1: {"angle_deg": 18.0}, 2: {"angle_deg": 153.0}},  # 9
    "object_movement": {1: {"shift_frac": 0.02}, 2: {"shift_frac": 0.04}},  # 10
    "adjust_brightness": {1: {"delta": -0.29}, 2: {"delta": -0.44}},  # 11
    "exposure": {1: {"gamma": 1.46, "beta": -0.035}, 2: {"gamma": 2.35, "beta": -0.11}},  # 12
    "reduce_contrast": {1: {"c": 0.65}, 2: {"c": 0.30}},  # 13
    "gaussian_noise": {1: {"sigma": 0.05}, 2: {"sigma": 0.08}},  # 14
    "low_resolution": {1: {"factor": 2}, 2: {"factor": 16}},  # 15
    "motion_blur": {1: {"q": 0.014}, 2: {"q": 0.03}},  # 16
    "gaussian_blur": {1: {"sigma_px512": 3.0}, 2: {"sigma_px512": 7.0}},  # 17
    "bubble": {1: {"rho": 0.20, "sigma_px512": 4.0}, 2: {"rho": 0.35, "sigma_px512": 6.0}},  # 18
}
KINDS = tuple(PARAMS)  # spec order 1..18

# Table 5 "Modality" column.
GENERAL_KINDS = (
    "object_rotation",
    "object_movement",
    "adjust_brightness",
    "exposure",
    "reduce_contrast",
    "gaussian_noise",
    "low_resolution",
    "motion_blur",
    "gaussian_blur",
)
MODALITY_KINDS = {
    "CT": ("limited_angle", "sparse_view", "low_dose"),
    "MRI": ("bias_field_artifact", "undersampling_artifact", "ghosting_artifact"),
    "Pathology": ("blood_cell_artifact", "dark_spots_artifact", "bubble"),
}
# Our release names modalities "X-ray", "CT", "MRI"; common spellings map to Table 5's families.
# X-ray (radiography) has no modality-specific type in Table 5: it gets the general ones.
_ALIASES = {
    "ct": "CT",
    "computed tomography": "CT",
    "cta": "CT",
    "mri": "MRI",
    "mr": "MRI",
    "magnetic resonance imaging": "MRI",
    "pathology": "Pathology",
    "histopathology": "Pathology",
    "microscopy": "Pathology",
    "wsi": "Pathology",
}


def check_kind(kind: Any) -> str:
    """``kind`` if it is one of the 18 types, else an error listing them."""
    if kind not in PARAMS:
        raise ValueError(
            f"kind must be one of the 18 MedQ-Deg types ({', '.join(KINDS)}), got {kind!r}"
        )
    return kind


def check_level(level: Any) -> int:
    """``level`` as an int if it is 0, 1 or 2, else an error."""
    if (
        isinstance(level, bool)
        or not isinstance(level, (int, np.integer))
        or int(level) not in LEVELS
    ):
        raise ValueError(f"level must be 0, 1 or 2 (L0 clean, L1 mild, L2 severe), got {level!r}")
    return int(level)


def check_seed(seed: Any) -> int:
    """``seed`` as an int if it is a non-negative int, else an error."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be a non-negative int, got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed}")
    return int(seed)


def seed_for(image_id: str, kind: str) -> int:
    """Spec "Seeding": the first 8 bytes (big-endian) of sha256(image_id + kind)."""
    if not isinstance(image_id, str) or not image_id:
        raise ValueError(f"image_id must be a non-empty str, got {image_id!r}")
    digest = hashlib.sha256((image_id + check_kind(kind)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def modality_family(modality: str | None) -> str | None:
    """Table 5 family ("CT", "MRI", "Pathology") of a modality name, or None (general types
    only)."""
    if modality is None:
        return None
    if not isinstance(modality, str):
        raise TypeError(f"modality must be a str or None, got {type(modality).__name__}")
    return _ALIASES.get(modality.strip().lower())


def applicable_kinds(modality: str | None) -> tuple[str, ...]:
    """Types Table 5 allows for ``modality``, in spec order (general ones for any modality)."""
    family = modality_family(modality)
    allowed = set(GENERAL_KINDS) | set(MODALITY_KINDS.get(family, ()))
    return tuple(k for k in KINDS if k in allowed)


def choose_kinds(image_id: str, modality: str | None, n: int | None = 3) -> tuple[str, ...]:
    """The ``n`` applicable types with the smallest :func:`seed_for` (all for None), in spec order:
    Section 3.3's "randomly appl[ies] three modality-specific degradations" as a pure, uniform and
    nested function of the image id."""
    kinds = applicable_kinds(modality)
    if n is None:
        return kinds
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n (types per image) must be a positive int or None, got {n!r}")
    ranked = sorted(kinds, key=lambda k: seed_for(image_id, k))[:n]
    return tuple(k for k in KINDS if k in ranked)


def parameters(kind: str, level: int) -> dict[str, Any]:
    """The spec parameters of ``kind`` at ``level`` (empty at L0)."""
    check_kind(kind)
    level = check_level(level)
    return {} if level == 0 else dict(PARAMS[kind][level])
