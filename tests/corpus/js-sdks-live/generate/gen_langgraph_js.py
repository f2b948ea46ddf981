"""Drive LangGraph.js agents (``drive_langgraph.mjs``) on ``ChatOpenAI`` at the loopback OpenAI
stub, traced by langsmith-js into the loopback LangSmith stub, and save each ingestion body as
langsmith-live does: ``python gen_langgraph_js.py NODE_DIR OUT_DIR CASE [batch|multipart]``
(NODE_DIR: ``npm install`` of ``package.json``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "langsmith-live" / "generate"))
sys.path.insert(0, str(HERE.parents[1] / "openai-agents-live" / "generate"))
from fake_langsmith import FakeLangSmith, split_multipart  # noqa: E402
from fake_openai import FakeOpenAI  # noqa: E402

LANGSMITH_PORT, MODEL_PORT = 23845, 23846
SCRIPTS: dict[str, list[dict]] = {
    "parallel": [
        {"tools": [("lookup_order", {"order_id": 42}), ("check_stock", {"sku": "A-1"})]},
        {"text": "CANARY-ANSWER order 42 is paid, A-1 in stock"},
    ],
    "tool_error": [
        {"tools": [("charge_card", {"order_id": 42})]},
        {"text": "CANARY-ANSWER the card was declined"},
    ],
    "api_error": [{"tools": [("lookup_order", {"order_id": 42})]}, {"error": 500}],
    "interrupt": [
        {"tools": [("refund", {"order_id": 42})]},
        {"text": "CANARY-ANSWER refunded"},
    ],
    "subagent": [
        {"tools": [("ask_billing", {"question": "CANARY-SUB is order 42 paid?"})]},
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"text": "CANARY-SUBANSWER yes, paid"},
        {"text": "CANARY-ANSWER billing says order 42 is paid"},
    ],
    "abort": [
        {"tools": [("lookup_order", {"order_id": 42}), ("run_tests", {"suite": "unit"})]},
        {"text": "CANARY-ANSWER never asked"},
    ],
    "timeout": [
        {"tools": [("lookup_order", {"order_id": 42}), ("run_tests", {"suite": "unit"})]},
        {"text": "CANARY-ANSWER never asked"},
    ],
    "stream": [
        {"tools": [("lookup_order", {"order_id": 42})]},
        {"text": "CANARY-ANSWER order 42 is paid"},
    ],
}


class ChunkedLangSmith(FakeLangSmith):
    """langsmith-live's stub, also reading the chunked bodies langsmith-js streams to
    ``/runs/multipart`` (no Content-Length)."""

    def _handler(self) -> type:
        base, stub = super()._handler(), self

        class Handler(base):  # type: ignore[misc, valid-type]
            def _body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
                    return super()._body()
                data = b""
                while size := int(self.rfile.readline().split(b";")[0], 16):
                    data += self.rfile.read(size)
                    self.rfile.readline()
                self.rfile.readline()
                with stub.lock:
                    stub.received.append((self.command, self.path, dict(self.headers), data))
                return data

        return Handler


def save(stem: Path, received: list[tuple[str, str, dict[str, str], bytes]]) -> None:
    """Each ingestion request as the SDK sent it: a ``/runs/batch`` body byte for byte, a
    ``/runs/multipart`` body as its JSON list of parts, a ``PATCH /runs/{id}`` body with its
    id in the name (``…-N.patch.<id>.json``)."""
    sent = [r for r in received if r[0] in ("POST", "PATCH") and r[1].startswith("/runs")]
    for n, (method, path, headers, body) in enumerate(sent, 1):
        print(n, method, path, len(body), file=sys.stderr)
        if path.startswith("/runs/multipart"):
            parts = split_multipart(body, headers["Content-Type"])
            data = json.dumps(parts, indent=1, ensure_ascii=False).encode() + b"\n"
            Path(f"{stem}-{n}.parts.json").write_bytes(data)
        else:
            Path(f"{stem}-{n}.json").write_bytes(body)


def main() -> None:
    node_dir, out, case = Path(sys.argv[1]).resolve(), Path(sys.argv[2]), sys.argv[3]
    mode = sys.argv[4] if len(sys.argv) > 4 else "multipart"
    server = ChunkedLangSmith(LANGSMITH_PORT, multipart=mode != "batch", zstd=False)
    stub = FakeOpenAI(SCRIPTS[case], Path(os.devnull), MODEL_PORT)
    shutil.copy(HERE / "drive_langgraph.mjs", node_dir / "drive_langgraph.mjs")
    env = {
        **os.environ,
        "MODEL_URL": stub.url,
        "LANGSMITH_TRACING": "true",
        "LANGSMITH_ENDPOINT": server.url,
        "LANGSMITH_API_KEY": "lsv2_fake_key",
        "LANGSMITH_PROJECT": "shop",
    }
    done = subprocess.run(
        ["node", str(node_dir / "drive_langgraph.mjs"), case],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    print(case, done.returncode, done.stdout.strip(), done.stderr.strip()[-600:])
    bodies = out / f"{case}-{mode}"
    bodies.mkdir(parents=True, exist_ok=True)
    save(bodies / f"{case}-{mode}", server.received)
    for written in bodies.iterdir():
        written.write_bytes(
            written.read_bytes().replace(f"{node_dir}/".encode(), b"/home/dev/shop/")
        )
    for closing in (server, stub):
        closing.close()
        closing.server.server_close()


if __name__ == "__main__":
    main()
