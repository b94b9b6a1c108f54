"""medvigil: trust audits for medical vision-language models under broken evidence.

One room per suite (:mod:`medvigil.suites`, reached through :mod:`medvigil.suites.registry`)
and one room per shared mechanism (files, records, images, mcq, hub, scoring); the CLI sits on
top. The core never imports lmms-eval, so `import medvigil` stays fast.
"""

__version__ = "0.1.0"
