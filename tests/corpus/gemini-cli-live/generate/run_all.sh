#!/bin/bash
# Regenerate the tests/corpus/gemini-cli-live recordings: Gemini CLI 0.61.0 against the loopback
# fake Gemini API (fake_gemini.py), HOME=/home/dev, project /home/dev/shop. Needs node 20 + npm.
# The recordings land in /home/dev/.gemini/tmp/shop/chats/ (names carry the time and session id).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cli=${GEMINI_SCRATCH:-/tmp/gem}
[ -x "$cli/node_modules/.bin/gemini" ] || (mkdir -p "$cli" && cd "$cli" && npm install @google/gemini-cli@0.61.0)
mkdir -p /home/dev/.gemini /home/dev/shop
(cd "$here" && python3 -c "import json, scripts; print(json.dumps(scripts.SETTINGS, indent=2))") \
  > /home/dev/.gemini/settings.json
printf '# Shop\nA small made-up shop.\n' > /home/dev/shop/README.md
cat > /home/dev/shop/inventory.py <<'PY'
"""Tiny inventory for the shop."""

STOCK = {"apple": 3, "pear": 0}


def in_stock(item: str) -> bool:
    return STOCK.get(item, 0) > 0
PY
port=18500
gemini() {  # gemini SCRIPT DRIVER ARGS...: one session against a fresh fake server
  local script=$1 driver=$2; shift 2
  port=$((port + 1))
  python3 "$here/fake_gemini.py" "$port" "$script" "/tmp/fake-gemini-$port.log" &
  local server=$!
  sleep 0.7
  (cd /home/dev/shop && env -i PATH=/usr/bin:/bin HOME=/home/dev TERM=xterm-256color \
    GEMINI_API_KEY=fake-key GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$port" \
    GEMINI_CLI_NO_RELAUNCH=1 GEMINI_CLI_TRUST_WORKSPACE=true \
    timeout 60 $driver "$@") || true
  kill "$server"
}
bin="$cli/node_modules/.bin/gemini"
pty="python3 $here/drive_interactive.py"
gemini 01_shell "$bin" -p "What is in this project?" --yolo -m gemini-2.5-pro
gemini 02_parallel_fail_edit "$bin" -p "Restock pears and run the tests" --yolo -m gemini-2.5-pro
gemini 03_no_yolo_shell "$bin" -p "Clean the build" -m gemini-2.5-pro
gemini 04_api_error "$bin" -p "Find python files" --yolo -m gemini-2.5-pro
gemini 05_subagent_no_complete "$bin" -p "How long is inventory.py? use a subagent" --yolo -m gemini-2.5-pro
gemini 06_resume "$bin" --resume latest -p "How often does pear appear?" --yolo -m gemini-2.5-pro
gemini 07_subagent_goal "$bin" -p "How long is inventory.py? use a subagent" --yolo -m gemini-2.5-pro
gemini 08_interactive_esc "$pty" "Run the slow check" "5:esc" -- "$bin" --yolo -m gemini-2.5-pro
gemini 09_interactive_approval_cancel "$pty" "Remove the dist folder" "5:x" -- "$bin" -m gemini-2.5-pro
gemini 10_interactive_api_error "$pty" "Summarize the README" "15:x" -- "$bin" --yolo -m gemini-2.5-pro
gemini 11_interactive_parallel_esc "$pty" "Do three steps" "6:esc" -- "$bin" --yolo -m gemini-2.5-pro
gemini 12_interactive_compress "$pty" "Explain inventory.py" "4:/compress,1:enter,8:x" -- "$bin" --yolo -m gemini-2.5-pro
ls -la /home/dev/.gemini/tmp/shop/chats/
