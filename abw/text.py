"""Untrusted text made safe to show: in a terminal, a CI log or a report.

Every string that comes from a trace (tool names, ids, messages built from them) is untrusted.
"""

from __future__ import annotations

import re
from typing import Any

# C0/C1 controls (ANSI escapes start with \x1b), bidirectional controls ("Trojan source"),
# invisible characters (a zero-width space, joiner or non-joiner, word joiner, invisible
# operators, the soft hyphen, the byte order mark: ``refund\u200bcommit`` reads as
# ``refundcommit`` and is another name), lone surrogates and XML non-characters.
#: The invisible characters, one of each (abw.spelling reads names without them too).
INVISIBLE = "\xad\u180e\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff"
_UNSAFE = (
    "\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff"
    + INVISIBLE
)
_UNSAFE_RE = re.compile(f"[\\x00-\\x0a{_UNSAFE}]")
# The same, less the line feed: for fields that are text blocks (a JUnit failure's body, SARIF
# help Markdown), where lines are meant.
_UNSAFE_IN_BLOCK_RE = re.compile(f"[\\x00-\\x09{_UNSAFE}]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean(value: Any) -> str:
    """Text safe to show anywhere: unsafe characters become visible escapes; None -> ''."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    return _UNSAFE_RE.sub(_visible, text)


def clean_block(value: Any) -> str:
    """:func:`clean` for a multi-line text block: line feeds stay, all else is the same."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    return _UNSAFE_IN_BLOCK_RE.sub(_visible, text)


# Workflow commands a CI runner would obey in a log line: ``::name::`` (GitHub's runner trims
# leading whitespace first) and the older ``##[name]``, which the runner finds anywhere in a
# line (``##[stop-commands]`` would silence every later annotation).
_COMMAND_RE = re.compile(r":(?=:)|#(?=#\[)")
_BREAK = "\u200b"  # zero-width space: the text reads the same, no runner parses a command


def log_line(value: Any) -> str:
    """One line safe for a terminal or a CI log: :func:`clean` (so no newline, control
    character or terminal escape is left raw) with every ``::`` and ``##[`` broken, so that no
    text from a trace or a report can become a workflow command. Every line abw prints that
    carries such text goes through here."""
    return _COMMAND_RE.sub(lambda m: m.group(0) + _BREAK, clean(value))


def log_lines(text: str) -> str:
    """:func:`log_line` for each line of ``text`` (line breaks kept)."""
    return "\n".join(log_line(line) for line in text.split("\n"))


def log_json(text: str) -> str:
    """JSON text for a terminal or CI log, with the same data: ``::`` and ``##[`` (in JSON they
    can only occur inside strings) are written with ``\\u`` escapes. Controls are already
    escaped by ``json.dumps`` (``ensure_ascii``)."""
    return text.replace("##[", "#\\u0023[").replace("::", ":\\u003a")


# YAML (1.1, as PyYAML reads it) also breaks lines at NEL, LS and PS; NEL is a C1 control.
_YAML_BREAK_RE = re.compile("[\u2028\u2029]")


def comment_line(value: Any) -> str:
    """Text for one YAML comment line (and a CI log): :func:`log_line`, with the line and
    paragraph separators that YAML reads as line breaks escaped too, so that nothing after
    the ``#`` can end the comment and become part of the document."""
    return _YAML_BREAK_RE.sub(_visible, log_line(value))


#: What a workflow command needs, and its YAML double-quoted escape (the same characters).
_YAML_COMMAND_ESCAPES = (("##[", "#\\x23["), ("::", ":\\x3a"))


def log_yaml_quotes(value: str) -> bool:
    """Whether a string must be written double-quoted for :func:`log_yaml` to escape it: it
    holds ``::``, ``##[``, or a character :func:`clean` escapes (a bidirectional control,
    which YAML writes raw) or one YAML reads as a line break."""
    return (
        "::" in value
        or "##[" in value
        or _UNSAFE_RE.search(value) is not None
        or _YAML_BREAK_RE.search(value) is not None
    )


def log_yaml(text: str) -> str | None:
    """YAML text for a terminal or CI log, with the same data: every ``::`` and ``##[``, and
    every character :func:`clean` escapes but the line feed, is written with a ``\\x`` or
    ``\\u`` escape. That is only valid inside double-quoted scalars and comments
    (``abw.contract.spec_yaml`` double-quotes every string :func:`log_yaml_quotes` names), so
    the result is parsed back and compared: None when it would not mean the same document."""
    safe = _UNSAFE_IN_BLOCK_RE.sub(_visible, _YAML_BREAK_RE.sub(_visible, text))
    for command, escaped in _YAML_COMMAND_ESCAPES:
        safe = safe.replace(command, escaped)
    if safe == text:
        return text
    import yaml

    try:
        return safe if yaml.safe_load(safe) == yaml.safe_load(text) else None
    except yaml.YAMLError:
        return None


def exception_words(exc: BaseException) -> str:
    """An exception as words on one line: its message, whitespace folded, else its class's
    name (a library's exception may say nothing)."""
    return " ".join(str(exc).split()) or type(exc).__name__


def noun(count: int, singular: str) -> str:
    """The English form of ``singular`` for ``count`` things: 1 retry, 2 retries, 0 checks.

    Only the last word changes ("error span" -> "error spans"); a consonant + y becomes ies.
    """
    if count == 1:
        return singular
    if len(singular) > 1 and singular.endswith("y") and singular[-2] not in "aeiou":
        return singular[:-1] + "ies"
    return singular + "s"


def plural(count: int, singular: str) -> str:
    """``count`` and the form of ``singular`` that goes with it: "1 check", "3 checks"."""
    return f"{count} {noun(count, singular)}"
