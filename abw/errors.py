"""The one error type for bad input: a file, a line, a field and what is wrong."""

from __future__ import annotations

from pathlib import Path


class AbwInputError(Exception):
    """Invalid input or usage; the CLI prints it on one line and exits with code 2."""

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.field = field

    def one_line(self) -> str:
        """``file:line: field: message`` with absent parts left out, on a single line."""
        where = ""
        if self.file is not None:
            where = self.file if self.line is None else f"{self.file}:{self.line}"
        parts = [p for p in (where, self.field) if p]
        text = " ".join(self.message.split())
        return ": ".join([*parts, text])

    def __str__(self) -> str:
        return self.one_line()
