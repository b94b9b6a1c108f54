"""The report is readable at 1,400 px (issue #27): long model names shown short with a legend, wide
tables scrolled inside their box, no empty figure (a sentence instead). The page is measured in
headless Chromium when a binary is found (``MEDVIGIL_CHROMIUM``, else chromium / chromium-browser /
google-chrome on PATH; ``apt-get install chromium``); the rest runs everywhere."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_first_run import _records, _run

from medvigil.report.document import Section, render_html, write_report
from medvigil.report.names import MAX_NAME, renamed, short_names
from medvigil.report.render import Table, png, pyplot, shows_data
from medvigil.suites import registry

WIDTH = 1400
LONG = (
    "qwen2_5_vl(pretrained=Qwen/Qwen2.5-VL-7B-Instruct,max_pixels=12845056,"
    "attn_implementation=sdpa,device_map=auto)"
)
# what the page measures, written into the DOM that --dump-dom prints
PROBE = (
    "<script>var "
    "w=0;document.querySelectorAll('.scroll').forEach(function(e){w=Math.max(w,e.scrollWidth)});document.body.setAttribute('data-page-width',String(document.documentElement.scrollWidth));document.body.setAttribute('data-widest-table',String(w));</script>"
)


def _chromium() -> str | None:
    found = os.environ.get("MEDVIGIL_CHROMIUM") or next(
        (
            shutil.which(n)
            for n in ("chromium", "chromium-browser", "google-chrome")
            if shutil.which(n)
        ),
        None,
    )
    return found


def _measure(page: Path, tmp_path: Path) -> tuple[int, int, tuple[int, int]]:
    """(page scroll width, widest table box's scroll width, screenshot size) at a 1,400 px
    window."""
    from PIL import Image

    chromium = _chromium()
    probe = tmp_path / "probe.html"
    probe.write_text(
        page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8"
    )
    args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", f"--window-size={WIDTH},1000"]
    dom = subprocess.run(
        [*args, "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120
    ).stdout
    shot = tmp_path / "shot.png"
    subprocess.run([*args, f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120)
    page_width = int(re.search(r'data-page-width="(\d+)"', dom).group(1))
    widest = int(re.search(r'data-widest-table="(\d+)"', dom).group(1))
    with Image.open(shot) as image:
        return page_width, widest, image.size


def _result(tmp_path: Path) -> dict:
    path = _run(tmp_path / "run", "20260101_000000", _records(n=9), limit=8, model_args="")
    from medvigil.runs.labels import labelled

    with labelled([LONG]):
        return registry.score("medvigil", [str(path)], n_resamples=0)


def test_short_names_unique_with_legend():
    names = short_names(["grounded", LONG, LONG.replace("sdpa", "eager"), "x" * 40])
    assert (
        names[LONG] == "Qwen2.5-VL-7B-Instruct"
        and names[LONG.replace("sdpa", "eager")] == "Qwen2.5-VL-7B-Instruct (2)"
    )
    assert names["x" * 40] == "x" * (MAX_NAME - 1) + "…" and "grounded" not in names
    assert renamed({LONG: {"name": f"{LONG} [binary]"}}, names) == {
        "Qwen2.5-VL-7B-Instruct": {"name": "Qwen2.5-VL-7B-Instruct [binary]"}
    }


def test_empty_figure_is_not_drawn():
    fig, ax = pyplot().subplots()
    ax.bar(["a", "b"], [float("nan"), float("nan")])
    ax.axhline(50)  # a reference line is no data
    assert not shows_data(fig) and png(fig) is None
    fig, ax = pyplot().subplots()
    ax.bar(["a", "b"], [0.0, float("nan")])  # a zero is a value
    assert shows_data(fig) and png(fig).startswith(b"\x89PNG")


def test_report_says_partial_shortens_names_and_replaces_empty_figures(tmp_path):
    paths = write_report({"suites": {"medvigil": _result(tmp_path)}}, tmp_path / "report")
    text = paths["markdown"].read_text()
    assert (
        "| Qwen2.5-VL-7B-Instruct | qwen2\\_5\\_vl(pretrained=Qwen/Qwen2.5-VL-7B-Instruct," in text
    )  # the legend
    assert text.count(LONG.replace("_", "\\_")) == 1  # only in the legend
    assert "partial run (lmms-eval --limit 8): medvigil\\_mcq 9 of 318 probes (3 cases)" in text
    assert "not drawn, its inputs do not hold what it plots" in text
    page = paths["html"].read_text()
    assert (
        "<div class='scroll'><table>" in page and ".scroll{max-width:100%;overflow-x:auto}" in page
    )


@pytest.mark.skipif(
    _chromium() is None,
    reason="no chromium binary (apt-get install chromium, or MEDVIGIL_CHROMIUM)",
)
def test_page_fits_1400_px_in_chromium(tmp_path):
    paths = write_report({"suites": {"medvigil": _result(tmp_path)}}, tmp_path / "report")
    wide = Table(
        "A wide table", [f"column {i}" for i in range(40)], [[f"value {i}" for i in range(40)]]
    )
    page = tmp_path / "wide.html"
    page.write_text(render_html([Section("Wide", [wide], {})], "wide", {}), encoding="utf-8")
    for html_file in (paths["html"], page):
        page_width, widest, shot = _measure(html_file, tmp_path)
        assert page_width <= WIDTH, html_file  # no horizontal page overflow
        assert shot[0] == WIDTH
    assert widest > WIDTH  # the 40-column table is wider than the page: it scrolls inside its box
