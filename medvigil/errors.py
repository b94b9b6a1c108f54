"""Error types shared by every reader, validator and command: every problem with user data is a
:class:`DataError` naming the file, the row (1-based data row, header excluded; ``None`` for
whole-file problems) and the field, so a user can go straight to the offending cell."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One finding about a data file: where it is and what is wrong."""

    file: str
    message: str
    row: int | None = None
    field: str | None = None
    severity: str = "error"  # "error" fails validation, "warning" does not

    def location(self) -> str:
        row = f", row {self.row}" if self.row is not None else ""
        field = f", field {self.field!r}" if self.field is not None else ""
        return f"{self.file}{row}{field}"

    def __str__(self) -> str:
        return f"{self.location()}: {self.message}"

    def to_dict(self) -> dict:
        return {
            "file": self.file,
            "row": self.row,
            "field": self.field,
            "severity": self.severity,
            "message": self.message,
        }


class DataError(ValueError):
    """Bad input data. Carries one or more :class:`Problem` records."""

    def __init__(self, problems: Problem | list[Problem]):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        if not self.problems:
            raise ValueError("DataError needs at least one problem")
        more = len(self.problems) - 1
        super().__init__(f"{self.problems[0]}" + (f" (and {more} more problem(s))" if more else ""))
