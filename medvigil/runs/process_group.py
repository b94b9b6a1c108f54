"""lmms-eval 0.7.3 starts a gloo process group for a data-parallel run (``torchrun``, ``accelerate
launch``) and never destroys it. At interpreter exit its threads are still alive, and a rank may
abort then ("terminate called without an active exception", SIGABRT) after the results were
written: torchrun reports the run as failed. Our model classes destroy the group at exit."""

import atexit

_REGISTERED = False


def destroy_at_exit() -> None:
    """Destroy torch's default process group, if one was started, when the interpreter exits
    (idempotent; registered once per process)."""
    global _REGISTERED
    if not _REGISTERED:
        atexit.register(_destroy)
        _REGISTERED = True


def _destroy() -> None:
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()
