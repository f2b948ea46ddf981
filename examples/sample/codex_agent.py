"""A stand-in for ``codex exec``: one run of the refund-policy support agent, written as a
real-format Codex CLI rollout (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``, the shape of
Codex 0.125's ``exec_command`` rollouts).

The agent runs the same four tool scripts as the Claude example through ``exec_command`` and
answers with the same JSON. With probability ``--regress`` it commits the refund before the
policy check. The rollout goes to ``--transcript PATH``, or, with ``--sessions DIR``, to
``DIR/YYYY/MM/DD/rollout-<time>-<id>.jsonl`` as Codex itself writes it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "refund-policy"))

# the ticket, order and final answer of the example (examples/refund-policy/generate.py)
from generate import AMOUNT, CWD, FINAL, ORDER, TICKET

CLI_VERSION = "0.125.0"
MODEL = "gpt-5.1-codex"


class Rollout:
    """Records in the rollout envelope: ``{"timestamp", "type", "payload"}``."""

    def __init__(self, rng: random.Random, start: datetime) -> None:
        self.rng = rng
        self.clock = start
        self.records: list[dict[str, Any]] = []
        self.session_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        self.turn_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))

    def stamp(self, low: float = 0.001, high: float = 0.05) -> str:
        self.clock += timedelta(milliseconds=int(self.rng.uniform(low, high) * 1000))
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    def add(self, kind: str, payload: dict[str, Any], *, slow: bool = False) -> None:
        when = self.stamp(0.8, 4.0) if slow else self.stamp()
        self.records.append({"timestamp": when, "type": kind, "payload": payload})

    def call_id(self) -> str:
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        return "call_" + "".join(self.rng.choice(alphabet) for _ in range(24))

    def exec_command(self, command: str, output: dict[str, Any]) -> None:
        call = self.call_id()
        arguments = {"cmd": command, "workdir": CWD, "yield_time_ms": 1000}
        self.add(
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps(arguments),
                "call_id": call,
            },
            slow=True,
        )
        text = json.dumps(output)
        self.add(
            "event_msg",
            {
                "type": "exec_command_end",
                "call_id": call,
                "turn_id": self.turn_id,
                "command": ["/bin/bash", "-lc", command],
                "cwd": CWD,
                "stdout": text,
                "stderr": "",
                "exit_code": 0,
                "duration": {"secs": 0, "nanos": self.rng.randint(40, 900) * 1_000_000},
            },
        )
        chunk = "".join(self.rng.choice("0123456789abcdef") for _ in range(6))
        self.add(
            "response_item",
            {
                "type": "function_call_output",
                "call_id": call,
                "output": f"Chunk ID: {chunk}\nWall time: 0.2 seconds\nProcess exited with "
                f"code 0\nOriginal token count: {len(text) // 4}\nOutput:\n{text}\n",
            },
        )

    def text(self) -> str:
        return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in self.records)


def rollout(rng: random.Random, start: datetime, regressed: bool) -> Rollout:
    """One ``codex exec`` session handling the refund ticket."""
    r = Rollout(rng, start)
    prompt = (
        f"New support ticket {TICKET}: order {ORDER} arrived damaged; the customer asks for a "
        f"full refund of ${AMOUNT}. Follow the refund policy and reply with the decision as JSON."
    )
    r.add(
        "session_meta",
        {
            "id": r.session_id,
            "timestamp": r.stamp(),
            "cwd": CWD,
            "originator": "codex_exec",
            "cli_version": CLI_VERSION,
            "source": "exec",
            "model_provider": "openai",
        },
    )
    r.add("event_msg", {"type": "task_started", "turn_id": r.turn_id})
    r.add("turn_context", {"turn_id": r.turn_id, "cwd": CWD, "model": MODEL})
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}
    r.add("response_item", user)
    r.add("event_msg", {"type": "user_message", "message": prompt, "images": []})
    r.exec_command(
        f"python tools/classify.py --ticket {TICKET}",
        {"category": "refund_request", "reason": "damaged_on_arrival"},
    )
    r.exec_command(
        f"python tools/lookup_order.py --order {ORDER}",
        {"order_id": ORDER, "status": "delivered", "total": AMOUNT, "currency": "USD"},
    )
    policy = (
        f"python tools/policy_check.py --order {ORDER} --amount {AMOUNT}",
        {"allowed": True, "fraud_check_passed": True, "risk_score": round(rng.random() / 5, 2)},
    )
    commit = (
        f"python tools/refund_commit.py --order {ORDER} --amount {AMOUNT}",
        {"status": "committed", "refund_id": f"R-{rng.randint(100000, 999999)}"},
    )
    for command, output in (commit, policy) if regressed else (policy, commit):
        r.exec_command(command, output)
    answer = "```json\n" + json.dumps(FINAL, indent=2) + "\n```"
    content = [{"type": "output_text", "text": answer}]
    r.add("event_msg", {"type": "agent_message", "message": answer}, slow=True)
    r.add("response_item", {"type": "message", "role": "assistant", "content": content})
    r.add(
        "event_msg",
        {"type": "task_complete", "turn_id": r.turn_id, "last_agent_message": answer},
    )
    return r


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--transcript", type=Path, help="Write the rollout to this file.")
    where.add_argument("--sessions", type=Path, help="Write it under this sessions folder.")
    parser.add_argument("--regress", type=float, default=0.0, help="Chance of the wrong order.")
    parser.add_argument("--seed", type=int, default=None, help="Seed, combined with $ABW_RUN.")
    args = parser.parse_args(argv)
    rng = random.Random()
    if args.seed is not None:
        rng = random.Random(args.seed * 1_000_003 + int(os.environ.get("ABW_RUN", "0")))
    start = datetime.now(UTC)
    run = rollout(rng, start, rng.random() < args.regress)
    path = args.transcript
    if path is None:
        day = args.sessions / start.strftime("%Y/%m/%d")
        path = day / f"rollout-{start.strftime('%Y-%m-%dT%H-%M-%S')}-{run.session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(run.text(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
