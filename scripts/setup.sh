#!/usr/bin/env bash
# Installs what Hangar needs on Debian 12 (idempotent; quiet when all is there).
# Used by scripts/run.sh, scripts/test.sh and scripts/build-packages.sh.
#
#   bash scripts/setup.sh              the desktop app, its UI and its tests
#   bash scripts/setup.sh --headless   only what `hangar serve` needs to build
#
# Stops, before anything is built, with one sentence saying what to do when
# it cannot go on: apt packages missing and no root or sudo to install them
# (it prints the apt-get line to run as root), Node.js too old for the UI
# build, or no Rust toolchain new enough.
set -euo pipefail

headless=0
case "${1:-}" in
  --headless) headless=1 ;;
  "") ;;
  *) echo "setup.sh: unknown option $1 (--headless or nothing)" >&2; exit 2 ;;
esac

need_apt=()
# The host: a C compiler and pkg-config for the -sys crates, libdbus for the
# OS keyring (keyring's Secret Service backend; tauri's default features too).
command -v cc >/dev/null 2>&1 || need_apt+=(build-essential)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
command -v git >/dev/null 2>&1 || need_apt+=(git)
dpkg -s libdbus-1-dev >/dev/null 2>&1 || need_apt+=(libdbus-1-dev)
if [ "$headless" -eq 0 ]; then
  command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
  command -v npm >/dev/null 2>&1 || need_apt+=(npm)
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
  # usage.mjs moves turns back in time in the host's real store file.
  command -v sqlite3 >/dev/null 2>&1 || need_apt+=(sqlite3)
  # The package test (scripts/check-package.sh): Debian's own checker, the
  # rpm tool to read the .rpm, systemd-analyze for the user unit, and
  # desktop-file-validate for the desktop entry.
  command -v lintian >/dev/null 2>&1 || need_apt+=(lintian)
  command -v rpm >/dev/null 2>&1 || need_apt+=(rpm)
  command -v systemd-analyze >/dev/null 2>&1 || need_apt+=(systemd)
  command -v desktop-file-validate >/dev/null 2>&1 || need_apt+=(desktop-file-utils)
  command -v dpkg-shlibdeps >/dev/null 2>&1 || need_apt+=(dpkg-dev)
fi
if [ "${#need_apt[@]}" -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "setup: missing Debian packages and no sudo here: run as root \`apt-get install -y --no-install-recommends ${need_apt[*]}\`, then run this again" >&2
      exit 1
    fi
    SUDO="sudo"
  fi
  echo "setup: installing ${need_apt[*]} with apt-get" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# The UI's build tools (Vite 7, ui/package.json) need Node.js 20.19 or newer
# (or 22.12+); Debian 12's own nodejs is 18.
if [ "$headless" -eq 0 ]; then
  node_version=$(node --version 2>/dev/null || echo none)
  node_ok=0
  if [[ $node_version =~ ^v([0-9]+)\.([0-9]+)\. ]]; then
    major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
    if [ "$major" -gt 22 ] || { [ "$major" -eq 22 ] && [ "$minor" -ge 12 ]; } || { [ "$major" -eq 20 ] && [ "$minor" -ge 19 ]; }; then
      node_ok=1
    fi
  fi
  if [ "$node_ok" -eq 0 ]; then
    echo "setup: the UI build needs Node.js 20.19 or newer (or 22.12+), found $node_version ($(command -v node || echo 'no node on PATH')): install Node.js 20 or 22 (NodeSource's nodejs package, or nvm), then run this again" >&2
    exit 1
  fi
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: Rust (cargo 1.90 or newer) is required: install it with rustup (Debian's own cargo is too old)" >&2
  exit 1
fi
rust_minor=$(rustc --version | sed -nE 's/^rustc 1\.([0-9]+)\..*/\1/p')
if [ "${rust_minor:-0}" -lt 90 ]; then
  echo "setup: Rust 1.90 or newer is required, found $(rustc --version): run \`rustup update stable\`" >&2
  exit 1
fi
