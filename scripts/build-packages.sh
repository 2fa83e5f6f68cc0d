#!/usr/bin/env bash
# Build Hangar's packages with Tauri's bundler (the npm package
# @tauri-apps/cli, a prebuilt binary from the registry; nothing downloaded at
# build time):
#   target/<profile>/bundle/deb/hangar_<version>_amd64.deb
#   target/<profile>/bundle/rpm/hangar-<version>.x86_64.rpm
# Each holds /usr/bin/hangar-desktop (the app, its desktop entry and icon at
# 32 to 512 px), /usr/bin/hangar (the CLI), the user unit hangar.service, the
# copyright and the changelog; see docs/install.md. No AppImage: its bundler
# downloads linuxdeploy at build time.
#
#   bash scripts/build-packages.sh           release build (what users install)
#   bash scripts/build-packages.sh --debug   packages the debug build that the
#       test command made (no UI rebuild; scripts/check-package.sh tests it)
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
case "${1:-}" in
  --debug) profile=debug ;;
  "") ;;
  -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "build-packages.sh: unknown option $1 (--debug or nothing)" >&2; exit 2 ;;
esac

if [ "$profile" = release ]; then
  bash scripts/setup.sh
  (cd ui && npm ci --no-audit --no-fund --loglevel=error && npm run build)
  cargo build --release -p hangar-cli --bin hangar -p hangar-desktop --bin hangar-desktop
fi

# The target directory and the app's version, from one read of cargo's metadata.
read -r target version < <(cargo metadata --format-version 1 --no-deps | python3 -c '
import json, sys
m = json.load(sys.stdin)
print(m["target_directory"], next(p["version"] for p in m["packages"] if p["name"] == "hangar-desktop"))')
out="$target/$profile/bundle"
for bin in hangar hangar-desktop; do
  [ -x "$target/$profile/$bin" ] || { echo "build-packages.sh: $target/$profile/$bin is missing (the test command builds it)" >&2; exit 1; }
done

# The packages' Depends: the shared libraries both binaries link, as Debian's
# own packaging computes them (dpkg-shlibdeps), so apt brings every one.
shlib_dir=$(mktemp -d)
trap 'rm -rf "$shlib_dir"' EXIT
mkdir -p "$shlib_dir/debian"
printf 'Source: hangar\n\nPackage: hangar\nArchitecture: any\n' >"$shlib_dir/debian/control"
depends=$(cd "$shlib_dir" && dpkg-shlibdeps -O "$target/$profile/hangar" "$target/$profile/hangar-desktop" 2>/dev/null |
  sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build-packages.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
deb_depends=$(python3 -c 'import json,sys; print(json.dumps([d.strip() for d in sys.argv[1].split(",")]))' "$depends")

# Tauri's bundler packs every binary of the app's crate from the target
# directory cargo metadata names: it is given a staging one, holding stripped
# copies of the two binaries (lintian: no unstripped binaries; cargo's own
# outputs are left as they are), and the changelog compressed as Debian wants.
stage="$target/package-stage"
rm -rf "$stage" && mkdir -p "$stage/$profile" "$stage/doc"
for bin in hangar hangar-desktop; do
  strip --strip-all -o "$stage/$profile/$bin" "$target/$profile/$bin"
done
gzip -9n -c packaging/changelog >"$stage/doc/changelog.gz"

# The CLI, the changelog and the Depends go in beside what tauri.conf.json's
# bundle.linux already lists.
config=$(python3 - "$stage" "$profile" "$deb_depends" <<'PY'
import json, sys
stage, profile, deb_depends = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
files = {"/usr/bin/hangar": f"{stage}/{profile}/hangar"}
print(json.dumps({"bundle": {"linux": {
    "deb": {"files": {**files, "/usr/share/doc/hangar/changelog.gz": f"{stage}/doc/changelog.gz"},
            "depends": deb_depends},
    "rpm": {"files": files},
}}}))
PY
)
bundle=(--bundles deb,rpm --config "$config" --ci)
[ "$profile" = debug ] && bundle+=(--debug)
(cd src-tauri && CARGO_TARGET_DIR="$stage" ../ui/node_modules/.bin/tauri bundle "${bundle[@]}")

# The names packages go by: hangar_<version>_amd64.deb, hangar-<version>.x86_64.rpm.
rm -rf "$out/deb" "$out/rpm" && mkdir -p "$out/deb" "$out/rpm"
deb="$out/deb/hangar_${version}_amd64.deb"
rpm="$out/rpm/hangar-${version}.x86_64.rpm"
mv "$(ls "$stage/$profile"/bundle/deb/*.deb)" "$deb"
mv "$(ls "$stage/$profile"/bundle/rpm/*.rpm)" "$rpm"
rm -rf "$stage"
ls -l "$deb" "$rpm"
