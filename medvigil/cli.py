"""The ``medvigil`` command line: one entry point, one module per subcommand.

Each ``medvigil.commands.<name>`` (dashes as underscores) provides ``add_parser(subparsers)`` and
``run(args) -> int``; ``medvigil COMMAND ...`` imports that command's module alone.
"""

import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading

from medvigil import __version__
from medvigil.errors import DataError
from medvigil.files import held_signals
from medvigil.files.input_files import recording_reads
from medvigil.files.output_guard import refuse_declared
from medvigil.terminal import escaped_output

MAX_PRINTED_PROBLEMS = 25
BOUNDED_READS = ("score", "compare", "judge", "report")
COMMANDS = (
    "sample",
    "validate",
    "build",
    "publish",
    "reconstruct",
    "score",
    "compare",
    "report",
    "judge",
    "serve-baseline",
    "tasks-path",
    "demo",
    "mediconfusion-sample",
    "mediconfusion-build",
    "medqdeg-build",
)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with ``argv`` naming a command first, only that command is registered."""
    parser = argparse.ArgumentParser(
        prog="medvigil", description="Audit medical vision-language models under broken evidence."
    )
    parser.add_argument("--version", action="version", version=f"medvigil {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    only = argv[0] if argv and argv[0] in COMMANDS else None
    for name in COMMANDS if only is None else (only,):
        module = importlib.import_module(f"medvigil.commands.{name.replace('-', '_')}")
        module.add_parser(sub)
        sub.choices[name].set_defaults(func=module.run)
    return parser


class Terminated(BaseException):
    """SIGTERM, raised in the main thread like KeyboardInterrupt so staging folders are removed."""


_RETRY_S = 0.01  # how soon a signal that arrived during an import is raised again
_pending: type[BaseException] | None = None  # the exception a retry raises


def _raise_terminated(signum, frame):
    _raise_now_or_soon(Terminated, frame)


def _raise_interrupted(signum, frame):
    _raise_now_or_soon(KeyboardInterrupt, frame)


def _raise_pending(signum, frame):
    if _pending is not None:
        _raise_now_or_soon(_pending, frame)


def _raise_now_or_soon(kind: type[BaseException], frame) -> None:
    """Raise ``kind``, unless the signal arrived during an import or a ``__del__``: an exception
    raised there can be lost (a C extension's module initialisation calling Python code, an import
    lock's weakref callback), and the command would run on. Then it is raised from a timer, a moment
    later, once the import is over. During steps a writer holds (making a staging folder, moving
    outputs into place) it is raised when they are done (:func:`held_signals.held`)."""
    global _pending
    if _inside_import(frame) and hasattr(signal, "setitimer"):
        _pending = kind
        signal.signal(signal.SIGALRM, _raise_pending)
        signal.setitimer(signal.ITIMER_REAL, _RETRY_S)
        return
    _pending = None
    if not held_signals.deferred(kind):
        raise kind()


def _inside_import(frame) -> bool:
    """Whether ``frame`` or a caller of it is importing a module or finalising an object."""
    while frame is not None:
        code = frame.f_code
        if code.co_filename.startswith("<frozen importlib") or code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def _sigterm_as_exception():
    """While a command runs, SIGTERM unwinds the stack (``finally`` blocks clean up) like SIGINT;
    both are raised where they cannot be lost (:func:`_raise_now_or_soon`)."""
    global _pending
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    interrupt = signal.getsignal(signal.SIGINT)
    if interrupt is signal.default_int_handler:  # (an ignored SIGINT stays ignored)
        signal.signal(signal.SIGINT, _raise_interrupted)
    alarm = signal.getsignal(signal.SIGALRM) if hasattr(signal, "setitimer") else None
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        if interrupt is signal.default_int_handler:
            signal.signal(signal.SIGINT, interrupt)
        if alarm is not None:  # a retry not yet due is dropped with the command
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, alarm)
        _pending = None


def main(argv: list[str] | None = None) -> int:
    # every matrix product runs on one BLAS thread (medvigil.scoring.bootstrap.one_blas_thread), but
    # OpenBLAS starts a spinning thread per core when numpy loads: one from the start, unless the
    # user set it
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    argv = sys.argv[1:] if argv is None else list(argv)
    # characters the terminal's encoding lacks (PYTHONIOENCODING=ascii: the tables' ↓, −, names in
    # any script) print as \u2193 escapes
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    with escaped_output():  # a hostile model name or file name cannot drive the terminal
        return _run(argv)


def _run(argv: list[str]) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        refuse_declared(args)  # no output may be, hold or lie inside an input the command declared
        # every file it reads guards the outputs; the commands that hold what they read in memory
        # read a bounded total
        bounded = args.command in BOUNDED_READS
        with _sigterm_as_exception(), recording_reads(bounded):
            return int(args.func(args) or 0)
    except DataError as exc:
        for problem in exc.problems[:MAX_PRINTED_PROBLEMS]:
            print(f"error: {problem}", file=sys.stderr)
        hidden = len(exc.problems) - MAX_PRINTED_PROBLEMS
        if hidden > 0:
            print(
                f"error: ... and {hidden} more problem(s) ({len(exc.problems)} in all)",
                file=sys.stderr,
            )
        return 2
    except (
        ValueError
    ) as exc:  # a bad input a command found (its subclasses, bugs, keep their traceback)
        if type(exc) is not ValueError:
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # missing or existing files, permissions, a folder where a file was expected, a full disk
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:  # past the stated bounds (README, "Bounded work"): said, not a traceback
        print(
            f"error: out of memory in `medvigil {args.command}`; give it fewer or smaller inputs",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("terminated", file=sys.stderr)
        return 128 + signal.SIGTERM


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
