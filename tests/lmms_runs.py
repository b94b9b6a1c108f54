"""Shared by the tests that read or make lmms-eval runs: one ``--log_samples`` line, and one real
``lmms-eval --limit 8`` run of our tasks with the ``grounded`` baseline."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INPUT = "Reply with exactly one capital letter.\nOptions:\nA. CT\nB. MRI"


def sample_line(
    record: dict, metrics=("mcs", "cap", "safe", "sfr_w"), *, text: str = INPUT, **lead
) -> str:
    """One line in lmms-eval 0.7.3's ``--log_samples`` shape: the record under each metric key."""
    line = {
        "doc_id": 0,
        "target": record.get("correct_letter"),
        "filtered_resps": "A",
        "token_counts": [None],
        "doc_hash": "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b",
        "input_media": ["images/MVB-0001.jpg"],
        **lead,
    }
    line.update({m: record for m in metrics})
    line["input"] = text
    return json.dumps(line) + "\n"


def run_grounded(base: Path, env: dict, tasks) -> None:
    """``lmms-eval --model grounded --tasks ... --limit 8 --log_samples`` into ``base/runs``;
    lmms-eval 0.7.3 logs an evaluation error and still exits 0, so its output is checked too."""
    env = {**env, "HF_DATASETS_CACHE": str(base / "hf-cache")}
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "grounded",
        "--tasks",
        ",".join(tasks),
        "--include_path",
        str(ROOT / "tasks"),
        "--output_path",
        str(base / "runs"),
        "--log_samples",
        "--limit",
        "8",
    ]
    proc = subprocess.run(cmd, env=env, cwd=base, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0 and "Error during evaluation" not in proc.stdout + proc.stderr, (
        proc.stderr[-4000:]
    )


def medvigil_run(folder: Path, name: str, *, images: bool = True, **results) -> Path:
    """A medvigil_mcq run of model ``name`` on 4 cases, every probe kind (so every axis is defined);
    without ``images`` no image reaches any probe; ``results``: more of the results file."""
    from medvigil.constants import PROBE_KINDS as KINDS

    folder.mkdir(parents=True)
    config = {"model": "tiny", "model_args": f"pretrained=Org/{name}"}
    config |= results.pop("config", {})
    (folder / "20260101_000000_results.json").write_text(json.dumps({"config": config, **results}))
    lines = []
    for c in range(4):
        for kind in KINDS:
            sent = int(images and kind != "knowledge_only")
            record = {
                "suite": "medvigil",
                "model": "x",
                "condition": "default",
                "probe_id": f"MVB-000{c}-{kind}",
                "case_id": f"MVB-000{c}",
                "probe_kind": kind,
                "risk_tier": "L2",
                "source_dataset": "VQA-RAD",
                "modality": "CT",
                "text_only_answerable": False,
                "correct_letter": "A" if kind != "halluc_trap" else "E",
                "predicted_letter": "A" if (c + len(kind)) % 3 else "B",
                "parse_status": "ok",
                "raw_response": "A",
                "retries": 0,
                "extra": {"images_sent": sent, "image_variant": "default" if sent else "none"},
            }
            lines.append(sample_line(record, doc_id=len(lines)))
    path = folder / "20260101_000000_samples_medvigil_mcq.jsonl"
    path.write_text("".join(lines))
    return path
