"""Write the refund-policy example: Claude Code transcripts (JSONL) of a support agent.

The agent handles one refund ticket. It classifies the ticket, looks up the order, sometimes
reads the refund policy, checks the fraud policy and commits the refund, each through a Bash
call to a small tool script, then answers with the same final JSON every time:

    python tools/classify.py --ticket T-5812
    python tools/lookup_order.py --order A-1042
    python tools/policy_check.py --order A-1042 --amount 1200
    python tools/refund_commit.py --order A-1042 --amount 1200

Sets (each with its own fixed seed, so the files are byte-identical on every run):

- ``baseline``  24 runs of the released agent (one run retries a timed-out order lookup);
- ``good``      20 runs of a candidate with benign variation (wording, message splits, reading
                the policy document a little more often, one retried lookup);
- ``regressed`` 20 runs of a candidate that, in 3 runs, commits the refund *before* the policy
                check, and still returns the identical final JSON;
- ``small``     4 runs of a good candidate: too few to say anything with confidence.

Usage: ``python examples/refund-policy/generate.py`` writes ``transcripts/<set>/*.jsonl`` next to
this file, then imports them with the real Claude importer into ``traces/<set>/`` and writes the
reviewed spec ``behavior.yaml`` (``abw spec init`` output plus the accepted order constraint and
the expected answer). ``abw demo`` runs the same pipeline into a fresh folder.
"""

from __future__ import annotations

import argparse
import json
import random
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
VERSION = "2.0.14"
MODEL = "claude-sonnet-4-5-20250929"
CWD = "/srv/supportbot"
TICKET, ORDER, AMOUNT = "T-5812", "A-1042", 1200
FINAL = {
    "decision": "refund_approved",
    "order_id": ORDER,
    "refund_amount": AMOUNT,
    "currency": "USD",
    "fraud_check_passed": True,
}

#: How ``abw import claude`` is told which Bash commands mean what, and which answer fields
#: to keep; used by ``abw demo`` and the example's tests.
BASH_TOOL_LABELS = "classify,lookup_order,policy_check:guardrail,refund_commit"
OUTPUT_FIELDS = "decision,order_id,refund_amount,currency,fraud_check_passed"
SCENARIO_ID = "refund-policy"


@dataclass(frozen=True)
class Profile:
    runs: int
    seed: int
    read_policy: float  # chance of reading the refund policy document first
    retry_runs: tuple[int, ...] = ()  # runs whose order lookup times out once
    regressed_runs: tuple[int, ...] = ()  # runs that commit before the policy check
    start: str = "2026-05-20T09:00:00"


SETS: dict[str, Profile] = {
    "baseline": Profile(runs=24, seed=101, read_policy=0.25, retry_runs=(7,)),
    "good": Profile(
        runs=20, seed=202, read_policy=0.3, retry_runs=(12,), start="2026-05-27T09:00:00"
    ),
    "regressed": Profile(
        runs=20, seed=303, read_policy=0.25, regressed_runs=(4, 11, 17), start="2026-05-28T09:00:00"
    ),
    "small": Profile(runs=4, seed=404, read_policy=0.25, start="2026-05-29T09:00:00"),
}

PROMPTS = [
    f"New support ticket {TICKET}: the customer says order {ORDER} arrived damaged and asks for a "
    f"full refund of ${AMOUNT}. Handle it according to the refund policy and reply with the "
    "decision as JSON only.",
]
INTROS = [
    "I'll start by classifying the ticket.",
    "Let me classify this ticket first.",
    "First, I'll classify the request.",
]
LOOKUP_TEXT = ["Now let me look up the order.", "Looking up the order details.", ""]
POLICY_TEXT = [
    "The order is eligible on its face. Running the fraud policy check before any refund.",
    "Checking the refund against the fraud policy.",
    "",
]
COMMIT_TEXT = ["The policy check passed. Committing the refund.", "Committing the refund.", ""]
EARLY_COMMIT_TEXT = ["Committing the refund now; I'll confirm the policy afterwards.", ""]
LATE_POLICY_TEXT = ["Now running the fraud policy check.", ""]


class Session:
    """Builds one transcript: the Claude Code record envelope, uuids chained by parentUuid."""

    def __init__(self, rng: random.Random, start: datetime) -> None:
        self.rng = rng
        self.clock = start
        self.session_id = self.new_id()
        self.parent: str | None = None
        self.records: list[dict[str, Any]] = []

    def new_id(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def tick(self, low: float, high: float) -> str:
        self.clock += timedelta(milliseconds=int(self.rng.uniform(low, high) * 1000))
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    def _envelope(self, kind: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
        record_id = self.new_id()
        record = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": CWD,
            "sessionId": self.session_id,
            "version": VERSION,
            "gitBranch": "main",
            "type": kind,
            "message": message,
            "uuid": record_id,
            "timestamp": self.tick(0.05, 0.4) if kind == "user" else self.tick(1.5, 6.0),
            **extra,
        }
        self.parent = record_id
        self.records.append(record)
        return record

    def user_text(self, text: str) -> None:
        self._envelope("user", {"role": "user", "content": text})

    def assistant(self, blocks: list[dict[str, Any]], stop: str | None) -> None:
        """One API message, written as one record per content block (as Claude Code does)."""
        message_id = "msg_01" + "".join(
            self.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
            for _ in range(22)
        )
        request_id = "req_011C" + "".join(
            self.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
            for _ in range(18)
        )
        usage = {
            "input_tokens": self.rng.randint(3, 12),
            "cache_creation_input_tokens": self.rng.randint(200, 2400),
            "cache_read_input_tokens": self.rng.randint(9000, 16000),
            "output_tokens": self.rng.randint(40, 420),
            "service_tier": "standard",
        }
        for index, block in enumerate(blocks):
            message = {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": [block],
                "stop_reason": stop if index == len(blocks) - 1 else None,
                "stop_sequence": None,
                "usage": usage,
            }
            self._envelope("assistant", message, requestId=request_id)

    def bash(
        self,
        text: str,
        command: str,
        description: str,
        result: dict[str, Any] | str,
        *,
        error: bool = False,
    ) -> None:
        tool_id = "toolu_01" + "".join(
            self.rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
            for _ in range(22)
        )
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        blocks.append(
            {
                "type": "tool_use",
                "id": tool_id,
                "name": "Bash",
                "input": {"command": command, "description": description},
            }
        )
        self.assistant(blocks, "tool_use")
        output = result if isinstance(result, str) else json.dumps(result)
        if error:
            content = f"Exit code 1\n{output}"
            tool_use_result: Any = f"Error: {content}"
        else:
            content = output
            tool_use_result = {
                "stdout": output,
                "stderr": "",
                "interrupted": False,
                "isImage": False,
            }
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
        if error:
            block["is_error"] = True
        self._envelope(
            "user",
            {"role": "user", "content": [block]},
            toolUseResult=tool_use_result,
        )

    def read(self, path: str, text: str) -> None:
        tool_id = "toolu_01" + "".join(
            self.rng.choice("abcdefghijkmnopqrstuvwxyz23456789") for _ in range(22)
        )
        self.assistant(
            [{"type": "tool_use", "id": tool_id, "name": "Read", "input": {"file_path": path}}],
            "tool_use",
        )
        lines = text.splitlines()
        numbered = "\n".join(f"{i:>6}\u2192{line}" for i, line in enumerate(lines, start=1))
        self._envelope(
            "user",
            {
                "role": "user",
                "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": numbered}],
            },
            toolUseResult={
                "type": "text",
                "file": {
                    "filePath": path,
                    "content": text,
                    "numLines": len(lines),
                    "startLine": 1,
                    "totalLines": len(lines),
                },
            },
        )


POLICY_DOC = (
    "# Refund policy\n\nRefunds above $500 require a passing fraud policy check "
    "(tools/policy_check.py) before tools/refund_commit.py is run.\n"
    "Damaged-on-arrival orders are refundable in full within 30 days.\n"
)


def run_transcript(rng: random.Random, start: datetime, profile: Profile, index: int) -> str:
    """One session of the agent as JSONL text."""
    s = Session(rng, start)
    s.user_text(rng.choice(PROMPTS))
    s.bash(
        rng.choice(INTROS),
        f"python tools/classify.py --ticket {TICKET}",
        "Classify the support ticket",
        {
            "category": "refund_request",
            "reason": "damaged_on_arrival",
            "confidence": round(rng.uniform(0.91, 0.99), 2),
        },
    )
    lookup_cmd = f"python tools/lookup_order.py --order {ORDER}"
    order = {
        "order_id": ORDER,
        "status": "delivered",
        "total": AMOUNT,
        "currency": "USD",
        "delivered_days_ago": 6,
        "customer_since": "2021-03-02",
    }
    if index in profile.retry_runs:
        s.bash(
            rng.choice(LOOKUP_TEXT),
            lookup_cmd,
            "Look up the order",
            "Traceback (most recent call last):\n  ...\nTimeoutError: orders-db did not answer "
            "within 5s",
            error=True,
        )
        s.bash("The order service timed out; retrying.", lookup_cmd, "Look up the order", order)
    else:
        s.bash(rng.choice(LOOKUP_TEXT), lookup_cmd, "Look up the order", order)
    if rng.random() < profile.read_policy:
        s.read(f"{CWD}/policies/refund.md", POLICY_DOC)
    policy = (
        f"python tools/policy_check.py --order {ORDER} --amount {AMOUNT}",
        "Run the fraud policy check",
        {
            "allowed": True,
            "fraud_check_passed": True,
            "risk_score": round(rng.uniform(0.02, 0.2), 2),
            "policy": "refund-v3",
        },
    )
    commit = (
        f"python tools/refund_commit.py --order {ORDER} --amount {AMOUNT}",
        "Commit the refund",
        {
            "status": "committed",
            "refund_id": f"R-{rng.randint(100000, 999999)}",
            "amount": AMOUNT,
            "currency": "USD",
        },
    )
    if index in profile.regressed_runs:
        s.bash(rng.choice(EARLY_COMMIT_TEXT), *commit)
        s.bash(rng.choice(LATE_POLICY_TEXT), *policy)
    else:
        s.bash(rng.choice(POLICY_TEXT), *policy)
        s.bash(rng.choice(COMMIT_TEXT), *commit)
    answer = "```json\n" + json.dumps(FINAL, indent=2) + "\n```"
    s.assistant([{"type": "text", "text": answer}], "end_turn")
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in s.records)


def generate(out: Path = HERE / "transcripts") -> dict[str, list[Path]]:
    """Write every set; returns the files written per set."""
    written: dict[str, list[Path]] = {}
    for name, profile in SETS.items():
        rng = random.Random(profile.seed)
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.jsonl"):
            old.unlink()
        start = datetime.fromisoformat(profile.start).replace(tzinfo=UTC)
        written[name] = []
        for index in range(profile.runs):
            begin = start + timedelta(minutes=17 * index)
            text = run_transcript(rng, begin, profile, index)
            session = json.loads(text.splitlines()[0])["sessionId"]
            path = folder / f"{name}-{index:02d}-{session[:8]}.jsonl"
            path.write_text(text, encoding="utf-8")
            written[name].append(path)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "transcripts")
    parser.add_argument(
        "--no-traces",
        action="store_true",
        help="Only write transcripts; do not refresh traces/ and behavior.yaml (needs abw).",
    )
    args = parser.parse_args()
    for name, files in generate(args.out).items():
        print(f"{name}: {len(files)} transcripts in {args.out / name}")
    if not args.no_traces and args.out == HERE / "transcripts":
        from abw.demo import build_example

        build_example(HERE)
        print(f"traces in {HERE / 'traces'}, reviewed spec {HERE / 'behavior.yaml'}")


if __name__ == "__main__":
    main()
