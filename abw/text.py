"""Untrusted text made safe to show: in a terminal, a CI log or a report.

Every string that comes from a trace (tool names, ids, messages built from them) is untrusted.
"""

from __future__ import annotations

import re
from typing import Any

# C0/C1 controls (ANSI escapes start with \x1b), bidirectional controls ("Trojan source"), lone
# surrogates and XML non-characters.
_UNSAFE_RE = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean(value: Any) -> str:
    """Text safe to show anywhere: unsafe characters become visible escapes; None -> ''."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    return _UNSAFE_RE.sub(_visible, text)
