"""From a suite's :class:`DatasetFacts`, a Hub card's YAML front matter (its ``configs:`` entries
let ``load_dataset(folder, config)`` find the Parquet shards) and Croissant document, for every
suite's export."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from medvigil.hub.parquet_shards import DATA_DIR, SPLIT


@dataclass(frozen=True)
class DatasetFacts:
    """What a suite says about one build of its dataset (card front matter and Croissant)."""

    name: str  # Croissant name
    pretty_name: str
    description: str  # Croissant description, digests included
    version: str
    date_published: str
    homepage: str  # Croissant URL when the build names no Hub repository
    citation: str
    licences: Sequence[tuple[str, str]]  # (Hub licence id, licence URL)
    keywords: Sequence[str]
    creators: Sequence[str]
    task_categories: Sequence[str]
    tags: Sequence[str]
    size_category: str
    default_config: str
    column_descriptions: Mapping[str, str]
    rai: Mapping[str, str]  # Croissant RAI properties without the ``rai:`` prefix
    digests_key: str  # front-matter key of the suite's own block (version, digests, ...)
    digests: Mapping[str, Any]
    language: Sequence[str] = ("en",)


def front_matter(
    facts: DatasetFacts, features: Mapping[str, Any], rows: Mapping[str, int], shards: Iterable[Any]
) -> str:
    """The YAML front matter of the card (without the ``---`` fences)."""
    import yaml

    configs, dataset_info = configs_and_info(features, rows, shards, facts.default_config)
    head = {
        "pretty_name": facts.pretty_name,
        "license": [licence for licence, _ in facts.licences],
        "language": list(facts.language),
        "task_categories": list(facts.task_categories),
        "tags": list(facts.tags),
        "size_categories": [facts.size_category],
        "configs": configs,
        "dataset_info": dataset_info,
        facts.digests_key: dict(facts.digests),
    }
    return yaml.safe_dump(head, sort_keys=False, allow_unicode=True, width=1000).strip()


def configs_and_info(
    features: Mapping[str, Any], rows: Mapping[str, int], shards: Iterable[Any], default: str
) -> tuple[list[dict[str, Any]], Any]:
    """``(configs, dataset_info)`` for the front matter. ``download_size`` is what the Hub serves
    (the Parquet files, each distinct image stored once); ``num_bytes`` / ``dataset_size`` the Arrow
    table ``load_dataset`` caches, where every row holds its image bytes."""
    import datasets
    from datasets.info import DatasetInfosDict
    from huggingface_hub import DatasetCardData

    shards = list(shards)
    configs = [
        {
            "config_name": config,
            **({"default": True} if config == default else {}),
            "data_files": [{"split": SPLIT, "path": f"{DATA_DIR}/{config}/*.parquet"}],
        }
        for config in features
    ]
    infos = DatasetInfosDict()
    for config, feats in features.items():
        size = sum(s.size for s in shards if s.config == config)
        table_bytes = sum(s.table_bytes for s in shards if s.config == config)
        splits = datasets.SplitDict()
        splits.add(datasets.SplitInfo(name=SPLIT, num_examples=rows[config], num_bytes=table_bytes))
        infos[config] = datasets.DatasetInfo(
            features=feats, splits=splits, dataset_size=table_bytes, download_size=size
        )
    card_data = DatasetCardData()
    infos.to_dataset_card_data(card_data)
    return configs, card_data.to_dict()["dataset_info"]


def size_rows(features: Iterable[str], shards: Iterable[Any]) -> list[tuple[str, str, str]]:
    """``(config, download, decoded)`` per config: the Parquet bytes and the Arrow table bytes of
    its shards."""
    shards = list(shards)
    return [
        (
            f"`{config}`",
            megabytes(sum(s.size for s in shards if s.config == config)),
            megabytes(sum(s.table_bytes for s in shards if s.config == config)),
        )
        for config in features
    ]


def megabytes(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(str(v) for v in row) + " |" for row in rows])


def load_lines(repo_id: str | None, configs: Iterable[str], default: str) -> str:
    """The card's ``load_dataset`` lines: by Hub repository id when the build names one, else the
    local form that works as written from inside the folder (``datasets`` takes a folder's path,
    absolute or relative to where Python runs; ``"."`` itself it refuses)."""
    where = f'"{repo_id}"' if repo_id else "os.getcwd()"
    head = [] if repo_id else ["import os  # run inside this folder; elsewhere give its path"]
    return "\n".join(
        head
        + [
            f'{config} = load_dataset({where}, "{config}", split="test")'
            + ("  # default config" if config == default else "")
            for config in configs
        ]
    )
