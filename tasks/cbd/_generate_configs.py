"""Write the cbd task YAMLs. Run from anywhere: ``python tasks/cbd/_generate_configs.py``.

The YAMLs are committed; tests/test_task_configs.py fails when they differ from what this
script writes, so edit this script, not the YAML files.
"""

from pathlib import Path

from medvigil.suites.cbd.task_metrics import (
    BINARY_METRICS,
    IMAGE_METRICS,
    NOIMG_METRICS,
    QUADRANT_METRICS,
)
from medvigil.suites.medvigil.release.release_format import SYSTEM_PROMPT
from medvigil.tasks import task_yaml

HERE = Path(__file__).resolve().parent
VERSION = "0.2"


def template() -> str:
    # The MedVIGIL Appendix L prompt and greedy decoding; one deterministic pass per prompt (Sec.
    # 3.2)
    return f"""{task_yaml.HEADER}{task_yaml.POINTER_DATASET}output_type: generate_until
doc_to_visual: !function utils.cbd_doc_to_visual
doc_to_text: !function utils.cbd_doc_to_text
doc_to_messages: !function utils.cbd_doc_to_messages
doc_to_target: correct_letter
{task_yaml.generation_kwargs(MAX_NEW_TOKENS)}
{task_yaml.system_prompt_kwargs(SYSTEM_PROMPT)}
metadata:
  version: {VERSION}
"""


def task(name: str, loader: str, kind: str, metrics: dict) -> str:
    head = task_yaml.task(name, loader)
    return f"""{head}process_results: !function utils.cbd_{kind}_process_results
{task_yaml.metric_list(f"cbd_{kind}_", metrics)}
"""


# reasoning variants (task_yaml.reasoning_variant) of the letter-answer tasks at the protocol's 8
# tokens
MAX_NEW_TOKENS = 8
REASONING_TASKS = ("cbd_image", "cbd_noimg", "cbd_quadrants")


def files() -> dict[str, str]:
    out = {
        "_default_template_yaml": template(),
        "cbd_image.yaml": task("cbd_image", "load_image_arm", "image", IMAGE_METRICS),
        "cbd_noimg.yaml": task("cbd_noimg", "load_noimg_arm", "noimg", NOIMG_METRICS),
        # both arms in one task: lmms-eval aggregates one task's samples only (group aggregation
        # pools per-task scalars), and the quadrants need both arms per sample
        "cbd_quadrants.yaml": task(
            "cbd_quadrants", "load_both_arms", "quadrants", QUADRANT_METRICS
        ),
        "_cbd.yaml": task_yaml.group("cbd", ["cbd_image", "cbd_noimg"], VERSION),
        # Sec. 3.2 / 4: binary presence questions "Is there [finding]?" (present and absent findings
        # paired), p(yes) from one deterministic pass (log-likelihoods of " yes" and " no"); image,
        # text-only, null-image and image-swap docs in one task
        "cbd_binary.yaml": binary_task("cbd_binary", "load_binary_arms"),
        # the earlier form as a named variant: the case's MCQ with a proposed option
        "cbd_binary_proposed.yaml": binary_task("cbd_binary_proposed", "load_binary_proposed_arms"),
    }
    task_yaml.reasoning_variants(out, REASONING_TASKS, MAX_NEW_TOKENS)
    out["_cbd_reasoning.yaml"] = task_yaml.group(
        "cbd_reasoning", [task_yaml.reasoning_name(t) for t in ("cbd_image", "cbd_noimg")], VERSION
    )
    return out


def binary_task(name: str, loader: str) -> str:
    return f"""{task_yaml.HEADER}{task_yaml.POINTER_DATASET}task: {name}
process_docs: !function utils.{loader}
output_type: multiple_choice
doc_to_visual: !function utils.cbd_doc_to_visual
doc_to_text: !function utils.cbd_binary_doc_to_text
doc_to_choice: !function utils.cbd_binary_doc_to_choice
doc_to_target: !function utils.cbd_binary_doc_to_target
process_results: !function utils.cbd_binary_process_results
{task_yaml.prompt_kwargs()}
{task_yaml.metric_list("cbd_binary_", BINARY_METRICS)}
metadata:
  version: {VERSION}
"""


def main() -> None:
    task_yaml.write_files(HERE, files())


if __name__ == "__main__":
    main()
