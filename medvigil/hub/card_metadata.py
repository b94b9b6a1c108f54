"""Pieces of a Hub dataset card shared by the MedVIGIL and MediConfusion exports.

``configs:`` entries (so ``load_dataset(folder, config)`` finds the Parquet shards) and the
``dataset_info`` block (features, rows and bytes per config) of the card's YAML front
matter, and the Markdown tables of the card body.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def configs_and_info(features: Mapping[str, Any], rows: Mapping[str, int], shards: Iterable[Any], *, default: str,
                     split: str, data_dir: str) -> tuple[list[dict[str, Any]], Any]:
    """``(configs, dataset_info)`` for the front matter; ``shards`` carry ``config`` and ``size``."""
    import datasets
    from datasets.info import DatasetInfosDict
    from huggingface_hub import DatasetCardData

    shards = list(shards)
    configs = []
    for config in features:
        entry: dict[str, Any] = {"config_name": config}
        if config == default:
            entry["default"] = True
        entry["data_files"] = [{"split": split, "path": f"{data_dir}/{config}/*.parquet"}]
        configs.append(entry)
    infos = DatasetInfosDict()
    for config, feats in features.items():
        size = sum(s.size for s in shards if s.config == config)
        splits = datasets.SplitDict()
        splits.add(datasets.SplitInfo(name=split, num_examples=rows[config], num_bytes=size))
        infos[config] = datasets.DatasetInfo(features=feats, splits=splits, dataset_size=size, download_size=size)
    card_data = DatasetCardData()
    infos.to_dataset_card_data(card_data)
    return configs, card_data.to_dict()["dataset_info"]


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(str(v) for v in row) + " |" for row in rows])
