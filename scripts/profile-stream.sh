#!/bin/bash
# Profile the host alone while it streams: one bench-acp-stream run with
# `perf record` attached to the `hangar serve` process the bench starts.
# Usage: scripts/profile-stream.sh [CHUNKS] [OUT]   (defaults: 200000, perf-stream.data)
# Needs: cargo build --release -p hangar-cli -p hangar-fake-agent -p hangar-e2e; perf.
# HANGAR_BIN picks another hangar binary (the bench's default: beside it).
# Then: perf report -i OUT --no-children --sort sym --stdio -g none
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-200000}
out=${2:-perf-stream.data}
target/release/bench-acp-stream "$count" 1 &
bench=$!
pid=""
for _ in $(seq 1 2000); do
  pid=$(pgrep -f "hangar serve --data-dir" | head -1 || true)
  [ -n "$pid" ] && break
  sleep 0.005
done
[ -n "$pid" ] || { echo "no hangar serve process appeared" >&2; exit 1; }
perf record -F 2999 -g -p "$pid" -o "$out" 2> >(tail -1 >&2)
wait "$bench"
