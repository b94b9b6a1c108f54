"""Baseline policies and the OpenAI-compatible loopback server."""

from __future__ import annotations

import base64
import io
import json
import urllib.error
import urllib.request

import pytest
from PIL import Image

from medvigil.baselines import make_policy
from medvigil.baselines.server import BaselineServer
from medvigil.prompting import build_mcq_prompt

PROMPT = build_mcq_prompt(
    "Is there a nodule in the right lung?",
    ["Yes, there is a nodule in the right lung.", "No nodule", "Pleural effusion", "Pneumothorax", "Cannot tell"],
)


def test_random_is_seeded_and_order_independent():
    policy = make_policy("random", seed=7)
    first = [policy.answer(PROMPT + str(i), []) for i in range(50)]
    again = [make_policy("random", seed=7).answer(PROMPT + str(i), []) for i in reversed(range(50))][::-1]
    assert first == again
    assert set(first) <= set("ABCDE") and len(set(first)) >= 4  # spreads over the letters
    assert first != [make_policy("random", seed=8).answer(PROMPT + str(i), []) for i in range(50)]


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


def _post(url: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(url + "/chat/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
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
                {"role": "user", "content": [{"type": "text", "text": PROMPT}, {"type": "image_url", "image_url": {"url": _data_url(Image.new("RGB", (4, 4)))}}]},
            ],
        }
        status, payload = _post(server.base_url, body)
        assert status == 200 and payload["choices"][0]["message"]["content"] == "D"
        status, payload = _post(server.base_url, {**body, "model": "oracle"})
        assert status == 400 and "unknown model" in payload["error"]["message"]
        bad_image = {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://example.org/x.png"}}]}
        status, payload = _post(server.base_url, {**body, "messages": [bad_image]})
        assert status == 400 and "data: URLs" in payload["error"]["message"]


def test_server_works_with_the_openai_client():
    openai = pytest.importorskip("openai")
    with BaselineServer() as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0)
        reply = client.chat.completions.create(model="blind", messages=[{"role": "user", "content": PROMPT}], max_tokens=8, temperature=0)
        assert reply.choices[0].message.content == "A"
