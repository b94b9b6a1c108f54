"""The parent category of each MedQ-Deg degradation type (Liu et al., seed 002, Table 5), apart
from the image operations (:mod:`medvigil.suites.medqdeg.degradations`, which need scipy) so that
scoring can name categories without loading them."""

# Table 5 "Parent Category": the five top-level degradation categories (Section 3.2, Table 3).
CATEGORIES = {
    "Artifacts": (
        "limited_angle",
        "sparse_view",
        "bias_field_artifact",
        "undersampling_artifact",
        "ghosting_artifact",
        "blood_cell_artifact",
        "dark_spots_artifact",
    ),
    "Motion": ("object_rotation", "object_movement"),
    "Intensity": ("adjust_brightness", "exposure", "reduce_contrast"),
    "Noise": ("gaussian_noise", "low_dose"),
    "Resolution & Blur": ("low_resolution", "motion_blur", "gaussian_blur", "bubble"),
}
CATEGORY_OF = {kind: category for category, kinds in CATEGORIES.items() for kind in kinds}
TABLE3_COLUMNS = (
    "Intensity",
    "Noise",
    "Resolution & Blur",
    "Artifacts",
    "Motion",
)  # Table 3's column order
