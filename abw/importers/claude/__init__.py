"""``abw import claude``: Claude Code session transcripts (``~/.claude/projects/…/*.jsonl``).

One trace per session. Subagent transcripts (inline sidechains, top-level ``agent-*.jsonl``,
``<session>/subagents/*.jsonl``) are folded into their parent session's trace; warm-up and
compaction sidechains are left out. See docs/traces.md for the full mapping.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from abw.errors import AbwInputError
from abw.importers.base import Importer, ImportOptions
from abw.importers.claude.reader import is_warmup_prompt
from abw.limits import MAX_LINE_BYTES
from abw.reader import parse_json

if TYPE_CHECKING:
    from abw.models.trace import Trace

_PEEK_LINES = 50


class _Peek:
    """What the first lines of a file say about it (sidechain or not, session and agent ids,
    a cache warm-up: its first line the user message ``Warmup``)."""

    __slots__ = ("agent_id", "first_uuid", "session_id", "sidechain", "warmup")

    def __init__(
        self,
        sidechain: bool,
        session_id: str | None,
        agent_id: str | None,
        warmup: bool = False,
        first_uuid: str | None = None,
    ) -> None:
        self.sidechain, self.session_id, self.agent_id = sidechain, session_id, agent_id
        self.warmup, self.first_uuid = warmup, first_uuid


def _is_warmup_line(record: dict) -> bool:
    """A user line whose message is just ``Warmup`` (Claude Code's cache pre-warming)."""
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict):
        content = content[0].get("text")
    return record.get("type") == "user" and is_warmup_prompt(content)


def peek(path: Path) -> _Peek:
    """Read at most a few lines: enough to tell a subagent transcript from a session."""
    session_id = agent_id = first_uuid = None
    try:
        with open(path, "rb") as handle:
            for _ in range(_PEEK_LINES):
                raw = handle.readline(MAX_LINE_BYTES + 1)  # bounded: a 5 GB "line" is not read
                if not raw or len(raw) > MAX_LINE_BYTES:
                    break
                try:  # a line in error is reported when the file itself is imported
                    record = parse_json(raw, path)
                except AbwInputError:
                    continue
                if not isinstance(record, dict):
                    continue
                if session_id is None and isinstance(record.get("sessionId"), str):
                    session_id = record["sessionId"]
                if isinstance(record.get("agentId"), str):
                    agent_id = record["agentId"]
                if first_uuid is None and isinstance(record.get("uuid"), str):
                    first_uuid = record["uuid"]
                if "isSidechain" in record:
                    sidechain = record["isSidechain"] is True
                    warmup = sidechain and _is_warmup_line(record)
                    return _Peek(sidechain, session_id, agent_id, warmup, first_uuid)
    except OSError:
        pass
    return _Peek(False, session_id, agent_id, first_uuid=first_uuid)


def _plain_name(name: str) -> bool:
    """A single, ordinary path component: no separators, no ``..``, not absurdly long."""
    return 0 < len(name) <= 200 and name not in {".", ".."} and not any(c in name for c in "/\\\0")


def _in_subagents_dir(path: Path) -> bool:
    return "subagents" in path.parent.parts[-3:]


def _is_run_bookkeeping(path: Path) -> bool:
    """A file under ``subagents/`` that is no transcript: a ``Workflow`` run (2.1.2xx) keeps
    its ``journal.jsonl`` (``started``/``result`` per agent) beside its ``agent-*.jsonl``."""
    return _in_subagents_dir(path) and not path.name.startswith("agent-")


def _resumed_owners(wanted: set[tuple[Path, str]], sessions: list[Path]) -> set[tuple[Path, str]]:
    """The ``(folder, session id)`` of ``wanted`` that a session file in that folder holds on a
    later line (a resumed session carries its earlier ids); each session file is read once,
    and only when some transcript of its folder is not claimed by a first line."""
    found: set[tuple[Path, str]] = set()
    for session in sessions:
        ids = [owner for folder, owner in wanted if folder == session.parent]
        if ids:
            held = session.read_bytes()
            found.update((session.parent, i) for i in ids if b'"' + i.encode() + b'"' in held)
    return found


class ClaudeImporter(Importer):
    """Claude Code session JSONL -> one trace per session, subagents folded in."""

    name: ClassVar[str] = "claude"
    platform: ClassVar[str] = "claude_code"
    export_format: ClassVar[str] = "claude-code-jsonl"
    help: ClassVar[str] = (
        "Claude Code session transcripts (.jsonl): a session file or a project folder. "
        "One trace per session; subagent transcripts are folded into their session."
    )
    suffixes: ClassVar[tuple[str, ...]] = (".jsonl",)
    supports_argument_fields: ClassVar[bool] = True
    #: ``~/.claude``: its settings, credentials and prompt log beside the sessions of
    #: ``projects/<project>/`` (todos, shell snapshots, plans, file history and caches too).
    home_files: ClassVar[tuple[str, ...]] = ("settings.json", ".credentials.json", "history.jsonl")
    home_sessions: ClassVar[tuple[str, ...]] = ("projects",)

    def __init__(self) -> None:
        self._peeks: dict[Path, _Peek] = {}
        self._siblings: dict[Path, dict[str, list[Path]]] = {}
        self._firsts: dict[Path, dict[str, list[Path]]] = {}
        self._resumed: dict[tuple[Path, str], dict[Path, Path]] = {}

    def _peek(self, path: Path) -> _Peek:
        if path not in self._peeks:
            self._peeks[path] = peek(path)
        return self._peeks[path]

    def is_subagent_file(self, path: Path) -> bool:
        """A subagent/compaction/warm-up transcript rather than a session."""
        if _in_subagents_dir(path) or path.name.startswith("agent-"):
            return True
        return self._peek(path).sidechain

    def discover(self, folder: Path) -> list[Path]:
        """The main session files under ``folder`` (subagent files are read with them; the
        prompt log ``~/.claude/history.jsonl`` is no session), and the subagent transcripts
        whose session is not there (imported on their own, with a warning, never dropped)."""
        from abw.importers.claude.reader import PROMPT_LOG

        files = [
            p
            for p in self.exports(folder, ("*.jsonl",))
            if p.name != PROMPT_LOG and not _is_run_bookkeeping(p)
        ]
        # (a session resumed and left at once is an empty file: nothing to import)
        sessions = [p for p in files if not self.is_subagent_file(p) and p.stat().st_size > 0]
        # (a session a later file resumed is read as that file's run)
        runs = [p for p in sessions if p not in self._resumes(p)]
        return sorted([*runs, *self._orphans(files, sessions)])

    def _orphans(self, files: list[Path], sessions: list[Path]) -> list[Path]:
        """The subagent transcripts (not Claude Code's helper agents or cache warm-ups, which are
        no agent work) that no session among ``sessions`` reads (:meth:`subagent_files`): their
        session was not exported with them."""
        from abw.importers.claude.assemble import is_helper_agent

        owned: dict[Path, set[str | None]] = {}  # folder -> its sessions' stems and session ids
        for session in sessions:
            owned.setdefault(session.parent, set()).update(
                {session.stem, self._peek(session).session_id}
            )
        unclaimed: list[tuple[Path, Path, str | None]] = []  # (transcript, folder, session id)
        for path in sorted(set(files) - set(sessions)):
            if not self.is_subagent_file(path) or is_helper_agent(path.stem.removeprefix("agent-")):
                continue  # (an empty session file, a helper agent)
            if self._peek(path).warmup:
                continue
            if _in_subagents_dir(path):  # <folder>/<session id or stem>/subagents/.../agent-x
                parts = path.parts
                at = len(parts) - 1 - parts[::-1].index("subagents")
                folder, owner = Path(*parts[: at - 1]), parts[at - 1]
            else:  # a sidechain file beside its session
                folder, owner = path.parent, self._peek(path).session_id
            if owner not in owned.get(folder, ()):
                unclaimed.append((path, folder, owner))
        resumed = _resumed_owners({(f, o) for _, f, o in unclaimed if o}, sessions)
        return [path for path, folder, owner in unclaimed if (folder, owner) not in resumed]

    def _resumes(self, path: Path) -> dict[Path, Path]:
        """Which session files of ``path``'s folder that begin with its first message resumed
        which (:func:`abw.importers.claude.resumed.continuations`); empty when none does."""
        first = self._peek(path).first_uuid
        if first is None:
            return {}
        if path.parent not in self._firsts:  # the folder's files by first message
            index: dict[str, list[Path]] = {}
            for other in sorted(path.parent.glob("*.jsonl")):
                uuid = self._peek(other).first_uuid if other.is_file() else None
                if uuid is not None:
                    index.setdefault(uuid, []).append(other)
            self._firsts[path.parent] = index
        group = self._firsts[path.parent].get(first, [])
        key = (path.parent, first)
        if key not in self._resumed:
            from abw.importers.claude.resumed import continuations

            self._resumed[key] = continuations(group, lambda p: self._peek(p).first_uuid)
        return self._resumed[key]

    def _resumed_sessions(self, path: Path, options: ImportOptions) -> list[Path]:
        """The session files ``path`` resumed (read with it: their subagents are its own), and
        a warning when a later file resumed ``path`` itself (a folder import reads the two
        once, as that file's run)."""
        resumes = self._resumes(path)
        later = resumes.get(path)
        if later is not None:
            options.warn(
                f"{path.name}: resumed in {later.name}, which begins with a copy of its lines: "
                "imported on its own; import the folder to read the session once, as that run"
            )
        return sorted(earlier for earlier, resumer in resumes.items() if resumer == path)

    def subagent_files(self, session: Path, session_ids: list[str]) -> list[Path]:
        """Subagent transcripts of a session: same-folder sidechain files with one of its
        session ids, and ``<folder>/<session id>/subagents/**/*.jsonl``."""
        folder = session.parent
        if folder not in self._siblings:
            index: dict[str, list[Path]] = {}
            for path in sorted(folder.glob("*.jsonl")):
                if path.is_file() and self.is_subagent_file(path):
                    info = self._peek(path)
                    if info.session_id:
                        index.setdefault(info.session_id, []).append(path)
            self._siblings[folder] = index
        found = [p for i in session_ids for p in self._siblings[folder].get(i, ())]
        for name in dict.fromkeys([*session_ids, session.stem]):
            if not _plain_name(name):  # a session id from the file must not leave the folder
                continue
            nested = folder / name / "subagents"
            if nested.is_dir():
                found += sorted(
                    p for p in nested.rglob("*.jsonl") if p.is_file() and not _is_run_bookkeeping(p)
                )
        unique = dict.fromkeys(p for p in found if p.resolve() != session.resolve())
        return sorted(unique, key=lambda p: (p.name, str(p)))

    def import_file(self, path: Path, options: ImportOptions) -> list[Trace]:
        from abw.importers.claude.assemble import build_trace, is_helper_agent
        from abw.importers.claude.parser import FileParser
        from abw.importers.common import shown_id

        sidechain = self.is_subagent_file(path) and self._peek(path).sidechain
        earlier = [] if sidechain else self._resumed_sessions(path, options)
        main = FileParser(path, options, sidechain_file=sidechain).parse()
        if not sidechain and main.holds_no_run():
            return options.no_run(
                path,
                "no prompt and no step (only Claude Code's bookkeeping, slash commands or "
                "shell-mode lines)",
            )
        if sidechain:
            kind = "compaction" if is_helper_agent(main.agent_id) else "subagent"
            options.warn(
                f"{path.name}: a {kind} transcript (agent {shown_id(main.agent_id)} of session "
                f"{shown_id(main.session_id)}), imported on its own"
            )
            return [build_trace(main, [], options)]
        owners = [*main.session_ids, *(e.stem for e in earlier)]  # (a fork's subagents too)
        owners += [i for e in earlier if (i := self._peek(e).session_id)]
        subs = [
            FileParser(p, options, sidechain_file=True).parse()
            for p in self.subagent_files(path, owners)
        ]
        return [build_trace(main, subs, options)]
