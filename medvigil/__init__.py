"""medvigil: trust audits for medical vision-language models under broken evidence.

One room per suite (:mod:`medvigil.suites.registry`) and per shared mechanism; the CLI sits on top.
The core never imports lmms-eval, so `import medvigil` stays fast.
"""

__version__ = "0.1.0"
