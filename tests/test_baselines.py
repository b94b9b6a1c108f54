"""Baseline policies and the OpenAI-compatible loopback server."""

import base64
import io
import json
import urllib.error
import urllib.request

import pytest
from PIL import Image

from medvigil.baselines import make_policy
from medvigil.baselines.server import BaselineServer
from medvigil.mcq.prompting import build_mcq_prompt

PROMPT = build_mcq_prompt(
    "Is there a nodule in the right lung?",
    [
        "Yes, there is a nodule in the right lung.",
        "No nodule",
        "Pleural effusion",
        "Pneumothorax",
        "Cannot tell",
    ],
)


def test_random_is_seeded_and_order_independent():
    policy = make_policy("random", seed=7)
    first = [policy.answer(PROMPT + str(i), []) for i in range(50)]
    again = [
        make_policy("random", seed=7).answer(PROMPT + str(i), []) for i in reversed(range(50))
    ][::-1]
    assert first == again
    assert set(first) <= set("ABCDE") and len(set(first)) >= 4  # spreads over the letters
    assert first != [make_policy("random", seed=8).answer(PROMPT + str(i), []) for i in range(50)]


def test_random_guesses_each_image_independently():
    import numpy as np

    policy = make_policy("random", seed=0)
    images = [
        Image.fromarray(np.random.default_rng(i).integers(0, 256, (32, 32, 3), dtype=np.uint8))
        for i in range(60)
    ]
    letters = [policy.answer(PROMPT, [im]) for im in images]
    assert len(set(letters)) > 1  # the same question over different images: different guesses
    assert letters == [
        make_policy("random", seed=0).answer(PROMPT, [im.copy()]) for im in images
    ]  # and reproducible


def test_constant_letter_and_validation():
    assert make_policy("constant", letter="E").answer(PROMPT, []) == "E"
    with pytest.raises(ValueError, match="letter"):
        make_policy("constant", letter="AB")
    with pytest.raises(TypeError, match="letter"):
        make_policy("constant", letter=1)


def test_blind_prefers_lexical_overlap_and_ignores_images():
    policy = make_policy("blind")
    assert policy.answer(PROMPT, []) == "A"
    assert policy.answer(PROMPT, [Image.new("RGB", (8, 8))]) == "A"


def test_unknown_policy_lists_available():
    with pytest.raises(ValueError, match="available: .*blind"):
        make_policy("oracle")


def test_unknown_model_args_name_what_the_policy_takes():
    with pytest.raises(
        ValueError,
        match="'blind' does not take model_args seed, temperature; it takes no parameters",
    ):
        make_policy("blind", temperature=1, seed=0)
    with pytest.raises(
        ValueError, match="does not take model_args letter; it takes temperature, seed"
    ):
        make_policy("grounded", letter="A")


def _post(url: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(
        url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def _data_url(image: Image.Image) -> str:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def test_server_answers_like_the_policy_and_rejects_bad_requests():
    with BaselineServer() as server:
        assert server.base_url.startswith("http://127.0.0.1:")
        body = {
            "model": "constant:letter=D",
            "messages": [
                {"role": "system", "content": "You are an experienced radiologist."},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": PROMPT},
                        {
                            "type": "image_url",
                            "image_url": {"url": _data_url(Image.new("RGB", (4, 4)))},
                        },
                    ],
                },
            ],
        }
        status, payload = _post(server.base_url, body)
        assert status == 200 and payload["choices"][0]["message"]["content"] == "D"
        status, payload = _post(server.base_url, {**body, "model": "oracle"})
        assert status == 400 and "unknown model" in payload["error"]["message"]
        bad_image = {
            "role": "user",
            "content": [{"type": "image_url", "image_url": {"url": "http://example.org/x.png"}}],
        }
        status, payload = _post(server.base_url, {**body, "messages": [bad_image]})
        assert status == 400 and "data: URLs" in payload["error"]["message"]


def test_server_works_with_the_openai_client():
    openai = pytest.importorskip("openai")
    with BaselineServer() as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0)
        reply = client.chat.completions.create(
            model="blind",
            messages=[{"role": "user", "content": PROMPT}],
            max_tokens=8,
            temperature=0,
        )
        assert reply.choices[0].message.content == "A"


# ---------------------------------------------------------------- grounded


def _phantom(anatomy, modality, kind, side, zone, size="large", seed=3):
    import numpy as np

    from medvigil.images.imaging import to_published
    from medvigil.suites.medvigil.synthetic.phantom_scene import Finding, Scene
    from medvigil.suites.medvigil.synthetic.phantoms import draw_phantom

    scene = Scene(anatomy, modality, Finding(kind=kind, side=side, zone=zone, size=size), 512, 512)
    return to_published(draw_phantom(scene, np.random.default_rng(seed)).image.convert("RGB"))


@pytest.mark.parametrize(
    "anatomy, modality, kind, side, zone, bright",
    [
        ("chest", "X-ray", "nodule", "right", "upper", True),
        ("chest", "X-ray", "pneumothorax", "left", "upper", False),
        ("head", "CT", "haemorrhage", "left", "parietal", True),
        ("head", "CT", "infarct", "right", "occipital", False),
        ("head", "MRI", "infarct", "left", "frontal", True),
    ],
)
def test_grounded_reads_lesion_side_and_contrast(anatomy, modality, kind, side, zone, bright):
    from medvigil.baselines.grounded import read_image

    facts = read_image(_phantom(anatomy, modality, kind, side, zone))
    assert (facts.anatomy, facts.modality) == (anatomy, modality)
    assert facts.lesion and facts.side == side and facts.bright is bright and not facts.masked


def test_grounded_sees_a_masked_roi_and_an_roi_window():
    from medvigil.baselines.grounded import read_image
    from medvigil.images import imaging

    image = _phantom("head", "CT", "haemorrhage", "right", "frontal")
    box = (0.2, 0.2, 0.45, 0.45)
    assert read_image(imaging.roi_masked(image, box)).masked
    window = read_image(imaging.roi_only(image, box))
    assert not window.masked


def _probe_prompts(release):
    import csv

    from medvigil.mcq.prompting import build_mcq_prompt

    for row in csv.DictReader(open(release / "probes_mcq.csv", encoding="utf-8")):
        path = release / row["image_file"] if row["image_file"] else None
        if path is not None and not path.is_file():
            continue  # credentialed image withheld from the release
        images = [Image.open(path).convert("RGB")] if path else []
        yield row, build_mcq_prompt(row["question"], [row[f"choice_{x}"] for x in "ABCDE"]), images


@pytest.mark.slow  # every probe of a 40-case release with its images
def test_grounded_beats_blind_where_the_image_decides(synthetic_release):
    """On our phantoms the pixel reader must refuse masked evidence and read visible evidence.

    Thresholds are sanity floors, not tuned targets: each follows from the phantom contrast
    documented in medvigil.suites.medvigil.synthetic.phantoms.
    """
    from collections import defaultdict

    policies = {"grounded": make_policy("grounded"), "blind": make_policy("blind")}
    hits = {name: defaultdict(list) for name in policies}
    for row, prompt, images in _probe_prompts(synthetic_release):
        for name, policy in policies.items():
            hits[name][row["probe_kind"]].append(
                policy.answer(prompt, images) == row["correct_letter"]
            )
    acc = {name: {k: sum(v) / len(v) for k, v in kinds.items()} for name, kinds in hits.items()}
    assert acc["grounded"]["roi_masked"] >= 0.9 > acc["blind"]["roi_masked"]
    assert acc["grounded"]["roi_only"] >= 0.85
    assert (
        acc["grounded"]["original"] >= 0.8
        and acc["grounded"]["original"] > acc["blind"]["original"]
    )
    assert acc["grounded"]["lr_flip"] > acc["blind"]["lr_flip"]
    assert acc["grounded"]["halluc_trap"] >= 0.8
    # without an image the grounded policy falls back to the blind prior exactly
    assert acc["grounded"]["knowledge_only"] == acc["blind"]["knowledge_only"]
