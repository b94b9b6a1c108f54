"""Write the MedQ-DEG-Bench task YAMLs. Run from anywhere: ``python
tasks/medqdeg_bench/_generate_configs.py``.

The YAMLs are committed; tests/test_task_configs.py fails when they differ from what this
script writes, so edit this script, not the YAML files.
"""

from pathlib import Path

from medvigil.tasks import task_yaml

HERE = Path(__file__).resolve().parent

VERSION = "0.1"
# The four TSVs of the release (VLMEvalKit's MedQDEGBench_<config>): one task each.
CONFIGS = ("good_test", "simulate_test", "good_dev", "simulate_dev")
GROUPS = {
    "medqdeg_bench": ("good_test", "simulate_test"),
    "medqdeg_bench_dev": ("good_dev", "simulate_dev"),
}
# As the medqdeg_L* tasks (tasks/medqdeg/_generate_configs.py): T = 10 trials at temperature 1.0
# (Section 3.4, the calibration experiment; `--repeats N` overrides T), a letter's budget.
TRIALS = 10
MAX_NEW_TOKENS = 8
TEMPERATURE = 1.0


def template() -> str:
    from medvigil.suites.medqdeg.records import METRICS

    # The strip_thinking filter keeps all T responses as one list (take_first would keep one).
    return f"""{task_yaml.HEADER}{task_yaml.POINTER_DATASET}output_type: generate_until
doc_to_visual: !function utils.medqdeg_bench_doc_to_visual
doc_to_text: !function utils.medqdeg_bench_doc_to_text
doc_to_messages: !function utils.medqdeg_bench_doc_to_messages
doc_to_target: correct_letter
process_results: !function utils.medqdeg_bench_process_results
repeats: {TRIALS}
filter_list:
  - name: none
    filter:
      - function: strip_thinking
{task_yaml.generation_kwargs(MAX_NEW_TOKENS, temperature=TEMPERATURE, do_sample=True)}
{task_yaml.prompt_kwargs()}
{task_yaml.metric_list("medqdeg_bench_aggregate_", METRICS)}
metadata:
  version: {VERSION}
"""


def files() -> dict[str, str]:
    out = {"_default_template_yaml": template()}
    for config in CONFIGS:
        name = f"medqdeg_bench_{config}"
        out[f"{name}.yaml"] = task_yaml.task(name, f"load_{config}")
        variant = task_yaml.reasoning_name(name)
        out[f"{variant}.yaml"] = task_yaml.reasoning_variant(
            name, out[f"{name}.yaml"], MAX_NEW_TOKENS, temperature=TEMPERATURE, do_sample=True
        )
    for group, members in GROUPS.items():
        names = [f"medqdeg_bench_{c}" for c in members]
        out[f"_{group}.yaml"] = task_yaml.group(group, names, VERSION)
        out[f"_{task_yaml.reasoning_name(group)}.yaml"] = task_yaml.group(
            task_yaml.reasoning_name(group), [task_yaml.reasoning_name(n) for n in names], VERSION
        )
    return out


def main() -> None:
    task_yaml.write_files(HERE, files())


if __name__ == "__main__":
    main()
