"""Drive @openai/agents (JS, ``drive_agents.mjs``) at the loopback OpenAI stub and keep what
its ``OpenAITracingExporter`` uploads, one POST body a line:
``python gen_agents_js.py NODE_DIR OUT_DIR [SCENARIO ...]`` (NODE_DIR: ``npm install`` of
``package.json``; run with HOME=/home/dev from /home/dev/shop)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: The stub that wrote openai-agents-live (Responses, Chat Completions, the trace ingest).
sys.path.insert(0, str(HERE.parents[1] / "openai-agents-live" / "generate"))
from fake_openai import FakeOpenAI  # noqa: E402

PORT = 23844
FILES = {
    "oai_notes.md": "# Shop notes\nA small shop. CANARY-README\n",
    "oai_policy.md": "Refunds within 30 days. CANARY-POLICY\n",
}
SCRIPTS: dict[str, list[dict]] = {
    "tools-parallel": [
        {"tools": [("read_file", {"path": "oai_notes.md"}), ("run_shell", {"command": "false"})]},
        {"tools": [("read_file", {"path": "no_such_file.md"})]},
        {"text": "The notes say a small shop; the command failed. CANARY-FINAL"},
    ],
    "streamed-abort": [
        {"tools": [("read_file", {"path": "oai_notes.md"})]},
        {"tools": [("run_tests", {"suite": "unit"})]},
    ],
    "abort-tool": [
        {"tools": [("read_file", {"path": "oai_notes.md"})]},
        {"tools": [("run_tests", {"suite": "unit"})]},
    ],
    "stop-at-tool": [
        {"tools": [("read_file", {"path": "oai_notes.md"})]},
        {"tools": [("run_tests", {"suite": "unit"})]},
    ],
    "handoffs-as-tool": [
        {"tools": [("transfer_to_billing", {})]},
        {"tools": [("transfer_to_refunds", {})]},
        {"tools": [("check_policy", {"input": "order 42 CANARY-ASK"})]},
        {"tools": [("read_file", {"path": "oai_policy.md"})]},
        {"text": "Refunds within 30 days. CANARY-CHECKER"},
        {"text": "Your refund for order 42 is approved. CANARY-FINAL"},
    ],
    "guardrail-then-api-error": [{"text": "password=SECRET CANARY-FINAL"}] + [{"error": 500}] * 4,
    "max-turns-streamed": [{"tools": [("read_file", {"path": "oai_notes.md"})]}] * 3,
    "approvals": [
        {
            "tools": [
                ("issue_refund", {"order_id": "42", "amount": 9.5}),
                ("issue_refund", {"order_id": "43", "amount": 120}),
            ]
        },
        {"text": "Refunded 42; 43 was declined. CANARY-FINAL"},
    ],
}


def run(node_dir: Path, out: Path, scenario: str) -> None:
    """One scenario: the uploads to ``out/gen__openai-agents-js-<version>__<scenario>.jsonl``."""
    version = json.loads((node_dir / "node_modules/@openai/agents/package.json").read_text())
    path = out / f"gen__openai-agents-js-{version['version']}__{scenario}.jsonl"
    path.unlink(missing_ok=True)
    stub = FakeOpenAI(SCRIPTS[scenario], path, PORT)
    shutil.copy(HERE / "drive_agents.mjs", node_dir / "drive_agents.mjs")
    env = {**os.environ, "MODEL_URL": stub.url, "OPENAI_API_KEY": "sk-loopback"}
    done = subprocess.run(
        ["node", str(node_dir / "drive_agents.mjs"), scenario],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    print(scenario, done.returncode, done.stdout.strip(), done.stderr.strip()[-400:])
    stub.close()
    stub.server.server_close()
    path.write_bytes(path.read_bytes().replace(f"{node_dir}/".encode(), b"/home/dev/shop/"))


def main() -> None:
    node_dir, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    for file, text in FILES.items():
        Path(file).write_text(text)
    for scenario in sys.argv[3:] or list(SCRIPTS):
        run(node_dir, out, scenario)


if __name__ == "__main__":
    main()
