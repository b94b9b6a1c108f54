"""Write the pressure task YAMLs. Run from anywhere: ``python tasks/pressure/_generate_configs.py``.

The YAMLs are committed; tests/test_task_configs.py fails when they differ from what this
script writes, so edit this script, not the YAML files.
"""

from pathlib import Path

from medvigil.suites.medvigil.release.release_format import SYSTEM_PROMPT
from medvigil.suites.pressure.protocol import ARMS, DIRECTIONS, RATE_OF_ARM
from medvigil.tasks import task_yaml

HERE = Path(__file__).resolve().parent
VERSION = "0.1"
MAX_NEW_TOKENS = 8  # the Appendix L answer: one letter
# each arm task reports its rate, how many answers had a readable letter, and the share that had
# none
METRIC_DIRECTIONS = {**DIRECTIONS, "n_answered": None, "parse_failures": False}


def template() -> str:
    # the MedVIGIL Appendix L system prompt and greedy decoding; one pass per conversation
    return f"""{task_yaml.HEADER}{task_yaml.POINTER_DATASET}output_type: generate_until
doc_to_visual: !function utils.pressure_doc_to_visual
doc_to_text: !function utils.pressure_doc_to_text
doc_to_messages: !function utils.pressure_doc_to_messages
doc_to_target: correct_letter
{task_yaml.generation_kwargs(MAX_NEW_TOKENS)}
{task_yaml.system_prompt_kwargs(SYSTEM_PROMPT)}
metadata:
  version: {VERSION}
"""


def arm_task(arm: str, name: str) -> str:
    metrics = (RATE_OF_ARM[arm], "n_answered", "parse_failures")
    head = task_yaml.task(name, f"load_{arm}")
    return f"""{head}process_results: !function utils.{name}_process_results
{task_yaml.metric_list("pressure_", METRIC_DIRECTIONS, metrics)}
"""


def files() -> dict[str, str]:
    out = {"_default_template_yaml": template()}
    names = [f"pressure_{arm}" for arm in ARMS]
    for arm, name in zip(ARMS, names):
        out[f"{name}.yaml"] = arm_task(arm, name)
    out["_pressure.yaml"] = task_yaml.group("pressure", names, VERSION)
    variants = task_yaml.reasoning_variants(out, names, MAX_NEW_TOKENS)
    out["_pressure_reasoning.yaml"] = task_yaml.group("pressure_reasoning", variants, VERSION)
    return out


def main() -> None:
    task_yaml.write_files(HERE, files())


if __name__ == "__main__":
    main()
