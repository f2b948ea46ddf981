#!/bin/bash
# Regenerate the tests/corpus/gemini-cli-live-more recordings: Gemini CLI 0.61.0 against the
# loopback fake Gemini API (fake_gemini.py) and a stdio MCP server (mcp_shop.py), each session in
# its own scratch HOME bind-mounted at /home/dev (unshare -m; needs root), project /home/dev/shop.
# Needs node 20 + npm. The recordings are copied to $OUT (default /tmp/gem-more-out).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cli=${GEMINI_SCRATCH:-/tmp/gem}
out=${OUT:-/tmp/gem-more-out}
[ -x "$cli/node_modules/.bin/gemini" ] || (mkdir -p "$cli" && cd "$cli" && npm install @google/gemini-cli@0.61.0)
mkdir -p "$out"
port=${PORT:-18600}
gemini() {  # gemini SCRIPT DRIVER ARGS...: one session, fresh HOME and fake server
  local script=$1 driver=$2; shift 2
  port=$((port + 1))
  local home; home=$(mktemp -d /tmp/gem-more-home.XXXX)
  mkdir -p "$home/.gemini" "$home/shop"
  cp "$here/mcp_shop.py" "$here/drive_interactive.py" "$home/"
  (cd "$here" && python3 -c "import json, scripts
s = dict(scripts.SETTINGS); s.update(scripts.EXTRA.get('$script', {}))
print(json.dumps(s, indent=2))") > "$home/.gemini/settings.json"
  printf '# Shop\nA small made-up shop.\n' > "$home/shop/README.md"
  printf 'STOCK = {"apple": 3, "pear": 0}\n' > "$home/shop/inventory.py"
  python3 "$here/fake_gemini.py" "$port" "$script" "/tmp/fake-gemini-$port.log" &
  local server=$!
  sleep 0.7
  unshare -m bash -c "mount --bind '$home' /home/dev && cd /home/dev/shop && env -i \
    PATH=/usr/bin:/bin:$(dirname "$(command -v node)") HOME=/home/dev TERM=xterm-256color \
    GEMINI_API_KEY=fake-key GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:$port \
    GEMINI_CLI_NO_RELAUNCH=1 GEMINI_CLI_TRUST_WORKSPACE=true timeout ${LIMIT:-120} $driver $*; \
    echo \"$script: exit \$?\"; ${THEN:+cd /home/dev/shop && env -i PATH=/usr/bin:/bin:$(dirname "$(command -v node)") \
    HOME=/home/dev GEMINI_API_KEY=fake-key GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:$port \
    GEMINI_CLI_NO_RELAUNCH=1 GEMINI_CLI_TRUST_WORKSPACE=true timeout 120 $THEN; echo then: exit \$?}" || true
  kill "$server"
  cp -r "$home"/.gemini/tmp/shop/chats/. "$out/" 2>/dev/null || true
  echo "$script: $(ls -R "$home"/.gemini/tmp/shop/chats/ 2>/dev/null | tr "\n" " ")"
}
bin="$cli/node_modules/.bin/gemini"
m="-m gemini-2.5-pro"
gemini 21_mcp "$bin" -p "'Is the pear in stock?'" --yolo $m
gemini 22_mcp_untrusted "$bin" -p "'Is the pear in stock?'" $m
gemini 23_max_turns "$bin" -p "'Check it three times'" --yolo $m
LIMIT=600 gemini 24_quota "$bin" -p "'Read the README'" --yolo $m
gemini 25_loop "$bin" -p "'Read the README'" --yolo $m
pty="python3 /home/dev/drive_interactive.py"
y="--yolo $m"
gemini 27_chat_save_resume "$pty" "'Read the README'" \
  "'6:/chat save snap,1:enter,3:Count pears,1:enter,8:/chat resume snap,1:enter,3:What now?,1:enter,6:x'" -- "$bin" $y
gemini 28_restore "$pty" "'Restock pears'" "'6:enter,6:restore,1:enter,8:x'" -- "$bin" $m
THEN="$bin --resume latest -p 'Did the check finish?' $y" \
  gemini 29_crash_resume "$pty" "'Run the slow check'" "'6:kill'" -- "$bin" $y
gemini 30_parallel_shells_esc "$pty" "'Run both checks'" "'6:esc'" -- "$bin" $y
gemini 31_subagent "$bin" -p "'How long is inventory.py? use a subagent'" $y
gemini 33_interactive_max_turns "$pty" "'Check it three times'" "'10:x'" -- "$bin" $y
gemini 34_subagent_esc "$pty" "'Check it with a subagent'" "'7:esc'" -- "$bin" $y
