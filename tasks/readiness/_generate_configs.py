"""Write the readiness task YAMLs. Run: ``python tasks/readiness/_generate_configs.py``.

The YAMLs are committed; tests/test_task_configs.py and tests/test_readiness_tasks.py fail
when they differ from what this script writes, so edit this script, not the YAML files.
"""

from pathlib import Path

from medvigil.suites.readiness.docs import ARMS
from medvigil.suites.readiness.records import SOURCES, arm_metrics
from medvigil.tasks import task_yaml

HERE = Path(__file__).resolve().parent
VERSION = "0.2"
# metric -> higher is better? (accuracy of the arm; parse failures are a diagnostic) metric ->
# higher is better (the T1 item counts n_<source> have no direction; lmms-eval wants a bool)
DIRECTIONS = {
    "acc": True,
    "acc_visreq": True,
    "acc_t5": True,
    "parse_failures": False,
    **{f"acc_{s}": True for s in SOURCES},
    **{f"n_{s}": True for s in SOURCES},
}


def template() -> str:
    return f"""{task_yaml.HEADER}{task_yaml.POINTER_DATASET}output_type: generate_until
doc_to_visual: !function utils.readiness_doc_to_visual
doc_to_text: !function utils.readiness_doc_to_text
doc_to_messages: !function utils.readiness_doc_to_messages
doc_to_target: correct_letter
process_results: !function utils.readiness_process_results
{task_yaml.generation_kwargs(MAX_NEW_TOKENS)}
{task_yaml.prompt_kwargs()}
metadata:
  version: {VERSION}
"""


# The paper's prompt asks for "the index and content of the option" (Appendix E) and gives no
# token budget: room for a letter and an option text; the letter is read from the start.
MAX_NEW_TOKENS = 64
COT_ARM = "readiness_cot"
COT_MAX_NEW_TOKENS = 1024  # room for the reasoning before the answer tag


def task(name: str) -> str:
    metrics = task_yaml.metric_list("readiness_aggregate_", DIRECTIONS, arm_metrics(name))
    text = f"""{task_yaml.task(name, f"load_{name}")}{metrics}
"""
    if name == COT_ARM:
        text += task_yaml.generation_kwargs(COT_MAX_NEW_TOKENS) + "\n"
    return text


def files() -> dict[str, str]:
    # No pooled score in the group: lmms-eval hands a group aggregation only per-subtask floats, and
    # R(m) needs the records of all arms
    # (medvigil.suites.readiness.records.readiness_from_samples). `readiness` holds T1-T5 (R(m) and
    # Ext. Data Tables 2-6); T6 generates long answers, so it is its own task, and `readiness_all`
    # runs both.
    stress = [name for name in ARMS if name != COT_ARM]
    out = {
        "_default_template_yaml": template(),
        "_readiness.yaml": task_yaml.group("readiness", stress, VERSION),
        "_readiness_all.yaml": task_yaml.group("readiness_all", ["readiness", COT_ARM], VERSION),
        # other datasets (medvigil.mcq.adapter) need not have T5 donors: every arm but T5's
        "_readiness_any.yaml": task_yaml.group(
            "readiness_any", [n for n in ARMS if ARMS[n].perturbation != "substitution"], VERSION
        ),
    }
    out.update({f"{name}.yaml": task(name) for name in ARMS})
    # reasoning variants (task_yaml.reasoning_variant) of the arms at the 64-token budget;
    # readiness_cot has 1024
    variants = task_yaml.reasoning_variants(out, stress, MAX_NEW_TOKENS)
    out["_readiness_reasoning.yaml"] = task_yaml.group("readiness_reasoning", variants, VERSION)
    return out


def main() -> None:
    task_yaml.write_files(HERE, files())


if __name__ == "__main__":
    main()
