"""The MedVIGIL `datasets` builder (configs and features; reading and rendering live in the
core)."""

from medvigil.builders.medvigil.builder import (
    CONFIG_NAMES,
    FEATURES,
    VERSION,
    MedvigilBuilder,
    MedvigilConfig,
)

__all__ = ["CONFIG_NAMES", "FEATURES", "VERSION", "MedvigilBuilder", "MedvigilConfig"]
