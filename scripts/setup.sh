#!/usr/bin/env bash
# Install abw and everything its tests use into the virtual environment whose bin/ is $1.
#
# torch is installed first, as its CPU build, so the `latent` extra's range is already met and pip
# never resolves the CUDA build (cuda-toolkit, cudnn, nccl, triton: several GB) that the default
# index serves on Linux. Order: PyTorch's CPU index (short timeout, no retries); where that is not
# reachable, the default index, but only if what it would install is a CPU build (a local wheel
# mirror, macOS); otherwise stop with the fix named. The result is checked: torch.version.cuda
# must be None. ABW_TORCH_CPU_INDEX names another CPU-wheel index (a mirror).
set -euo pipefail
bin="${1:-.venv/bin}"
quiet=(--quiet --disable-pip-version-check)
torch_pin="torch==2.13.0"
cpu_index="${ABW_TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu}"

# 0 when the environment has the pinned torch and it is a CPU build.
cpu_torch_installed() {
  "$bin/python" - "${torch_pin#torch==}" <<'EOF' 2>/dev/null
import sys
import torch
base = torch.__version__.split("+")[0]
gpu = torch.version.cuda or getattr(torch.version, "hip", None)
sys.exit(0 if base == sys.argv[1] and not gpu else 1)
EOF
}

# 0 when installing the pin from the default index would bring no CUDA/ROCm packages.
default_index_is_cpu() {
  local report
  report=$(mktemp)
  "$bin/pip" install "${quiet[@]}" --dry-run --ignore-installed --report "$report" "$torch_pin" \
    >/dev/null || { rm -f "$report"; return 1; }
  local rc=0
  "$bin/python" - "$report" <<'EOF' || rc=$?
import json, sys
install = json.load(open(sys.argv[1]))["install"]
gpu = []
for item in install:
    name, version = item["metadata"]["name"].lower(), item["metadata"]["version"]
    if name.startswith(("nvidia-", "triton", "pytorch-triton", "cuda-")):
        gpu.append(name)
    elif name == "torch" and "+" in version and not version.endswith("+cpu"):
        gpu.append(f"torch {version}")
if gpu:
    shown = ", ".join(sorted(gpu)[:4]) + (", ..." if len(gpu) > 4 else "")
    print(f"setup: the default index offers a GPU build of torch ({shown})", file=sys.stderr)
sys.exit(1 if gpu else 0)
EOF
  rm -f "$report"
  return $rc
}

if ! cpu_torch_installed; then
  if ! "$bin/pip" install "${quiet[@]}" --timeout 10 --retries 0 --index-url "$cpu_index" \
      "$torch_pin" 2>/dev/null; then
    echo "setup: $cpu_index not reachable; trying the default index" >&2
    if ! default_index_is_cpu; then
      echo "setup: refusing to install the CUDA build of torch; make $cpu_index reachable," \
        "set ABW_TORCH_CPU_INDEX to a mirror of it, or install a CPU $torch_pin into $bin first" >&2
      exit 1
    fi
    "$bin/pip" install "${quiet[@]}" "$torch_pin"
  fi
  if ! cpu_torch_installed; then
    echo "setup: the installed torch is not the CPU build of $torch_pin" >&2
    exit 1
  fi
fi
"$bin/pip" install "${quiet[@]}" -e ".[dev,latent,mcp]"

# Headless Chromium for the HTML report test, cmark-gfm (GitHub's Markdown renderer) for the
# rendered-Markdown tests (Debian packages; need root).
if ! command -v chromium >/dev/null 2>&1 || ! command -v cmark-gfm >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium cmark-gfm >/dev/null
  else
    echo "setup: chromium not found; the HTML browser test will be skipped" >&2
  fi
fi
