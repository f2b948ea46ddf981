#!/bin/bash
# Drive one release's `mini` CLI (confirm mode, its own text-based config) under tmux against
# gen_versions.py --serve INTERACTIVE: reject a command, confirm one, ^C a running one, answer
# the submit with a new task, confirm, then quit.
# Usage: MINI=/path/to/venv/bin/mini ./drive_interactive.sh OUT.traj.json
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
py=$(dirname "$MINI")/python
export HOME=/home/dev LITELLM_LOCAL_MODEL_COST_MAP=True MSWEA_SILENT_STARTUP=1 MSWEA_CONFIGURED=true
export MSWEA_COST_TRACKING=ignore_errors
cfg=$(mktemp --suffix=.yaml)
url=$(mktemp)
(cd "$here" && "$py" gen_versions.py --serve INTERACTIVE "$cfg" > "$url" 2>/dev/null) &
stub=$!
until [ -s "$url" ]; do sleep 1; done
tmux new-session -d -s mini-old -x 200 -y 50 -c /home/dev/shop/msw-old \
  "$MINI -c $cfg -m openai/gpt-4o-mini -o $out \
   -t 'Fix total() in cart.py: the test in test_cart.py fails.'; sleep 5"
step() { sleep "$1"; tmux send-keys -t mini-old "${@:2}"; }
step 12 'keep the file' Enter  # reject rm -f cart.py
step 4 Enter                   # confirm cat cart.py
step 4 Enter                   # confirm sleep 20 ...
step 3 C-c                     # ... and stop it
step 3 'stop that' Enter
step 4 Enter                   # confirm the submit
step 4 'also count the lines' Enter
step 4 Enter                   # confirm wc -l
step 4 Enter                   # confirm the submit
step 4 Enter                   # quit
sleep 4
tmux capture-pane -p -t mini-old | tail -20
tmux kill-session -t mini-old 2>/dev/null || true
kill "$stub"
rm -f "$cfg" "$url"
