"""Deterministic sanity-baseline policies (not models): what a score looks like when a
"model" guesses, always says one letter, reads only the text, or reads pixels naively.

Every policy sees exactly what a real model sees: the rendered prompt text and the
attached images (none for knowledge-only or no-image probes). They are served to
lmms-eval through :mod:`medvigil.tasks.baseline_models` and over an OpenAI-compatible
loopback server (``medvigil serve-baseline``). They are documented sanity baselines,
never to be reported as model results.
"""

from medvigil.baselines.policies import Policy
from medvigil.baselines.registry import POLICIES, make_policy

__all__ = ["POLICIES", "Policy", "make_policy"]
