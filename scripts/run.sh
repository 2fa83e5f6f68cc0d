#!/usr/bin/env bash
# Build and run Hangar.
#
#   bash scripts/run.sh [APP OPTIONS]
#       builds the UI and the desktop app (release) and opens its window,
#       with the host embedded; e.g. --agent mine="/opt/my-agent --acp",
#       --data-dir DIR, --browse-root DIR (docs/desktop.md, "Agents").
#   bash scripts/run.sh --headless [SERVE OPTIONS]
#       builds only the host (no WebKitGTK, Chromium or Node.js installed)
#       and runs it without a window: `hangar serve` on 127.0.0.1:8765,
#       e.g. --agent codex="codex-acp"; once built,
#       `target/release/hangar serve --help` lists every option.
#
# Binaries: target/release/hangar-desktop and target/release/hangar; put
# the CLI on PATH with `install -m755 target/release/hangar ~/.local/bin/`.
# Without a display ($DISPLAY and $WAYLAND_DISPLAY unset) the app cannot
# open its window: run.sh says so and exits with status 2, before building.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  -h | --help)
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  --headless)
    shift
    case "${1:-}" in
      -h | --help)
        sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    esac
    bash scripts/setup.sh --headless
    cargo build --release -p hangar-cli
    exec target/release/hangar serve "$@"
    ;;
esac

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  cat >&2 <<'EOF'
run.sh: no display here ($DISPLAY and $WAYLAND_DISPLAY are not set), so the
desktop app cannot open its window.

To run the host without a window (clients connect to ws://127.0.0.1:8765/):
  bash scripts/run.sh --headless
  bash scripts/run.sh --headless --help      # its options

To open the app on a virtual display instead (nothing you can see; for tests):
  xvfb-run -a bash scripts/run.sh
EOF
  exit 2
fi

bash scripts/setup.sh
echo "run.sh: building the UI (ui/dist, embedded in the app)" >&2
(cd ui && npm ci --no-audit --no-fund --loglevel=error && npm run build >/dev/null)
echo "run.sh: building the desktop app (release; the first build takes several minutes)" >&2
cargo build --release -p hangar-desktop
exec target/release/hangar-desktop "$@"
