"""Readiness's part of ``medvigil demo``: its arms in every baseline's run (the CoT audit apart)."""

from medvigil.constants import SAFE_LETTER
from medvigil.suites.demo_parts import DemoPart, DemoRun
from medvigil.suites.readiness.docs import ARMS, arm_docs

COT_ARM = "readiness_cot"  # its own task, not in the readiness group


def arms(run: DemoRun) -> tuple[str, ...]:
    """The readiness group, spelled out as the arms this build can ask: a small release may have
    no T5 donor image or too few distractors for 4R, and lmms-eval cannot run an empty arm. Each
    arm left out is said, with the reason."""
    import datasets

    rows = [
        {"safe_letter": SAFE_LETTER, **row}
        for row in datasets.load_dataset(str(run.built), "mcq", split="test")
        .remove_columns("image")
        .to_list()
    ]
    asked = []
    for arm in (a for a in ARMS if a != COT_ARM):
        try:
            docs = bool(arm_docs(arm, rows))
        except ValueError as exc:  # the arm's own message: which row and field, what is missing
            run.progress(f"readiness arm {arm} left out: {exc}")
            continue
        if docs:
            asked.append(arm)
        else:
            run.progress(f"readiness arm {arm} left out: no item of this build qualifies")
    return ("readiness",) if len(asked) == len(ARMS) - 1 else tuple(asked)


DEMO = DemoPart(arms)
