#!/usr/bin/env bash
# The .deb on a fresh Debian 12 that has nothing but apt: a minimal system
# made with debootstrap in a folder, the package installed there with apt (so
# every dependency comes from its Depends), then, from that system,
# `hangar --version`, `hangar-desktop --version`, `hangar serve` (ready line,
# clean stop on SIGTERM), and the app's window on this machine's X display,
# read through WebKitWebDriver (ui/tests/window/installed.mjs). Run by hand,
# as root, after scripts/build-packages.sh (it downloads about 300 MB of
# Debian packages and takes some minutes; the test command does not run it).
#
#   bash scripts/check-package-fresh.sh [PATH/TO/hangar_VERSION_amd64.deb]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "check-package-fresh.sh: debootstrap and chroot need root" >&2; exit 1; }
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null

deb=${1:-$(ls target/release/bundle/deb/hangar_*_amd64.deb 2>/dev/null | head -1)}
[ -f "$deb" ] || { echo "check-package-fresh.sh: no .deb (build one with scripts/build-packages.sh)" >&2; exit 1; }
root=$(mktemp -d /var/tmp/hangar-fresh-deb12-XXXXXX)
cleanup() {
  local m still=0
  for m in tmp/.X11-unix dev/pts dev proc; do
    if mountpoint -q "$root/$m"; then umount "$root/$m" || umount -l "$root/$m" || true; fi
    mountpoint -q "$root/$m" && still=1
  done
  # Never delete through a mount that is still there (it is this machine's /dev).
  if [ "$still" -eq 0 ]; then rm -rf --one-file-system "$root"; else echo "left $root: still mounted" >&2; fi
}
trap cleanup EXIT

echo "== a fresh Debian 12 in $root (debootstrap --variant=minbase)"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/dev/null
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/"
cp "$deb" "$root/tmp/hangar.deb"

echo "== apt-get install ./hangar.deb there"
chroot "$root" bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/hangar.deb >/dev/null'
chroot "$root" /usr/bin/hangar --version
chroot "$root" /usr/bin/hangar-desktop --version

echo "== hangar serve there"
chroot "$root" bash -c 'd=$(mktemp -d); /usr/bin/hangar serve --listen 127.0.0.1:0 --data-dir "$d/data" >"$d/out" 2>"$d/err" & p=$!
  for _ in $(seq 150); do grep -q "\"type\":\"ready\"" "$d/out" && break; sleep 0.2; done
  cat "$d/out"; grep -q "\"type\":\"ready\"" "$d/out" || { cat "$d/err"; exit 1; }
  kill -TERM "$p"; wait "$p"'

echo "== its window, on this machine's display"
app=$(mktemp)
printf '#!/bin/sh\nexec chroot %s /usr/bin/hangar-desktop "$@"\n' "$root" >"$app"
chmod +x "$app"
mkdir -p "$root/tmp/.X11-unix"
# The X display and its cookie, seen from inside the chroot.
xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
  mount --bind /tmp/.X11-unix "$0/tmp/.X11-unix"
  mkdir -p "$0$(dirname "$XAUTHORITY")" && cp "$XAUTHORITY" "$0$XAUTHORITY"
  APP_BIN="$1" node ui/tests/window/installed.mjs' "$root" "$app"
rm -f "$app"
