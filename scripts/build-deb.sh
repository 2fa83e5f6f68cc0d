#!/usr/bin/env bash
# Build the Hangar desktop .deb: the UI (Vite), then Tauri's bundler from
# the npm package @tauri-apps/cli (a prebuilt binary; no cargo install).
# Output: target/release/bundle/deb/Hangar_<version>_amd64.deb
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
(cd ui && npm install --no-audit --no-fund --loglevel=error && npm run build)  # see scripts/test.sh on npm ci
cd src-tauri
../ui/node_modules/.bin/tauri build --bundles deb "$@"
ls -l ../target/release/bundle/deb/*.deb
