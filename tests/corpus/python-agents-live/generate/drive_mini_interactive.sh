#!/bin/bash
# Drive the real `mini` CLI (confirm mode, mini.yaml) under tmux against serve_stub.py.
# SCRIPT INTERACTIVE: reject a call, confirm one, ^C a running one, answer the submit with a new
# task, then quit. SCRIPT HUMAN_MODE: /u (human mode), a command typed by the person, /c, quit.
# Usage: MINI=/path/to/venv/bin/mini ./drive_mini_interactive.sh INTERACTIVE|HUMAN_MODE OUT
set -eu
script=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
py=$(dirname "$MINI")/python
export HOME=/home/dev LITELLM_LOCAL_MODEL_COST_MAP=True MSWEA_SILENT_STARTUP=1
rm -f /tmp/mini-stub.url
"$py" "$here/serve_stub.py" "$script" > /tmp/mini-stub.url 2>/dev/null &
stub=$!
until [ -s /tmp/mini-stub.url ]; do sleep 1; done
url=$(cat /tmp/mini-stub.url)
tmux new-session -d -s mini -x 200 -y 50 -c /home/dev/shop \
  "$MINI -c mini.yaml -c model.model_kwargs.api_base=$url -c model.model_kwargs.api_key=sk-stub \
   -c model.cost_tracking=ignore_errors -m openai/gpt-4o-mini -o $out \
   -t 'Fix total() in cart.py: the test in test_cart.py fails.'; sleep 5"
step() { sleep "$1"; tmux send-keys -t mini "${@:2}"; }
if [ "$script" = INTERACTIVE ]; then
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
else
  step 12 /u Enter               # reject rm -f cart.py, switch to human mode
  step 4 'grep -n prices cart.py' Enter
  step 4 /c Enter                # back to confirm mode: the model answers
  step 4 Enter                   # confirm the submit
  step 4 Enter                   # quit
fi
sleep 4
tmux capture-pane -p -t mini | tail -20
tmux kill-session -t mini 2>/dev/null || true
kill "$stub"
