"""What `score` and `compare` share: the options the suites declare (each suite's
``options.py``, through the registry) and the output rules."""

import argparse
import sys
from pathlib import Path

from medvigil.suites import registry


def add_suite_options(parser: argparse.ArgumentParser, command: str) -> None:
    """The options each suite declares for ``command`` (score | compare), in a group per suite,
    in the registry's order (:meth:`medvigil.suites.registry.Suite.declared`): one definition for
    `score` and `compare` where a suite shares them."""
    for suite in registry.SUITES.values():
        declared = [o for o in suite.declared(command.upper(), ()) if o.kwargs is not None]
        if declared:
            title = suite.declared("TITLES", {}).get(command, f"{suite.name} options")
            group = parser.add_argument_group(title)
            for option in declared:
                group.add_argument(*option.flags, **option.kwargs)


def suite_options(args: argparse.Namespace, command: str) -> dict:
    """The parsed options that belong to ``args.suite``'s ``command``, as its entry takes them;
    an option another suite declares with ``elsewhere`` is an error when given."""
    chosen = {}
    for suite in registry.SUITES.values():
        for option in suite.declared(command.upper(), ()):
            value = getattr(args, option.dest)
            if suite.name == args.suite and (value or not option.when_set):
                chosen[option.key] = value
            elif suite.name != args.suite and option.elsewhere and value:
                raise ValueError(f"{option.elsewhere}: use it with --suite {suite.name}")
    return chosen


def release_help(command: str) -> str:
    """``--release``: what it is to each suite that declares it (the others take none)."""
    told = [(n, s.declared("RELEASE")) for n, s in registry.SUITES.items() if s.declared("RELEASE")]
    if command == "compare":
        told = [(n, text) for n, text in told if registry.SUITES[n].compare]
        return (
            "as for `medvigil score` ("
            + "; ".join(f"{n}: {registry.SUITES[n].release}" for n, _ in told)
            + ")"
        )
    return "; ".join(f"{n}: {text}" for n, text in told) + " (other suites: not used)"


def result_inputs(args: argparse.Namespace) -> dict[str, str]:
    """The inputs of ``score`` / ``compare`` by option (``--json OUT`` was checked against them
    before the command ran, :func:`medvigil.files.output_guard.refuse_declared`; it is again before
    it is written)."""
    return {
        **({"--release": args.release} if args.release else {}),
        **{f"FILE {f}": f for f in args.files},
    }


def emit(text: str, table: str, json_out: str | None, inputs) -> int:
    """``--json -``: ``text`` alone on stdout. Else ``table`` on stdout, after ``text`` was written
    to ``--json OUT`` atomically (only once every input was read: bad input leaves no partial
    output)."""
    from medvigil.files.atomic_output import write_text_atomic

    if json_out == "-":
        sys.stdout.write(text)
        return 0
    if json_out:
        write_text_atomic(Path(json_out), text, inputs=inputs, option="--json")
    print(table)
    if json_out:
        print(f"\nJSON written to {json_out}")
    return 0
