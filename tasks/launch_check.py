"""A clear word when ``accelerate launch --cpu --num_processes N`` starts one process.

accelerate's ``--cpu`` takes its simple launcher: it starts ONE process, whatever
``--num_processes`` says, and sets ``MASTER_ADDR`` (only done when more than one process was
asked) but no ``WORLD_SIZE``. lmms-eval then evaluates every doc in that one process without a
word. ``torchrun --nproc_per_node N -m lmms_eval ...`` starts N (gloo on a CPU), as does
``accelerate launch --multi_gpu --num_processes N`` on a machine without GPUs.
"""

import os
import sys

WORLD_SIZE_NAMES = ("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE")
MESSAGE = (
    "medvigil: `accelerate launch --cpu` started ONE process although more were asked "
    "(--num_processes): accelerate's --cpu launcher never starts more. For data parallel on "
    "CPUs run `torchrun --nproc_per_node N -m lmms_eval ...` (or `accelerate launch --multi_gpu "
    "--num_processes N ...`, which falls back to gloo); this run continues in one process.\n"
)


def single_process_launch(env=os.environ) -> bool:
    """True in a process that ``accelerate launch --cpu`` started for more than one process."""
    cpu = env.get("ACCELERATE_USE_CPU", "").strip().lower() in ("1", "true", "yes")
    launched = any(name in env for name in WORLD_SIZE_NAMES)  # torchrun or mpirun
    return cpu and "MASTER_ADDR" in env and not launched


def warn_single_process_launch(env=os.environ, stream=None) -> bool:
    """Write :data:`MESSAGE` once per process when :func:`single_process_launch`; returns
    whether it did."""
    global _warned
    if _warned or not single_process_launch(env):
        return False
    _warned = True
    (stream or sys.stderr).write(MESSAGE)
    return True


_warned = False
