#!/usr/bin/env bash
# Installs what Hangar needs on Debian 12 (idempotent; quiet when all is there).
# Used by scripts/run.sh and scripts/test.sh.
set -euo pipefail

need_apt=()
command -v cc >/dev/null 2>&1 || need_apt+=(build-essential)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
command -v git >/dev/null 2>&1 || need_apt+=(git)
# The desktop app (Tauri 2: WebKitGTK) and its UI tests (headless Chromium,
# Xvfb and WebKitWebDriver for the real window). One package each is enough;
# --no-install-recommends keeps the install small (see docs/desktop.md).
dpkg -s libwebkit2gtk-4.1-dev >/dev/null 2>&1 || need_apt+=(libwebkit2gtk-4.1-dev)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v xvfb-run >/dev/null 2>&1 || need_apt+=(xvfb xauth)
command -v WebKitWebDriver >/dev/null 2>&1 || need_apt+=(webkit2gtk-driver)
# The keyring tests (tests/e2e remote_hosts) run a real Secret Service:
# gnome-keyring-daemon in a private D-Bus session (dbus-run-session).
command -v dbus-run-session >/dev/null 2>&1 || need_apt+=(dbus-daemon)
command -v gnome-keyring-daemon >/dev/null 2>&1 || need_apt+=(gnome-keyring)
# keyring's Secret Service backend links libdbus (tauri's default features need it too).
dpkg -s libdbus-1-dev >/dev/null 2>&1 || need_apt+=(libdbus-1-dev)
if [ "${#need_apt[@]}" -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} with apt-get" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: Rust (cargo 1.90 or newer) is required: https://rustup.rs (Debian's own cargo is too old)" >&2
  exit 1
fi
rust_minor=$(rustc --version | sed -nE 's/^rustc 1\.([0-9]+)\..*/\1/p')
if [ "${rust_minor:-0}" -lt 90 ]; then
  echo "setup: Rust 1.90 or newer is required, found $(rustc --version): run \`rustup update stable\`" >&2
  exit 1
fi
