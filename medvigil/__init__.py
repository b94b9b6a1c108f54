"""medvigil: trust audits for medical vision-language models under broken evidence.

The core package holds record types and schema validation, release readers, image
operations, letter parsing, scoring kernels, statistics, reports and the CLI. It never
imports lmms-eval, so `import medvigil` stays fast.
"""

__version__ = "0.1.0"
