"""Verdict -> exit code, as documented in docs/semantics.md."""

from __future__ import annotations

EXIT_CODES = {"PASS": 0, "WARN": 0, "FAIL": 1, "INCONCLUSIVE": 3}
EXIT_INVALID = 2


def exit_code(verdict: str, *, fail_on_warn: bool = False, allow_inconclusive: bool = False) -> int:
    """0 PASS, 0 WARN (1 with fail_on_warn), 1 FAIL, 3 INCONCLUSIVE (0 when allowed)."""
    if verdict == "WARN" and fail_on_warn:
        return 1
    if verdict == "INCONCLUSIVE" and allow_inconclusive:
        return 0
    return EXIT_CODES[verdict]
