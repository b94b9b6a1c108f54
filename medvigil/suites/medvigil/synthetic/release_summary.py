"""What :func:`medvigil.suites.medvigil.synthetic.writer.generate_release` wrote: rows per file,
images, probes per kind, cases per tier, source and modality, and the release digest."""

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.synthetic.phantom_scene import MODALITIES
from medvigil.suites.medvigil.synthetic.plan import SOURCES


@dataclass
class ReleaseSummary:
    """What :func:`generate_release` wrote."""

    root: Path
    digest: str
    cases: int
    seed: int
    rows: dict = field(default_factory=dict)  # file (relative) -> data rows
    probe_kinds: Counter = field(default_factory=Counter)
    tiers: Counter = field(default_factory=Counter)
    sources: Counter = field(default_factory=Counter)
    modalities: Counter = field(default_factory=Counter)
    images: int = 0
    perturbed: int = 0
    credentialed_files: int = 0
    credentialed_root: Path | None = None

    def format(self) -> str:
        lines = [
            f"synthetic MedVIGIL release: {self.root}",
            f"  cases {self.cases}, seed {self.seed}",
            "files (data rows):",
        ]
        lines += [f"  {name:<40} {n:>7}" for name, n in self.rows.items()]
        lines.append(f"  {rf.IMAGES_DIR + '/':<40} {self.images:>7} images")
        lines.append(f"  {rf.PERTURBED_DIR + '/':<40} {self.perturbed:>7} images")
        if self.credentialed_root is not None:
            lines.append(
                f"  withheld CXR sources in {self.credentialed_root}: "
                f"{self.credentialed_files} files"
            )
        for title, counter, order in (
            ("MCQ probes per kind", self.probe_kinds, rf.PROBE_KINDS),
            ("cases per tier", self.tiers, rf.TIERS),
            ("cases per source", self.sources, SOURCES),
            ("cases per modality", self.modalities, MODALITIES),
        ):
            lines.append(f"{title}:")
            lines += [f"  {key:<40} {counter.get(key, 0):>7}" for key in order]
        lines.append(f"release digest (sha256): {self.digest}")
        return "\n".join(lines)
