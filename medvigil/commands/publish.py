"""``medvigil publish OUT --release REL --repo ORG/NAME [--private] [--dry-run]``: upload a build to
the Hub.

Only what ``medvigil build`` wrote is uploaded: the files its ``build_manifest.json`` lists, each
byte-identical (:mod:`medvigil.hub.build_manifest`); the credentialed checksums come from the
release it was built from (``--release``, checked by its digest) and the content is scanned as a
second layer (:func:`medvigil.suites.medvigil.export.publish_check.check_publishable`,
:mod:`medvigil.hub.content_scan`).
``--dry-run`` prints what would be uploaded (every file and the upload size per config) and stops.
The upload uses ``huggingface_hub`` and your saved Hub token, checked before the scan; a re-publish
sends only changed files and makes no commit when nothing changed (:mod:`medvigil.hub.hub_upload`).

Exit status: 0 uploaded (or dry run, or nothing to upload), 2 refused (every reason printed).
"""

import argparse
import re
import sys
from pathlib import Path

from medvigil.errors import DataError, Problem
from medvigil.files.output_guard import declare

_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$")


def _repo_id(text: str) -> str:
    if not _REPO_ID.match(text) or ".." in text:
        raise argparse.ArgumentTypeError(f"expected a Hub repository id ORG/NAME, got {text!r}")
    return text


def upload_size_per_config(files: list[Path], rels: list[str]) -> dict[str, int]:
    """Bytes of the ``data/<config>/`` shards to upload, per config in path order."""
    from medvigil.hub.parquet_shards import DATA_DIR

    sizes: dict[str, int] = {}
    for path, rel in sorted(zip(files, rels), key=lambda pair: pair[1]):
        parts = rel.split("/")
        if len(parts) == 3 and parts[0] == DATA_DIR:
            sizes[parts[1]] = sizes.get(parts[1], 0) + path.stat().st_size
    return sizes


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "publish",
        description=__doc__.split("\n\n", 1)[0].replace("``", ""),
        help="upload a build folder to a Hugging Face dataset "
        "repository (refuses credentialed content)",
    )
    parser.add_argument("out", metavar="OUT", type=Path, help="folder written by `medvigil build`")
    parser.add_argument(
        "--release",
        required=True,
        type=Path,
        metavar="REL",
        help="the release folder the build was made from (its digest is checked; its pointer "
        "files give the credentialed checksums)",
    )
    parser.add_argument(
        "--repo", required=True, type=_repo_id, metavar="ORG/NAME", help="dataset repository id"
    )
    parser.add_argument("--private", action="store_true", help="create the repository as private")
    parser.add_argument(
        "--dry-run", action="store_true", help="check and list what would be uploaded; no network"
    )
    parser.add_argument(
        "--message", default=None, help="commit message (default: names the build digest)"
    )
    parser.add_argument(
        "--credentialed",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="folder of credentialed images (your licensed copy, `medvigil reconstruct` "
        "output); nothing uploaded may contain one of their files (repeatable; "
        "the release's pointer checksums are always checked)",
    )
    declare(
        parser, inputs=("out", "release", "credentialed"), outputs=()
    )  # the output guard checks these (medvigil.cli)


def _progress(total: int):
    """The scans' progress bar on a terminal (the project's tqdm, as `build` shows it)."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="scan content", unit=" row group", disable=None, leave=False)


def _repo_problem(info: dict, repo: str) -> list[Problem]:
    """The card and Croissant name the repository the build was made for: it must be ``repo``."""
    from medvigil.hub.export_engine import BUILD_INFO

    built_for = (info.get("settings") or {}).get("repo_id")
    if built_for == repo:
        return []
    named = f"names {built_for!r}" if built_for else "names no repository (a local build)"
    return [
        Problem(
            BUILD_INFO,
            f"the build's card and croissant.json {named}, not {repo!r}: rebuild with "
            f"`medvigil build REL --out OUT --repo {repo}` so they point at the dataset's Hub id",
            field="settings.repo_id",
        )
    ]


def _upload_route() -> str:
    """How huggingface_hub would upload the large files: Xet when hf-xet is installed (README,
    "Publishing": HF_HUB_DISABLE_XET=1 where the Xet route is blocked)."""
    import importlib.util

    from huggingface_hub import constants

    xet = importlib.util.find_spec("hf_xet") is not None and not constants.HF_HUB_DISABLE_XET
    return "Xet (hf-xet; HF_HUB_DISABLE_XET=1 for plain LFS)" if xet else "LFS"


def run(args: argparse.Namespace) -> int:
    from medvigil.reconstruct.mimic_cxr import dicom_image_or_none
    from medvigil.suites.medvigil.export.publish_check import check_publishable, read_build_info

    api = None
    if not args.dry_run:
        from huggingface_hub import HfApi

        from medvigil.hub.hub_upload import check_hub_access

        api = HfApi()
        print(f"Hub token: {check_hub_access(api)}", file=sys.stderr)
    print(
        f"checking {args.out} against its build manifest and scanning its content", file=sys.stderr
    )
    files, problems = check_publishable(
        args.out, args.release, args.credentialed, dicom_image_or_none, progress=_progress
    )
    info = read_build_info(args.out)[0]  # its problems are among check_publishable's
    problems += _repo_problem(info, args.repo)
    if problems:
        raise DataError(problems)
    if info.get("credentialed_case_ids") and not args.credentialed:
        print(
            "note: without --credentialed DIR only the checksums of the credentialed source "
            "files are known; an X-ray re-derived from them (new bytes) is recognised "
            "by its pixels only when its folder or your licensed copy is given",
            file=sys.stderr,
        )
    rels = [p.relative_to(args.out).as_posix() for p in files]
    total = sum(p.stat().st_size for p in files)
    print(
        f"{'would upload' if args.dry_run else 'uploading'} {len(files)} file(s), {total:,} "
        f"bytes, to dataset {args.repo} ({'private' if args.private else 'public'})"
    )
    print(f"build digest: {info.get('build_digest')}")
    print(f"upload route: {_upload_route()}")
    for path, rel in zip(files, rels):
        print(f"  {path.stat().st_size:>14,}  {rel}")
    print("per config (Parquet shards):")
    for config, size in upload_size_per_config(files, rels).items():
        print(f"  {size:>14,}  {config}")
    if args.dry_run:
        return 0
    from medvigil.hub.hub_upload import commit_build

    message = (
        args.message
        or f"MedVIGIL build {info.get('version')} (build "
        f"digest {str(info.get('build_digest'))[:12]})"
    )
    print(commit_build(api, args.repo, args.out, rels, message, private=args.private))
    return 0
