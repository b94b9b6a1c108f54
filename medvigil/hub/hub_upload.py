"""The Hub side of ``medvigil publish``: the token check made before any scan, and the commit, which
sends only the files that differ from the repository's and makes no commit when none does.

huggingface_hub's own ``create_commit`` also drops unchanged files, but only those its pre-upload
call reports by object id; deciding here, from the repository's file listing, makes the plan visible
(:func:`plan_commit`, tested offline with listings as the API returns them) and removes shards a
previous build had that this one does not (a stale shard would join the config's rows)."""

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from medvigil.files.digest import file_sha256
from medvigil.hub.parquet_shards import DATA_DIR


def hub_access_problem() -> str | None:
    """Why an upload cannot start, known without the network (None: try it)."""
    from huggingface_hub import constants, get_token

    if constants.HF_HUB_OFFLINE:
        return "HF_HUB_OFFLINE is set: publishing needs the network (unset it, or use --dry-run)"
    if not get_token():
        return (
            "no Hugging Face token: run `hf auth login` (a token with write access) or set "
            "HF_TOKEN, or use --dry-run"
        )
    return None


def check_hub_access(api: Any) -> str:
    """The user name of the saved token; ValueError with a clear message when there is none or the
    Hub refuses it. Called before the content scan, so a bad token costs no wait."""
    import httpx  # huggingface_hub's HTTP client
    from huggingface_hub.errors import HfHubHTTPError

    problem = hub_access_problem()
    if problem:
        raise ValueError(problem)
    try:
        who = api.whoami()
    except HfHubHTTPError as exc:
        status = getattr(exc.response, "status_code", None)
        raise ValueError(
            f"the Hub refused your token ({status or exc}): run `hf auth login` with a token "
            "that has write access, or set HF_TOKEN"
        ) from None
    except (httpx.HTTPError, OSError) as exc:
        raise ValueError(f"cannot reach the Hub to check your token: {exc}") from None
    return str(who.get("name", "?"))


def _same(path: Path, remote: Any) -> bool:
    """Whether the local file equals the repository's ``RepoFile`` (LFS / Xet files by SHA-256,
    others by git's blob id)."""
    from huggingface_hub.utils.sha import git_hash

    if remote.size != path.stat().st_size:
        return False
    if remote.lfs is not None:
        return remote.lfs.sha256 == file_sha256(path)
    return remote.blob_id == git_hash(path.read_bytes())


def plan_commit(
    out: Path, rels: list[str], remote: Iterable[Any]
) -> tuple[list[str], list[str], list[str]]:
    """``(to send, to delete, kept)``: the files of ``rels`` (below ``out``) that are new or differ
    from the repository's listing ``remote`` (``RepoFile`` / ``RepoFolder`` items); the repository's
    files under ``data/`` this build does not have (stale shards); its other files, left alone."""
    files = {r.path: r for r in remote if hasattr(r, "blob_id")}  # RepoFolder has none
    send = [rel for rel in rels if rel not in files or not _same(out / rel, files[rel])]
    ours = set(rels)
    stale = sorted(p for p in files if p not in ours and p.startswith(f"{DATA_DIR}/"))
    kept = sorted(
        p
        for p in files
        if p not in ours and not p.startswith(f"{DATA_DIR}/") and p != ".gitattributes"
    )
    return send, stale, kept


def commit_build(
    api: Any, repo: str, out: Path, rels: list[str], message: str, *, private: bool
) -> str:
    """Create the dataset repository if needed and commit what :func:`plan_commit` finds; return
    what was done (a commit URL, or that nothing changed)."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    api.create_repo(repo, repo_type="dataset", private=private, exist_ok=True)
    remote = api.list_repo_tree(repo, repo_type="dataset", recursive=True)
    send, stale, kept = plan_commit(out, rels, remote)
    if not send and not stale:
        return (
            f"nothing changed: the repository already holds these {len(rels)} files; no commit made"
        )
    operations = [CommitOperationAdd(rel, str(out / rel)) for rel in send]
    operations += [CommitOperationDelete(rel) for rel in stale]
    commit = api.create_commit(repo, operations, commit_message=message, repo_type="dataset")
    lines = [f"committed {len(send)} changed file(s), removed {len(stale)} stale shard(s)"]
    lines += [f"  kept (not written by the build): {rel}" for rel in kept]
    return "\n".join(lines + [f"uploaded: {getattr(commit, 'commit_url', commit)}"])
