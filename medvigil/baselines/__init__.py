"""Deterministic sanity-baseline policies (never to be reported as model results): a "model" that guesses,
always says one letter, reads only the text, or reads pixels naively. Each sees what a real model sees
(prompt text and images), served to lmms-eval (:mod:`medvigil.tasks.baseline_models`) and over a loopback
OpenAI-compatible server (``medvigil serve-baseline``).
"""

from medvigil.baselines.policies import Policy
from medvigil.baselines.registry import POLICIES, make_policy

__all__ = ["POLICIES", "Policy", "make_policy"]
