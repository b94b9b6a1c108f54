"""Write the MedQ-Deg task YAMLs. Run from anywhere: ``python tasks/medqdeg/_generate_configs.py``.

The YAMLs are committed; tests/test_task_configs.py fails when they differ from what this
script writes, so edit this script, not the YAML files.
"""

from pathlib import Path

from medvigil.tasks import task_yaml

HERE = Path(__file__).resolve().parent

VERSION = "0.1"
# T, the trials per doc (Section 3.4: T = 3 for the accuracy experiment, T = 10 for the
# calibration experiment). lmms-eval's `--repeats N` overrides it for a run (N > 1); the record
# stores the T actually used and the experiment.
TRIALS_CALIBRATION = 10
TRIALS_ACCURACY = 3
LEVELS = (0, 1, 2)
MAX_NEW_TOKENS = 8  # a letter
TEMPERATURE = 1.0
EXPERIMENTS = {
    "calibration": ("medqdeg", TRIALS_CALIBRATION),
    "accuracy": ("medqdeg_acc", TRIALS_ACCURACY),
}


def _core():
    from medvigil.suites.medqdeg.records import METRICS

    return METRICS


def template() -> str:
    metrics = _core()
    # Section 3.4: T trials at temperature 1.0. The strip_thinking filter keeps all T
    # responses as one list (the default take_first filter would keep only the first).
    return f"""{task_yaml.HEADER}{task_yaml.POINTER_DATASET}output_type: generate_until
doc_to_visual: !function utils.medqdeg_doc_to_visual
doc_to_text: !function utils.medqdeg_doc_to_text
doc_to_messages: !function utils.medqdeg_doc_to_messages
doc_to_target: correct_letter
process_results: !function utils.medqdeg_process_results
repeats: {TRIALS_CALIBRATION}
filter_list:
  - name: none
    filter:
      - function: strip_thinking
{task_yaml.generation_kwargs(MAX_NEW_TOKENS, temperature=TEMPERATURE, do_sample=True)}
{task_yaml.prompt_kwargs()}
{task_yaml.metric_list("medqdeg_aggregate_", metrics)}
metadata:
  version: {VERSION}
"""


def task(level: int, experiment: str = "calibration") -> str:
    prefix, trials = EXPERIMENTS[experiment]
    head = task_yaml.task(
        f"{prefix}_L{level}", f"load_{'acc_' if experiment == 'accuracy' else ''}L{level}"
    )
    return head if trials == TRIALS_CALIBRATION else head + f"repeats: {trials}\n"


def files() -> dict[str, str]:
    out = {"_default_template_yaml": template()}
    for experiment, (prefix, _) in EXPERIMENTS.items():
        for level in LEVELS:
            out[f"{prefix}_L{level}.yaml"] = task(level, experiment)
        # Severities are not interchangeable: the group reports each member and no pooled score.
        out[f"_{prefix}.yaml"] = task_yaml.group(
            prefix, [f"{prefix}_L{level}" for level in LEVELS], VERSION
        )
        # reasoning variants (task_yaml.reasoning_variant): same T trials at temperature 1.0, 4096
        # tokens
        variants = task_yaml.reasoning_variants(
            out,
            [f"{prefix}_L{level}" for level in LEVELS],
            MAX_NEW_TOKENS,
            temperature=TEMPERATURE,
            do_sample=True,
        )
        out[f"_{task_yaml.reasoning_name(prefix)}.yaml"] = task_yaml.group(
            task_yaml.reasoning_name(prefix), variants, VERSION
        )
    # Both experiments of Section 3.4 in one run.
    out["_medqdeg_paper.yaml"] = task_yaml.group(
        "medqdeg_paper", [prefix for prefix, _ in EXPERIMENTS.values()], VERSION
    )
    return out


def main() -> None:
    task_yaml.write_files(HERE, files())


if __name__ == "__main__":
    main()
