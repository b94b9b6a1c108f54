"""The part of the suites' `datasets` builders that does not depend on the suite.

Every config of an evaluation-only dataset has one split, ``test``, whose rows are what the
builder's ``iter_rows()`` yields; the dataset card texts are class attributes.
"""

from collections.abc import Iterator
from typing import ClassVar

import datasets


class EvaluationOnlyBuilder(datasets.GeneratorBasedBuilder):
    """Base of the suite builders: ``_info`` from the card attributes, one ``test`` split.

    Subclasses set ``DESCRIPTION``, ``HOMEPAGE``, ``CITATION``, ``LICENSE``, ``FEATURES`` and
    ``CONFIG_DESCRIPTIONS`` (per config name), and implement :meth:`iter_rows`.
    """

    DEFAULT_WRITER_BATCH_SIZE = 64  # rows per Arrow batch: bounds the images held in memory
    DESCRIPTION = HOMEPAGE = CITATION = LICENSE = ""
    FEATURES: ClassVar[dict[str, datasets.Features]] = {}
    CONFIG_DESCRIPTIONS: ClassVar[dict[str, str]] = {}

    def description_suffix(self) -> str:
        """Text appended to the description of the configured config (none by default)."""
        return ""

    def _info(self) -> datasets.DatasetInfo:
        name = self.config.name
        return datasets.DatasetInfo(
            description=f"{self.DESCRIPTION}\nConfig {name!r}: {self.CONFIG_DESCRIPTIONS[name]}."
            + self.description_suffix(),
            features=self.FEATURES[name],
            homepage=self.HOMEPAGE,
            citation=self.CITATION,
            license=self.LICENSE,
            version=self.config.version,
        )

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={})]

    def _generate_examples(self) -> Iterator[tuple[str, dict]]:
        yield from self.iter_rows()

    def iter_rows(self) -> Iterator[tuple[str, dict]]:
        raise NotImplementedError
