"""What reading one rollout keeps: its drafts, its calls waiting for their outputs, the command
sessions still running, the turn being read, and the sub-agents its calls spawned."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from abw.importers.base import ImportOptions
from abw.importers.spans import Draft


@dataclass
class Call:
    """One tool call while its rollout is read: its draft, outputs, polls and duration."""

    draft: Draft
    is_shell: bool
    line: int
    outputs: list[Any] = field(default_factory=list)
    wall_seconds: float = 0.0
    saw_wall: bool = False
    exit_code: int | None = None
    explicit_ms: float | None = None
    duration_source: str | None = None
    last_output_at: datetime | None = None
    session: str | None = None
    polls: int = 0
    poll_errors: int = 0
    ended: bool = False


@dataclass
class RolloutState:
    """Everything reading one rollout has gathered so far."""

    options: ImportOptions
    path: Path
    drafts: list[Draft] = field(default_factory=list)
    calls: dict[str, Call] = field(default_factory=dict)
    order: list[Call] = field(default_factory=list)
    sessions: dict[str, Call] = field(default_factory=dict)
    exited: dict[str, Call] = field(default_factory=dict)  # sessions whose process ended
    polls: dict[str, Call] = field(default_factory=dict)
    llm: Draft | None = None
    llm_items: list[Any] = field(default_factory=list)
    #: Codex wrote each request's items once its calls ran, outputs among them (before 0.66;
    #: legacy files): a request ends at its ``turn_context`` / usage / state line, not at an output
    batched: bool = False
    model: str | None = None
    #: the first record time read: the run's start when no span has one
    first_time: datetime | None = None
    trace_id: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    turn_starts: list[int] = field(default_factory=list)
    turn_events: bool = False
    #: the rollout records when its turns start (``task_started``), so it records when they end
    #: (``task_complete``, ``turn_aborted``): a turn with no end was cut off (the process died)
    task_events: bool = False
    aborts: list[int] = field(default_factory=list)
    final_status: str = "unknown"
    cancelled_turn: bool = False
    #: the turn being read ended on an ``error`` event (Codex writes ``task_complete`` after it)
    failed_turn: bool = False
    final_text: str | None = None
    #: the turn's last item is a call's output: the model has not answered it yet
    after_output: bool = False
    #: the run's (status, final text) as each user turn began, for ``thread_rolled_back``
    user_turns: list[tuple[str, str | None]] = field(default_factory=list)
    #: the run's (status, final text) before the turn being read began, until its user message
    turn_before: tuple[str, str | None] | None = None
    recognised: int = 0
    exec_output: tuple[int, str] | None = None  # the first ``codex exec --json`` line, its field
    exec_thread: str | None = None
    unknown_types: set[str] = field(default_factory=set)
    unknown_items: set[str] = field(default_factory=set)
    #: ``spawn_agent`` call id -> the child its output (or ``collab_agent_spawn_end``) names:
    #: ``(thread id, task name)``.
    spawned: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
