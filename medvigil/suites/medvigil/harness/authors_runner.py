"""The MedVIGIL authors' released runner (``scripts/bench_run_baseline.py`` of ``hq0709/MedVIGIL``),
as rules the ``medvigil_mcq_authors`` and ``medvigil_blur_authors_s*`` tasks replay.

The paper (Appendix L) describes a system message and ``A.`` option lines; the runner that
produced the released result files does otherwise, and new runs meant to be compared with
those files should follow the runner:

* **No system message**; one user turn, the image first, then the text (knowledge-only
  probes, whose release row has no image file, send the text alone).
* **Prompt** (:func:`authors_prompt`): the question, an empty line, one ``A) text`` line per
  non-empty option, an empty line, "Reply with ONLY the single letter of the correct option
  (A, B, C, D, or E). No explanation."
* **Budget**: 600 new tokens (``DEFAULT_TOKENS``; 1200 for the models it lists as reasoning
  models). The runner sets no temperature for OpenAI, Anthropic and Together models (the
  API's default) and 0 for Google; lmms-eval sends one, 0 here.
* **Parser** (:func:`authors_letter`): on the upper-cased reply, (1) a letter A-E at the
  start after optional ``(``, ``[``, ``*`` and spaces, ending a word; (2) else the first A-E
  word followed by ``.`` or ``)``; (3) else the first A-E word; else none. It reads
  lower-case replies ("b") and "the answer is b" alike, unlike the paper-prompt tasks'
  parser (:func:`medvigil.mcq.prompting.parse_letter`).
* **Blur sweep** (``scripts/bench_blur_sweep_make.py``): PIL's ``ImageFilter.GaussianBlur``
  with ``radius = sigma`` on the RGB image (:func:`authors_blur`), saved as JPEG quality 92
  for JPEG sources; sigma 0 is the original image. **sigma = inf** (``bench_blur_sweep_run.py
  --sigma inf``): the sigma 0 probes and prompt, sent without the image (records: ``noimg``, as
  the harness reader files their ``__sigmainf.jsonl``).

Their LLaVA-Med and HuatuoGPT runners (``scripts/bench_run_llava_med.py``, ``bench_run_huatuo.py``;
the ``medvigil_mcq_authors_llava_med`` task) differ:

* **Prompt** (:func:`llava_med_prompt`): the question, an empty line, ``Options:``, one ``A. text``
  line per non-empty option, an empty line, "Which one is correct (A, B, C, D, or E)?" (their
  comment: LLaVA-Med answers nothing to "reply with one letter" instructions).
* **Budget** 128 new tokens (:data:`LLAVA_MED_MAX_NEW_TOKENS`); the same parser as above.
* **A placeholder image** for the probes without one (knowledge-only): the release's
  ``images/MVB-0001.jpg`` (:data:`LLAVA_MED_PLACEHOLDER`), as the models need an image; where the
  build lacks it the runner sends none (its ``img.exists()`` check), and so does the replay.
"""

import io
import re
from collections.abc import Sequence

from PIL import Image, ImageFilter

__all__ = [
    "INSTRUCTION",
    "LLAVA_MED_MAX_NEW_TOKENS",
    "LLAVA_MED_PLACEHOLDER",
    "LLAVA_MED_QUESTION",
    "MAX_NEW_TOKENS",
    "REASONING_MAX_NEW_TOKENS",
    "authors_blur",
    "authors_letter",
    "authors_prompt",
    "llava_med_prompt",
]

INSTRUCTION = (
    "Reply with ONLY the single letter of the correct option (A, B, C, D, or E). No explanation."
)
MAX_NEW_TOKENS = 600  # DEFAULT_TOKENS
REASONING_MAX_NEW_TOKENS = 1200  # REASONING_TOKENS
JPEG_QUALITY = 92  # the blurred copies of JPEG images
LLAVA_MED_QUESTION = "Which one is correct (A, B, C, D, or E)?"
LLAVA_MED_MAX_NEW_TOKENS = 128  # their --max-new-tokens default
LLAVA_MED_PLACEHOLDER = "images/MVB-0001.jpg"  # resolve_image_path for a probe without an image

_LEADING = re.compile(r"^\s*[(\[*]*\s*([A-E])\b")
_MARKED = re.compile(r"\b([A-E])[.)]")
_WORD = re.compile(r"\b([A-E])\b")


def authors_prompt(question: str, options: Sequence[str]) -> str:
    """The runner's MCQ prompt (``build_mcq_prompt``).

    >>> print(authors_prompt("Which side?", ["Left", "Right", "", "", "Cannot tell"]))
    Which side?
    <BLANKLINE>
    A) Left
    B) Right
    E) Cannot tell
    <BLANKLINE>
    Reply with ONLY the single letter of the correct option (A, B, C, D, or E). No explanation.
    """
    lines = [question, ""]
    lines += [
        f"{letter}) {str(text).strip()}"
        for letter, text in zip("ABCDE", options)
        if str(text or "").strip()
    ]
    return "\n".join([*lines, "", INSTRUCTION])


def llava_med_prompt(question: str, options: Sequence[str]) -> str:
    """The LLaVA-Med / HuatuoGPT runners' MCQ prompt (their ``build_mcq_prompt``).

    >>> print(llava_med_prompt("Which side?", ["Left", "Right", "", "", "Cannot tell"]))
    Which side?
    <BLANKLINE>
    Options:
    A. Left
    B. Right
    E. Cannot tell
    <BLANKLINE>
    Which one is correct (A, B, C, D, or E)?
    """
    lines = [question, "", "Options:"]
    lines += [
        f"{letter}. {str(text).strip()}"
        for letter, text in zip("ABCDE", options)
        if str(text or "").strip()
    ]
    return "\n".join([*lines, "", LLAVA_MED_QUESTION])


def authors_letter(response: str | None) -> str | None:
    """The runner's letter (``parse_letter``), None where it records an empty letter.

    >>> [authors_letter(r)
    ...  for r in ("(b) effusion", "I think C. because", "answer: d", "E", "none", "", None)]
    ['B', 'C', 'D', 'E', None, None, None]
    """
    if not response:
        return None
    text = response.strip().upper()
    for pattern, search in ((_LEADING, False), (_MARKED, True), (_WORD, True)):
        match = pattern.search(text) if search else pattern.match(text)
        if match:
            return match.group(1)
    return None


def authors_blur(image: Image.Image, sigma: float, source_format: str | None = None) -> Image.Image:
    """The runner's blurred copy: RGB, PIL Gaussian blur of ``radius = sigma`` (none at 0), and
    for a JPEG source the JPEG round trip at quality 92 its saved copy goes through."""
    out = image.convert("RGB") if image.mode != "RGB" else image
    if sigma > 0:
        out = out.filter(ImageFilter.GaussianBlur(radius=sigma))
        if (source_format or "").upper() in ("JPEG", "JPG"):
            buffer = io.BytesIO()
            out.save(buffer, format="JPEG", quality=JPEG_QUALITY)
            out = Image.open(io.BytesIO(buffer.getvalue()))
            out.load()
    return out
