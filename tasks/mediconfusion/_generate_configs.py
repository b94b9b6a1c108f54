"""Write the MediConfusion task YAMLs. Run from anywhere: ``python tasks/mediconfusion/_generate_configs.py``.

The YAMLs are committed; tests/test_task_configs.py fails when they differ from what this
script writes, so edit this script, not the YAML files.
"""

from __future__ import annotations

from pathlib import Path

from medvigil.tasks import task_yaml

HERE = Path(__file__).resolve().parent
VERSION = "0.1"

# Prompt wording (lmms_eval_specific_kwargs.default); override per model in the YAML.
MC_POST_PROMPT = "\nAnswer with the option's letter from the given choices directly."
FF_PRE_PROMPT = "Based on the image, answer the following question.\n"


def template() -> str:
    directions = task_yaml.load_utils(HERE, "mediconfusion_task_utils").METRIC_DIRECTIONS
    return f"""{task_yaml.HEADER}{task_yaml.POINTER_DATASET}doc_to_visual: !function utils.mediconfusion_doc_to_visual
{task_yaml.metric_list("mediconfusion_aggregate_", directions)}
metadata:
  version: {VERSION}
"""


def _task(mode: str, body: str) -> str:
    return f"""{task_yaml.task(f"mediconfusion_{mode}", f"load_{mode}")}{body}
"""


def files() -> dict[str, str]:
    out = {"_default_template_yaml": template()}
    out["mediconfusion_mc.yaml"] = _task(
        "mc",
        f"""output_type: generate_until
doc_to_text: !function utils.mediconfusion_mc_doc_to_text
doc_to_target: correct_letter
process_results: !function utils.mediconfusion_mc_process_results
{task_yaml.generation_kwargs(8)}
{task_yaml.prompt_kwargs(post=MC_POST_PROMPT)}""",
    )
    # GD: one-token continuations "A"/"B" right after the MC prompt (no delimiter, as the
    # authors read the next-token probabilities of the letters).
    out["mediconfusion_gd.yaml"] = _task(
        "gd",
        f"""output_type: multiple_choice
doc_to_text: !function utils.mediconfusion_mc_doc_to_text
doc_to_choice: ["A", "B"]
doc_to_target: correct_letter
target_delimiter: ""
process_results: !function utils.mediconfusion_gd_process_results
{task_yaml.prompt_kwargs(post=MC_POST_PROMPT)}""",
    )
    # PS: the option texts as continuations of the bare question (no letters, no options).
    out["mediconfusion_ps.yaml"] = _task(
        "ps",
        f"""output_type: multiple_choice
doc_to_text: !function utils.mediconfusion_question_doc_to_text
doc_to_choice: !function utils.mediconfusion_ps_doc_to_choice
doc_to_target: !function utils.mediconfusion_ps_doc_to_target
target_delimiter: ""
process_results: !function utils.mediconfusion_ps_process_results
{task_yaml.prompt_kwargs()}""",
    )
    out["mediconfusion_ff.yaml"] = _task(
        "ff",
        f"""output_type: generate_until
doc_to_text: !function utils.mediconfusion_question_doc_to_text
doc_to_target: correct_letter
process_results: !function utils.mediconfusion_ff_process_results
{task_yaml.generation_kwargs(128)}
{task_yaml.prompt_kwargs(pre=FF_PRE_PROMPT)}""",
    )
    # Modes are different measurements, so the group runs them and pools nothing; the
    # paper's "best over modes" comes from `medvigil score` on the logged records.
    modes = ("mc", "gd", "ps", "ff")
    out["_mediconfusion.yaml"] = task_yaml.group("mediconfusion", [f"mediconfusion_{m}" for m in modes], VERSION)
    return out


def main() -> None:
    task_yaml.write_files(HERE, files())


if __name__ == "__main__":
    main()
