#!/usr/bin/env bash
# Set up and run every test: unit tests, end-to-end suites against the real
# binary, and interop tests with real ACP agents from npm against a mock model
# server on 127.0.0.1; the desktop UI's vitest suite and its Chromium UI
# tests (src-tauri/tests/ui_chromium.rs) and the real app window driven
# through WebKitWebDriver on Xvfb (src-tauri/tests/real_window.rs); the
# packages, built, installed with apt and opened (scripts/check-package.sh). Then
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
# npm ci: the lock file as npm 11 writes it (every platform's optional
# binaries) is taken as it is and never rewritten, so the checkout stays clean.
(cd ui && npm ci --no-audit --no-fund --loglevel=error && npx biome ci . && npx vitest run && npm run build)
export HANGAR_REQUIRE_UI=1

echo "== format: rustfmt (rustfmt.toml)"
cargo fmt --all --check

echo "== build"
cargo build --workspace --all-targets

echo "== ui/src/gen: the TypeScript generated from the Rust protocol types is committed and current"
cargo test -q -p hangar-desktop-protocol --lib export_bindings; git diff --exit-code --stat -- ui/src/gen; test -z "$(git ls-files --others --exclude-standard -- ui/src/gen)" || { echo "ui/src/gen has files not committed"; exit 1; }

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

echo "== package: .deb and .rpm built from the debug build, checked, installed with apt, opened, removed"
tmp_icons=$(mktemp -d)
bash scripts/icons.sh "$tmp_icons" 2>/dev/null
diff -r "$tmp_icons" src-tauri/icons >/dev/null || { echo "src-tauri/icons is not what icons/hangar.svg makes: run bash scripts/icons.sh and commit"; exit 1; }
rm -rf "$tmp_icons"
if [ "$(id -u)" -eq 0 ]; then
  xvfb-run -a -s "-screen 0 1280x800x24" bash scripts/check-package.sh
elif [ -n "${CI:-}" ]; then
  echo "the package test installs with apt-get and needs root" >&2
  exit 1
else
  echo "NOTE: not root: the package test (scripts/check-package.sh, which installs with apt-get) was not run" >&2
fi

echo "== node: mock model server self-test"
node --test tests/interop/mock-model-server/

echo "== node: setup.sh and run.sh as a newcomer meets them"
node --test tests/scripts/

echo "== clippy"
cargo clippy --workspace --all-targets -- -D warnings
