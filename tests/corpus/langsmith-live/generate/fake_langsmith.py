"""A loopback stub of the LangSmith API that stores what the SDK sends: ``GET /info`` (with
multipart ingestion and zstd compression on or off), ``POST /runs/batch``, ``POST
/runs/multipart`` (decompressed, split into parts), ``POST/PATCH /runs[/{id}]``; it serves the
runs back for ``Client().list_runs`` (``GET /sessions``, ``POST /runs/query``).
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import zstandard

PROJECT_ID = "5f0e1d2c-3b4a-4958-8776-655443322110"


def split_multipart(body: bytes, content_type: str) -> list[dict[str, Any]]:
    """The parts of a ``multipart/form-data`` body as ``{name, content_type, headers, value}``
    (a JSON value parsed, anything else as text)."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    parts = []
    for part in message.iter_parts():
        raw = part.get_payload(decode=True) or b""
        kind = part.get_content_type()
        headers = {k: str(v) for k, v in part.items() if k.lower() != "content-disposition"}
        value: Any = json.loads(raw) if kind == "application/json" else raw.decode()
        parts.append(
            {"name": part.get_param("name", header="content-disposition"), "content_type": kind}
            | {"headers": headers, "value": value}
        )
    return parts


class FakeLangSmith:
    """Serve on 127.0.0.1:``port``; ``received`` holds ``(method, path, headers, body)``."""

    def __init__(self, port: int, multipart: bool, zstd: bool) -> None:
        self.info = {
            "version": "0.12.0",
            "batch_ingest_config": {
                "use_multipart_endpoint": multipart,
                "size_limit": 100,
                "size_limit_bytes": 20_971_520,
                "scale_up_nthreads_limit": 16,
                "scale_up_qsize_trigger": 1000,
                "scale_down_nempty_trigger": 4,
            },
            "instance_flags": {"zstd_compression_enabled": zstd},
        }
        self.received: list[tuple[str, str, dict[str, str], bytes]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self.url = f"http://127.0.0.1:{port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _body(self) -> bytes:
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length)
                with stub.lock:
                    stub.received.append((self.command, self.path, dict(self.headers), data))
                return data

            def do_GET(self) -> None:
                self._body()
                if self.path.startswith("/info"):
                    self._send(200, stub.info)
                elif self.path.startswith("/sessions"):
                    project = {"id": PROJECT_ID, "name": "shop", "tenant_id": PROJECT_ID}
                    project["reference_dataset_id"] = None
                    self._send(200, [project | {"start_time": "2026-12-01T00:00:00"}])
                else:
                    self._send(200, {})

            def do_POST(self) -> None:
                data = self._body()
                if self.path.startswith("/runs/query"):
                    cursors = {"next": None}
                    self._send(200, {"runs": stub.query(json.loads(data)), "cursors": cursors})
                else:
                    self._send(202, {})

            def do_PATCH(self) -> None:
                self._body()
                self._send(202, {})

            def _send(self, status: int, payload: Any) -> None:
                out = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        return Handler

    def query(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The stored runs, each post merged with its patches, in the shape ``/runs/query``
        answers (naive UTC times, a status), in start order."""
        runs: dict[str, dict[str, Any]] = {}
        for _, run in self.operations():
            target = runs.setdefault(run["id"], {})
            target.update({k: v for k, v in run.items() if v is not None or k not in target})
        served = sorted(runs.values(), key=lambda r: r.get("dotted_order") or "")
        return [_as_served(r) for r in served]

    def operations(self) -> list[tuple[str, dict[str, Any]]]:
        """Every ``(post|patch, run)`` the SDK sent, in the order it sent them."""
        found: list[tuple[str, dict[str, Any]]] = []
        for method, path, headers, body in list(self.received):
            if path.startswith("/runs/batch"):
                document = json.loads(body)
                found += [(op, r) for op in ("post", "patch") for r in document.get(op) or []]
            elif path.startswith("/runs/multipart"):
                if headers.get("Content-Encoding") == "zstd":
                    body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
                found += _from_parts(split_multipart(body, headers["Content-Type"]))
            elif method == "POST" and path.rstrip("/") == "/runs":
                found.append(("post", json.loads(body)))
            elif method == "PATCH" and path.startswith("/runs/"):
                found.append(("patch", {"id": path.rsplit("/", 1)[-1], **json.loads(body)}))
        return found

    def close(self) -> None:
        self.server.shutdown()


def _from_parts(parts: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    runs: dict[tuple[str, str], dict[str, Any]] = {}
    for part in parts:
        op, run_id, *field = part["name"].split(".")
        if op not in ("post", "patch"):
            continue
        run = runs.setdefault((op, run_id), {"id": run_id})
        run.update({field[0]: part["value"]} if field else part["value"])
    return [(op, run) for (op, _), run in runs.items()]


def _naive(moment: Any) -> Any:
    return moment.removesuffix("+00:00").removesuffix("Z") if isinstance(moment, str) else moment


def _as_served(run: dict[str, Any]) -> dict[str, Any]:
    served = {k: _naive(v) if k.endswith("_time") else v for k, v in run.items()}
    served["session_id"] = PROJECT_ID
    served["status"] = (
        "error" if run.get("error") else "success" if run.get("end_time") else "pending"
    )
    return served
