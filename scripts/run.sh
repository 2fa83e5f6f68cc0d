#!/usr/bin/env bash
# Set up and run Hangar headless: builds the host and serves on 127.0.0.1:8765.
# Any arguments are passed to `hangar serve` (see `hangar serve --help`), e.g.
#   bash scripts/run.sh --agent codex="codex-acp"
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release -p hangar-cli
exec target/release/hangar serve "$@"
