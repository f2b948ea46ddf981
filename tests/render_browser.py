"""Open a page in headless Chromium over the DevTools pipe: console errors, DOM facts, screenshots.

A small client for ``--remote-debugging-pipe`` (NUL-separated JSON on fds 3 and 4), so the tests
need nothing beyond the Debian ``chromium`` package.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--hide-scrollbars",
    "--mute-audio",
]


def _pipe() -> tuple[int, int]:
    """A pipe whose ends are numbered 10 or more, so the redirections to 3 and 4 cannot clobber
    them (bash, not dash: dash only redirects single-digit descriptors)."""
    ends = []
    for fd in os.pipe():
        high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(fd)
        ends.append(high)
    return ends[0], ends[1]


class Browser:
    """One headless Chromium with one page, driven over the DevTools pipe."""

    def __init__(self, profile_dir: Path, timeout: float = 60.0) -> None:
        self.timeout = timeout
        profile_dir.mkdir(parents=True, exist_ok=True)
        self.log = profile_dir / "chromium.log"
        stderr = self.log.open("wb")
        to_chrome_r, self._to_chrome = _pipe()
        self._from_chrome, from_chrome_w = _pipe()
        command = " ".join(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile_dir}", "--remote-debugging-pipe"]
        )
        self.proc = subprocess.Popen(
            ["bash", "-c", f"exec {command} 3<&{to_chrome_r} 4>&{from_chrome_w}"],
            pass_fds=(to_chrome_r, from_chrome_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        stderr.close()
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            ready, _, _ = select.select([self._from_chrome], [], [], left)
            if ready:
                chunk = os.read(self._from_chrome, 1 << 20)
                if not chunk:
                    log = self.log.read_text(errors="replace")[-2000:]
                    raise RuntimeError(f"chromium closed the pipe; its log ends:\n{log}")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: dict[str, Any] | None = None, *, session: bool = False):
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        try:
            os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        except BrokenPipeError:
            log = self.log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"chromium is gone; its log ends:\n{log}") from None
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        for event in self.events:
            if event.get("method") == method:
                return event
        while True:
            event = self._read_message(deadline)
            self.events.append(event)
            if event.get("method") == method:
                return event

    def open(self, url: str, width: int = 1280, height: int = 900, mobile: bool = False) -> None:
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
            session=True,
        )
        self.events.clear()
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True
        )
        return result["result"].get("value")

    def problems(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and log errors (CSP, failed loads)."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(f"exception: {params['exceptionDetails'].get('text')}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in (
                "error",
                "warning",
            ):
                found.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                found.append(f"log {params['entry']['level']}: {params['entry']['text']}")
        return found

    def screenshot(self, path: Path, *, full_page: bool = True, clip_height: int | None = None):
        metrics = self.call("Page.getLayoutMetrics", session=True)
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        viewport = metrics.get("cssLayoutViewport") or metrics["layoutViewport"]
        height = size["height"] if full_page else viewport["clientHeight"]
        if clip_height is not None:
            height = min(height, clip_height)
        params = {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {
                "x": 0,
                "y": 0,
                "width": viewport["clientWidth"],
                "height": height,
                "scale": 1,
            },
        }
        data = self.call("Page.captureScreenshot", params, session=True)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.call("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
