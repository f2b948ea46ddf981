#!/usr/bin/env bash
# The latent GPU check (docs/latent.md, "On a GPU"), run as is by
# .github/workflows/example-gpu-latent.yml. Its steps:
#   bench-0.5b, bench-1.5b  batched vs naive extraction at model scale: random models of
#       Qwen2.5-0.5B's and -1.5B's architecture and size, 32 and 256 trajectories of 24 steps,
#       float32 and bfloat16 (the naive loop on the first N trajectories: its rate does not
#       depend on how many it is given, and at 1.5B it takes minutes);
#   trace  abw-latent trace over real Claude Code sessions from tests/corpus/ on CUDA;
#   gate   abw gate on the CPU with and without --latent: the verdict must not change and the
#       report must carry the advisory plot.
#
#   benchmarks/latent_gpu_check.sh WORK [MODEL]
#
# WORK receives models/ (the built models) and results/ (bench-*.json and .md, profiles/,
# trace.txt, traces/, latent/, spec.yaml, the gate reports). MODEL is the trace step's model,
# a folder or hub id (default: the random Qwen2.5-0.5B-sized model, built if not there yet).
# STEPS="trace gate" runs only those steps; DEVICE=cpu runs on the CPU (slow at these sizes).
set -euo pipefail
work=${1:?usage: benchmarks/latent_gpu_check.sh WORK [MODEL]}
model=${2:-$work/models/qwen2.5-0.5b}
device=${DEVICE:-cuda}
steps=" ${STEPS:-bench-0.5b bench-1.5b trace gate} "
results=$work/results
mkdir -p "$results"

bench() {  # SIZE DTYPES TRAJECTORIES NAIVE_TRAJECTORIES
  python3 benchmarks/latent_bench.py --size "$1" --models-dir "$work/models" --device "$device" \
    --dtype "$2" --trajectories "$3" --steps 24 --naive-trajectories "$4" \
    --json "$results/bench-$1-${2//,/-}.json" --markdown "$results/bench-$1-${2//,/-}.md" \
    --profile "$results/profiles"
}
if [[ $steps == *" bench-0.5b "* ]]; then
  bench qwen2.5-0.5b float32,bfloat16 32,256 32
fi
if [[ $steps == *" bench-1.5b "* ]]; then
  bench qwen2.5-1.5b bfloat16 32,256 8
  bench qwen2.5-1.5b float32 32 4
fi

if [[ $steps == *" trace "* ]]; then
  if [[ -z ${2:-} && ! -f $model/config.json ]]; then
    python3 -m abw.latent.tiny qwen2.5-0.5b "$model"
  fi
  sessions_baseline=tests/corpus/claude-code
  sessions_candidate=tests/corpus/claude-code-live-versions
  for role in baseline candidate; do
    sessions=sessions_$role
    common=(--input "${!sessions}" --scenario-id claude-sessions)
    abw import claude "${common[@]}" --out "$results/traces/$role"
    start=$(date +%s%N)
    abw-latent trace "${common[@]}" --out "$results/latent/$role" --model "$model" \
      --device "$device" --keep-vectors f16 --offline 2>&1 | tee -a "$results/trace.txt"
    echo "$role: $((($(date +%s%N) - start) / 1000000)) ms" | tee -a "$results/trace.txt"
  done
fi

if [[ $steps == *" gate "* ]]; then
  abw spec init --baseline "$results/traces/baseline" --out "$results/spec.yaml"
  gate=(abw gate --baseline "$results/traces/baseline" --candidate "$results/traces/candidate"
    --spec "$results/spec.yaml")
  plain=0 && "${gate[@]}" --report-dir "$results/plain" >/dev/null || plain=$?
  with=0 && "${gate[@]}" --report-dir "$results/with-latent" --latent "$results/latent" || with=$?
  python3 benchmarks/latent_gate_check.py "$results/plain" "$results/with-latent" "$plain" "$with"
fi
