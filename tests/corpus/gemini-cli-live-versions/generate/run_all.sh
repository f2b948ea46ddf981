#!/bin/bash
# Regenerate the tests/corpus/gemini-cli-live-versions recordings: older Gemini CLI versions
# (npm @google/gemini-cli@VERSION, each installed in /tmp/gemold-VERSION) against the loopback fake
# Gemini API (fake_gemini.py), each session in its own scratch HOME bind-mounted at /home/dev
# (unshare -m; needs root), project /home/dev/shop. Needs node 20 + npm.
# Usage: run_all.sh VERSION [SCENARIO...]; the recordings are copied to $OUT/VERSION/ (default
# OUT=/tmp/gem-versions-out) as SCENARIO__<the name the CLI gave the file>.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
version=$1; shift
cli=/tmp/gemold-$version
out=${OUT:-/tmp/gem-versions-out}/$version
[ -x "$cli/node_modules/.bin/gemini" ] || (mkdir -p "$cli" && cd "$cli" && npm install @google/gemini-cli@"$version")
mkdir -p "$out"
port=${PORT:-20017}
nodedir=$(dirname "$(command -v node)")
envs="PATH=/usr/bin:/bin:$nodedir HOME=/home/dev TERM=xterm-256color GEMINI_API_KEY=fake-key \
GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:$port GEMINI_CLI_NO_RELAUNCH=1 GEMINI_CLI_TRUST_WORKSPACE=true"
gemini() {  # gemini SCRIPT DRIVER ARGS...: one session, fresh HOME and fake server
  local script=$1 driver=$2; shift 2
  local home; home=$(mktemp -d /tmp/gem-versions-home.XXXX)
  mkdir -p "$home/.gemini" "$home/shop"
  cp "$here/drive_interactive.py" "$home/"
  (cd "$here" && python3 -c "import json, scripts; print(json.dumps(scripts.SETTINGS, indent=2))") \
    > "$home/.gemini/settings.json"
  printf '# Shop\nA small made-up shop.\n' > "$home/shop/README.md"
  printf 'STOCK = {"apple": 3, "pear": 0}\n' > "$home/shop/inventory.py"
  python3 "$here/fake_gemini.py" "$port" "$script" "$out/$script.requests.log" &
  local server=$!
  sleep 0.7
  unshare -m bash -c "mount --bind '$home' /home/dev && cd /home/dev/shop && env -i $envs \
    timeout ${LIMIT:-90} $driver $*; echo \"$script: exit \$?\"; \
    ${THEN:+env -i $envs timeout 90 $THEN; echo then: exit \$?}" || true
  kill "$server"
  for f in "$home"/.gemini/tmp/*/chats/session-*; do
    [ -e "$f" ] && cp "$f" "$out/${script}__$(basename "$f")"
  done
  echo "$script: $(ls "$home"/.gemini/tmp/*/chats/ 2>/dev/null | tr "\n" " ")"
}
bin="$cli/node_modules/.bin/gemini"
m="-m gemini-2.5-pro"
pty="python3 /home/dev/drive_interactive.py"
want() { [ ${#wanted[@]} -eq 0 ] || [[ " ${wanted[*]} " == *" $1 "* ]]; }
wanted=("$@")
want 01_shell && gemini 01_shell "$bin" -p "'What is in this project?'" --yolo $m
want 02_parallel_fail_edit && gemini 02_parallel_fail_edit "$bin" -p "'Restock pears and run the tests'" --yolo $m
want 03_no_yolo_shell && gemini 03_no_yolo_shell "$bin" -p "'Clean the build'" $m
want 04_api_error && gemini 04_api_error "$bin" -p "'Find python files'" --yolo $m
want 07_subagent_goal && gemini 07_subagent_goal "$bin" -p "'How long is inventory.py? use a subagent'" --yolo $m
want 06_resume && THEN="$bin --resume latest -p 'How often does pear appear?' --yolo $m" \
  gemini 06_resume "$bin" -p "'What is in this project?'" --yolo $m
want 08_interactive_esc && gemini 08_interactive_esc "$pty" "'Run the slow check'" "'6:esc'" -- "$bin" --yolo $m
want 09_interactive_approval_cancel && gemini 09_interactive_approval_cancel "$pty" "'Remove the dist folder'" "'6:x'" -- "$bin" $m
want 11_interactive_parallel_esc && gemini 11_interactive_parallel_esc "$pty" "'Do three steps'" "'7:esc'" -- "$bin" --yolo $m
want 13_subagent_late_minute && LIMIT=150 gemini 13_subagent_late_minute "$pty" "''" \
  "'62:How long is inventory.py? use a subagent,1:enter,20:x'" -- "$bin" --yolo $m
ls -la "$out"
