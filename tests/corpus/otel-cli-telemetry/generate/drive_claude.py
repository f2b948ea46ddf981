"""Drive the real Claude Code CLI (fake model: claude-code-live's ``fake_anthropic.py``) with
its own OpenTelemetry traces exported to ``otlp_receiver.py``; one folder per scenario.

Usage: ``python drive_claude.py CLAUDE_BIN SCRATCH OUT`` (as root, like claude-code-live's
``drive.py``). The corpus keeps ``OUT/<scenario>/traces.jsonl`` as
``claude-<scenario>.traces.jsonl``, byte for byte (``logs.jsonl`` is not kept).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "claude-code-live" / "generate"))
import drive  # noqa: E402

OTLP_PORT = 4318
drive.ENV.update(
    CLAUDE_CODE_ENABLE_TELEMETRY="1",
    CLAUDE_CODE_ENHANCED_TELEMETRY_BETA="1",
    OTEL_TRACES_EXPORTER="otlp",
    OTEL_LOGS_EXPORTER="otlp",
    OTEL_METRICS_EXPORTER="none",
    OTEL_EXPORTER_OTLP_PROTOCOL="http/json",
    OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{OTLP_PORT}",
    OTEL_TRACES_EXPORT_INTERVAL="500",
    OTEL_LOGS_EXPORT_INTERVAL="500",
    OTEL_BSP_SCHEDULE_DELAY="500",
)
EDITS = ["--permission-mode", "acceptEdits", "--allowedTools", "Bash"]
SCENARIOS = [
    ("basic", "[S-basic] Round the cart totals to cents.", EDITS),
    ("denied", "[S-denied] Clean the build and leave a note.", ["--permission-mode", "default"]),
    ("agent", "[S-agent] Ask a helper to count the cart lines.", EDITS),
    ("apierror", "[S-apierror] List the files.", EDITS),
]


def receiver(out: Path) -> subprocess.Popen:
    """Start a receiver writing into ``out``."""
    script = str(HERE / "otlp_receiver.py")
    proc = subprocess.Popen([sys.executable, script, str(OTLP_PORT), str(out)])
    time.sleep(1)
    return proc


def scenario(claude: str, scratch: Path, out: Path, tag: str, run: Callable[[], object]) -> None:
    """Run one scenario with a fresh receiver into ``out/tag``."""
    drive.reset_shop(scratch)
    proc = receiver(out / tag)
    try:
        run()
        time.sleep(2)
    finally:
        proc.terminate()


def main() -> None:
    """Start the model stub, run every scenario."""
    claude, scratch, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    stub = HERE.parents[1] / "claude-code-live" / "generate" / "fake_anthropic.py"
    server = subprocess.Popen([sys.executable, str(stub), str(drive.PORT)])
    time.sleep(1)
    try:
        for tag, prompt, args in SCENARIOS:
            run = partial(drive.headless, claude, scratch, prompt, *args)
            scenario(claude, scratch, out, tag, run)
        run = partial(drive.killed, claude, scratch, "[S-slow] Wait for the build.", 5, *EDITS)
        scenario(claude, scratch, out, "killed", run)
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
