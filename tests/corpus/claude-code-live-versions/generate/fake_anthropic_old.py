"""The loopback Messages API stub of ``claude-code-live/generate/fake_anthropic.py``, for older
Claude Code versions: a scripted ``Agent`` call is sent as ``Task`` when the request offers no
``Agent`` tool (Claude Code before 2.1 names its sub-agent tool ``Task``); more scenarios,
``S-slowout`` and ``S-asyncagent``.

Usage: ``python fake_anthropic_old.py PORT``.
"""

from __future__ import annotations

import importlib.util
import sys
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

_STUB = Path(__file__).parents[2] / "claude-code-live" / "generate" / "fake_anthropic.py"
_SPEC = importlib.util.spec_from_file_location("fake_anthropic", _STUB)
assert _SPEC and _SPEC.loader
stub = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(stub)
_original_pick = stub._pick


def _tool_names(body: dict[str, Any]) -> set[str]:
    return {t.get("name", "") for t in body.get("tools") or [] if isinstance(t, dict)}


def _pick(body: dict[str, Any]) -> Any:
    """The original scripted step, with ``Agent`` renamed ``Task`` where only Task exists."""
    step = _original_pick(body)
    if isinstance(step, dict) or "Agent" in _tool_names(body):
        return step
    return [("tool", "Task", *p[2:]) if p[:2] == ("tool", "Agent") else p for p in step]


stub._pick = _pick
#: A Bash call that prints a line and then waits (Esc after its output).
stub.SCRIPTS["S-slowout"] = [
    [
        (
            "tool",
            "Bash",
            {
                "command": "echo started; python3 -c 'import time; time.sleep(30)'",
                "description": "Print, then wait",
            },
        )
    ],
    [("text", "Stopped.")],
]
#: A sub-agent run in the background (``run_in_background``), then a wait for its end.
stub.SCRIPTS["S-asyncagent"] = [
    [
        (
            "tool",
            "Agent",
            {
                "description": "Count the lines",
                "prompt": "[S-sub] Count the lines of cart.py with wc.",
                "subagent_type": "general-purpose",
                "run_in_background": True,
            },
        )
    ],
    [("tool", "Bash", {"command": "sleep 6", "description": "Let the helper end"})],
    [("text", "The helper runs in the background.")],
]


def main() -> None:
    """Serve on 127.0.0.1:PORT (argv[1])."""
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 19181
    ThreadingHTTPServer(("127.0.0.1", port), stub.Handler).serve_forever()


if __name__ == "__main__":
    main()
