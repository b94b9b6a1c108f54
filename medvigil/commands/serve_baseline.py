"""``medvigil serve-baseline``: the baseline policies behind an OpenAI-compatible API on
loopback."""

import argparse
import math
import sys
import time


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"expected a port 0..65535, got {text!r}")
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds > 0, got {text!r}")
    return value


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "serve-baseline",
        help="serve the baseline policies as an OpenAI-compatible chat API on 127.0.0.1",
        description="Serve random/constant/blind/grounded policies at http://127.0.0.1:PORT/v1 "
        "(select one with the request's model field, e.g. 'constant:letter=E').",
    )
    p.add_argument(
        "--port", type=_port, default=0, help="port to bind on 127.0.0.1 (0 = any free port)"
    )
    p.add_argument(
        "--seconds",
        type=_seconds,
        default=None,
        help="stop after this many seconds (default: run until interrupted)",
    )


def run(args) -> int:
    from medvigil.baselines.server import BaselineServer

    with BaselineServer(args.port) as server:
        print(server.base_url, flush=True)
        deadline = None if args.seconds is None else time.monotonic() + args.seconds
        try:
            while deadline is None or time.monotonic() < deadline:
                time.sleep(0.2)
        except KeyboardInterrupt:
            print("stopped", file=sys.stderr)
    return 0
