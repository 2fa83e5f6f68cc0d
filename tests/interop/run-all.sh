#!/usr/bin/env bash
# Run drive-acp.mjs for every agent x mode, one at a time (the agents are CPU-hungry at startup).
#   tests/interop/run-all.sh                     # all agents, all modes
#   AGENTS="codex qwen" MODES="approve reject" tests/interop/run-all.sh
#   TRANSCRIPTS=/tmp/tx tests/interop/run-all.sh # also write one wire transcript per run
# Needs `npm ci` in tests/interop/agents first. Ends with the line "N passed, N failed".
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
AGENTS="${AGENTS:-codex claude qwen gemini}"
MODES="${MODES:-approve reject cancel cancel-mid}"
pass=0
fail=0
[[ -n "${TRANSCRIPTS:-}" ]] && mkdir -p "$TRANSCRIPTS"
printf '%-7s %-10s %-5s %-10s %6s %6s %6s %6s\n' agent mode ok stop init new prompt total
for a in $AGENTS; do
  if [[ "$a" == gemini && ! -d "$HERE/agents/node_modules/@google/gemini-cli" ]]; then continue; fi
  for m in $MODES; do
    args=("$a" --quiet)
    delay=0
    case "$m" in
      approve) ;;
      reject) args+=(--reject) ;;
      cancel) args+=(--cancel) ;;
      cancel-mid) args+=(--cancel-after 500); delay=300 ;;
      *) echo "unknown mode $m" >&2; continue ;;
    esac
    [[ -n "${TRANSCRIPTS:-}" ]] && args+=(--transcript "$TRANSCRIPTS/$a.$m.jsonl")
    out="$(MOCK_DELAY_MS=$delay node "$HERE/drive-acp.mjs" "${args[@]}")"
    rc=$?
    if [[ $rc == 0 ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
    node -e '
      const s = JSON.parse(process.argv[1] || "{}"); const t = s.times || {};
      const f = (x) => (x == null ? "-" : x.toFixed(2));
      console.log([s.agent.padEnd(7), s.mode.padEnd(10), (s.ok ? "PASS" : "FAIL").padEnd(5), String(s.stopReason ?? "-").padEnd(10),
        f(t.initialize).padStart(6), f(t.sessionNew).padStart(6), f(t.prompt).padStart(6), f(t.total).padStart(6)].join(" "));
      if (!s.ok) console.log("   error: " + s.error + (s.root ? " (kept " + s.root + ")" : ""));
    ' "$out" || echo "$a $m: no summary (rc=$rc): $out"
  done
done
echo "$pass passed, $fail failed"
[[ $fail == 0 ]]
