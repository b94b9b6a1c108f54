"""A corpus of deliberately broken releases, for the validator and the reader.

Each entry is one *named mutation*: a function that takes a copy of a valid release
and breaks exactly one thing, returning the :class:`Expect` ation — the file, row,
field and message fragment of the problem the validator must report. Mutations find
their targets by content (a ``halluc_trap`` probe, a laterality-dependent case, the
credentialed case...), so they work on any valid base release in the published layout:
``medvigil sample --cases 12`` when the generator is installed, otherwise the small
release that :func:`write_minimal_release` writes.

Releases are materialised in temporary folders at test time; nothing binary is
committed. After a mutation the ``RELEASE_DIGEST`` file is re-stamped (unless the
mutation is about the digest), so each broken release fails for its own reason only.
"""

import csv
import dataclasses
import io
import json
import shutil
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw

from medvigil.files.digest import release_digest
from medvigil.suites.medvigil.release import release_format as rf

# --------------------------------------------------------------------------- minimal valid release

NOTICE = rf.SYNTHETIC_NOTICE
_SOURCES = (
    "VQA-RAD",
    "SLAKE",
    "ROCO",
    "CXR",
    "VQA-RAD",
    "SLAKE",
    "ROCO",
    "VQA-RAD",
    "SLAKE",
    "ROCO",
    "VQA-RAD",
    "SLAKE",
)
_MODALITIES = ("CT", "MRI", "X-ray")
_FINDINGS = ("nodule", "effusion", "fracture", "mass", "haemorrhage", "cyst")


def _write_csv(path: Path, header: list[str], rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow([row.get(column, "") for column in header])
    path.write_bytes(buf.getvalue().encode("utf-8"))


def _image(seed: int, variant: str | None = None) -> Image.Image:
    img = Image.new("RGB", (64, 48), (20 + 9 * seed, 30, 40))
    draw = ImageDraw.Draw(img)
    draw.ellipse((14, 10, 40, 36), fill=(200, 200 - 5 * seed, 180))
    if variant == "roi_masked":
        draw.rectangle((12, 14, 38, 33), fill=rf.GREY)
    elif variant == "roi_only":
        img = Image.new("RGB", img.size, rf.GREY)
    elif variant == "lr_flip":
        img = img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    return img


def write_minimal_release(root: Path, n_cases: int = 12) -> Path:
    """Write a small valid release in the published layout (our stand-in for ``medvigil sample``).

    Case 4 is from the credentialed CXR source (no images, one pointer); case 2 is
    laterality-dependent; case 5 has no ROI box and case 9 a box covering the whole
    image (both without ROI probes); cases 3 and 7 are text-only answerable. Cases with
    a usable box carry all ten MCQ probes.
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    manifest, grounding, mcq, open_rows, triplets, pointers = [], [], [], [], [], []
    for i in range(1, n_cases + 1):
        cid = f"MVB-{i:04d}"
        source = _SOURCES[(i - 1) % len(_SOURCES)]
        finding = _FINDINGS[i % len(_FINDINGS)]
        lateral = i == 2
        gold = "Left" if lateral else f"{finding.capitalize()} present"
        manifest.append(
            {
                "case_id": cid,
                "source_dataset": source,
                "modality": _MODALITIES[i % 3],
                "image_file": f"{cid}.jpg",
                "question": f"Which side shows the {finding}?"
                if lateral
                else f"What does the image show in case {i}?",
                "gold_answer": gold,
                "risk_tier": rf.TIERS[(i - 1) % 5],
                "text_only_answerable": "true" if i in (3, 7) else "false",
                "annotator_notes": f"phantom case {i}",
                rf.SYNTHETIC_COLUMN: NOTICE,
            }
        )
        if i == 5:
            box = ""
        elif i == 9:
            box = "[0.0, 0.0, 1.0, 1.0]"
        else:
            box = "[0.2, 0.3, 0.6, 0.7]"
        roi = box == "[0.2, 0.3, 0.6, 0.7]"
        grounding.append(
            {
                "case_id": cid,
                "roi_bbox_norm": box,
                "rationale": f"the {finding} is visible centrally",
                "differential_set": json.dumps([finding, "normal"]),
                "clinical_context": "phantom",
                "laterality_dependent": "true" if lateral else "false",
                "gold_after_lr_flip": "Right" if lateral else gold,
                rf.SYNTHETIC_COLUMN: NOTICE,
            }
        )
        original_options = (
            [
                "Left",
                "Right",
                "Both sides",
                "Neither side",
                "Insufficient visual evidence to answer",
            ]
            if lateral
            else [
                gold,
                "Normal study",
                f"Old {finding}",
                "Artefact",
                "Insufficient visual evidence to answer",
            ]
        )
        image = f"{rf.IMAGES_DIR}/{cid}.jpg"

        def probe(
            kind: str, options: list[str], letter: str, image_file: str, n: str = "", cid: str = cid
        ) -> None:
            mcq.append(
                {
                    "probe_id": f"{cid}-{kind}{n}",
                    "case_id": cid,
                    "probe_kind": kind,
                    "question": f"{kind} question for {cid}{n}",
                    **{f"choice_{l}": text for l, text in zip(rf.LETTERS, options)},
                    "correct_letter": letter,
                    "image_file": image_file,
                    rf.SYNTHETIC_COLUMN: NOTICE,
                }
            )

        probe("original", original_options, "A", image)
        probe(
            "tcf",
            [gold, "Normal study", "Artefact", "Calcification", "Cannot tell from this image"],
            "A",
            image,
        )
        for n in ("1", "2"):
            probe(
                "halluc_trap",
                [
                    f"Large {finding}",
                    f"Small {finding}",
                    "Two lesions",
                    "Diffuse change",
                    "The premise is false",
                ],
                "E",
                image,
                n,
            )
        probe(
            "negation",
            ["No, it is not absent", "Yes, it is absent", "Unclear", "Other", "Refuse"],
            "A",
            image,
        )
        probe(
            "specificity_drop",
            [gold, "Normal", "Artefact", "Other finding", "Insufficient evidence"],
            "A",
            image,
        )
        probe(
            "knowledge_only",
            [f"Typical of {finding}", "Never seen", "Only in children", "Unrelated", "Refuse"],
            "A",
            "",
        )
        flip_letter = "B" if lateral else "A"
        probe("lr_flip", original_options, flip_letter, f"{rf.PERTURBED_DIR}/{cid}_lr_flip.jpg")
        if roi:
            probe("roi_only", original_options, "A", f"{rf.PERTURBED_DIR}/{cid}_roi_only.jpg")
            probe("roi_masked", original_options, "E", f"{rf.PERTURBED_DIR}/{cid}_roi_masked.jpg")
        for kind, img_file in (("original", image), ("knowledge_only", "")):
            open_rows.append(
                {
                    "case_id": cid,
                    "probe_id": f"{cid}-open-{kind}",
                    "probe_axis": "capability" if kind == "original" else "knowledge",
                    "probe_kind": kind,
                    "question": f"Describe case {i} ({kind})",
                    "expected_behavior": "answer",
                    "expected_answer_or_set": json.dumps([gold]),
                    "halluc_explanation": "",
                    "image_file": img_file,
                    "provenance": "synthetic",
                    rf.SYNTHETIC_COLUMN: NOTICE,
                }
            )
        if i <= 9:
            triplets.append(
                {
                    "case_id": cid,
                    "anchor_question": f"Is there a {finding}?",
                    "tcf_question": f"Can a {finding} be seen?",
                    "vcf_question": f"Is there a {finding}?",
                    "anchor_gold": "yes",
                    "tcf_gold": "yes",
                    "vcf_gold": "no",
                    rf.SYNTHETIC_COLUMN: NOTICE,
                }
            )
        if source in rf.CREDENTIALED_SOURCES:
            pointers.append(
                {
                    "case_id": cid,
                    "source_path": f"files/p10/p{i:08d}/s5000000{i}/view1.jpg",
                    "sha256": f"{i:064x}",
                    rf.SYNTHETIC_COLUMN: NOTICE,
                }
            )
        else:
            (root / rf.IMAGES_DIR).mkdir(exist_ok=True)
            (root / rf.PERTURBED_DIR).mkdir(exist_ok=True)
            _image(i).save(root / rf.IMAGES_DIR / f"{cid}.jpg", quality=90)
            for variant in ("lr_flip", "roi_only", "roi_masked") if roi else ("lr_flip",):
                _image(i, variant).save(
                    root / rf.PERTURBED_DIR / f"{cid}_{variant}.jpg", quality=90
                )

    def header(columns: tuple[str, ...]) -> list[str]:
        return [*columns, rf.SYNTHETIC_COLUMN]

    _write_csv(root / rf.MANIFEST, header(rf.MANIFEST_COLUMNS), manifest)
    _write_csv(root / rf.GROUNDING, header(rf.GROUNDING_COLUMNS), grounding)
    _write_csv(root / rf.PROBES_MCQ, header(rf.PROBES_MCQ_COLUMNS), mcq)
    _write_csv(root / rf.PROBES_OPEN, header(rf.PROBES_OPEN_COLUMNS), open_rows)
    _write_csv(root / rf.TRIPLETS, header(rf.TRIPLETS_COLUMNS), triplets)
    _write_csv(
        root / rf.POINTERS_DIR / "cxr_pointers.csv",
        ["case_id", "source_path", "sha256", rf.SYNTHETIC_COLUMN],
        pointers,
    )
    baseline = [
        {
            "probe_kind": "halluc_trap",
            "risk_tier": t,
            "acc_or_sfr_pct": "10.0",
            "n_probes": "20",
            "n_correct": "18",
        }
        for t in (*rf.TIERS, "ALL")
    ]
    _write_csv(root / rf.CLINICIAN_BASELINE, header(rf.CLINICIAN_BASELINE_COLUMNS), baseline)

    def split(key: Callable[[dict], str]) -> dict:
        groups: dict[str, list[str]] = {rf.SYNTHETIC_JSON_KEY: NOTICE}  # type: ignore[dict-item]
        for row in manifest:
            groups.setdefault(key(row), []).append(row["case_id"])
        return groups

    splits = {
        "by_tier": split(lambda r: r["risk_tier"]),
        "by_source": split(lambda r: r["source_dataset"]),
        "by_modality": split(lambda r: r["modality"]),
        "by_rarity": split(lambda r: "rare" if r["case_id"].endswith(("1", "6")) else "common"),
        "text_only_subset": {
            rf.SYNTHETIC_JSON_KEY: NOTICE,
            "text_only": [r["case_id"] for r in manifest if r["text_only_answerable"] == "true"],
        },
    }
    (root / rf.SPLITS_DIR).mkdir(exist_ok=True)
    for name, value in splits.items():
        (root / rf.SPLITS_DIR / f"{name}.json").write_text(
            json.dumps(value, indent=2) + "\n", encoding="utf-8"
        )
    stamp_digest(root)
    return root


def stamp_digest(root: Path) -> None:
    """(Re)write RELEASE_DIGEST for the folder as it is now."""
    (root / rf.DIGEST_FILE).write_text(release_digest(root) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- editing helpers


@dataclass(frozen=True)
class Expect:
    """The problem a broken release must produce."""

    file: str
    row: int | None
    field: str | None
    fragment: str  # substring of the message
    exit_code: int = 1
    severity: str = (
        "error"  # "warning": the release still validates (exit 0) and the problem is a warning
    )

    def location(self) -> str:
        parts = [self.file]
        if self.row is not None:
            parts.append(f"row {self.row}")
        if self.field is not None:
            parts.append(f"field {self.field!r}")
        return ", ".join(parts)


class Table:
    """A release CSV loaded for editing; row numbers are 1-based like the validator's."""

    def __init__(self, root: Path, name: str):
        self.path = root / name
        with open(self.path, encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            self.header = list(reader.fieldnames or [])
            self.rows = [dict(r) for r in reader]

    def save(self) -> None:
        _write_csv(self.path, self.header, self.rows)

    def find(self, **where) -> int:
        """Row number (1-based) of the first row matching every ``column=value`` (callables
        allowed)."""
        for number, row in enumerate(self.rows, start=1):
            if all(v(row[k]) if callable(v) else row[k] == v for k, v in where.items()):
                return number
        raise LookupError(
            f"{self.path.name}: no row with {where}; the base release lacks a needed feature"
        )

    def row(self, number: int) -> dict:
        return self.rows[number - 1]


def _case_ids(root: Path) -> list[str]:
    return [r["case_id"] for r in Table(root, rf.MANIFEST).rows]


def _credentialed_case(root: Path) -> tuple[int, dict]:
    manifest = Table(root, rf.MANIFEST)
    number = manifest.find(source_dataset=lambda s: s in rf.CREDENTIALED_SOURCES)
    return number, manifest.row(number)


def _roi_case(root: Path) -> str:
    """A non-credentialed case with a roi_masked probe."""
    credentialed = {
        r["case_id"]
        for r in Table(root, rf.MANIFEST).rows
        if r["source_dataset"] in rf.CREDENTIALED_SOURCES
    }
    mcq = Table(root, rf.PROBES_MCQ)
    return mcq.row(mcq.find(probe_kind="roi_masked", case_id=lambda c: c not in credentialed))[
        "case_id"
    ]


def _plain_case_number(root: Path) -> tuple[int, str]:
    """Manifest row of the first non-credentialed case, and its case id."""
    manifest = Table(root, rf.MANIFEST)
    number = manifest.find(source_dataset=lambda s: s not in rf.CREDENTIALED_SOURCES)
    return number, manifest.row(number)["case_id"]


def _image_of(root: Path, case_row: dict) -> Path:
    image = case_row["image_file"]
    rel = (
        image
        if image.startswith((f"{rf.IMAGES_DIR}/", f"{rf.PERTURBED_DIR}/"))
        else f"{rf.IMAGES_DIR}/{image}"
    )
    return root / rel


def _set_cell(root: Path, name: str, field: str, value: str, fragment: str, **where) -> Expect:
    table = Table(root, name)
    number = table.find(**where)
    table.row(number)[field] = value
    table.save()
    return Expect(name, number, field, fragment)


def _set_roi(root: Path, value: str, fragment: str) -> Expect:
    return _set_cell(root, rf.GROUNDING, "roi_bbox_norm", value, fragment, case_id=_roi_case(root))


def bomb_png(width: int = 100_000, height: int = 100_000) -> bytes:
    """A valid-looking PNG of a few hundred bytes that declares ``width`` x ``height`` pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    idat = zlib.compress(b"\x00" * (width + 1) * 4, 9)  # the first four scanlines
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


# --------------------------------------------------------------------------- the corpus

Mutation = Callable[[Path], Expect]
CORPUS: dict[str, Mutation] = {}
NO_RESTAMP: set[str] = set()


def broken(name: str, *, restamp: bool = True) -> Callable[[Mutation], Mutation]:
    def register(fn: Mutation) -> Mutation:
        if name in CORPUS:
            raise ValueError(f"duplicate corpus entry {name!r}")
        CORPUS[name] = fn
        if not restamp:
            NO_RESTAMP.add(name)
        return fn

    return register


# ---- CSV structure and encoding


@broken("missing_column")
def _(root: Path) -> Expect:
    table = Table(root, rf.MANIFEST)
    table.header.remove("risk_tier")
    table.save()
    return Expect(rf.MANIFEST, None, "risk_tier", "missing required column 'risk_tier'")


@broken("duplicate_header")
def _(root: Path) -> Expect:
    path = root / rf.GROUNDING
    text = path.read_text(encoding="utf-8")
    head, rest = text.split("\n", 1)
    path.write_text(
        head.replace("rationale", "clinical_context", 1) + "\n" + rest, encoding="utf-8"
    )
    return Expect(rf.GROUNDING, None, "clinical_context", "more than once")


@broken("wrong_field_count")
def _(root: Path) -> Expect:
    path = root / rf.PROBES_MCQ
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[3] = lines[3] + ",surplus"  # data row 3
    path.write_text("\n".join(lines), encoding="utf-8")
    return Expect(rf.PROBES_MCQ, 3, None, "but the header has")


@broken("non_utf8_csv")
def _(root: Path) -> Expect:
    path = root / rf.MANIFEST
    lines = path.read_bytes().split(b"\n")
    lines[5] = (
        lines[5].replace(b"phantom", b"phant\xffom", 1)
        if b"phantom" in lines[5]
        else lines[5] + b"\xff"
    )
    path.write_bytes(b"\n".join(lines))
    return Expect(rf.MANIFEST, 5, None, "not valid UTF-8")


@broken("empty_file")
def _(root: Path) -> Expect:
    (root / rf.TRIPLETS).write_bytes(b"")
    return Expect(rf.TRIPLETS, None, None, "file is empty")


@broken("byte_order_mark")
def _(root: Path) -> Expect:
    path = root / rf.PROBES_OPEN
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    return Expect(rf.PROBES_OPEN, None, None, "byte-order mark")


@broken("missing_required_file")
def _(root: Path) -> Expect:
    (root / rf.GROUNDING).unlink()
    return Expect(rf.GROUNDING, None, None, "required file is missing")


# ---- ids and references


@broken("duplicate_case_id")
def _(root: Path) -> Expect:
    table = Table(root, rf.MANIFEST)
    table.rows.append(dict(table.rows[1]))
    table.save()
    return Expect(
        rf.MANIFEST, len(table.rows), "case_id", f"duplicate case_id {table.rows[1]['case_id']!r}"
    )


@broken("duplicate_probe_id")
def _(root: Path) -> Expect:
    table = Table(root, rf.PROBES_MCQ)
    table.rows[4]["probe_id"] = table.rows[0]["probe_id"]
    table.save()
    return Expect(rf.PROBES_MCQ, 5, "probe_id", "duplicate probe_id")


@broken("probe_unknown_case")
def _(root: Path) -> Expect:
    return _set_cell(
        root, rf.PROBES_MCQ, "case_id", "MVB-9999", "is not in manifest.csv", probe_kind="tcf"
    )


@broken("grounding_unknown_case")
def _(root: Path) -> Expect:
    table = Table(root, rf.GROUNDING)
    extra = dict(table.rows[0], case_id="MVB-9998")
    table.rows.append(extra)
    table.save()
    return Expect(rf.GROUNDING, len(table.rows), "case_id", "is not in manifest.csv")


@broken("empty_case_id")
def _(root: Path) -> Expect:
    return _set_cell(root, rf.TRIPLETS, "case_id", "", "is not a valid id", case_id=lambda c: True)


# ---- typed cells


@broken("unknown_tier")
def _(root: Path) -> Expect:
    return _set_cell(root, rf.MANIFEST, "risk_tier", "L6", "is not one of", case_id=lambda c: True)


@broken("non_boolean_flag")
def _(root: Path) -> Expect:
    return _set_cell(
        root,
        rf.MANIFEST,
        "text_only_answerable",
        "maybe",
        "is not a boolean",
        case_id=lambda c: True,
    )


@broken("unknown_probe_kind")
def _(root: Path) -> Expect:
    return _set_cell(
        root, rf.PROBES_MCQ, "probe_kind", "halluc_trapp", "is not one of", probe_kind="halluc_trap"
    )


@broken("letter_outside_A_to_E")
def _(root: Path) -> Expect:
    return _set_cell(root, rf.PROBES_MCQ, "correct_letter", "F", "is not one of", probe_kind="tcf")


@broken("differential_set_not_json")
def _(root: Path) -> Expect:
    return _set_cell(
        root,
        rf.GROUNDING,
        "differential_set",
        "nodule; normal",
        "not a JSON list",
        case_id=lambda c: True,
    )


@broken("bad_pointer_checksum")
def _(root: Path) -> Expect:
    return _set_cell(
        root,
        f"{rf.POINTERS_DIR}/cxr_pointers.csv",
        "sha256",
        "not-a-checksum",
        "does not match",
        case_id=lambda c: True,
    )


# ---- ROI boxes


@broken("roi_x0_not_below_x1")
def _(root: Path) -> Expect:
    return _set_roi(root, "[0.6, 0.3, 0.2, 0.7]", "must be smaller than x1")


@broken("roi_outside_unit_square")
def _(root: Path) -> Expect:
    return _set_roi(root, "[0.2, 0.3, 1.4, 0.7]", "outside [0, 1]")


@broken("roi_not_json")
def _(root: Path) -> Expect:
    return _set_roi(root, "[0.2, 0.3, 0.6", "not valid JSON")


@broken("roi_wrong_length")
def _(root: Path) -> Expect:
    return _set_roi(root, "[0.2, 0.3, 0.6]", "has 3 values")


@broken("roi_missing_with_roi_probes")
def _(root: Path) -> Expect:
    return _set_roi(root, "", "roi_bbox_norm is empty")


# ---- MCQ options and letters


@broken("trap_letter_A")
def _(root: Path) -> Expect:
    return _set_cell(
        root,
        rf.PROBES_MCQ,
        "correct_letter",
        "A",
        "halluc_trap probes have correct letter E",
        probe_kind="halluc_trap",
    )


@broken("roi_masked_letter_A")
def _(root: Path) -> Expect:
    return _set_cell(
        root,
        rf.PROBES_MCQ,
        "correct_letter",
        "A",
        "roi_masked probes have correct letter E",
        probe_kind="roi_masked",
    )


@broken("original_letter_B")
def _(root: Path) -> Expect:
    return _set_cell(
        root,
        rf.PROBES_MCQ,
        "correct_letter",
        "B",
        "original probes have correct letter A",
        probe_kind="original",
    )


@broken("roi_only_letter_E")
def _(root: Path) -> Expect:
    return _set_cell(
        root, rf.PROBES_MCQ, "correct_letter", "E", "roi_only probes keep", probe_kind="roi_only"
    )


@broken("lr_flip_letter_ignores_laterality")
def _(root: Path) -> Expect:
    grounding = Table(root, rf.GROUNDING)
    lateral = grounding.row(
        grounding.find(laterality_dependent=lambda v: v.lower() in ("true", "1"))
    )["case_id"]
    return _set_cell(
        root,
        rf.PROBES_MCQ,
        "correct_letter",
        "A",
        "lr_flip of a laterality-dependent case",
        probe_kind="lr_flip",
        case_id=lateral,
    )


@broken("duplicate_options")
def _(root: Path) -> Expect:
    table = Table(root, rf.PROBES_MCQ)
    number = table.find(probe_kind="tcf")
    table.row(number)["choice_C"] = " " + table.row(number)["choice_B"].upper()
    table.save()
    return Expect(rf.PROBES_MCQ, number, "choice_C", "duplicates option B")


@broken("empty_correct_option")
def _(root: Path) -> Expect:
    expect = _set_cell(root, rf.PROBES_MCQ, "choice_A", "", "", probe_kind="tcf")
    return Expect(
        rf.PROBES_MCQ, expect.row, "correct_letter", "correct letter A points to an empty option"
    )


@broken("too_few_options")
def _(root: Path) -> Expect:
    table = Table(root, rf.PROBES_MCQ)
    number = table.find(probe_kind="negation")
    for letter in "BCD":
        table.row(number)[f"choice_{letter}"] = ""
    table.save()
    return Expect(rf.PROBES_MCQ, number, "choice_B", "only 2 non-empty options")


@broken("variant_options_differ")
def _(root: Path) -> Expect:
    return _set_cell(
        root,
        rf.PROBES_MCQ,
        "choice_C",
        "Something else entirely",
        "inherit the options",
        probe_kind="roi_only",
    )


@broken("knowledge_only_with_image")
def _(root: Path) -> Expect:
    table = Table(root, rf.PROBES_MCQ)
    number = table.find(probe_kind="original")
    image = table.row(number)["image_file"]
    case = table.row(number)["case_id"]
    return _set_cell(
        root,
        rf.PROBES_MCQ,
        "image_file",
        image,
        "carry no image",
        probe_kind="knowledge_only",
        case_id=case,
    )


@broken("more_than_ten_probes")
def _(root: Path) -> Expect:
    table = Table(root, rf.PROBES_MCQ)
    case = table.row(1)["case_id"]
    count = sum(r["case_id"] == case for r in table.rows)
    trap = table.row(table.find(case_id=case, probe_kind="halluc_trap"))
    for k in range(rf.MAX_PROBES_PER_CASE + 1 - count):
        table.rows.append(dict(trap, probe_id=f"{trap['probe_id']}-extra{k}"))
    table.save()
    seen = 0
    for number, row in enumerate(table.rows, start=1):
        seen += row["case_id"] == case
        if seen == rf.MAX_PROBES_PER_CASE + 1:
            return Expect(
                rf.PROBES_MCQ, number, "case_id", f"at most {rf.MAX_PROBES_PER_CASE} per case"
            )
    raise AssertionError("unreachable")


# ---- triplets


@broken("triplet_vcf_gold_equals_anchor")
def _(root: Path) -> Expect:
    table = Table(root, rf.TRIPLETS)
    table.rows[0]["vcf_gold"] = table.rows[0]["anchor_gold"]
    table.save()
    return Expect(rf.TRIPLETS, 1, "vcf_gold", "vcf_gold equals anchor_gold")


@broken("triplet_tcf_question_equals_anchor")
def _(root: Path) -> Expect:
    table = Table(root, rf.TRIPLETS)
    table.rows[1]["tcf_question"] = table.rows[1]["anchor_question"]
    table.save()
    return Expect(rf.TRIPLETS, 2, "tcf_question", "repeats anchor_question")


@broken("triplet_tcf_gold_differs")
def _(root: Path) -> Expect:
    table = Table(root, rf.TRIPLETS)
    table.rows[2]["tcf_gold"] = table.rows[2]["anchor_gold"] + " (changed)"
    table.save()
    return Expect(rf.TRIPLETS, 3, "tcf_gold", "keeps the answer")


# ---- splits


def _edit_split(root: Path, name: str, edit: Callable[[dict], None]) -> None:
    path = root / rf.SPLITS_DIR / f"{name}.json"
    value = json.loads(path.read_text(encoding="utf-8"))
    edit(value)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")


def _groups(value: dict) -> list[str]:
    return [k for k in value if not k.startswith("_")]


@broken("split_case_missing")
def _(root: Path) -> Expect:
    _edit_split(root, "by_tier", lambda v: v[_groups(v)[0]].pop(0))
    return Expect(f"{rf.SPLITS_DIR}/by_tier.json", None, None, "in no group")


@broken("split_case_in_two_groups")
def _(root: Path) -> Expect:
    holder: dict[str, str] = {}

    def edit(value: dict) -> None:
        first, second = _groups(value)[:2]
        value[second].append(value[first][0])
        holder["group"] = second

    _edit_split(root, "by_source", edit)
    return Expect(f"{rf.SPLITS_DIR}/by_source.json", None, holder["group"], "must partition")


@broken("split_not_json")
def _(root: Path) -> Expect:
    (root / rf.SPLITS_DIR / "by_rarity.json").write_text(
        '{"common": ["MVB-0001",', encoding="utf-8"
    )
    return Expect(f"{rf.SPLITS_DIR}/by_rarity.json", None, None, "not valid JSON")


@broken("split_nested_200k_deep")
def _(root: Path) -> Expect:
    (root / rf.SPLITS_DIR / "by_tier.json").write_text(
        "[" * 200_000 + "]" * 200_000, encoding="utf-8"
    )
    return Expect(f"{rf.SPLITS_DIR}/by_tier.json", None, None, "nested too deeply")


@broken("nul_byte_in_question")
def _(root: Path) -> Expect:
    return _set_cell(
        root, rf.PROBES_MCQ, "question", "What is\x00 shown?", "NUL byte", probe_kind="original"
    )


@broken("text_only_subset_mismatch")
def _(root: Path) -> Expect:
    table = Table(root, rf.MANIFEST)
    number = table.find(text_only_answerable=lambda v: v.lower() in ("false", "0"))
    table.row(number)["text_only_answerable"] = "true"
    table.save()
    return Expect(f"{rf.SPLITS_DIR}/text_only_subset.json", None, None, "not in text_only_subset")


# ---- paths and images


@broken("path_traversal")
def _(root: Path) -> Expect:
    return _set_cell(
        root,
        rf.MANIFEST,
        "image_file",
        "../../etc/passwd",
        "'..' component",
        case_id=lambda c: True,
    )


@broken("absolute_path")
def _(root: Path) -> Expect:
    return _set_cell(
        root, rf.PROBES_MCQ, "image_file", "/etc/passwd", "is absolute", probe_kind="tcf"
    )


@broken("backslash_path")
def _(root: Path) -> Expect:
    return _set_cell(
        root,
        rf.PROBES_MCQ,
        "image_file",
        "images\\..\\..\\secret.jpg",
        "backslash",
        probe_kind="negation",
    )


@broken("nul_byte_in_path")
def _(root: Path) -> Expect:
    return _set_cell(
        root, rf.PROBES_OPEN, "image_file", "images/a\x00.jpg", "NUL byte", probe_kind="original"
    )


@broken("symlink_escapes_root", restamp=False)
def _(root: Path) -> Expect:
    number, _ = _plain_case_number(root)
    image = _image_of(root, Table(root, rf.MANIFEST).row(number))
    outside = root.parent / "outside-secret.jpg"
    shutil.copyfile(image, outside)
    image.unlink()
    image.symlink_to(outside)
    return Expect(rf.MANIFEST, number, "image_file", "points outside the release root")


@broken("missing_image")
def _(root: Path) -> Expect:
    number, _ = _plain_case_number(root)
    _image_of(root, Table(root, rf.MANIFEST).row(number)).unlink()
    return Expect(rf.MANIFEST, number, "image_file", "does not exist")


@broken("truncated_jpeg")
def _(root: Path) -> Expect:
    number, _ = _plain_case_number(root)
    path = _image_of(root, Table(root, rf.MANIFEST).row(number))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return Expect(rf.MANIFEST, number, "image_file", "truncated")


@broken("non_image_bytes")
def _(root: Path) -> Expect:
    number, _ = _plain_case_number(root)
    _image_of(root, Table(root, rf.MANIFEST).row(number)).write_bytes(
        b"this is a text file, not a JPEG\n" * 20
    )
    return Expect(rf.MANIFEST, number, "image_file", "is not an image")


@broken("decompression_bomb")
def _(root: Path) -> Expect:
    number, _ = _plain_case_number(root)
    _image_of(root, Table(root, rf.MANIFEST).row(number)).write_bytes(bomb_png())
    return Expect(rf.MANIFEST, number, "image_file", "decompression bomb")


@broken("credentialed_image_present")
def _(root: Path) -> Expect:
    number, row = _credentialed_case(root)
    _, plain = _plain_case_number(root)
    donor = _image_of(
        root, Table(root, rf.MANIFEST).row(Table(root, rf.MANIFEST).find(case_id=plain))
    )
    target = _image_of(root, row)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(donor, target)
    return Expect(rf.MANIFEST, number, "image_file", "must never be redistributed")


@broken("credentialed_variant_present")
def _(root: Path) -> Expect:
    number, row = _credentialed_case(root)
    cid = row["case_id"]
    mcq = Table(root, rf.PROBES_MCQ)
    target = root / rf.PERTURBED_DIR / f"{cid}_lr_flip.jpg"
    expect = Expect(rf.MANIFEST, number, "image_file", "must never be redistributed")
    for probe_number, probe in enumerate(mcq.rows, start=1):
        if probe["case_id"] == cid and probe["probe_kind"] == "lr_flip" and probe["image_file"]:
            target = root / probe["image_file"]
            expect = Expect(
                rf.PROBES_MCQ, probe_number, "image_file", "must never be redistributed"
            )
            break
    target.parent.mkdir(parents=True, exist_ok=True)
    donor = next((root / rf.IMAGES_DIR).glob("*.jpg"))
    shutil.copyfile(donor, target)
    return expect


@broken("credentialed_without_pointer")
def _(root: Path) -> Expect:
    number, row = _credentialed_case(root)
    for path in (root / rf.POINTERS_DIR).glob("*.csv"):
        table = Table(root, f"{rf.POINTERS_DIR}/{path.name}")
        table.rows = [r for r in table.rows if r["case_id"] != row["case_id"]]
        table.save()
    return Expect(rf.MANIFEST, None, "case_id", "have no pointer")


# ---- digest


@broken("digest_mismatch", restamp=False)
def _(root: Path) -> Expect:
    _set_cell(
        root, rf.MANIFEST, "annotator_notes", "edited after release", "", case_id=lambda c: True
    )
    return Expect(rf.DIGEST_FILE, None, None, "digest mismatch")


# Mutations the authors' validator (scripts/bench_validate_full.py) only warns about, or
# checks it does not make and our code does not need: warnings here too (issue 10). Pointers
# are asked for by `medvigil reconstruct`, not demanded by `validate`.
WARN_ONLY = frozenset(
    {
        "credentialed_without_pointer",
        "duplicate_options",
        "empty_correct_option",
        "lr_flip_letter_ignores_laterality",
        "more_than_ten_probes",
        "original_letter_B",
        "roi_masked_letter_A",
        "roi_only_letter_E",
        "split_case_in_two_groups",
        "split_case_missing",
        "text_only_subset_mismatch",
        "too_few_options",
        "trap_letter_A",
        "variant_options_differ",
    }
)


def materialise(name: str, base: Path, dest: Path) -> Expect:
    """Copy the valid release ``base`` to ``dest``, apply mutation ``name``, re-stamp the digest."""
    shutil.copytree(base, dest, symlinks=True)
    expect = CORPUS[name](dest)
    if name in WARN_ONLY:
        expect = dataclasses.replace(expect, severity="warning", exit_code=0)
    if name not in NO_RESTAMP:
        stamp_digest(dest)
    return expect
