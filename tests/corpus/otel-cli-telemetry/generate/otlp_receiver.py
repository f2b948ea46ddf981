"""A loopback OTLP/HTTP (JSON) receiver: each POST body becomes one line of OUT/<signal>.jsonl.

Usage: ``python otlp_receiver.py PORT OUT`` (signal: traces, logs or metrics, from the path).
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Lock

_LOCK = Lock()


class Receiver(BaseHTTPRequestHandler):
    """Accept ``POST /v1/{traces,logs,metrics}`` and keep the JSON body."""

    out = Path(".")

    def log_message(self, fmt: str, *args: object) -> None:
        """Log each request to stderr."""
        sys.stderr.write(fmt % args + "\n")

    def do_POST(self) -> None:
        """Append the body, compacted to one line, and answer an empty success."""
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        signal = self.path.rstrip("/").rsplit("/", 1)[-1] or "unknown"
        line = json.dumps(json.loads(body), separators=(",", ":"))
        with _LOCK, (self.out / f"{signal}.jsonl").open("a") as fh:
            fh.write(line + "\n")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")


def main() -> None:
    """Serve on 127.0.0.1:PORT."""
    Receiver.out = Path(sys.argv[2])
    Receiver.out.mkdir(parents=True, exist_ok=True)
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Receiver).serve_forever()


if __name__ == "__main__":
    main()
