#!/usr/bin/env bash
# One-time set-up for the code-server smoke test (tests/editors/test_vscode_code_server.py).
#
# Installs code-server from npm into a cache folder without running its install scripts (they
# download prebuilt binaries from GitHub), builds its native modules from source and points
# @vscode/ripgrep at Debian's rg. Needs: Node 20 + npm, Debian packages libkrb5-dev ripgrep
# chromium python3 make g++ (installed here with apt-get when run as root).
#
# Idempotent: a finished install is marked with a stamp and reused. The last line on stdout is
# the path of the code-server executable; progress goes to stderr.
# Exit 0: ready. Exit 75: cannot set up here (registry unreachable, packages missing and not
# root, wrong Node): the test skips. Any other exit status is a bug in this script.
set -euo pipefail

VERSION="${CODE_SERVER_VERSION:-4.100.3}"
CACHE="${SKILLKIT_E2E_CACHE:-$HOME/.cache/skillkit-e2e}"
PREFIX="$CACHE/code-server-$VERSION"
BIN="$PREFIX/node_modules/.bin/code-server"
STAMP="$PREFIX/.skillkit-ready"
APT_PACKAGES=(libkrb5-dev ripgrep chromium python3 make g++)

say() { echo "setup-code-server: $*" >&2; }
unavailable() {
  say "cannot set up: $*"
  exit 75
}

if [ -f "$STAMP" ] && [ -x "$BIN" ] && command -v chromium >/dev/null && command -v rg >/dev/null; then
  echo "$BIN"
  exit 0
fi

command -v node >/dev/null && command -v npm >/dev/null || unavailable "node and npm are required"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" = 20 ] || unavailable "code-server $VERSION needs Node 20 (found $(node --version))"

# System packages.
missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "apt-get install ${missing[*]}"
    apt-get update -qq >&2 || unavailable "apt-get update failed (is the Debian mirror reachable?)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >&2 || unavailable "apt-get install ${missing[*]} failed"
  else
    unavailable "missing Debian packages: ${missing[*]} (run as root, or apt-get install them)"
  fi
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
command -v flock >/dev/null && flock 9 # another run may be installing: wait for it
if [ -f "$STAMP" ] && [ -x "$BIN" ]; then
  echo "$BIN"
  exit 0
fi

# node-gyp must use the local Node headers: downloading them needs nodejs.org.
node_root="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
if [ -z "${npm_config_nodedir:-}" ] && [ -f "$node_root/include/node/node.h" ]; then
  export npm_config_nodedir="$node_root"
fi
export npm_config_build_from_source=true npm_config_audit=false npm_config_fund=false
node_gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
[ -f "$node_gyp" ] || { say "npm's bundled node-gyp not found at $node_gyp"; exit 1; }

work="$PREFIX.partial"
rm -rf "$work" "$PREFIX"
mkdir -p "$work"
echo '{"private": true}' >"$work/package.json"
say "npm install code-server@$VERSION into $PREFIX"
(cd "$work" && npm install --ignore-scripts --no-save "code-server@$VERSION" >&2) ||
  unavailable "npm install code-server@$VERSION failed (is the npm registry reachable?)"

# What code-server's postinstall.sh does, minus the downloads.
vscode="$work/node_modules/code-server/lib/vscode"
(cd "$vscode" && npm install --ignore-scripts --omit=dev >&2) ||
  unavailable "npm install in lib/vscode failed (is the npm registry reachable?)"
(cd "$vscode/extensions" && npm install --ignore-scripts --omit=dev >&2 && node postinstall.mjs >/dev/null) ||
  unavailable "npm install in lib/vscode/extensions failed (is the npm registry reachable?)"
ln -sfn node_modules "$vscode/node_modules.asar"
ln -sf code-linux.sh "$vscode/bin/remote-cli/code-server"
ln -sf browser-linux.sh "$vscode/bin/helpers/browser.sh"
mkdir -p "$vscode/node_modules/@vscode/ripgrep/bin"
ln -sf "$(command -v rg)" "$vscode/node_modules/@vscode/ripgrep/bin/rg"

say "building native modules (a minute or two)"
(cd "$work" && npm rebuild argon2 >&2) # node-pre-gyp: build_from_source skips its download
for module in kerberos @vscode/spdlog @vscode/deviceid native-watchdog node-pty; do
  (cd "$vscode/node_modules/$module" && node "$node_gyp" rebuild >&2)
done
if [ ! -d "$vscode/node_modules/@parcel/watcher-linux-x64-glibc" ]; then
  (cd "$vscode/node_modules/@parcel/watcher" && node "$node_gyp" rebuild >&2)
fi
(cd "$work/node_modules" && node -e 'require("argon2")') >&2
(cd "$vscode/node_modules" && node -e '
  for (const m of ["kerberos", "@vscode/spdlog", "@vscode/deviceid", "native-watchdog", "node-pty", "@parcel/watcher"]) require("./" + m);
') >&2

mv "$work" "$PREFIX"
# The install scripts hard-code no paths, but check the moved tree still starts.
scratch="$(mktemp -d)"
version="$(XDG_CONFIG_HOME="$scratch" "$BIN" --version 2>/dev/null | tail -n 1)"
rm -rf "$scratch"
case "$version" in
  "$VERSION "*) ;;
  *) say "code-server --version printed: $version"; exit 1 ;;
esac
touch "$STAMP"
say "ready: code-server $version"
echo "$BIN"
