"""Drive the real Codex CLI against the fake Responses API and keep the rollouts it writes.

Run it in a private mount namespace with a scratch folder bound over /home/dev, so that the
recordings hold only neutral paths (``npm install @openai/codex@0.171.0`` in SCRATCH first)::

    unshare -m --propagation private bash -c 'mount --bind SCRATCH/home /home/dev &&
        python3 drive.py SCRATCH/node_modules/.bin/codex OUT [SCENARIO...]'

``codex exec`` runs the scenarios (with EXEC_OPTIONS), the TUI (tui.py, in a pseudo-terminal)
those in TUI_STEPS. OUT receives every rollout Codex wrote, requests.jsonl (what the fake was
asked), each ``--json`` run's stdout and each TUI run's screen. (0.171 refuses
``approval_policy = "untrusted"`` — "no longer supported" — and runs ``on-failure`` as
``never``, so neither has a scenario.)"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

HERE = Path(__file__).parent
HOME = Path("/home/dev")
SHOP = HOME / "shop"
PORT = 18775
CONFIG = f"""model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:{PORT}/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

"""


def env() -> dict[str, str]:
    """A clean environment: neutral HOME, the fake key, no telemetry."""
    return {
        "HOME": str(HOME),
        "CODEX_HOME": str(HOME / ".codex"),
        "PATH": os.environ["PATH"],
        "FAKE_API_KEY": "fake-key",
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "NO_COLOR": "1",
    }


def exec_args(codex: str, *extra: str, sandbox: str = "danger-full-access") -> list[str]:
    """``codex exec`` (the sandbox off unless asked: it cannot run in every container)."""
    return [codex, "exec", "--skip-git-repo-check", "--sandbox", sandbox, "-C", str(SHOP), *extra]


def run(args: list[str], timeout: float = 60) -> str:
    """Run one codex command; its stdout (the exec --json events, when asked)."""
    done = subprocess.run(args, env=env(), capture_output=True, text=True, timeout=timeout)
    print(" ".join(args[1:4]), "->", done.returncode, done.stderr[-400:], file=sys.stderr)
    return done.stdout


def png() -> bytes:
    """A 2x2 red PNG (the project's logo)."""
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + (chunk(b"IEND", b""))
    )


SCHEMA = {
    "type": "object",
    "properties": {
        "files": {"type": "array", "items": {"type": "string"}},
        "ok": {"type": "boolean"},
    },
    "required": ["files", "ok"],
    "additionalProperties": False,
}


def project() -> None:
    """The small made-up project the agent works on, fresh."""
    shutil.rmtree(SHOP, ignore_errors=True)
    (SHOP / "shop").mkdir(parents=True)
    (SHOP / "tests").mkdir()
    (SHOP / "shop" / "__init__.py").write_text("")
    (SHOP / "shop" / "cart.py").write_text("def total(items):\n    return sum(items)\n")
    test = "from shop.cart import total\n\n\ndef test_total():\n    assert total([]) == 0\n"
    (SHOP / "tests" / "test_cart.py").write_text(test)
    (SHOP / "logo.png").write_bytes(png())
    (HOME / "schema.json").write_text(json.dumps(SCHEMA))


def exec_scenario(codex: str, out: Path, keyword: str) -> None:
    """One ``codex exec`` run with the options its scenario needs."""
    prompt = f"[{keyword}] please work on the shop"
    extra = EXEC_OPTIONS.get(keyword, [])
    sandbox = SANDBOXES.get(keyword, "danger-full-access")
    stdout = run(exec_args(codex, prompt, *extra, sandbox=sandbox))  # (-i takes many)
    if "--json" in extra:
        (out / f"{keyword}.exec.jsonl").write_text(stdout)


def tui_resume(codex: str, out: Path) -> None:
    """``codex exec`` one turn, then ``codex resume <its id>`` in the TUI for a second."""
    first = run(exec_args(codex, "--json", "[tuiresume] please work on the shop"))
    thread = next(
        json.loads(line)["thread_id"]
        for line in first.splitlines()
        if json.loads(line).get("type") == "thread.started"
    )
    tui = [sys.executable, str(HERE / "tui.py"), codex, str(out), "tuiresume"]
    steps = [MIGRATION, "~6=>[tuiresume] again", "~1=>\\r", "Done with turn 1=>"]
    environ = {**os.environ, "TUI_RESUME": thread}
    subprocess.run([*tui, *steps], timeout=180, env=environ)


def main() -> None:
    """Every scenario once (or those named after OUT); the rollouts copied to OUT."""
    codex, out = sys.argv[1], Path(sys.argv[2])
    chosen = sys.argv[3:] or SCENARIOS
    project()
    shutil.rmtree(HOME / ".codex", ignore_errors=True)
    (HOME / ".codex").mkdir(parents=True)
    (HOME / ".codex" / "config.toml").write_text(CONFIG)
    server = subprocess.Popen(
        [sys.executable, str(HERE / "fake_responses.py"), str(PORT), str(out / "requests.jsonl")]
    )
    time.sleep(1)
    try:
        for keyword in chosen:
            if keyword == "tuiresume":
                tui_resume(codex, out)
            elif keyword in TUI_STEPS:
                tui = [sys.executable, str(HERE / "tui.py"), codex, str(out), keyword]
                subprocess.run([*tui, *TUI_STEPS[keyword]], timeout=180)
            else:
                exec_scenario(codex, out, keyword)
    finally:
        server.terminate()
    for rollout in sorted((HOME / ".codex" / "sessions").rglob("rollout-*.jsonl")):
        shutil.copy2(rollout, out / rollout.name)


MIGRATION = "?Use existing model=>2"  # (the TUI's offer of a newer model, declined)
ANSWER = "Done with turn 0=>"
#: Interactive scenarios: the TUI's cue and the keys a person answers it with.
TUI_STEPS = {
    "tuicompact": [
        MIGRATION,
        ANSWER + "/compact",
        "~1=>\\r",
        "~8=>[resume] again",
        "~1=>\\r",
        "~8=>",
    ],
    "undo": [
        MIGRATION,
        ANSWER + "[resume] second",
        "~1=>\\r",
        "Done with turn 1=>\\x1b",
        "~1=>\\x1b",
        "~1=>\\r",
        "~2=> instead",
        "~1=>\\r",
        "~8=>",
    ],
}
SANDBOXES = {
    "readonly": "read-only",
    "rmforce": "workspace-write",
}
EXEC_OPTIONS = {
    "image": ["-i", str(SHOP / "logo.png")],
    "schema": ["--output-schema", str(HOME / "schema.json")],
    "jsonexec": ["--json", "--output-schema", str(HOME / "schema.json")],
}
SCENARIOS = [
    "websearch",
    "image",
    "schema",
    "jsonexec",
    "longout",
    "readonly",
    "rmforce",
    "tuicompact",
    "undo",
    "tuiresume",
]

if __name__ == "__main__":
    main()
