"""Everything one synthetic case contributes to the release (its rows, image files, withheld source
and the simulated reader's answers), computed without touching the output folder: a pure function
of ``(seed, index)``, so cases can be built by worker processes."""

import hashlib
import io
from dataclasses import dataclass

from PIL import Image

from medvigil.images.imaging import decode_image, encode_jpeg, render_variant, to_published
from medvigil.suites.medvigil.release import release_format as rf
from medvigil.suites.medvigil.synthetic.cases import author_case
from medvigil.suites.medvigil.synthetic.phantoms import draw_phantom
from medvigil.suites.medvigil.synthetic.plan import case_rngs, plan_case
from medvigil.suites.medvigil.synthetic.reader import reader_answers

SOURCE_JPEG_QUALITY = 95  # quality of the withheld "credentialed" source files
IMAGE_EXT = "jpg"


@dataclass
class CaseOutput:
    """Everything one case contributes, computed without touching the output folder."""

    rec: object  # cases.CaseRecords
    files: list  # [(path relative to the release root, bytes)]
    source: tuple | None  # (source_path, sha256, bytes or None) for a credentialed case
    reader: list  # simulated reader: correct (True/False) per MCQ probe, in row order


def build_case(seed: int, index: int, keep_source: bool) -> CaseOutput:
    """Plan, draw, author and encode case ``index`` (a pure function of its arguments)."""
    plan_rng, image_rng, reader_rng = case_rngs(seed, index)
    plan = plan_case(index, plan_rng)
    phantom = draw_phantom(plan.scene, image_rng)
    rec = author_case(plan, phantom, plan_rng, IMAGE_EXT)
    reader = reader_answers(rec.mcq, plan.tier, reader_rng)
    files: list = []
    source = None
    if plan.credentialed:
        data = _encode_source(phantom.image)
        source = (
            _pointer_path(seed, plan.case_id),
            hashlib.sha256(data).hexdigest(),
            data if keep_source else None,
        )
    else:
        name = rec.manifest["image_file"]
        original = encode_jpeg(to_published(phantom.image), comment=rf.SYNTHETIC_NOTICE)
        files.append((f"{rf.IMAGES_DIR}/{name}", original))
        decoded = decode_image(original, name=f"{rf.IMAGES_DIR}/{name}")
        for variant in rec.variants:
            data = encode_jpeg(
                render_variant(decoded, variant, list(rec.roi)), comment=rf.SYNTHETIC_NOTICE
            )
            files.append((f"{rf.PERTURBED_DIR}/{plan.case_id}_{variant}.{IMAGE_EXT}", data))
    return CaseOutput(rec=rec, files=files, source=source, reader=reader)


def _build_case_star(args) -> CaseOutput:
    return build_case(*args)


def case_outputs(seed: int, n: int, keep_source: bool, jobs: int):
    """Case outputs in index order, computed inline or by ``jobs`` worker processes."""
    tasks = ((seed, i, keep_source) for i in range(n))
    if jobs <= 1 or n < 2:
        yield from map(_build_case_star, tasks)
        return
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(min(jobs, n)) as pool:
        yield from pool.imap(_build_case_star, tasks, chunksize=4)


def _pointer_path(seed: int, case: str) -> str:
    """A MIMIC-CXR-JPG-like relative path, deterministic in (seed, case id)."""
    h = hashlib.sha256(f"medvigil-synthetic:{seed}:{case}".encode()).hexdigest()
    subject = 10_000_000 + int(h[:8], 16) % 9_000_000
    study = 50_000_000 + int(h[8:16], 16) % 9_000_000
    dicom = "-".join(h[16 + 8 * k : 24 + 8 * k] for k in range(5))
    return f"files/p{str(subject)[:2]}/p{subject}/s{study}/{dicom}.jpg"


def _encode_source(img: Image.Image) -> bytes:
    """The withheld credentialed 'source file': native-size greyscale JPEG, quality 95."""
    exif = Image.Exif()
    exif[0x010E] = rf.SYNTHETIC_NOTICE
    buf = io.BytesIO()
    img.convert("L").save(
        buf,
        format="JPEG",
        quality=SOURCE_JPEG_QUALITY,
        optimize=False,
        progressive=False,
        comment=rf.SYNTHETIC_NOTICE.encode(),
        exif=exif.tobytes(),
    )
    return buf.getvalue()
