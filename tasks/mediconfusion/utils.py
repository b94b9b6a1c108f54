"""lmms-eval hooks for the MediConfusion task pack (modes MC, GD, PS, FF; paper Sec. 3.1).

YAML holds what varies (output type, prompt style, generation settings, metric list); this
module holds the hooks. Prompts are :mod:`medvigil.suites.mediconfusion.prompts`; answer
extraction and prefix-score normalisation are :mod:`medvigil.suites.mediconfusion.modes`, the
free-form judges :mod:`medvigil.suites.mediconfusion.judges` and
:mod:`medvigil.suites.mediconfusion.llm_judge`; scoring is
:mod:`medvigil.suites.mediconfusion.scoring`; nothing is re-implemented here.

Two protocols: ``mediconfusion_<mode>`` follows the authors (their prompts, token limits,
MC parser and judge); ``mediconfusion_<mode>_medvigil`` is medvigil 0.1's variant. The doc
carries ``protocol`` (``authors``/``medvigil``); ``lmms_eval_specific_kwargs`` carry
``prompt_style`` (per model where the authors used another template).

Data: each task loads the bundled one-row ``_pointer.jsonl`` and its ``process_docs`` swaps
in the ``questions`` config of the built dataset found through ``MEDICONFUSION_DATA``
(:func:`medvigil.suites.mediconfusion.data.resolve_data_location`), adding ``condition`` (the mode)
``choices`` (``[option_A, option_B]``), ``protocol`` and ``answer_format`` (``letter`` for
MC/GD, ``text`` for PS/FF: what the sanity baselines answer with).

Settings (environment variables, read and checked when the data is loaded, before any
inference, and written into every record's ``extra``):

=================================  ============================================================
``MEDICONFUSION_PS_NORMALISATION``  ``per_token`` (default), ``per_char`` or ``none``
``MEDICONFUSION_LL_KIND``           how to read loglikelihood values: ``auto`` (default),
                                    ``mean_nll`` or ``sum_logprob``
``MEDICONFUSION_FF_JUDGE``          free-form judge: ``llm`` (default when an endpoint is
                                    set), ``token_f1`` (default otherwise), a registered or
                                    installed judge name, or ``package.module:function``
``MEDICONFUSION_JUDGE_URL``         OpenAI-compatible API root of the ``llm`` judge
``MEDICONFUSION_JUDGE_MODEL``       its model (default ``gpt-4o``)
``MEDICONFUSION_JUDGE_API_KEY``     its key (else ``OPENAI_API_KEY``; none: no header)
``MEDICONFUSION_JUDGE_TEMPERATURE`` its temperature (default 0.7)
``MEDICONFUSION_JUDGE_PROMPT``      ``paper`` (default) or ``code`` (the authors' code layout)
``MEDICONFUSION_MARGIN``            vote margin of the answer rule (default 3)
=================================  ============================================================

Every sample yields one record of ``schemas/probe_record.schema.json`` (suite
``mediconfusion``, ``case_id`` = pair id, ``probe_id`` = ``"<pair>:im1"``, ``condition`` = the
authors' mode name ``mc``/``greedy``/``prefix``/``gpt4``, suffixed ``_medvigil`` for the
variants, ``predicted_letter`` None when invalid); the aggregations score the records with
the scoring core.
"""

import logging
import math
import os
from functools import lru_cache

from medvigil.mcq.retry import ATTEMPTS, doc_key
from medvigil.records.probe_record import (
    RUN_MODEL_NAME,
    metric_values,
    probe_record,
    records_of,
)
from medvigil.records.sent_inputs import with_sent_inputs
from medvigil.scoring import loglikelihood
from medvigil.suites.mediconfusion import judges, llm_judge, modes, prompts
from medvigil.suites.mediconfusion.answers import DEFAULT_MARGIN, OPTION_LETTERS
from medvigil.suites.mediconfusion.data import load_config
from medvigil.suites.mediconfusion.mode_summary import MODE_LABELS
from medvigil.suites.mediconfusion.record_scoring import score_records

# as in medvigil.suites.mediconfusion.authors_results (the authors' result files)
PROBE_KIND = "confusing_pair"
#: task suffix -> record condition (the authors' mode names, their result-file suffixes)
CONDITIONS = {"mc": "mc", "gd": "greedy", "ps": "prefix", "ff": "gpt4"}
CONDITIONS |= {f"{mode}_medvigil": f"{cond}_medvigil" for mode, cond in CONDITIONS.items()}
#: protocol -> MC parser (modes.mc_votes)
MC_PARSER = {"authors": "authors", "medvigil": "first_letter"}
#: metric -> higher is better? (the YAML generator reads this)
METRIC_DIRECTIONS = {"set_acc": True, "indiv_acc": True, "confusion": False, "invalid": False}

ENV_PS_NORMALISATION = "MEDICONFUSION_PS_NORMALISATION"
ENV_LL_KIND = "MEDICONFUSION_LL_KIND"
ENV_FF_JUDGE = "MEDICONFUSION_FF_JUDGE"
ENV_MARGIN = "MEDICONFUSION_MARGIN"
ENV_JUDGE_URL = "MEDICONFUSION_JUDGE_URL"
ENV_JUDGE_MODEL = "MEDICONFUSION_JUDGE_MODEL"
ENV_JUDGE_API_KEY = "MEDICONFUSION_JUDGE_API_KEY"
ENV_JUDGE_TEMPERATURE = "MEDICONFUSION_JUDGE_TEMPERATURE"
ENV_JUDGE_PROMPT = "MEDICONFUSION_JUDGE_PROMPT"
LLM_JUDGE = "llm"  # the judge name of the configured endpoint


# ---------------------------------------------------------------- settings


def settings(env: dict | None = None) -> dict:
    """The run settings from the environment, checked (ValueError names the variable)."""
    env = os.environ if env is None else env
    out = {
        "ps_normalisation": env.get(ENV_PS_NORMALISATION) or "per_token",
        "ll_kind": env.get(ENV_LL_KIND) or "auto",
    }
    endpoint = _endpoint_settings(env)
    out["judge"] = env.get(ENV_FF_JUDGE) or (LLM_JUDGE if endpoint else "token_f1")
    if out["ps_normalisation"] not in modes.NORMALISATIONS:
        raise ValueError(
            f"{ENV_PS_NORMALISATION} must be one of {', '.join(modes.NORMALISATIONS)}, "
            f"got {out['ps_normalisation']!r}"
        )
    if out["ll_kind"] not in modes.VALUE_KINDS:
        raise ValueError(
            f"{ENV_LL_KIND} must be one of {', '.join(modes.VALUE_KINDS)}, got {out['ll_kind']!r}"
        )
    raw_margin = env.get(ENV_MARGIN) or str(DEFAULT_MARGIN)
    try:
        margin = float(raw_margin)
    except ValueError:
        raise ValueError(f"{ENV_MARGIN} must be a number, got {raw_margin!r}") from None
    if not math.isfinite(margin) or margin < 0:
        raise ValueError(f"{ENV_MARGIN} must be a finite number >= 0, got {raw_margin!r}")
    out["margin"] = int(margin) if margin.is_integer() else margin
    if out["judge"] == LLM_JUDGE:
        if not endpoint:
            raise ValueError(
                f"{ENV_FF_JUDGE}={LLM_JUDGE} needs {ENV_JUDGE_URL} (an OpenAI-compatible API root)"
            )
        _register_endpoint_judge(*endpoint.values())
        out["judge_settings"] = {k: v for k, v in endpoint.items() if k != "api_key"}
    judges.get_judge(out["judge"])  # unknown judge: fail now, not after inference
    return out


def _endpoint_settings(env) -> dict:
    """The ``llm`` judge's endpoint settings, checked; {} when no endpoint is set."""
    url = env.get(ENV_JUDGE_URL)
    if not url:
        return {}
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"{ENV_JUDGE_URL} must be an http(s) URL, got {url!r}")
    raw = env.get(ENV_JUDGE_TEMPERATURE) or str(llm_judge.JUDGE_TEMPERATURE)
    try:
        temperature = float(raw)
    except ValueError:
        raise ValueError(f"{ENV_JUDGE_TEMPERATURE} must be a number, got {raw!r}") from None
    if not math.isfinite(temperature) or not 0 <= temperature <= 2:
        raise ValueError(f"{ENV_JUDGE_TEMPERATURE} must be in [0, 2], got {raw!r}")
    layout = env.get(ENV_JUDGE_PROMPT) or "paper"
    if layout not in llm_judge.JUDGE_PROMPT_LAYOUTS:
        raise ValueError(
            f"{ENV_JUDGE_PROMPT} must be one of {', '.join(llm_judge.JUDGE_PROMPT_LAYOUTS)}, "
            f"got {layout!r}"
        )
    return {
        "url": url,
        "model": env.get(ENV_JUDGE_MODEL) or llm_judge.JUDGE_MODEL,
        "temperature": temperature,
        "prompt": layout,
        "api_key": env.get(ENV_JUDGE_API_KEY) or env.get("OPENAI_API_KEY"),
    }


@lru_cache(maxsize=4)
def _register_endpoint_judge(
    url: str, model: str, temperature: float, layout: str, api_key: str | None
) -> None:
    judge = llm_judge.endpoint_judge(
        url, model=model, temperature=temperature, api_key=api_key, layout=layout
    )
    judges.register_judge(LLM_JUDGE, judge, overwrite=True)


# ---------------------------------------------------------------- data (process_docs)


def _load(task: str):
    run = settings()  # misconfiguration fails before any inference
    mode, _, variant = task.partition("_")
    if mode == "ff" and run["judge"] == "token_f1":
        logging.getLogger(__name__).warning(
            "mediconfusion_%s: no %s set, so free-form answers are judged offline "
            "by token_f1, a lexical stand-in, not the authors' GPT-4o judge "
            "(tasks/mediconfusion/README.md, 'The free-form judge')",
            task,
            ENV_JUDGE_URL,
        )
    data = load_config("questions")
    n = len(data)
    data = data.add_column("condition", [CONDITIONS[task]] * n)
    data = data.add_column("protocol", [variant or "authors"] * n)
    data = data.add_column("answer_format", ["letter" if mode in ("mc", "gd") else "text"] * n)
    return data.add_column("choices", [[a, b] for a, b in zip(data["option_A"], data["option_B"])])


def load_mc(_pointer):
    return _load("mc")


def load_gd(_pointer):
    return _load("gd")


def load_ps(_pointer):
    return _load("ps")


def load_ff(_pointer):
    return _load("ff")


def load_mc_medvigil(_pointer):
    return _load("mc_medvigil")


def load_gd_medvigil(_pointer):
    return _load("gd_medvigil")


def load_ps_medvigil(_pointer):
    return _load("ps_medvigil")


def load_ff_medvigil(_pointer):
    return _load("ff_medvigil")


# ---------------------------------------------------------------- prompt and image


def mediconfusion_doc_to_visual(doc: dict) -> list:
    """The image the question is about (RGB)."""
    image = doc.get("image")
    return [] if image is None else [image.convert("RGB")]


_MODE_OF = {
    cond: task.removesuffix("_medvigil") for task, cond in CONDITIONS.items()
}  # condition -> mode


def _prompt(doc: dict, kwargs: dict) -> str:
    """The prompt of the doc's mode in ``prompt_style`` (default: the doc's protocol), wrapped in
    ``pre_prompt`` / ``post_prompt`` (empty by default)."""
    mode = _MODE_OF[doc["condition"]]
    style = kwargs.get("prompt_style") or doc.get("protocol") or prompts.DEFAULT_STYLE
    text = prompts.render(mode, style, doc["question"], doc["option_A"], doc["option_B"])
    return f"{kwargs.get('pre_prompt', '')}{text}{kwargs.get('post_prompt', '')}"


def mediconfusion_doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    """What a simple (text-only-context) lmms-eval model is sent: the model's ``system_prompt``, if
    its kwargs carry one (the authors' API models), on the first line, then :func:`_prompt`.
    lmms-eval's simple API adapters (``gpt4v``, ``batch_gpt4``, ``claude``) send no system message
    of a task's, so this is how they receive it (a deviation:
    :func:`medvigil.suites.mediconfusion.prompts.adapter_deviations`)."""
    kwargs = lmms_eval_specific_kwargs or {}
    system = kwargs.get("system_prompt")
    return f"{system}\n{_prompt(doc, kwargs)}" if system else _prompt(doc, kwargs)


def mediconfusion_doc_to_messages(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list:
    """Chat form of the generating modes (chat adapters: ``openai``, ``gemini``): the
    ``system_prompt`` the model's kwargs carry (the authors' system prompt for the API models,
    :data:`medvigil.suites.mediconfusion.prompts.API_MODELS`) as a system turn, then the prompt and
    the image, the order of their ``Models/gpt.py``; without one, the image and then the prompt, as
    lmms-eval builds a chat turn from the text and visuals."""
    kwargs = lmms_eval_specific_kwargs or {}
    text = [{"type": "text", "text": _prompt(doc, kwargs)}]
    images = [{"type": "image", "url": image} for image in mediconfusion_doc_to_visual(doc)]
    system = kwargs.get("system_prompt")
    if not system:
        return [{"role": "user", "content": images + text}]
    return [
        {"role": "system", "content": [{"type": "text", "text": system}]},
        {"role": "user", "content": text + images},
    ]


def mediconfusion_ps_doc_to_choice(doc: dict) -> list:
    """PS continuations: the two option texts."""
    return [doc["option_A"], doc["option_B"]]


def mediconfusion_ps_doc_to_target(doc: dict) -> int:
    return OPTION_LETTERS.index(doc["correct_letter"])


# ---------------------------------------------------------------- results


def _record(doc: dict, votes, raw_response, extra: dict, run: dict) -> dict:
    letter = modes.letter_from_votes(votes, run["margin"])
    cats = list(doc.get("categories") or [])
    return probe_record(
        "mediconfusion",
        doc,
        condition=doc["condition"],
        probe_id=f"{doc['pair_id']}:{doc['image_key']}",
        case_id=str(doc["pair_id"]),
        probe_kind=PROBE_KIND,
        risk_tier=None,
        source_dataset="synthetic" if doc.get("synthetic") else "ROCO",
        modality=None,
        text_only_answerable=False,
        category="; ".join(cats) if cats else None,
        predicted_letter=letter,
        raw_response=raw_response,
        extra={
            "image": doc["image_key"],
            "categories": cats,
            "votes": dict(zip(OPTION_LETTERS, votes)),
            "margin": run["margin"],
            "mode_label": MODE_LABELS[doc["condition"]],
            "condition_source": "lmms-eval",
            "protocol": doc.get("protocol", "authors"),
            **extra,
        },
    )


def _emit(record: dict, doc: dict) -> dict:
    with_sent_inputs(record, mediconfusion_doc_to_visual(doc), doc["condition"])
    return metric_values(record, METRIC_DIRECTIONS)


def mediconfusion_mc_process_results(doc: dict, results: list) -> dict:
    response = results[0] if results else ""
    attempts = ATTEMPTS.take(doc_key(doc))  # present under `--model retry`
    extra = {"attempts": attempts} if attempts and len(attempts) > 1 else {}
    parser = MC_PARSER[doc.get("protocol", "authors")]
    record = _record(
        doc, modes.mc_votes(response, parser), response, {"parser": parser, **extra}, settings()
    )
    record["retries"] = len(attempts) - 1 if attempts else 0
    return _emit(record, doc)


def _likelihood_extra(choice: modes.LikelihoodChoice, run: dict) -> dict:
    return {
        "option_scores": list(choice.scores),
        "value_kinds": list(choice.value_kinds),
        "normalisation_applied": choice.normalisation_applied,
        "ll_kind": run["ll_kind"],
        "note": choice.note,
    }


#: one log-likelihood result (``(value, is_greedy)`` or, after lmms-eval 0.7.3's
#: ``unwrap_generation_output``, its ``str``) -> its number; shared with CbD
loglikelihood_value = loglikelihood.result_value


def mediconfusion_gd_process_results(doc: dict, results: list) -> dict:
    run = settings()
    values = [loglikelihood_value(r) for r in results]
    choice = modes.gd_scores(values, value_kind=run["ll_kind"])
    return _emit(
        _record(
            doc,
            choice.votes,
            None,
            {"loglikelihood": values, **_likelihood_extra(choice, run)},
            run,
        ),
        doc,
    )


def mediconfusion_ps_process_results(doc: dict, results: list) -> dict:
    run = settings()
    values = [loglikelihood_value(r) for r in results]
    choice = modes.prefix_scores(
        values,
        mediconfusion_ps_doc_to_choice(doc),
        normalisation=run["ps_normalisation"],
        value_kind=run["ll_kind"],
    )
    extra = {
        "loglikelihood": values,
        "ps_normalisation": run["ps_normalisation"],
        **_likelihood_extra(choice, run),
    }
    return _emit(_record(doc, choice.votes, None, extra, run), doc)


def mediconfusion_ff_process_results(doc: dict, results: list) -> dict:
    run = settings()
    response = results[0] if results else ""
    judged = judges.judge_response(
        doc["question"],
        doc["option_A"],
        doc["option_B"],
        response,
        judge=run["judge"],
        margin=run["margin"],
    )
    extra = {"judge": judged.judge, "judge_scores": list(judged.scores)}
    if judged.judge == LLM_JUDGE:
        extra["judge_settings"] = run["judge_settings"]
    if judged.reply is not None:
        extra["judge_reply"] = judged.reply
    return _emit(_record(doc, judged.scores, response, extra, run), doc)


# ---------------------------------------------------------------- aggregation


@lru_cache(maxsize=16)
def _score(key: tuple):
    records = [
        {
            "suite": "mediconfusion",
            "model": RUN_MODEL_NAME,
            "condition": condition,
            "case_id": case_id,
            "probe_id": probe_id,
            "correct_letter": correct,
            "predicted_letter": predicted,
            "extra": {"categories": list(cats)},
        }
        for condition, case_id, probe_id, correct, predicted, cats in key
    ]
    return score_records(
        records, incomplete="drop"
    )  # --limit keeps the first N docs: a pair it cuts is left out


def _metric(records: list, name: str) -> float:
    key = tuple(
        (
            r["condition"],
            r["case_id"],
            r["probe_id"],
            r["correct_letter"],
            r["predicted_letter"],
            tuple(r["extra"]["categories"]),
        )
        for r in records_of(records)
    )
    score = _score(key)
    if name == "invalid":
        return float(score.totals["invalid"])
    value = {
        "set_acc": score.set_accuracy,
        "indiv_acc": score.individual_accuracy,
        "confusion": score.confusion,
    }[name]
    return 100.0 * value  # percent, as in the paper's tables (NaN when undefined)


def mediconfusion_aggregate_set_acc(records: list) -> float:
    """Set accuracy (%): pairs with both images answered correctly."""
    return _metric(records, "set_acc")


def mediconfusion_aggregate_indiv_acc(records: list) -> float:
    """Individual accuracy (%): images answered correctly."""
    return _metric(records, "indiv_acc")


def mediconfusion_aggregate_confusion(records: list) -> float:
    """Confusion score (%): pairs given the same valid answer, over pairs with two valid answers."""
    return _metric(records, "confusion")


def mediconfusion_aggregate_invalid(records: list) -> float:
    """Invalid answers (count of images)."""
    return _metric(records, "invalid")
