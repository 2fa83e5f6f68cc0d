#!/usr/bin/env bash
# Make the app's PNG icons from the one source drawing, icons/hangar.svg, with
# Tauri's own `tauri icon` (from the UI's npm packages): the sizes the hicolor
# theme gets in the packages (32 to 512 px), written to src-tauri/icons and
# listed in tauri.conf.json's bundle.icon. Run it after editing the drawing and
# commit the PNGs; scripts/test.sh checks they are current.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-src-tauri/icons}
[ -x ui/node_modules/.bin/tauri ] || (cd ui && npm ci --no-audit --no-fund --loglevel=error)
rm -rf "$out.tmp" && mkdir -p "$out.tmp"
ui/node_modules/.bin/tauri icon icons/hangar.svg --output "$out.tmp" --png 32,48,64,128,256,512 >/dev/null
mkdir -p "$out"
for size in 32 48 64 128 256 512; do
  mv "$out.tmp/${size}x${size}.png" "$out/${size}x${size}.png"
done
rm -rf "$out.tmp"
