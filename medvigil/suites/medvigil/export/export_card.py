"""The dataset card, datasheet and Croissant facts of a MedVIGIL build (paper, Appendix C),
assembled by :mod:`medvigil.hub.card_metadata`."""

import json
from collections import Counter
from importlib import resources
from string import Template

from medvigil.cards import CARDS_DIR
from medvigil.hub.card_metadata import (
    DatasetFacts,
    front_matter,
    load_lines,
    markdown_table,
    size_rows,
)
from medvigil.suites.medvigil.export.dataset_configs import (
    CITATION,
    COLUMN_DESCRIPTIONS,
    CONFIG_DESCRIPTIONS,
    DATE_PUBLISHED,
    DESCRIPTION,
    HOMEPAGE,
)
from medvigil.suites.medvigil.release import release_format as rf

# Hugging Face licence identifier and URL of the directly redistributed sources' licences (paper,
# Table 5)
_LICENCES = {
    "CC0-1.0": ("cc0-1.0", "https://creativecommons.org/publicdomain/zero/1.0/"),
    "CC-BY-SA-4.0": ("cc-by-sa-4.0", "https://creativecommons.org/licenses/by-sa/4.0/"),
    "CC-BY-NC-SA-4.0": ("cc-by-nc-sa-4.0", "https://creativecommons.org/licenses/by-nc-sa/4.0/"),
}
_VARIANT_SOURCE_NOTES = {
    "render": "rendered by medvigil from the case image and ROI box; the release's "
    "images_perturbed/ files, when present, were compared with these "
    "renders and the differences are listed in build_info.json",
    "shipped": "the release's own images_perturbed/ files, embedded unchanged",
}

# Croissant RAI properties of the dataset (template in ``cards/``)
_RAI = json.loads(
    Template((CARDS_DIR / "medvigil_rai.json").read_text(encoding="utf-8")).substitute(
        longest_side=rf.LONGEST_SIDE, jpeg_quality=rf.JPEG_QUALITY, grey=rf.GREY
    )
)


def dataset_facts(release, report) -> DatasetFacts:
    """Card and Croissant facts of a build (``report``: its
    :class:`~medvigil.suites.medvigil.export.export.BuildReport`)."""
    description = (
        DESCRIPTION + f" Release digest sha256:{report.release_digest}; "
        f"build digest sha256:{report.build_digest}."
    )
    if release.synthetic:
        description += f" {rf.SYNTHETIC_NOTICE}."
    present = {
        case.source for case in release.cases.values()
    }  # the directly redistributed sources' licences
    licences = [
        _LICENCES[licence]
        for source, (licence, how) in rf.SOURCE_LICENCES.items()
        if how == "direct" and source in present and licence in _LICENCES
    ]
    return DatasetFacts(
        name="medvigil-synthetic" if release.synthetic else "medvigil",
        pretty_name="MedVIGIL (synthetic)" if release.synthetic else "MedVIGIL",
        description=description,
        version=report.version,
        date_published=DATE_PUBLISHED,
        homepage=HOMEPAGE,
        citation=CITATION,
        licences=licences,
        keywords=[
            "medical imaging",
            "visual question answering",
            "trustworthiness",
            "hallucination",
            "evaluation",
        ],
        creators=["MedVIGIL authors"],
        task_categories=["visual-question-answering", "multiple-choice"],
        tags=["medical", "radiology", "trustworthiness", "hallucination", "evaluation"]
        + (["synthetic"] if release.synthetic else []),
        size_category=_size_category(report.rows.get("mcq", max(report.rows.values(), default=0))),
        default_config="mcq",
        column_descriptions=COLUMN_DESCRIPTIONS,
        rai=_RAI,
        digests_key="medvigil",
        digests={
            "version": report.version,
            "release_digest": report.release_digest,
            "build_digest": report.build_digest,
            "local_only": report.local_only,
            "synthetic": release.synthetic,
        },
    )


def _size_category(n: int) -> str:
    for limit, label in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
    ):
        if n < limit:
            return label
    return "n>1M"


def _changelog() -> str:
    try:
        text = (
            resources.files("medvigil.builders.medvigil")
            .joinpath("CHANGELOG.md")
            .read_text(encoding="utf-8")
        )
    except (FileNotFoundError, OSError):
        return (
            "Changelog: CHANGELOG.md of the medvigil dataset "
            "builder (not bundled with this installation)."
        )
    # demote the changelog's headings below the datasheet's "###"
    return "\n".join(
        "###" + line if line.startswith("#") else line for line in text.strip().splitlines()
    )


def dataset_card(
    release, report, facts: DatasetFacts, features: dict, kinds: Counter, *, repo_id: str | None
) -> tuple[str, str]:
    """``(README.md, DATASHEET.md)`` texts, from the templates in ``cards/``."""
    datasheet = _datasheet(release, report, kinds)
    config_rows = [
        (
            f"`{config}`" + (" (default)" if config == "mcq" else ""),
            report.rows[config],
            CONFIG_DESCRIPTIONS[config],
            ", ".join(f"{k} {v}" for k, v in report.images.get(config, {}).items()),
        )
        for config in features
    ]
    notices = _notices(release, report)
    card = Template(
        (CARDS_DIR / "medvigil_dataset_card.md").read_text(encoding="utf-8")
    ).substitute(
        front_matter=front_matter(facts, features, report.rows, report.shards),
        notice="\n\n".join(notices)
        if notices
        else f"Version {report.version}, release digest `{report.release_digest[:16]}…`.",
        load_examples=load_lines(repo_id, features, "mcq"),
        table_configs=markdown_table(("config", "rows", "one row per", "images"), config_rows),
        table_sizes=markdown_table(
            ("config", "download (Parquet)", "decoded (Arrow)"), size_rows(features, report.shards)
        ),
        datasheet=datasheet.strip(),
    )
    return card.rstrip() + "\n", datasheet.rstrip() + "\n"


def _notices(release, report) -> list[str]:
    """The card's warnings above everything else: a local-only build, synthetic data."""
    notices = []
    if report.local_only:
        notices.append(
            "> **LOCAL ONLY.** This build embeds credentialed images re-derived "
            "from a local licensed copy. It is for local evaluation only: never "
            "upload or share it (`medvigil publish` refuses it)."
        )
    if release.synthetic:
        notices.append(
            f"> **Synthetic data.** {rf.SYNTHETIC_NOTICE}. "
            f"Not clinical data; for testing the toolchain."
        )
    return notices


def _datasheet(release, report, kinds: Counter) -> str:
    """The datasheet (paper, Appendix C) of the build, from its template in ``cards/``."""
    cases = list(release.cases.values())
    synthetic_collection = (
        (
            f"\n**This build was made from a synthetic release** ({rf.SYNTHETIC_NOTICE}): "
            f"procedurally generated phantom images and templated questions in the published "
            f"layout. No clinician authored them; the paragraph above describes the real release."
        )
        if release.synthetic
        else ""
    )
    return Template((CARDS_DIR / "medvigil_datasheet.md").read_text(encoding="utf-8")).substitute(
        n_cases=len(cases),
        n_credentialed=sum(1 for c in cases if c.credentialed),
        n_mcq=report.rows.get("mcq", len(release.probes_mcq)),
        n_open=report.rows.get("open", len(release.probes_open)),
        n_triplets=report.rows.get("triplets", len(release.triplets)),
        **_datasheet_tables(cases, report, kinds),
        synthetic_collection=synthetic_collection,
        longest_side=rf.LONGEST_SIDE,
        jpeg_quality=rf.JPEG_QUALITY,
        grey=str(rf.GREY),
        variant_source=report.settings["variant_source"],
        variant_source_note=_VARIANT_SOURCE_NOTES[report.settings["variant_source"]],
        shuffle_seed=report.settings["shuffle_seed"],
        version=report.version,
        date_published=DATE_PUBLISHED,
        release_digest=report.release_digest,
        build_digest=report.build_digest,
        changelog=_changelog(),
        citation=CITATION,
    )


def _datasheet_tables(cases: list, report, kinds: Counter) -> dict[str, str]:
    """The datasheet's tables: probe kinds, tiers, sources, what was left out, licences."""
    tiers = Counter(c.risk_tier for c in cases)
    sources = Counter(c.source for c in cases)  # canonical names: cxr, MIMIC-CXR, CheXpert -> CXR
    kind_rows = [(k, kinds[k]) for k in rf.PROBE_KINDS if kinds.get(k, 0)]
    kind_rows += [(k, n) for k, n in sorted(kinds.items()) if k not in rf.PROBE_KINDS]
    licence_rows = [
        (
            source,
            licence,
            "direct" if how == "direct" else "reconstruct (pointer only)",
            sources.get(source, 0),
        )
        for source, (licence, how) in rf.SOURCE_LICENCES.items()
    ]
    licence_rows += [
        (source, "unknown", "unknown", sources[source])
        for source in sorted(set(sources) - set(rf.SOURCE_LICENCES))
    ]
    skipped_rows = [*report.skipped.items(), *report.notes.items()]
    source_rows = [
        (s, n, "withheld (credentialed)" if s in rf.CREDENTIALED_SOURCES else "embedded")
        for s, n in sorted(sources.items())
    ]
    return {
        "table_probe_kinds": markdown_table(
            ("probe kind", "probes"), kind_rows + [("**total**", sum(n for _, n in kind_rows))]
        ),
        "table_tiers": markdown_table(("tier", "cases"), [(t, tiers.get(t, 0)) for t in rf.TIERS]),
        "table_sources": markdown_table(("source", "cases", "image"), source_rows),
        "table_skipped": markdown_table(("reason", "count"), skipped_rows)
        if skipped_rows
        else "Nothing was left out.",
        "table_licences": markdown_table(
            ("source", "image licence (upstream)", "redistribution", "cases here"), licence_rows
        ),
    }
