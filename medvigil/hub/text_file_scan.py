"""The content check of one text file of a build about to be published: UTF-8, no NUL byte, no
embedded image (at any offset, in a ``data:`` URI, or in a JSON string once its escapes are undone),
no credentialed bytes; with the payload scanner of :mod:`medvigil.hub.publish_scan`."""

import json
import re

from medvigil.errors import Problem
from medvigil.hub.publish_scan import CredentialedImages, Finding, scan_payload

_DATA_URI = re.compile(rb"data:image/[\w.+-]+[^,\s]*,", re.IGNORECASE)


def _location(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def text_file_problems(rel: str, data: bytes, known: CredentialedImages) -> list[Problem]:
    """Problems of one uploaded text file (UTF-8, no NUL, no embedded image, no credentialed
    bytes)."""
    problems = [
        _image_problem(rel, data, found) for found in scan_payload(data, known, verify_images=False)
    ]
    for match in _DATA_URI.finditer(data):
        problems.append(
            Problem(
                rel,
                "embedded image data: URI; a text file of the build must not carry images",
                row=_location(data, match.start()),
            )
        )
    # escapes ("\/", "\u0041") undone: what a JSON reader gets
    for text in _json_strings(rel, data) if not problems else ():
        for found in scan_payload(text.encode("utf-8"), known):
            problems.append(
                Problem(
                    rel,
                    f"a JSON string holds {found.what}"
                    + (f": {found.why} (credentialed)" if found.why else "")
                    + "; a text file of the build must not carry images",
                )
            )
    return problems or _not_text_problems(rel, data)


def _image_problem(rel: str, data: bytes, found: Finding) -> Problem:
    """The problem of an image found in a text file (credentialed, unverifiable, or any image)."""
    if found.refuse:
        what = "cannot prove it holds no credentialed image"
        return Problem(
            rel,
            f"{found.what} at byte offset {found.offset}; {what}",
            row=_location(data, found.offset),
        )
    if found.why is not None:
        message = (
            f"{found.what} at byte offset {found.offset}: {found.why} (credentialed); "
            "credentialed images must never be published"
        )
    else:
        message = (
            f"{found.what} embedded at byte offset {found.offset}; a text file of the "
            "build must not carry images"
        )
    return Problem(rel, message, row=_location(data, found.offset))


def _not_text_problems(rel: str, data: bytes) -> list[Problem]:
    """A NUL byte or bytes that are not UTF-8: binary content in a text file."""
    nul = data.find(b"\x00")
    if nul != -1:
        return [
            Problem(rel, f"NUL byte at offset {nul}: not a text file", row=_location(data, nul))
        ]
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [
            Problem(
                rel,
                f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                "binary content in a text file of the build",
                row=_location(data, exc.start),
            )
        ]
    return []


def _json_strings(rel: str, data: bytes) -> list[str]:
    """Every string (keys too) of a JSON file holding an escape; none when it is not JSON."""
    if not rel.endswith(".json") or b"\\" not in data:
        return []
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return []
    out, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            stack += item
        elif isinstance(item, str) and len(item) >= 8:
            out.append(item)
    return out
