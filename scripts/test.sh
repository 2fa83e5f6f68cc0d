#!/usr/bin/env bash
# Set up and run every test: unit tests, end-to-end suites against the real
# binary, and interop tests with real ACP agents from npm against a mock model
# server on 127.0.0.1; the desktop UI's vitest suite and its Chromium UI
# tests (src-tauri/tests/ui_chromium.rs) and the real app window driven
# through WebKitWebDriver on Xvfb (src-tauri/tests/real_window.rs). Then
# clippy with the workspace lints. Format gates: cargo fmt --check and Biome
# (ui/biome.json: format and lint) before anything is built.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

echo "== npm: pinned ACP agents for the interop tests"
(cd tests/interop/agents && npm ci --no-audit --no-fund --loglevel=error)
export HANGAR_REQUIRE_INTEROP=1
# The keyring tests start their own Secret Service (scripts/setup.sh installs it): never skip them here.
export HANGAR_REQUIRE_KEYRING=1

echo "== ui: install, unit tests (vitest), build (ui/dist is embedded in the desktop binary)"
# npm install, not npm ci: npm 11 here leaves the other platforms' optional
# binaries (@tauri-apps/cli-*, @rollup/*) out of the lock file and npm ci then
# refuses it; install keeps the locked versions and does not rewrite the lock.
(cd ui && npm install --no-audit --no-fund --loglevel=error && npx biome ci . && npx vitest run && npm run build)
export HANGAR_REQUIRE_UI=1

echo "== format: rustfmt (rustfmt.toml)"
cargo fmt --all --check

echo "== build"
cargo build --workspace --all-targets

echo "== ui/src/gen: the TypeScript generated from the Rust protocol types is committed and current"
cargo test -q -p hangar-desktop --lib export_bindings; git diff --exit-code --stat -- ui/src/gen; test -z "$(git ls-files --others --exclude-standard -- ui/src/gen)" || { echo "ui/src/gen has files not committed"; exit 1; }

echo "== tests (on a virtual X display: the real-window test opens the app's window)"
export HANGAR_REQUIRE_WINDOW=1
# ../shared/fixtures (the design notes' recorded ACP transcripts, beside the
# checkout): the transcript table replays them and checks the repository's
# copies against them. The repository's copies are replayed either way.
if [ -d ../shared/fixtures/acp-transcripts ]; then
  export HANGAR_REQUIRE_SHARED_FIXTURES=1
else
  echo "NOTE: ../shared/fixtures/acp-transcripts is not beside this checkout: only the repository's transcripts are replayed, without the drift check" >&2
fi
xvfb-run -a -s "-screen 0 1280x800x24" cargo test --workspace --no-fail-fast -- --test-threads=2

echo "== node: mock model server self-test"
node --test tests/interop/mock-model-server/

echo "== clippy"
cargo clippy --workspace --all-targets -- -D warnings
