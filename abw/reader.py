"""The one reader of the JSON and YAML documents abw loads: traces, specs, reports, contracts,
event files and everything ``abw validate`` checks.

One set of rules for all of them (docs/reliability.md):

- a key that appears twice in one object or mapping is an error naming both lines (a second
  ``invariants:`` block must not silently replace the first);
- integers are exact Python integers however long (up to Python's 4,300-digit limit), never
  floats; NaN, Infinity and numbers beyond a double's range are refused;
- YAML (:mod:`abw.yamlreader`, imported only for a YAML document): no anchors or aliases, no
  custom tags, at most :data:`MAX_DEPTH` levels of nesting;
- a caller may cap the number of JSON objects (traces: abw.limits.MAX_TRACE_OBJECTS), so an
  oversized document is refused while it is parsed, not after it has filled memory.

Every problem is an :class:`~abw.errors.AbwInputError` with the file and, where known, the line.
"""

from __future__ import annotations

import json
import math
import re
from json.scanner import NUMBER_RE
from pathlib import Path
from typing import Any

import orjson

from abw.errors import AbwInputError, describe_os_error, not_utf8
from abw.limits import read_limited

MAX_DEPTH = 64
INT_DIGITS = 4300  # Python's default int <-> str conversion limit


class _Refused(ValueError):
    """A value the rules above refuse, raised from inside the JSON decoder."""


class MalformedJson(AbwInputError):
    """Bytes that are no JSON text at all (a syntax error, invalid UTF-8, a byte-order mark),
    as opposed to JSON the rules refuse (a duplicate key, NaN, an over-long number). A JSON
    Lines reader may skip a cut-off last line of this kind; it never skips a refused one."""


class DuplicateKey(AbwInputError):
    """A key written twice in one object: the error names both lines."""


# ---------------------------------------------------------------- JSON

_KEY_END = re.compile(rb'"\s*:')


def key_token_bound(data: bytes) -> int:
    """An upper bound on the keys written in the JSON text ``data``, exact when no string holds
    ``"`` + whitespace + ``:``.

    Every key's closing quote starts its own match of ``"\\s*:`` (a match holds one quote), so
    a decoder that keeps the last of repeated keys (orjson, msgspec) has read a document
    without duplicate keys when the keys it holds number exactly this bound; when they number
    fewer, only the exact reader (:func:`parse_json`) can tell."""
    return len(_KEY_END.findall(data))


_KEY_END_TEXT = re.compile(r'"\s*:')
_ESCAPED_QUOTE_COLON = re.compile(rb'(\\+)"\s*:')
_ESCAPED_QUOTE_COLON_TEXT = re.compile(r'(\\+)"\s*:')
_QUOTE_THEN = (b'":', b'" ', b'"\t', b'"\n', b'"\r')
_QUOTE_THEN_TEXT = tuple(t.decode() for t in _QUOTE_THEN)
#: orjson reads an integer outside [-2**63, 2**64) as a float, which lands outside these bounds
_FLOAT_LOW, _FLOAT_HIGH = -(2.0**63), 2.0**64
#: deeper than this the stdlib decoder may hit Python's recursion limit: the exact path decides
_FAST_DEPTH = 200


def _no_duplicate_keys(data: bytes | str, held: int) -> bool:
    """Whether a last-wins decoder that holds ``held`` keys of ``data`` saw every key once.

    Three sound upper bounds on the keys written, cheapest first: the quotes followed by a
    colon or by whitespace (byte counts); :func:`key_token_bound`; that bound less the matches
    whose quote is escaped (an odd run of backslashes before it: inside a string, e.g. JSON
    embedded in a string). ``held`` equal to any of them proves it; below all, it is unproven."""
    text = isinstance(data, str)
    if held == sum(map(data.count, _QUOTE_THEN_TEXT if text else _QUOTE_THEN)):
        return True
    tokens = len((_KEY_END_TEXT if text else _KEY_END).findall(data))
    if held == tokens:
        return True
    runs = (_ESCAPED_QUOTE_COLON_TEXT if text else _ESCAPED_QUOTE_COLON).findall(data)
    return held == tokens - sum(len(run) & 1 for run in runs)


def _walk(value: Any) -> tuple[int, int] | None:
    """(keys, objects) held by a decoded value, level by level without recursion; None when it
    holds a float outside [-2**63, 2**64) (maybe an integer orjson rounded) or nests deeper
    than the exact decoder can be trusted to follow."""
    keys = objects = depth = 0
    level = [value]
    while level:
        depth += 1
        if depth > _FAST_DEPTH:
            return None
        below: list[Any] = []
        for item in level:
            kind = type(item)
            if kind is dict:
                objects += 1
                keys += len(item)
                below += item.values()
            elif kind is list:
                below += item
            elif kind is float and not _FLOAT_LOW < item < _FLOAT_HIGH:
                return None
        level = below
    return keys, objects


def _same_text(value: Any, data: bytes | str) -> bool:
    """Whether ``data`` is, but for surrounding whitespace, orjson's own rendering of ``value``
    (compact, or indented by two spaces): then it holds no repeated key and no number orjson
    changed, and the exact reader reads the same value from it. Claude Code and Codex lines
    are written this way, and many indented exports."""
    try:
        compact = orjson.dumps(value)
    except orjson.JSONEncodeError:  # nested deeper than orjson writes
        return False
    text = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if text.startswith(compact):  # a JSON Lines record: no copy of the line on the way
        end = len(compact)
        return end == len(text) or text[end:].isspace() or _same_indented(value, text, 0)
    start = len(text) - len(text.lstrip())
    if text.startswith(compact, start) and not text[start + len(compact) :].strip():
        return True
    return _same_indented(value, text, start)


def _same_indented(value: Any, text: bytes, start: int) -> bool:
    """Whether ``text`` from ``start`` is orjson's two-space indented rendering of ``value``."""
    if text[start + 1 : start + 2] != b"\n":
        return False
    indented = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    return text.startswith(indented, start) and not text[start + len(indented) :].strip()


def compact_objects(lines: list[bytes]) -> list[dict[str, Any]] | None:
    """The JSON objects of ``lines`` (JSON Lines lines without their line breaks) when each
    line is exactly orjson's compact rendering of the object orjson reads from it, else None:
    :func:`_same_text`'s proof, for many lines in a few C calls (a block of a Claude Code
    transcript), so :func:`parse_json` reads these values from these lines."""
    try:
        values = list(map(orjson.loads, lines))
        if list(map(orjson.dumps, values)) != lines:
            return None
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        return None
    if set(map(type, values)) - {dict}:
        return None
    return values


def _fast(data: bytes | str, max_objects: int | None) -> tuple[bool, Any]:
    """(True, value) when orjson's reading of ``data`` is provably the exact reader's value,
    else (False, None): on any orjson error, a key count below the bounds, a suspect float,
    deep nesting, or more objects than ``max_objects``."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return False, None
    kind = type(value)
    if kind is not dict and kind is not list:
        return kind is not float or _FLOAT_LOW < value < _FLOAT_HIGH, value
    brace = "{" if isinstance(data, str) else b"{"
    few = max_objects is None or data.count(brace) <= max_objects  # type: ignore[arg-type]
    if few and _same_text(value, data):
        return True, value
    counts = _walk(value)
    if counts is None or (max_objects is not None and counts[1] > max_objects):
        return False, None
    return _no_duplicate_keys(data, counts[0]), value


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document = dict(pairs)
    if len(document) != len(pairs):
        raise _Refused("duplicate key")
    return document


def _counting_pairs(limit: int, what: str) -> Any:
    count = 0

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal count
        count += 1
        if count > limit:
            raise _Refused(f"{what} holds more than {limit:,} JSON objects; refusing it")
        return _pairs(pairs)

    return hook


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused("number out of range")
    return value


def _constant(text: str) -> Any:
    raise _Refused("non-finite number")


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

#: Strings are Unicode text: a surrogate code point left unpaired (``"\ud800"``, which JSON's
#: escapes and YAML's allow) is no character and cannot be written as UTF-8 (a report holding
#: it could not be written), so it is refused where it is read.
LONE_SURROGATE = "a string holds a lone surrogate (\\ud800-\\udfff), which is not Unicode text"
_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(value: Any) -> str | None:
    """The first string (key or value) of a parsed document that holds a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return item
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|([{}\[\],:])|([^\s{}\[\],:"]+))', re.DOTALL)


def _first_problem(
    text: str, shift: int = 0, surrogates: bool = True
) -> tuple[str, int | None, str | None] | None:
    """(message, line, field) of the first duplicate key or refused number (or, with
    ``surrogates``, lone surrogate: abw's own documents) in document order.

    A linear pass over the tokens, run only after the fast decoder refused something, to name
    the lines (``shift``: the lines before ``text`` in its file); ``text`` is JSON the decoder
    accepted up to that point."""
    # one frame per open container: (keys -> line, or None in an array; [expecting a key and
    # the current key, or the current index]; path to the container)
    stack: list[tuple[dict[str, int] | None, list[Any], str]] = []
    line, offset = 1 + shift, 0
    for match in _TOKEN.finditer(text):
        line += text.count("\n", offset, match.start(match.lastindex or 0))
        offset = match.start(match.lastindex or 0)
        string, punct, word = match.groups()
        top = stack[-1] if stack else None
        if punct in ("{", "["):
            stack.append(({}, [True, ""], _slot(top)) if punct == "{" else (None, [0], _slot(top)))
        elif punct in ("}", "]"):
            if stack:
                stack.pop()
        elif punct == ",":
            if top is not None:
                top[1][0] = True if top[0] is not None else top[1][0] + 1
        elif punct == ":":
            if top is not None and top[0] is not None:
                top[1][0] = False
        elif string is not None and _CONTROL.search(string):
            raise ValueError("a raw control character: the tokens lost step with the decoder")
        elif surrogates and string is not None and _SURROGATE.search(json.loads(string)):
            key = top is not None and top[0] is not None and top[1][0]
            where = top[2] if key and top is not None else _slot(top)
            return LONE_SURROGATE, line, where or None
        elif string is not None and top is not None and top[0] is not None and top[1][0]:
            key = json.loads(string)
            if key in top[0]:
                field = ".".join(p for p in (top[2], _shown(key)) if p)
                name = f"{string} " if _PLAIN_KEY.fullmatch(key) else ""
                message = f"duplicate key {name}(lines {top[0][key]} and {line})"
                return message, line, field
            top[0][key] = line
            top[1][1] = _shown(key)
        elif word is not None:
            field = _slot(top) or None
            for constant in ("NaN", "Infinity", "-Infinity"):
                if word.startswith(constant):
                    return f"{constant} is not a JSON number", line, field
            number = NUMBER_RE.match(word)  # the number the decoder read: a prefix of the word
            if number is None:
                continue
            integer, fraction, exponent = number.groups()
            if fraction or exponent:
                if not math.isfinite(float(number.group())):
                    return f"number {number.group()[:40]} is beyond a double's range", line, field
            elif len(integer.lstrip("-")) > INT_DIGITS:
                digits = len(integer.lstrip("-"))
                return f"an integer of {digits} digits is too long", line, field
    return None


def _locate(
    text: str, shift: int = 0, surrogates: bool = True
) -> tuple[str, int | None, str | None] | None:
    """:func:`_first_problem`, or None when the text defeats it (the message stays generic)."""
    try:
        return _first_problem(text, shift, surrogates)
    except (ValueError, RecursionError, IndexError):
        return None


def _slot(frame: tuple[dict[str, int] | None, list[Any], str] | None) -> str:
    """The field of the value read next in ``frame``'s container: its path, then the current
    key of an object or the current index of an array (``spans.1.name``)."""
    if frame is None:
        return ""
    keys, state, path = frame
    name = state[1] if keys is not None else str(state[0])
    return ".".join(p for p in (path, name) if p)


#: A key shown in a field path as it is: a name, not text (the keys of a tool's input or output
#: are its content: a path, an e-mail address, a sentence)
_PLAIN_KEY = re.compile(r"[A-Za-z_@$][A-Za-z0-9_.:$-]{0,63}|[0-9]{1,9}")
#: What a field path shows for any other key
HIDDEN_KEY = "…"


def _shown(key: str) -> str:
    """A key as a field name: itself when it is a plain name, else :data:`HIDDEN_KEY` (an
    error line goes to CI logs, and ``abw sample`` keeps it in the run's trace)."""
    return key if _PLAIN_KEY.fullmatch(key) else HIDDEN_KEY


def parse_json(
    data: bytes | str,
    file: str | Path,
    *,
    max_objects: int | None = None,
    what: str = "it",
    first_line: int | None = None,
    unicode_text: bool = False,
) -> Any:
    """Parse one JSON document under the rules of this module.

    orjson reads it first; its value is returned only when it is proven to be the exact
    reader's (:func:`_fast`), else the standard library's decoder with the hooks above reads it
    again and gives the exact value or the exact error. ``first_line``: the line ``data``
    starts on in ``file`` (a line of a JSON Lines file), for the line numbers of errors.
    ``unicode_text``: refuse a string holding a lone surrogate (:data:`LONE_SURROGATE`), for
    abw's own documents; a raw export may hold one (a tool output cut inside a surrogate
    pair), which is hashed as it is (docs/hashing.md). orjson refuses every lone surrogate, so
    only the exact path checks."""
    proven, value = _fast(data, max_objects)
    if proven:
        return value
    value = _parse_exact(
        data, file, max_objects=max_objects, what=what, first_line=first_line,
        unicode_text=unicode_text,
    )  # fmt: skip
    if unicode_text and lone_surrogate(value) is not None:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        raise _refusal(_Refused(LONE_SURROGATE), text, file, (first_line or 1) - 1)
    return value


def _parse_exact(
    data: bytes | str,
    file: str | Path,
    *,
    max_objects: int | None,
    what: str,
    first_line: int | None,
    unicode_text: bool = False,
) -> Any:
    """The standard library's decoder under the rules of this module (duplicate keys named
    with both lines, exact integers, non-finite numbers refused, the object limit); a lone
    surrogate is named as the problem only in ``unicode_text`` (abw's own documents)."""
    shift = (first_line or 1) - 1
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as exc:
        assert isinstance(data, bytes)
        raise not_utf8(exc, data, file, first_line=first_line, kind=MalformedJson) from None
    if text.startswith("\ufeff"):
        message = "invalid JSON: starts with a byte-order mark"
        raise MalformedJson(message, file=file, line=first_line or 1)
    hook = _pairs if max_objects is None else _counting_pairs(max_objects, what)
    try:
        return json.loads(
            text, object_pairs_hook=hook, parse_float=_float, parse_constant=_constant
        )
    except json.JSONDecodeError as exc:
        message = _json_problem(exc)
        raise MalformedJson(message, file=file, line=exc.lineno + shift) from None
    except RecursionError:
        line = deep_line(text) + shift
        raise AbwInputError("invalid JSON: nested too deeply", file=file, line=line) from None
    except ValueError as exc:  # refused by a hook, or an integer over Python's digit limit
        raise _refusal(exc, text, file, shift, surrogates=unicode_text) from None


#: Nesting deeper than this is named "too deep" at the line it reaches it (the decoder gives
#: up near Python's recursion limit, a thousand levels less what the stack already holds).
_DEEP = 500
#: What matters to nesting in JSON text: a whole string (brackets in it are text), a bracket.
_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def deep_line(text: str) -> int:
    """The line (1-based) where ``text``'s nesting first passes :data:`_DEEP` levels, else its
    last line: where a document the decoder found nested too deeply is so."""
    depth = 0
    for match in _NESTING.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > _DEEP:
                return text.count("\n", 0, match.start()) + 1
        elif token in "]}":
            depth -= 1
    return text.count("\n") + 1


def _json_problem(exc: json.JSONDecodeError) -> str:
    """The decoder's complaint as one sentence: the ones that end in "at" ("Invalid control
    character at", "Unterminated string starting at") say at which column of the line."""
    if exc.msg.endswith(" at"):
        return f"invalid JSON: {exc.msg} column {exc.colno}"
    return f"invalid JSON: {exc.msg}"


def _refusal(
    exc: ValueError, text: str, file: str | Path, shift: int, *, surrogates: bool = True
) -> AbwInputError:
    """The error for a value the decoder refused, with the line and field that hold it (a lone
    surrogate before it counts only with ``surrogates``: a raw export may hold one)."""
    if isinstance(exc, _Refused) and str(exc).endswith("refusing it"):
        return AbwInputError(str(exc), file=file)
    found = _locate(text, shift, surrogates)
    generic = str(exc) if isinstance(exc, _Refused) else f"invalid JSON: {exc}"
    message, line, field = found if found else (generic, None, None)
    kind = DuplicateKey if message.startswith("duplicate key") else AbwInputError
    return kind(message, file=file, line=line, field=field)


def parse_json_sequence(text: str, file: str | Path) -> list[Any]:
    """The JSON values written one after another in ``text`` (a console exporter's output),
    under the same rules; :class:`MalformedJson` at the line where a value breaks when
    ``text`` is no such sequence."""
    decoder = json.JSONDecoder(
        object_pairs_hook=_pairs, parse_float=_float, parse_constant=_constant
    )
    values, index = [], 0
    while True:
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            return values
        try:
            value, index = decoder.raw_decode(text, index)
        except json.JSONDecodeError as exc:
            raise MalformedJson(_json_problem(exc), file=file, line=exc.lineno) from None
        except RecursionError:
            line = deep_line(text[index:]) + text.count("\n", 0, index)
            raise AbwInputError("invalid JSON: nested too deeply", file=file, line=line) from None
        except ValueError as exc:  # refused in the value that starts at index: locate it there
            shift = text.count("\n", 0, index)
            raise _refusal(exc, text[index:], file, shift, surrogates=False) from None
        values.append(value)


# ---------------------------------------------------------------- files


def read_bytes(path: str | Path, limit: int, what: str = "the file") -> bytes:
    """The bytes of a file under ``limit``; a missing, unreadable or folder path is one line."""
    try:
        return read_limited(path, limit, what)
    except OSError as exc:
        raise AbwInputError(describe_os_error(exc, reading=True), file=path) from None
