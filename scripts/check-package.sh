#!/usr/bin/env bash
# The package test (run by scripts/test.sh, as root, after the debug build):
# builds the .deb and .rpm from the debug build (scripts/build-packages.sh
# --debug), checks what they hold, lets lintian judge the .deb, installs it
# with apt, runs `hangar --version`, `hangar-desktop --version` and
# `hangar serve` from /usr/bin, verifies the user unit with systemd-analyze
# and the desktop entry with desktop-file-validate, opens the installed app's
# window on the X display (ui/tests/window/installed.mjs, WebKitWebDriver),
# then removes the package. Prints one line per check and "N passed, M failed".
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "check-package.sh: installs the package with apt-get: run it as root" >&2
  exit 1
fi
if dpkg -s hangar >/dev/null 2>&1; then
  echo "check-package.sh: a hangar package is installed already; remove it first (apt-get remove hangar)" >&2
  exit 1
fi
started=$(date +%s)

bash scripts/build-packages.sh --debug
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
version=$(sed -n '1s/^hangar (\([^)]*\)).*/\1/p' packaging/changelog)
deb="$target/debug/bundle/deb/hangar_${version}_amd64.deb"
rpm="$target/debug/bundle/rpm/hangar-${version}.x86_64.rpm"
built=$(date +%s)

passed=0
failed=0
check() {
  local name=$1
  shift
  local out bound=(timeout 120)
  # Programs are bounded (a binary that ignored --version would open a window
  # and never end); this script's own functions bound themselves.
  declare -F "$1" >/dev/null && bound=()
  if out=$("${bound[@]}" "$@" 2>&1); then
    passed=$((passed + 1))
    echo "ok - $name"
  else
    failed=$((failed + 1))
    echo "FAIL - $name"
    printf '%s\n' "$out" | sed 's/^/    /' | tail -40
  fi
}

# What every package must hold, beside the binaries.
icons=()
for size in 32 48 64 128 256 512; do icons+=("/usr/share/icons/hicolor/${size}x${size}/apps/hangar-desktop.png"); done
common=(/usr/bin/hangar /usr/bin/hangar-desktop /usr/share/applications/Hangar.desktop
  /usr/lib/systemd/user/hangar.service "${icons[@]}")

holds_all() { # LISTING-FILE PATH...
  local listing=$1 missing=0
  shift
  for path in "$@"; do
    grep -qxF "$path" "$listing" || { echo "missing: $path"; missing=1; }
  done
  return "$missing"
}
# `hangar serve` on a free loopback port with a temp data dir: its ready line
# within 30 s, then exit status 0 within 10 s of SIGTERM (what systemctl stop sends).
serve_ready_then_stop() {
  local bin=$1 dir pid line status=0
  dir=$(mktemp -d)
  mkfifo "$dir/out"
  "$bin" serve --listen 127.0.0.1:0 --data-dir "$dir/data" --no-discover >"$dir/out" 2>"$dir/err" &
  pid=$!
  exec {fd}<"$dir/out"
  if read -r -t 30 -u "$fd" line && [[ $line == *'"type":"ready"'* ]]; then
    echo "$line"
    kill -TERM "$pid"
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "still running 10 s after SIGTERM"
      kill -KILL "$pid"
      status=1
    fi
    wait "$pid" || { echo "exit status $? after SIGTERM"; status=1; }
  else
    echo "no ready line within 30 s: ${line:-}"
    cat "$dir/err"
    kill -KILL "$pid" 2>/dev/null
    status=1
  fi
  exec {fd}<&-
  rm -rf "$dir"
  return "$status"
}

listing=$(mktemp)
trap 'rm -f "$listing"; apt-get remove -y -qq hangar >/dev/null 2>&1 || true' EXIT

dpkg-deb -c "$deb" | awk '{print $6}' | sed -E 's|^\.?/?|/|' >"$listing"
check "the .deb holds both binaries, the desktop entry, six icons, the user unit, copyright and changelog" \
  holds_all "$listing" "${common[@]}" /usr/share/doc/hangar/copyright /usr/share/doc/hangar/changelog.gz
check "the .deb is named hangar, at version $version, and depends on WebKitGTK and libdbus" \
  bash -c "dpkg-deb -f '$deb' Package Version Depends | tee /dev/stderr | grep -qx 'Package: hangar' &&
    dpkg-deb -f '$deb' Version | grep -qx '$version' &&
    dpkg-deb -f '$deb' Depends | grep -q 'libwebkit2gtk-4.1-0' &&
    dpkg-deb -f '$deb' Depends | grep -q 'libdbus-1-3'"
check "lintian reports no errors for the .deb" lintian --fail-on error --tag-display-limit 0 "$deb"

rpm -qpl "$rpm" >"$listing" 2>/dev/null
check "the .rpm holds both binaries, the desktop entry, six icons and the user unit" holds_all "$listing" "${common[@]}"
check "the .rpm is named hangar, at version $version" \
  bash -c "[ \"\$(rpm -qp --queryformat '%{NAME} %{VERSION}' '$rpm' 2>/dev/null)\" = 'hangar $version' ]"

check "apt-get installs the .deb" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb"
check "/usr/bin/hangar --version prints $version" bash -c "/usr/bin/hangar --version | tee /dev/stderr | grep -qx 'hangar $version'"
check "/usr/bin/hangar-desktop --version prints $version" \
  bash -c "/usr/bin/hangar-desktop --version | tee /dev/stderr | grep -qx 'hangar-desktop $version'"
check "the user unit passes systemd-analyze verify" systemd-analyze verify /usr/lib/systemd/user/hangar.service
check "the desktop entry passes desktop-file-validate" desktop-file-validate /usr/share/applications/Hangar.desktop
check "the desktop entry opens /usr/bin/hangar-desktop with the installed icon" \
  bash -c "grep -qx 'Exec=hangar-desktop' /usr/share/applications/Hangar.desktop &&
    grep -qx 'Icon=hangar-desktop' /usr/share/applications/Hangar.desktop"
check "/usr/bin/hangar serve says it is ready, then stops cleanly on SIGTERM" serve_ready_then_stop /usr/bin/hangar
check "the installed app opens its window and shows New session" \
  env APP_BIN=/usr/bin/hangar-desktop node ui/tests/window/installed.mjs
check "apt-get removes the package and its files" \
  bash -c "DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq hangar && [ ! -e /usr/bin/hangar ] && [ ! -e /usr/bin/hangar-desktop ] && [ ! -e /usr/lib/systemd/user/hangar.service ]"

finished=$(date +%s)
echo "# packages: .deb $(du -h "$deb" | cut -f1), .rpm $(du -h "$rpm" | cut -f1) (debug build); built in $((built - started)) s, checked in $((finished - built)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
