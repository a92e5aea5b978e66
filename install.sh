#!/bin/sh
# Installs ion, the terminal LLM agent: downloads the release binary for this OS and CPU, checks it
# against the release's SHA256SUMS, and puts it in ~/.local/bin (or $ION_INSTALL_DIR).
#
#   curl -fsSL https://github.com/ion-cli/ion/releases/latest/download/install.sh | sh
#
# ION_INSTALL_DIR   where to put `ion` (default: ~/.local/bin)
# ION_INSTALL_BASE  where the release assets are (default: the latest GitHub release)
#
# Nothing is installed unless the download matches its checksum.
set -eu

base=${ION_INSTALL_BASE:-https://github.com/ion-cli/ion/releases/latest/download}
base=${base%/}

say() {
  printf '%s\n' "$*"
}

fail() {
  printf 'ion install: %s\n' "$*" >&2
  exit 1
}

if [ -n "${ION_INSTALL_DIR:-}" ]; then
  dir=$ION_INSTALL_DIR
elif [ -n "${HOME:-}" ]; then
  dir=$HOME/.local/bin
else
  fail "HOME is not set: set ION_INSTALL_DIR to the directory ion should go to"
fi

case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW* | MSYS* | CYGWIN*) os=windows ;;
  *) fail "no ion release for this system ($(uname -s)); build it from source: bun run build" ;;
esac

case $(uname -m) in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) fail "no ion release for this CPU ($(uname -m)); build it from source: bun run build" ;;
esac

# A shell under Rosetta on an Apple silicon Mac reports x86_64; the native build is the better one.
if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
  arch=arm64
fi

ext=
[ "$os" = windows ] && ext=.exe
asset=ion-$os-$arch$ext

# download URL FILE
if command -v curl >/dev/null 2>&1; then
  download() { curl -fsSL -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
  download() { wget -q -O "$2" "$1"; }
else
  fail "neither curl nor wget is installed; install one of them and run this again"
fi

# sha256 FILE: prints the file's SHA-256 in hex
if command -v sha256sum >/dev/null 2>&1; then
  sha256() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
  sha256() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
elif command -v openssl >/dev/null 2>&1; then
  sha256() { openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1; }
else
  fail "no SHA-256 tool (sha256sum, shasum or openssl) to check the download with"
fi

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t ion-install)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

say "downloading $asset from $base"
download "$base/$asset" "$tmp/$asset" ||
  fail "cannot download $base/$asset (no release for $os-$arch there, or the network failed)"
download "$base/SHA256SUMS" "$tmp/SHA256SUMS" ||
  fail "cannot download $base/SHA256SUMS, so the download cannot be checked; nothing was installed"

# `sha256sum` writes "<hash>  <file>", or "<hash> *<file>" in binary mode.
expected=$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/SHA256SUMS")
[ -n "$expected" ] || fail "SHA256SUMS lists no $asset; nothing was installed"
actual=$(sha256 "$tmp/$asset")
if [ "$actual" != "$expected" ]; then
  fail "checksum mismatch for $asset (expected $expected, got $actual): the download is damaged or not the published file; nothing was installed"
fi

mkdir -p "$dir" || fail "cannot create $dir"
# Copy next to the target, then rename: an ion that is running keeps its old file, and no half-written
# binary is ever at $dir/ion.
target=$dir/ion$ext
cp "$tmp/$asset" "$target.tmp.$$" || fail "cannot write to $dir"
chmod 755 "$target.tmp.$$"
mv -f "$target.tmp.$$" "$target" || {
  rm -f "$target.tmp.$$"
  fail "cannot write $target"
}

if version=$("$target" --version 2>&1); then
  say "installed $version to $target"
else
  fail "installed $target, but it does not run on this system: $version"
fi

case ":${PATH:-}:" in
  *":$dir:"*) ;;
  *)
    say ""
    say "$dir is not on your PATH. Add it in your shell's profile (~/.profile, ~/.bashrc or ~/.zshrc):"
    say "  export PATH=\"$dir:\$PATH\""
    ;;
esac
