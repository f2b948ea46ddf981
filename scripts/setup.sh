#!/usr/bin/env bash
# Install abw and everything its tests use into the virtual environment whose bin/ is $1.
# torch is pinned to the CPU build first, so the `latent` extra's range is already met.
set -euo pipefail
bin="${1:-.venv/bin}"
quiet=(--quiet --disable-pip-version-check)

"$bin/python" -c "import torch" 2>/dev/null || "$bin/pip" install "${quiet[@]}" torch==2.13.0
"$bin/pip" install "${quiet[@]}" -e ".[dev,latent,mcp]"

# Headless Chromium for the HTML report test (Debian package; needs root).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "setup: chromium not found; the HTML browser test will be skipped" >&2
  fi
fi
