"""Drive LangGraph.js (``drive_langgraph.mjs``, OpenInference's LangChain.js instrumentation)
at the loopback stub and keep what the OTLP/HTTP JSON exporter POSTs, one body a line:
``python gen_langgraph.py NODE_DIR OUT_DIR [CASE]`` (NODE_DIR: ``npm install`` of
``package-langgraph.json``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from fake_openai import FakeOpenAI
from gen_ai_sdk import CASES, HERE, Receiver


def run(node_dir: Path, out: Path, case: str) -> None:
    """One case; write ``out``'s recording (NODE_DIR in stack traces: ``/home/dev/shop/``)."""
    stub, receiver = FakeOpenAI(CASES[case]), Receiver()
    shutil.copy(HERE / "drive_langgraph.mjs", node_dir / "drive_langgraph.mjs")
    env = {**os.environ, "MODEL_URL": stub.url, "OTLP_URL": receiver.url}
    done = subprocess.run(
        ["node", "drive_langgraph.mjs", case],
        cwd=node_dir,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    print(case, done.stdout.strip())
    modules = node_dir / "node_modules"
    graph = json.loads((modules / "@langchain/langgraph/package.json").read_text())["version"]
    oi = "@arizeai/openinference-instrumentation-langchain/package.json"
    instrumentation = json.loads((modules / oi).read_text())["version"]
    name = f"gen__otlp-json__langgraph-js-{graph}__openinference-langchain-js-{instrumentation}"
    data = b"".join(line + b"\n" for line in receiver.lines)
    path = out / f"{name}__{case}.jsonl"
    path.write_bytes(data.replace(f"{node_dir}/".encode(), b"/home/dev/shop/"))
    stub.close()
    receiver.server.shutdown()


def main() -> None:
    node_dir, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    for case in sys.argv[3:] or ["parallel-tool-error", "api-error"]:
        run(node_dir, out, case)


if __name__ == "__main__":
    main()
