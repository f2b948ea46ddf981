"""Background tasks: the calls that launched them, and the ends later lines report (a poll's
final status, a ``TaskStop``, a ``<task-notification>``), which give those calls their outcome."""

from __future__ import annotations

from typing import Any

from abw.importers.claude.drafts import Draft, text_of
from abw.importers.claude.filestate import FileState
from abw.importers.claude.outcomes import (
    BACKGROUND_OUTCOMES,
    KILL_SHELL_TOOLS,
    LAUNCHED_STATUSES,
    MONITOR_TOOL,
    STOP_TOOL,
    TASK_NOTIFICATION,
    notified_task,
)


def _launched(status: Any) -> bool:
    """Whether a tool result's ``status`` says it launched a background task."""
    return isinstance(status, str) and status in LAUNCHED_STATUSES


class BackgroundTasks(FileState):
    """Reads the launch and the end of background tasks."""

    def _background(self, draft: Draft, result: dict[str, Any]) -> None:
        """Note a call that launched a background task (``backgroundTaskId`` of a shell call, an
        ``Agent`` launched ``isAsync``, the ``taskId`` of a ``Workflow`` ``async_launched`` or of
        a ``Monitor``), or
        read the final ``task.status`` a poll (``TaskOutput``; before 2.1 ``BashOutput``'s
        ``status``) reports for one, or the ``task_id`` a ``TaskStop`` stopped (killed; before
        2.1 the ``shell_id`` of a ``KillBash`` / ``KillShell``)."""
        task_id = result.get("backgroundTaskId")
        if draft.type == "handoff" and result.get("isAsync") is True:
            task_id = result.get("agentId")
        elif task_id is None and _launched(result.get("status")):
            task_id = result.get("taskId")  # a Workflow run, a remote agent
        elif task_id is None and draft.attributes.get("tool") == MONITOR_TOOL:
            task_id = result.get("taskId")
        if isinstance(task_id, str) and task_id:
            draft.attributes["background"] = True
            self.background[task_id] = draft
            return
        task = result.get("task")
        tool = draft.attributes.get("tool")
        if isinstance(task, dict) and isinstance(task.get("task_id"), str):
            self._background_done(task["task_id"], task.get("status"))
        elif tool == STOP_TOOL and isinstance(result.get("task_id"), str):
            self._background_done(result["task_id"], "killed")
        elif isinstance(result.get("shellId"), str):  # a BashOutput poll (before 2.1)
            self._background_done(result["shellId"], result.get("status"))
        elif (
            tool in KILL_SHELL_TOOLS
            and result.get("success") is True
            and isinstance(result.get("shell_id"), str)
        ):
            self._background_done(result["shell_id"], "killed")

    def _background_done(self, task_id: str, status: Any) -> None:
        """A background task ended: the call that launched it takes its final outcome
        (:data:`BACKGROUND_OUTCOMES`; a status that is not final changes nothing)."""
        draft = self.background.get(task_id)
        if draft is None or not isinstance(status, str) or status not in BACKGROUND_OUTCOMES:
            return
        draft.outcome = BACKGROUND_OUTCOMES[status]
        draft.attributes["background_status"] = status

    def _queued_command(self, attachment: dict[str, Any]) -> None:
        """An ``attachment`` of type ``queued_command``: a message queued while the model was
        busy and handed to it within the turn (2.1.1xx+). It is no prompt and no event of the
        run: the turn it joins goes on (:meth:`_queued_notification`)."""
        self._queued_notification(text_of(attachment.get("prompt")))

    def _queued_notification(self, text: str | None) -> None:
        """A queued message (a ``queued_command`` attachment, a ``queue-operation``'s content;
        2.0.x writes a shell's end only there in ``-p``): when it is a background task's
        notification (:data:`TASK_NOTIFICATION`), the task ended: read as on a user line (only
        the head: task id and status)."""
        if text is not None and text.lstrip().startswith(TASK_NOTIFICATION):
            notified = notified_task(text)
            if notified is not None:
                self._background_done(*notified)
