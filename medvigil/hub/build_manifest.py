"""The allowlist of a Hub-ready build: ``build_manifest.json``, every file the build wrote with its
size and SHA-256, written last by the export engine (:func:`write_manifest`) and checked by
``medvigil publish`` (:func:`manifest_problems`), which uploads only the files it lists, byte for
byte.

What it guarantees: each uploaded file is byte-identical to the one listed; a file changed, added,
removed or renamed since the listing is refused, named. What it does not: the manifest is a file in
the folder, so someone who rewrites it to match their edits passes this check (it is a record, not a
signature). ``publish`` therefore also takes the credentialed checksums from the release the build
was made from (``--release``), outside the folder, and scans the content as a second layer.
"""

import json
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.files.atomic_output import MARKER_PREFIX
from medvigil.files.digest import file_sha256
from medvigil.files.input_files import read_json

MANIFEST = "build_manifest.json"
FORMAT = "medvigil-build-manifest/1"


# The output writer's ownership marker (``.medvigil-<command>`` at the top, which lets ``--force``
# replace only a folder the command wrote) is put in after the build's files: it says who wrote the
# folder, is neither listed nor uploaded, and so is not "added after the build".


def _is_owner_marker(rel: str) -> bool:
    return rel.startswith(MARKER_PREFIX) and "/" not in rel


def _listing(folder: Path) -> dict[str, Path]:
    """``relative posix path -> path`` of every entry below ``folder`` that is not a folder (the
    ownership marker left out)."""
    entries = {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*"))}
    return {
        rel: p
        for rel, p in entries.items()
        if (p.is_symlink() or not p.is_dir()) and not _is_owner_marker(rel)
    }


def write_manifest(folder: Path) -> str:
    """List every file under ``folder`` (the manifest excluded) in :data:`MANIFEST`; return its
    SHA-256. Sorted by path, no clock: the same build writes the same manifest."""
    files = [
        {"path": rel, "size": path.stat().st_size, "sha256": file_sha256(path)}
        for rel, path in _listing(folder).items()
        if rel != MANIFEST
    ]
    text = json.dumps({"format": FORMAT, "files": files}, indent=1) + "\n"
    (folder / MANIFEST).write_text(text, encoding="utf-8")
    return file_sha256(folder / MANIFEST)


def read_manifest(folder: Path) -> tuple[dict[str, tuple[int, str]], list[Problem]]:
    """``(path -> (size, sha256), problems)`` of ``folder``'s manifest; ``{}`` when unusable."""
    if not (folder / MANIFEST).is_file() or (folder / MANIFEST).is_symlink():
        return {}, [
            Problem(MANIFEST, "missing: not a folder written by `medvigil build` (rebuild it)")
        ]
    try:
        data = read_json(folder / MANIFEST, MANIFEST)
    except DataError as exc:
        return {}, list(exc.problems)
    entries = data.get("files") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(entries, list):
        return {}, [Problem(MANIFEST, f"not a {FORMAT} manifest (rebuild the folder)")]
    listed: dict[str, tuple[int, str]] = {}
    for number, entry in enumerate(entries, 1):
        ok = isinstance(entry, dict) and isinstance(entry.get("path"), str)
        ok = ok and isinstance(entry.get("size"), int) and isinstance(entry.get("sha256"), str)
        if not ok or entry["path"] in listed:
            return {}, [Problem(MANIFEST, "bad or repeated file entry", row=number, field="files")]
        listed[entry["path"]] = (entry["size"], entry["sha256"])
    return listed, []


def manifest_problems(folder: Path) -> tuple[list[Path], list[Problem]]:
    """``(files, problems)``: the files the manifest lists that are byte-identical to it, itself
    included (what may be uploaded), and every difference between the folder and the manifest,
    each file named."""
    listed, problems = read_manifest(folder)
    if problems:
        return [], problems
    present = _listing(folder)
    present.pop(MANIFEST)
    added = sorted(present.keys() - listed.keys())
    missing = sorted(listed.keys() - present.keys())
    regular = [rel for rel in added if present[rel].is_file() and not present[rel].is_symlink()]
    sums = {rel: file_sha256(present[rel]) for rel in regular}
    was = {sha: rel for rel, (_, sha) in listed.items() if rel in missing}
    for rel in added:
        source = was.get(sums.get(rel, ""))
        why = f"renamed from {source}" if source else "added"
        problems.append(Problem(rel, f"not in {MANIFEST}: {why} after the build; not uploaded"))
    renamed = {was[sums[rel]] for rel in added if sums.get(rel) in was}
    problems += [
        Problem(rel, f"listed in {MANIFEST} but missing (removed after the build?)")
        for rel in missing
        if rel not in renamed
    ]
    same = [MANIFEST]
    for rel in sorted(listed.keys() & present.keys()):
        path, (size, sha) = present[rel], listed[rel]
        if path.is_symlink():
            problems.append(Problem(rel, "symbolic link; a build writes plain files only"))
            continue
        try:
            found = file_sha256(path)  # refuses a FIFO, a device, ... naming it
        except DataError as exc:
            problems += [Problem(rel, p.message) for p in exc.problems]
            continue
        if path.stat().st_size != size or found != sha:
            problems.append(
                Problem(rel, f"changed after the build: not byte-identical to {MANIFEST}")
            )
        else:
            same.append(rel)
    return [folder / rel for rel in sorted(same)], problems
