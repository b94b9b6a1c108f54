"""The MediConfusion `datasets` builder (configs and features; reading and checking live in the
core)."""

from medvigil.builders.mediconfusion.builder import (
    CONFIG_NAMES,
    FEATURES,
    VERSION,
    MediconfusionBuilder,
    MediconfusionConfig,
)

__all__ = ["CONFIG_NAMES", "FEATURES", "VERSION", "MediconfusionBuilder", "MediconfusionConfig"]
