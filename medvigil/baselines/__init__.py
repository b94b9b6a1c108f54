"""Deterministic sanity-baseline policies (never to be reported as model results): a "model" that
guesses, always says one letter, reads only the text, or reads pixels naively. Each sees what a real
model sees (prompt text and images), served to lmms-eval (:mod:`medvigil.tasks.baseline_models`) and
over a loopback OpenAI-compatible server (``medvigil serve-baseline``); :func:`make_policy` builds
one by name from its command-line parameters.
"""

from collections.abc import Callable

from medvigil.baselines.grounded import GroundedPolicy
from medvigil.baselines.policies import BlindPolicy, ConstantPolicy, Policy, RandomPolicy

__all__ = ["POLICIES", "Policy", "make_policy"]

POLICIES: dict[str, Callable[..., Policy]] = {
    "random": RandomPolicy,
    "constant": ConstantPolicy,
    "blind": BlindPolicy,
    "grounded": GroundedPolicy,
}
PARAMETERS: dict[str, tuple[str, ...]] = {
    "random": ("seed",),
    "constant": ("letter",),
    "blind": (),
    "grounded": ("temperature", "seed"),
}


def make_policy(name: str, **params) -> Policy:
    """Build policy ``name`` with its parameters (as given on the command line)."""
    if name not in POLICIES:
        raise ValueError(
            f"unknown baseline policy {name!r}; available: {', '.join(sorted(POLICIES))}"
        )
    unknown = sorted(set(params) - set(PARAMETERS[name]))
    if unknown:
        takes = ", ".join(PARAMETERS[name]) or "no parameters"
        raise ValueError(
            f"baseline {name!r} does not take model_args {', '.join(unknown)}; it takes {takes}"
        )
    return POLICIES[name](**params)
