"""Write the MedVIGIL task YAMLs. Run from anywhere: ``python tasks/medvigil/_generate_configs.py``.

The YAMLs are committed; tests/test_task_configs.py fails when they differ from what this
script writes, so edit this script, not the YAML files.
"""

import importlib
from pathlib import Path

from medvigil.tasks import task_yaml

HERE = Path(__file__).resolve().parent
_UTILS = task_yaml.load_utils(HERE, "medvigil_task_utils")

METRICS = _UTILS.METRIC_DIRECTIONS
VERSION = "0.1"

SYSTEM = _UTILS.SYSTEM_PROMPT
# sigma = infinity (no image) is the medvigil_mcq_noimg task, which the blur group includes
BLUR_SIGMAS = ("0", "2", "4", "8", "16", "32", "64")
ROI_DECAY_STEPS = (0, 1, 2, 3)
# Appendix K pilot (medvigil.suites.medvigil.scoring.roi_pilot): 5 samples at T = 0.7; 96 new tokens
# as the authors' runner gives non-reasoning models (bench_visual_token_ablation.py)
_PILOT = importlib.import_module("medvigil.suites.medvigil.scoring.roi_pilot")
PILOT_MAX_TOKENS = 96
MAX_NEW_TOKENS = 8  # Appendix L: the letter-answer tasks' budget
# the letter-answer tasks given a reasoning variant (<task>_reasoning, group medvigil_reasoning)
REASONING_TASKS = (
    "medvigil_mcq",
    "medvigil_mcq_noimg",
    "medvigil_mcq_shuffled",
    "medvigil_mcq_circular",
)


def _metric_list(names) -> str:
    return task_yaml.metric_list("medvigil_aggregate_", METRICS, names)


def template() -> str:
    return f"""{task_yaml.HEADER}{task_yaml.POINTER_DATASET}output_type: generate_until
doc_to_visual: !function utils.medvigil_doc_to_visual
doc_to_text: !function utils.medvigil_doc_to_text
doc_to_messages: !function utils.medvigil_doc_to_messages
doc_to_target: correct_letter
process_results: !function utils.medvigil_process_results
{task_yaml.generation_kwargs(MAX_NEW_TOKENS)}
{task_yaml.system_prompt_kwargs(SYSTEM)}
{_metric_list(_UTILS.TEMPLATE_METRICS)}
metadata:
  version: {VERSION}
"""


def task(name: str, loader: str, metrics=None) -> str:
    extra = f"{_metric_list(metrics)}\n" if metrics else ""
    return task_yaml.task(name, loader) + extra


# each task's metrics: process_results hands lmms-eval exactly these (utils.task_metrics)
SUMMARY_METRICS = _UTILS.SUMMARY_METRICS
TRIPLET_METRICS = _UTILS.TRIPLET_METRICS
OPEN_METRICS = _UTILS.OPEN_METRICS
DECAY_METRICS = _UTILS.DECAY_METRICS


def open_task() -> str:
    """Open-ended variant: question only, free text, scored by the refusal classifier."""
    head = task_yaml.task("medvigil_open", "load_open")
    return f"""{head}doc_to_text: !function utils.medvigil_open_doc_to_text
doc_to_messages: !function utils.medvigil_open_doc_to_messages
doc_to_target: expected_behavior
process_results: !function utils.medvigil_open_process_results
{task_yaml.generation_kwargs(128)}
{task_yaml.system_prompt_kwargs(_UTILS.OPEN_SYSTEM_PROMPT)}
{_metric_list(OPEN_METRICS)}
"""


_RUNNER = importlib.import_module("medvigil.suites.medvigil.harness.authors_runner")


def authors_task(
    name: str, loader: str, metrics=None, max_new_tokens: int = _RUNNER.MAX_NEW_TOKENS
) -> str:
    """The authors' released runners (medvigil.suites.medvigil.harness.authors_runner): their prompt
    (by the doc's ``runner``), no system message, their budget (600 new tokens; LLaVA-Med 128),
    their parser (in process_results)."""
    head = task_yaml.task(name, loader)
    return f"""{head}doc_to_text: !function utils.medvigil_authors_doc_to_text
doc_to_messages: !function utils.medvigil_authors_doc_to_messages
{task_yaml.generation_kwargs(max_new_tokens)}
{task_yaml.prompt_kwargs()}
""" + (f"{_metric_list(metrics)}\n" if metrics else "")


def roi_pilot_task(step: int) -> str:
    """Appendix K as the authors ran it: the 80-case pilot, 5 samples at T = 0.7, modal vote."""
    head = task_yaml.task(f"medvigil_roi_decay_k{step}", f"load_roi_pilot_{step}")
    sampling = task_yaml.generation_kwargs(
        PILOT_MAX_TOKENS, temperature=_PILOT.PILOT_TEMPERATURE, do_sample=True
    )
    return f"""{head}process_results: !function utils.medvigil_roi_pilot_process_results
repeats: {_PILOT.PILOT_SAMPLES}
filter_list:
  - name: none
    filter:
      - function: strip_thinking
{sampling}
{_metric_list(DECAY_METRICS)}
"""


def runner_files() -> dict[str, str]:
    """The authors' runners beside the blur sweep's sigma tasks: their main runner, their LLaVA-Med
    / HuatuoGPT runner (bench_run_llava_med.py, bench_run_huatuo.py) and sigma = inf of their sweep
    (the sigma 0 prompt, no image; records `noimg`, so the template's metrics)."""
    return {
        "medvigil_mcq_authors.yaml": authors_task("medvigil_mcq_authors", "load_mcq_authors"),
        "medvigil_mcq_authors_llava_med.yaml": authors_task(
            "medvigil_mcq_authors_llava_med",
            "load_mcq_authors_llava_med",
            max_new_tokens=_RUNNER.LLAVA_MED_MAX_NEW_TOKENS,
        ),
        "medvigil_blur_authors_sinf.yaml": authors_task(
            "medvigil_blur_authors_sinf", "load_blur_authors_inf"
        ),
    }


def files() -> dict[str, str]:
    # Conditions are not interchangeable, so each group reports its members and no pooled score.
    group = task_yaml.group
    out = {"_default_template_yaml": template()}
    out["medvigil_mcq.yaml"] = task("medvigil_mcq", "load_mcq")
    out["medvigil_mcq_noimg.yaml"] = task("medvigil_mcq_noimg", "load_mcq_noimg")
    out["medvigil_mcq_shuffled.yaml"] = task("medvigil_mcq_shuffled", "load_mcq_shuffled")
    out["medvigil_mcq_circular.yaml"] = task("medvigil_mcq_circular", "load_mcq_circular")
    out["medvigil_triplets.yaml"] = task("medvigil_triplets", "load_triplets", TRIPLET_METRICS)
    out["medvigil_open.yaml"] = open_task()
    out.update(runner_files())
    for sigma in BLUR_SIGMAS:
        out[f"medvigil_blur_s{sigma}.yaml"] = task(
            f"medvigil_blur_s{sigma}", f"load_blur_{sigma}", SUMMARY_METRICS
        )
        out[f"medvigil_blur_authors_s{sigma}.yaml"] = authors_task(
            f"medvigil_blur_authors_s{sigma}", f"load_blur_authors_{sigma}", SUMMARY_METRICS
        )
    for step in ROI_DECAY_STEPS:
        out[f"medvigil_roi_decay_k{step}.yaml"] = roi_pilot_task(step)
        out[f"medvigil_roi_decay_all_k{step}.yaml"] = task(
            f"medvigil_roi_decay_all_k{step}", f"load_roi_decay_{step}", DECAY_METRICS
        )
    out["_medvigil_blur.yaml"] = group(
        "medvigil_blur",
        [f"medvigil_blur_s{s}" for s in BLUR_SIGMAS] + ["medvigil_mcq_noimg"],
        VERSION,
    )
    out["_medvigil_blur_authors.yaml"] = (
        group(  # the authors' runner and PIL blur; sigma = inf: no image
            "medvigil_blur_authors",
            [f"medvigil_blur_authors_s{s}" for s in (*BLUR_SIGMAS, "inf")],
            VERSION,
        )
    )
    out["_medvigil_roi_decay.yaml"] = group(
        "medvigil_roi_decay", [f"medvigil_roi_decay_k{k}" for k in ROI_DECAY_STEPS], VERSION
    )
    out["_medvigil_roi_decay_all.yaml"] = group(
        "medvigil_roi_decay_all", [f"medvigil_roi_decay_all_k{k}" for k in ROI_DECAY_STEPS], VERSION
    )
    # reasoning variants (task_yaml.reasoning_variant): the letter-answer tasks at the protocol's 8
    # tokens
    task_yaml.reasoning_variants(out, REASONING_TASKS, MAX_NEW_TOKENS)
    out["_medvigil_reasoning.yaml"] = group(
        "medvigil_reasoning", [task_yaml.reasoning_name(t) for t in REASONING_TASKS], VERSION
    )
    out["_medvigil.yaml"] = group(
        "medvigil",
        [
            "medvigil_mcq",
            "medvigil_mcq_shuffled",
            "medvigil_mcq_circular",
            "medvigil_triplets",
            "medvigil_open",
            "medvigil_blur",
            "medvigil_roi_decay",
        ],
        VERSION,
    )
    return out


def main() -> None:
    task_yaml.write_files(HERE, files())


if __name__ == "__main__":
    main()
