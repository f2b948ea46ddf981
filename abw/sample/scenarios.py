"""``scenarios.yaml``: per scenario, the command that runs the agent once and how to import it.

The file fails closed like a spec: unknown keys and repeated keys are refused, and every error
is one line naming the file, the line and the field. A scenario's field is named by its index,
``scenarios.1.importer``, as pydantic locates it and as every spec field is named
(``rules.0.after``); the line says where it stands in the file.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from abw.errors import AbwInputError, from_validation_error, not_utf8
from abw.limits import read_limited
from abw.specio import MAX_SPEC_BYTES, parse_yaml_text

#: The literal token in ``run`` that abw replaces with a fresh transcript path (shell-quoted).
#: Only this token is replaced, so ``${PROMPT}`` or JSON braces in a command stay as written.
PLACEHOLDER = "{transcript}"

#: Flags of ``abw import`` that ``abw sample`` sets itself.
_RESERVED_IMPORT_FLAGS = ("--input", "--out", "--scenario-id", "--quiet", "-q", "--no-redact")

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
#: A variable in a transcript glob, as ``os.path.expandvars`` reads one: ``$NAME``, ``${NAME}``
_VARIABLE = re.compile(r"\$(\w+|\{[^}]*\})")


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Scenario(_Closed):
    """One scenario: run ``run`` once per agent run, import its transcript with ``importer``."""

    id: str = Field(description="The scenario id written into every trace (run.scenario_id).")
    run: str = Field(min_length=1, description="Shell command that runs the agent once.")
    transcript: str | None = Field(
        default=None,
        description="'stdout', or a file/folder glob where the run leaves its transcript; "
        "omit it when run contains {transcript}.",
    )
    importer: str = Field(min_length=1, description="An `abw import` source, e.g. claude, codex.")
    import_args: list[str] = Field(
        default_factory=list, description="More `abw import <importer>` flags."
    )
    cwd: str | None = Field(
        default=None, description="Folder to run in, relative to the scenarios file's folder."
    )
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment variables.")
    max_runs: int | None = Field(
        default=None, ge=1, description="Most runs of this scenario (overrides --max-runs)."
    )
    timeout: float | None = Field(
        default=None, gt=0, description="Seconds one run may take (overrides --timeout)."
    )

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError(
                "a scenario id is letters, digits, '.', '_' and '-', starting with a letter "
                "or digit"
            )
        return value

    @field_validator("import_args")
    @classmethod
    def _import_args(cls, value: list[str]) -> list[str]:
        for arg in value:
            flag = arg.split("=", 1)[0]
            if flag == "--no-redact":  # (a sampled run's trace is redacted, always)
                raise ValueError("abw sample writes redacted traces only; remove --no-redact")
            if flag in _RESERVED_IMPORT_FLAGS:
                raise ValueError(f"{flag} is set by abw sample; remove it from import_args")
            if flag == "--help":  # it would print the help and end abw sample with exit 0
                raise ValueError("--help imports nothing; remove it from import_args")
        return value

    @model_validator(mode="after")
    def _transcript_source(self) -> Scenario:
        has_placeholder = PLACEHOLDER in self.run
        if has_placeholder and self.transcript is not None:
            raise ValueError(
                "run contains {transcript} and transcript is also given; keep one of them"
            )
        if not has_placeholder and self.transcript is None:
            raise ValueError(
                "say where the transcript appears: put {transcript} in run, or set "
                "transcript: stdout, or transcript: a file/folder glob"
            )
        return self

    @property
    def source(self) -> Literal["placeholder", "stdout", "glob"]:
        """Where a run's transcript is read from."""
        if self.transcript is None:
            return "placeholder"
        return "stdout" if self.transcript == "stdout" else "glob"

    def folder(self, base: Path) -> Path:
        """The folder the command runs in: ``cwd`` (``~`` expanded) under ``base``, or ``base``."""
        return (base / os.path.expanduser(self.cwd)) if self.cwd else base

    def expanded_transcript(self) -> str:
        """``transcript`` with ``~`` and ``$VARS`` expanded as the run's shell sees them: the
        environment with the scenario's ``env`` over it (a variable set nowhere stays)."""
        assert self.transcript is not None
        environment = {**os.environ, **self.env}

        def value(match: re.Match[str]) -> str:
            return environment.get(match.group(1).strip("{}"), match.group(0))

        return _VARIABLE.sub(value, os.path.expanduser(self.transcript))

    def transcript_glob(self, base: Path) -> str | None:
        """The absolute glob of a scenario whose transcript is a file/folder glob, in one
        spelling per folder: the folder before its first wildcard resolved (``..``, symlinks),
        so two scenarios that name the same files by other paths share one glob."""
        if self.source != "glob":
            return None
        pattern = self.expanded_transcript()
        if not os.path.isabs(pattern):
            pattern = str(self.folder(base) / pattern)
        parts = Path(pattern).parts
        fixed = next((i for i, part in enumerate(parts) if glob.has_magic(part)), len(parts))
        return str(Path(os.path.realpath(Path(*parts[:fixed])), *parts[fixed:]))


class ScenarioFile(_Closed):
    """Every scenario, each id once (checked by :func:`load_scenarios`, which names its line)."""

    scenarios: list[Scenario] = Field(min_length=1)


def load_scenarios(path: str | Path) -> ScenarioFile:
    """Read and validate a scenarios file; any problem is an :class:`AbwInputError`."""
    from pydantic import ValidationError

    from abw.yamllocate import node_line
    from abw.yamlreader import SafeLoader

    file = Path(path)
    try:
        raw = read_limited(file, MAX_SPEC_BYTES, "the scenarios file")
    except (FileNotFoundError, IsADirectoryError):
        raise AbwInputError("scenarios file not found", file=file) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise not_utf8(exc, raw, file) from None
    # aliases, duplicate keys, depth, size and syntax refused there (abw.reader)
    document = parse_yaml_text(text, file)
    root = yaml.compose(text, Loader=SafeLoader)
    if not isinstance(document, dict):
        raise AbwInputError("a scenarios file is a mapping with a 'scenarios' list", file=file)
    try:
        loaded = ScenarioFile.model_validate(document)
    except ValidationError as exc:
        raise from_validation_error(
            exc,
            file=file,
            unknown_key="unknown key (scenarios files fail closed)",
            line_of=lambda location: node_line(root, location),
            document=document,
            yaml=True,
        ) from None
    first: dict[str, int] = {}  # id -> index of the scenario that gives it first
    for index, scenario in enumerate(loaded.scenarios):
        where = partial(_where, root, file, index)
        if scenario.id in first:
            earlier = _where(root, file, first[scenario.id], "id")
            raise AbwInputError(
                f"scenario id {scenario.id!r} is given twice (first as {earlier['field']}, "
                f"line {earlier['line']})",
                **where("id"),
            )
        first[scenario.id] = index
        _check_cwd(scenario, file.resolve().parent, where)
        _check_transcript(scenario, where)
        _check_import_args(scenario, where)
    return loaded


def _where(root: yaml.Node | None, file: Path, index: int, key: str) -> dict[str, Any]:
    """The file, line and field of scenario ``index``'s ``key``, for an AbwInputError."""
    from abw.yamllocate import node_line

    line = node_line(root, ("scenarios", index, key))
    return {"file": file, "line": line, "field": f"scenarios.{index}.{key}"}


def _check_cwd(scenario: Scenario, base: Path, where: Callable[[str], dict[str, Any]]) -> None:
    """The folder the command runs in exists (else every run would fail to start)."""
    folder = scenario.folder(base)
    if scenario.cwd is not None and not folder.is_dir():
        reason = "is not a folder" if folder.exists() else "no such folder"
        raise AbwInputError(f"{reason}: {folder}", **where("cwd"))


def _check_transcript(scenario: Scenario, where: Callable[[str], dict[str, Any]]) -> None:
    """A transcript glob names no variable that nothing sets (else no run would ever leave a
    transcript there, each counted a failed run)."""
    if scenario.source != "glob":
        return
    unset = _VARIABLE.search(scenario.expanded_transcript())
    if unset is not None:
        raise AbwInputError(
            f"{unset.group(0)} is set neither in the environment nor in the scenario's env",
            **where("transcript"),
        )


def _check_import_args(scenario: Scenario, where: Callable[[str], dict[str, Any]]) -> None:
    """The importer exists and ``abw import <importer>`` accepts the flags, checked before any
    agent run is paid for; ``where(key)``: the file, line and field of the scenario's key."""
    import click

    from abw.cli.import_cmd import make_import_command
    from abw.importers import get_importer

    try:
        importer = get_importer(scenario.importer)
    except AbwInputError as exc:
        raise AbwInputError(exc.message, **where("importer")) from None
    command = make_import_command(scenario.importer, importer.help)
    args = ["--input", "transcripts", "--out", "traces", *scenario.import_args]  # parsed only
    try:
        command.make_context(scenario.importer, args)
    except click.ClickException as exc:
        raise AbwInputError(exc.format_message(), **where("import_args")) from None
