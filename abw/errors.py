"""The one error type for bad input: a file, a line, a field and what is wrong."""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abw.models import SCHEMA_USES
from abw.spelling import nearest

if TYPE_CHECKING:
    from pydantic import ValidationError


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
        #: The document's other problems, each at its own place (:func:`from_validation_error`
        #: with the document): ``abw validate`` lists them all, a loader stops at this one.
        self.others: tuple[AbwInputError, ...] = ()

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


_NO_DOCUMENT = object()
#: What YAML makes of a plain scalar that is no text: ``yes``, ``on``, ``12``, ``1.0``, ``~``
_YAML_PLAIN = {bool: "a boolean", int: "a number", float: "a number", type(None): "null"}


def document_location(
    document: Any, loc: tuple[str | int, ...], *, missing: bool = False
) -> tuple[str | int, ...]:
    """A pydantic error location as the path in the validated ``document``: the labels pydantic
    adds for a union's member (a rule's ``kind`` tag, ``constrained-str``, a model's name) are
    no key of the document, and are left out; with ``missing`` (the error is a missing field),
    the last key, which the document lacks, stays."""
    path: list[str | int] = []
    node = document
    for at, part in enumerate(loc):
        if _holds(node, part) and not _label(node, part, loc[at + 1 :], missing):
            node = node[part]
        elif missing and isinstance(node, dict) and at == len(loc) - 1:
            pass  # a field the document lacks: named as pydantic names it
        else:
            continue  # a union member's label, or a label below a plain value
        path.append(part)
    return tuple(path)


def _label(node: Any, part: str | int, rest: tuple[str | int, ...], missing: bool) -> bool:
    """Whether ``part``, a key of ``node``, is rather a union member's label that the document
    happens to hold as a key too (``response`` in ``rules.0.response.within`` of
    ``{kind: response, response: b, within: 2}``): what follows is ``node``'s own (a key it
    holds, or the missing key of a missing-field error), not ``node[part]``'s."""
    if not rest or _holds(node[part], rest[0]):
        return False
    if missing and len(rest) == 1 and isinstance(node[part], dict):
        return False  # (the field missing is this mapping's own: a bind without its after)
    lacking = missing and len(rest) == 1 and not isinstance(node[part], (dict, list))
    return _holds(node, rest[0]) or lacking


def _holds(node: Any, part: str | int) -> bool:
    """Whether ``part`` is a key of the mapping ``node`` or an index of the list ``node``."""
    if isinstance(node, dict):
        return part in node
    return isinstance(node, list) and type(part) is int and 0 <= part < len(node)


def from_validation_error(
    exc: ValidationError,
    *,
    file: str | Path | None = None,
    unknown_key: str | None = None,
    line_of: Callable[[tuple[str | int, ...]], int | None] | None = None,
    root_field: str | None = None,
    document: Any = _NO_DOCUMENT,
    yaml: bool = False,
) -> AbwInputError:
    """The first error of a pydantic ``ValidationError`` as an :class:`AbwInputError`; with
    the ``document``, its :func:`chief_error`, worded with :func:`with_suggestion`, and the
    problems at other places of the document, worded alike, as its ``others``.

    The field is the error's location joined with dots (``root_field`` when it has none); with
    the validated ``document``, its path there (:func:`document_location`: no union labels).
    ``yaml``: the document was YAML, where a plain ``yes``, ``off`` or ``1.0`` is no text (a
    text field given one says how to write it as text). ``unknown_key`` replaces pydantic's
    wording for a key the model forbids; ``line_of`` maps
    the location (member names and item indexes) to its line in the source text
    (:func:`abw.jsonlocate.value_line`, :func:`abw.yamllocate.value_line`).
    """
    errors = exc.errors()
    if document is _NO_DOCUMENT:
        described = [_word(errors[0], tuple(errors[0]["loc"]), unknown_key, document, yaml)]
    else:  # the chief problem, then one a place (for abw validate), each worded alike
        chief = chief_error(errors, document)
        described = [_word(chief, _place(document, chief), unknown_key, document, yaml)]
        with contextlib.suppress(KeyError, IndexError, TypeError, ValueError):  # chief alone
            for key, group in _groups(errors, document).items():
                if key != _group_key(document, chief):
                    first = chief_error(group, document)
                    described.append(
                        _word(first, _place(document, first), unknown_key, document, yaml)
                    )

    def as_error(loc: tuple[str | int, ...], message: str) -> AbwInputError:
        field = ".".join(str(part) for part in loc) or root_field
        line = None if line_of is None else line_of(loc)
        return AbwInputError(message, file=file, line=line, field=field)

    first_error, *others = [as_error(loc, message) for loc, message in described]
    first_error.others = tuple(others)
    return first_error


def _group_key(document: Any, error: Any) -> tuple[str | int, ...]:
    """Where a problem is, for grouping: an error's first two places in ``document`` (a rule,
    a threshold), a key's errors (unknown, missing) at the object holding the key, so that a
    misspelt key and the key it misses are one problem."""
    place = _place(document, error)
    return (place[:-1] if error["type"] in ("missing", "extra_forbidden") else place)[:2]


def _groups(errors: list[Any], document: Any) -> dict[tuple[str | int, ...], list[Any]]:
    """Pydantic's ``errors`` grouped by :func:`_group_key` (a union's members are one
    problem), in document order."""
    groups: dict[tuple[str | int, ...], list[Any]] = {}
    for error in errors:
        groups.setdefault(_group_key(document, error), []).append(error)
    return groups


def describe_validation_error(
    exc: ValidationError,
    *,
    unknown_key: str | None = None,
    document: Any = _NO_DOCUMENT,
    yaml: bool = False,
) -> tuple[tuple[str | int, ...], str]:
    """(where, what) of the error of ``exc`` to report, as :func:`from_validation_error`
    words it; a caller that maps the place on (a compiled contract) starts from this."""
    errors = exc.errors()
    if document is _NO_DOCUMENT:
        return _word(errors[0], tuple(errors[0]["loc"]), unknown_key, document, yaml)
    first = chief_error(errors, document)
    return _word(first, _place(document, first), unknown_key, document, yaml)


def _word(
    error: Any, loc: tuple[str | int, ...], unknown_key: str | None, document: Any, yaml: bool
) -> tuple[tuple[str | int, ...], str]:
    """(where, what) of one pydantic ``error`` at ``loc``: ``unknown_key`` for a key the model
    forbids, YAML's plain scalars named, and (given the ``document``) :func:`with_suggestion`."""
    message = error["msg"]
    if error["type"] == "value_error":  # (pydantic's prefix to a validator's own words)
        message = message.removeprefix("Value error, ")
    if unknown_key is not None and error["type"] == "extra_forbidden":
        message = unknown_key
    elif yaml and error["type"] == "string_type" and type(error["input"]) in _YAML_PLAIN:
        kind = _YAML_PLAIN[type(error["input"])]
        message += f" (YAML reads this unquoted value as {kind}: put it in quotes for text)"
    if document is not _NO_DOCUMENT:
        loc, message = with_suggestion(error, loc, message, document)
    return loc, message


def chief_error(errors: list[Any], document: Any) -> Any:
    """The error of pydantic's ``errors`` to report for ``document``: a key the document does
    not know beside a required key it lacks and nearly spells (:func:`_misspelt`); else the
    first error, or the error deepest inside the value it is about (a union member's own
    error, not that the value is no other member: a matcher's ``type: [tol]``, not that the
    matcher is no glob)."""
    misspelt = _misspelt(errors, document)
    if misspelt is not None:
        return misspelt
    chief = errors[0]
    top = deepest = _place(document, chief)
    for error in errors[1:]:
        where = _place(document, error)
        if where[: len(top)] == top and len(where) > len(deepest):
            chief, deepest = error, where
    return chief


def _place(document: Any, error: Any) -> tuple[str | int, ...]:
    """The error's location in ``document`` (:func:`document_location`)."""
    return document_location(document, error["loc"], missing=error["type"] == "missing")


def _misspelt(errors: list[Any], document: Any) -> Any:
    """The error of a key the document does not know beside a required key it lacks and
    nearly spells (``{before: A, afer: B}``: pydantic names the missing key first, which
    hides the typo), or None."""
    lacking: dict[tuple[str | int, ...], list[str]] = {}
    for error in errors:
        if error["type"] == "missing":
            where = _place(document, error)
            lacking.setdefault(where[:-1], []).append(str(where[-1]))
    for error in errors:
        if error["type"] == "extra_forbidden":
            where = _place(document, error)
            if nearest(str(where[-1]), lacking.get(where[:-1], [])):
                return error
    return None


def with_suggestion(
    error: Any, loc: tuple[str | int, ...], message: str, document: Any
) -> tuple[tuple[str | int, ...], str]:
    """(where, what) for a pydantic ``error`` at ``loc`` in ``document``, naming what a typo
    meant from the schema the document names (:mod:`abw.schema_keys`): the nearest key of
    that object for an unknown key, the nearest allowed value for a value outside an
    enumeration, the nearest tag (or every tag) for an unknown ``kind`` of a union, which is
    then the error's place."""
    from abw.schema_keys import keys_at, schema_for, tags_at, values_at

    schema = schema_for(document)
    if schema is None:
        return loc, message
    kind, meant = error["type"], None
    if kind == "union_tag_invalid" and (found := tags_at(schema, document, loc)) is not None:
        key, tags = found
        return (*loc, key), unknown_tag(_noun(loc), key, error["ctx"]["tag"], tags)
    if kind == "extra_forbidden" and loc:
        meant = nearest(str(loc[-1]), keys_at(schema, document, loc[:-1]))
    elif kind in ("literal_error", "enum") and isinstance(error["input"], str):
        values = values_at(schema, document, loc)
        meant = nearest(error["input"], values)
        if meant is not None and len(values) > _LISTED_VALUES:  # a near miss, not the list
            message = f"{error['input']!r} is not one of the {len(values)} allowed values"
    return loc, message if meant is None else f"{message}; did you mean {meant}?"


#: Up to how many allowed values a value's error lists beside a near miss (a contract clause's
#: ``rule`` has 20: ``'precedance'`` reads better as "did you mean precedence?" alone).
_LISTED_VALUES = 8


def unknown_tag(noun: str, key: str, tag: str, tags: list[str]) -> str:
    """``unknown rule kind 'precedance'; did you mean precedence?`` (every tag when none is
    near)."""
    meant = nearest(tag, tags)
    hint = f"did you mean {meant}?" if meant else f"one of: {', '.join(tags)}"
    return f"unknown {f'{noun} {key}'.strip()} {tag!r}; {hint}"


def _noun(loc: tuple[str | int, ...]) -> str:
    """What the value at ``loc`` is: its key (``matcher``), or one item of its list
    (``rules.0``: ``rule``)."""
    names = [part for part in loc if isinstance(part, str)]
    if not names:
        return ""
    return names[-1].removesuffix("s") if isinstance(loc[-1], int) else names[-1]


def require_schema_version(
    document: dict[str, Any],
    expected: str,
    *,
    file: str | Path,
    line_of: Callable[[tuple[str | int, ...]], int | None] | None = None,
) -> None:
    """Raise an :class:`AbwInputError` unless ``document["schema_version"]`` is ``expected``;
    ``line_of`` (as for :func:`from_validation_error`) names its line, found only then."""
    found = document.get("schema_version")
    if found != expected:
        use = SCHEMA_USES.get(found) if isinstance(found, str) else None
        raise AbwInputError(
            f"expected schema_version {expected}, found {found!r}" + (f" ({use})" if use else ""),
            file=file,
            line=None if line_of is None else line_of(("schema_version",)),
            field="schema_version",
        )


_OS_REASONS = {
    errno.ENOENT: "no such file or folder",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EEXIST: "exists and is not a folder",
    errno.ENAMETOOLONG: "file name too long",
    errno.EPIPE: "the reader closed the pipe",
}


def not_utf8(
    exc: UnicodeDecodeError,
    raw: bytes,
    file: str | Path | None,
    *,
    first_line: int | None = None,
    kind: type[AbwInputError] = AbwInputError,
    field: str | None = None,
) -> AbwInputError:
    """The refusal of ``raw`` (the bytes ``exc`` came from, starting on ``first_line``) as no
    UTF-8 text: at the line holding the first bad byte, and the byte's place in that line."""
    start = raw.rfind(b"\n", 0, exc.start) + 1
    line = raw.count(b"\n", 0, exc.start) + (first_line or 1)
    message = f"not valid UTF-8 (byte {exc.start - start + 1} of the line)"
    return kind(message, file=file, line=line, field=field)


def describe_os_error(exc: OSError, *, reading: bool = False) -> str:
    """A plain reason for an operating-system error, e.g. ``cannot write: permission denied``."""
    if exc.errno == errno.EISDIR:
        return "expected a file, found a folder"
    if reading and exc.errno == errno.ENOENT:
        return "no such file"
    reason = _OS_REASONS.get(exc.errno or 0) or " ".join((exc.strerror or str(exc)).split())
    return f"cannot {'read' if reading else 'write'}: {reason}"


def os_input_error(
    exc: OSError, *, reading: bool = False, field: str | None = None
) -> AbwInputError:
    """An :class:`AbwInputError` for an OSError, naming the file it happened on."""
    file = exc.filename2 if exc.errno == errno.EISDIR and exc.filename2 else exc.filename
    return AbwInputError(describe_os_error(exc, reading=reading), file=file, field=field)


@contextlib.contextmanager
def naming_field(field: str) -> Iterator[None]:
    """Turn an OSError inside the block into an :class:`AbwInputError` naming ``field``
    (e.g. ``--out``), and give an :class:`AbwInputError` without a field that one."""
    try:
        yield
    except OSError as exc:
        raise os_input_error(exc, field=field) from None
    except AbwInputError as exc:
        if exc.field is None:
            exc.field = field
        raise
