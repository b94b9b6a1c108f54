"""Write the MediConfusion task YAMLs. Run from anywhere: ``python
tasks/mediconfusion/_generate_configs.py``.

The YAMLs are committed; tests/test_task_configs.py fails when they differ from what this
script writes, so edit this script, not the YAML files.
"""

from pathlib import Path

from medvigil.suites.mediconfusion import prompts
from medvigil.tasks import task_yaml

HERE = Path(__file__).resolve().parent
VERSION = "0.3"

# The prompts are medvigil.suites.mediconfusion.prompts; YAML names a style per lmms-eval model.
# Where the authors used another template for a model family that lmms-eval serves, that
# model's key gets it (lmms-eval uses a model's own key instead of `default`).
MODEL_STYLES = {
    # their `mc.gpt` entry, shared by GPT-4o, Gemini and Claude: every lmms-eval route to those APIs
    # (`openai` included: the OpenAI-compatible client their GPT-4o runs went through)
    "mc": {m: "authors_gpt" for m in prompts.API_MODELS},
    # their LLaVA v1.6 and Llama 3.2 prefix-score implementations
    "ps": {"llava_hf": "authors_llava", "llava": "authors_llava", "llama_vision": "authors_llama"},
}


def _style_kwargs(mode: str, protocol: str) -> str:
    per_model = MODEL_STYLES.get(mode, {}) if protocol == "authors" else {}
    # the generating modes of the authors' protocol: their system prompt for the API models
    system = protocol == "authors" and mode in ("mc", "ff")
    if system:
        per_model = {**{m: protocol for m in prompts.API_MODELS}, **per_model}
    lines = ["lmms_eval_specific_kwargs:"]
    for key, style in {"default": protocol, **per_model}.items():
        lines += [
            f"  {key}:",
            f"    prompt_style: {style}",
            '    pre_prompt: ""',
            '    post_prompt: ""',
        ]
        if system and key in prompts.API_MODELS:
            lines.append(f"    system_prompt: {task_yaml.quoted(prompts.AUTHORS_SYSTEM_PROMPT)}")
    return "\n".join(lines)


def _generation_kwargs(mode: str, protocol: str, per_api_model: bool = True) -> str:
    """The task's decoding, and what the authors' client for each API model sets beyond it
    (prompts.adapter_generation) as lmms-eval's per-model ``model_specific_generation_kwargs``
    (not in the reasoning variants, whose budget is theirs)."""
    text = task_yaml.generation_kwargs(prompts.MAX_NEW_TOKENS[mode, protocol])
    per_model = {m: prompts.adapter_generation(m, mode) for m in prompts.API_MODELS}
    per_model = {m: g for m, g in per_model.items() if g}
    if protocol != "authors" or not per_api_model:
        per_model = {}
    if not per_model:
        return text
    lines = [text, "model_specific_generation_kwargs:"]
    for model, settings in per_model.items():
        lines.append(f"  {model}:")
        lines += [f"    {k}: {v}" for k, v in settings.items()]
    return "\n".join(lines)


def template() -> str:
    directions = task_yaml.load_utils(HERE, "mediconfusion_task_utils").METRIC_DIRECTIONS
    head = task_yaml.HEADER + task_yaml.POINTER_DATASET
    return f"""{head}doc_to_visual: !function utils.mediconfusion_doc_to_visual
{task_yaml.metric_list("mediconfusion_aggregate_", directions)}
metadata:
  version: {VERSION}
"""


def _task(name: str, body: str) -> str:
    return f"""{task_yaml.task(f"mediconfusion_{name}", f"load_{name}")}{body}
"""


def _mode_files(protocol: str, per_api_model: bool = True) -> dict[str, str]:
    suffix = "" if protocol == "authors" else f"_{protocol}"
    text = "doc_to_text: !function utils.mediconfusion_doc_to_text"
    messages = "\ndoc_to_messages: !function utils.mediconfusion_doc_to_messages"
    out = {}
    out[f"mediconfusion_mc{suffix}.yaml"] = _task(
        f"mc{suffix}",
        f"""output_type: generate_until
{text}{messages}
doc_to_target: correct_letter
process_results: !function utils.mediconfusion_mc_process_results
{_generation_kwargs("mc", protocol, per_api_model)}
{_style_kwargs("mc", protocol)}""",
    )
    # GD: one-token continuations "A"/"B" right after the prompt (no delimiter), as the
    # authors compare the next-token probabilities of the two letters.
    out[f"mediconfusion_gd{suffix}.yaml"] = _task(
        f"gd{suffix}",
        f"""output_type: multiple_choice
{text}
doc_to_choice: ["A", "B"]
doc_to_target: correct_letter
target_delimiter: ""
process_results: !function utils.mediconfusion_gd_process_results
{_style_kwargs("gd", protocol)}""",
    )
    # PS: the option texts as continuations of the question (no letters, no options).
    out[f"mediconfusion_ps{suffix}.yaml"] = _task(
        f"ps{suffix}",
        f"""output_type: multiple_choice
{text}
doc_to_choice: !function utils.mediconfusion_ps_doc_to_choice
doc_to_target: !function utils.mediconfusion_ps_doc_to_target
target_delimiter: {task_yaml.quoted(prompts.PS_DELIMITER[protocol])}
process_results: !function utils.mediconfusion_ps_process_results
{_style_kwargs("ps", protocol)}""",
    )
    out[f"mediconfusion_ff{suffix}.yaml"] = _task(
        f"ff{suffix}",
        f"""output_type: generate_until
{text}{messages}
doc_to_target: correct_letter
process_results: !function utils.mediconfusion_ff_process_results
{_generation_kwargs("ff", protocol, per_api_model)}
{_style_kwargs("ff", protocol)}""",
    )
    return out


def files() -> dict[str, str]:
    out = {"_default_template_yaml": template()}
    out |= _mode_files("authors")
    out |= _mode_files("medvigil")
    # Modes are different measurements, so a group runs them and pools nothing; the
    # paper's "best over modes" comes from `medvigil score` on the logged records.
    modes = ("mc", "gd", "ps", "ff")
    # reasoning variants (task_yaml.reasoning_variant) of MC, whose budgets (32, 8) leave no room to
    # think
    for protocol in ("authors", "medvigil"):
        base = f"mediconfusion_mc{'' if protocol == 'authors' else '_' + protocol}"
        plain = _mode_files(protocol, per_api_model=False)[f"{base}.yaml"]
        out[f"{task_yaml.reasoning_name(base)}.yaml"] = task_yaml.reasoning_variant(
            base, plain, prompts.MAX_NEW_TOKENS["mc", protocol]
        )
    out["_mediconfusion_reasoning.yaml"] = task_yaml.group(
        "mediconfusion_reasoning",
        [task_yaml.reasoning_name(t) for t in ("mediconfusion_mc", "mediconfusion_mc_medvigil")],
        VERSION,
    )
    out["_mediconfusion.yaml"] = task_yaml.group(
        "mediconfusion", [f"mediconfusion_{m}" for m in modes], VERSION
    )
    out["_mediconfusion_medvigil.yaml"] = task_yaml.group(
        "mediconfusion_medvigil", [f"mediconfusion_{m}_medvigil" for m in modes], VERSION
    )
    return out


def main() -> None:
    task_yaml.write_files(HERE, files())


if __name__ == "__main__":
    main()
