"""Croissant 1.0 JSON-LD for an exported (Hub-ready) folder.

One ``cr:FileObject`` per Parquet shard and per config one ``cr:FileSet`` read by one record set;
lists are fields with ``repeated: true``, as Croissant 1.0 has no ``isArray``.
"""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CROISSANT_1_0 = "http://mlcommons.org/croissant/1.0"
PARQUET_MIME = "application/x-parquet"

# The @context of the Croissant 1.0 specification (section "Croissant vocabulary").
CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}


@dataclass(frozen=True)
class Shard:
    """One Parquet file of the export."""

    config: str
    path: str  # relative POSIX path inside the export, e.g. data/mcq/test-00000-of-00001.parquet
    sha256: str
    size: int  # bytes of the file (what is uploaded and downloaded)
    table_bytes: int = 0  # bytes of the Arrow table it decodes to (what `load_dataset` caches)


def _data_type(feature: Any) -> tuple[str, bool, str | None]:
    """(Croissant dataType, repeated, jsonPath transform) for one datasets feature."""
    import datasets

    if isinstance(feature, datasets.Image):
        return "sc:ImageObject", False, "bytes"
    if isinstance(feature, (datasets.List, datasets.LargeList)):
        inner, nested, _ = _data_type(feature.feature)
        if nested:
            raise ValueError(f"nested lists are not described in Croissant 1.0: {feature!r}")
        return inner, True, None
    if isinstance(feature, datasets.Value):
        dtype = feature.dtype
        if dtype in ("string", "large_string"):
            return "sc:Text", False, None
        if dtype == "bool":
            return "sc:Boolean", False, None
        if dtype.startswith(("int", "uint")):
            return "sc:Integer", False, None
        if dtype.startswith("float"):
            return "sc:Float", False, None
    raise ValueError(f"no Croissant data type for feature {feature!r}")


def record_set(config: str, features: Any, descriptions: Mapping[str, str] | None = None) -> dict:
    """The ``cr:RecordSet`` of one config, reading every column from its FileSet."""
    fields = []
    for column, feature in features.items():
        data_type, repeated, json_path = _data_type(feature)
        source: dict[str, Any] = {
            "fileSet": {"@id": f"parquet-{config}"},
            "extract": {"column": column},
        }
        if json_path:
            source["transform"] = {"jsonPath": json_path}
        field: dict[str, Any] = {
            "@type": "cr:Field",
            "@id": f"{config}/{column}",
            "name": f"{config}/{column}",
            "description": (descriptions or {}).get(
                column, f"Column {column!r} of config {config!r}."
            ),
            "dataType": data_type,
            "source": source,
        }
        if repeated:
            field["repeated"] = True
        fields.append(field)
    return {
        "@type": "cr:RecordSet",
        "@id": config,
        "name": config,
        "description": f"Records of the {config!r} config (split 'test').",
        "field": fields,
    }


def build_metadata(
    facts: Any, features_by_config: Mapping[str, Any], shards: Sequence[Shard], *, url: str
) -> dict:
    """The JSON-LD document (a plain dict) of a build, from its suite's
    :class:`~medvigil.hub.card_metadata.DatasetFacts` (``rai``: properties without the ``rai:``
    prefix)."""
    configs = list(features_by_config)
    missing = [c for c in configs if not any(s.config == c for s in shards)]
    if missing:
        raise ValueError(f"configs without any shard: {missing}")
    distribution = [
        {
            "@type": "cr:FileObject",
            "@id": shard.path,
            "name": shard.path,
            "description": f"Parquet shard of the {shard.config!r} config.",
            "contentUrl": shard.path,
            "contentSize": f"{shard.size} B",
            "encodingFormat": PARQUET_MIME,
            "sha256": shard.sha256,
        }
        for shard in sorted(shards, key=lambda s: s.path)
    ]
    distribution += [
        {
            "@type": "cr:FileSet",
            "@id": f"parquet-{config}",
            "name": f"parquet-{config}",
            "description": f"All Parquet shards of the {config!r} config.",
            "encodingFormat": PARQUET_MIME,
            "includes": f"data/{config}/*.parquet",
        }
        for config in configs
    ]
    doc: dict[str, Any] = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "name": facts.name,
        "description": facts.description,
        "conformsTo": CROISSANT_1_0,
        "citeAs": facts.citation,
        "creator": [{"@type": "sc:Organization", "name": c} for c in facts.creators],
        "datePublished": facts.date_published,
        "keywords": list(facts.keywords),
        "license": [licence_url for _, licence_url in facts.licences],
        "url": url,
        "version": facts.version,
        "isLiveDataset": False,
        "distribution": distribution,
        "recordSet": [
            record_set(config, features, facts.column_descriptions)
            for config, features in features_by_config.items()
        ],
    }
    doc.update({f"rai:{key}": value for key, value in facts.rai.items()})
    return doc


def dumps(doc: Mapping) -> str:
    """Stable serialisation (sorted keys would scramble JSON-LD readability, so insertion order)."""
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def validate(path_or_doc: Path | str | Mapping) -> tuple[list[str], list[str]]:
    """The mlcroissant reference validator's ``(errors, warnings)``, both sorted; warnings include
    those it only logs (e.g. a non-standard ``@context``). Pass a path to check an export in place
    (relative ``contentUrl`` and ``includes`` resolve against its folder); the export requires both
    lists empty."""
    import logging

    import mlcroissant

    logged: list[str] = []

    class _Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.WARNING:
                logged.append(record.getMessage())

    handler = _Collect()
    logger = logging.getLogger("absl")
    logger.addHandler(handler)
    try:
        jsonld = dict(path_or_doc) if isinstance(path_or_doc, Mapping) else str(path_or_doc)
        try:
            dataset = mlcroissant.Dataset(jsonld=jsonld)
        except mlcroissant.ValidationError as exc:
            return [str(exc)], sorted(set(logged))
    finally:
        logger.removeHandler(handler)
    issues = dataset.metadata.ctx.issues
    return sorted(issues.errors), sorted(set(issues.warnings) | set(logged))
