"""Drive the Vercel AI SDK (``drive_ai_sdk.mjs``) at the loopback stub and keep what its real
OTLP/HTTP JSON exporter POSTs: ``python gen_ai_sdk.py NODE_DIR OUT_DIR [CASE]``. NODE_DIR holds
``npm install`` of this folder's package.json. Each POSTed ExportTraceServiceRequest body is one
line of the .jsonl, as the collector's file exporter writes it; NODE_DIR in stack traces is
rewritten to ``/home/dev/shop/``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from fake_openai import FakeOpenAI

HERE = Path(__file__).resolve().parent

ORDER = {"order_id": 42}
CASES: dict[str, list[dict[str, Any]]] = {
    "parallel-tool-error": [
        {"tools": [("lookup_order", ORDER), ("check_stock", {"sku": "SKU-7"})]},
        {"tools": [("charge_card", ORDER)]},
        {"text": "CANARY-ANSWER the card was declined"},
    ],
    "aborted-mid-tool": [
        {"tools": [("lookup_order", ORDER)]},
        {"tools": [("wait_for_bank", ORDER)]},
        {"text": "never"},
    ],
    "sub-agent": [
        {"tools": [("ask_billing_agent", {"question": "CANARY-QUESTION is order 42 paid?"})]},
        {"tools": [("lookup_order", ORDER)]},
        {"text": "CANARY-SUB it is paid"},
        {"text": "CANARY-ANSWER refund approved"},
    ],
    "approval-denied": [
        {"tools": [("lookup_order", ORDER), ("refund_order", ORDER)]},
        {"text": "CANARY-ANSWER the refund was not approved"},
    ],
    "aborted-mid-stream": [
        {"tools": [("lookup_order", ORDER)]},
        {"text": "CANARY-ANSWER never finished", "stall": 2},
    ],
    "api-error": [
        {"tools": [("lookup_order", ORDER)]},
        {"error": 500},
    ],
}


class Receiver:
    """An OTLP/HTTP receiver on 127.0.0.1 that keeps each POSTed JSON body as one line."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self._body()
                json.loads(body)  # JSON, not protobuf
                receiver.lines.append(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def _body(self) -> bytes:
                if self.headers["Content-Length"] is not None:
                    return self.rfile.read(int(self.headers["Content-Length"]))
                parts = []  # Transfer-Encoding: chunked
                while size := int(self.rfile.readline().split(b";")[0], 16):
                    parts.append(self.rfile.read(size))
                    self.rfile.readline()
                self.rfile.readline()
                return b"".join(parts)

        return Handler


def run(node_dir: Path, out: Path, case: str, integration: str, stream: bool) -> None:
    """One case through one integration; write ``out``'s recording."""
    stub, receiver = FakeOpenAI(CASES[case]), Receiver()
    shutil.copy(HERE / "drive_ai_sdk.mjs", node_dir / "drive_ai_sdk.mjs")
    env = {**os.environ, "MODEL_URL": stub.url, "OTLP_URL": receiver.url}
    kase = f"stream-{case}" if stream else case
    done = subprocess.run(
        ["node", "drive_ai_sdk.mjs", kase, integration],
        cwd=node_dir,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    print(case, integration, done.stdout.strip())
    version = json.loads((node_dir / "node_modules/ai/package.json").read_text())["version"]
    mode = "streamText" if stream else "generateText"
    name = f"gen__otlp-json__ai-sdk-{version}__{integration}__{mode}__{case}.jsonl"
    data = b"".join(line + b"\n" for line in receiver.lines)
    (out / name).write_bytes(data.replace(f"{node_dir}/".encode(), b"/home/dev/shop/"))
    stub.close()
    receiver.server.shutdown()


def main() -> None:
    node_dir, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    only = sys.argv[3:] or list(CASES)
    for case in only:
        for integration in ("otel", "legacy"):
            for stream in (False, True):
                run(node_dir, out, case, integration, stream)


if __name__ == "__main__":
    main()
