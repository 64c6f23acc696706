# Shared by scripts/*.sh: install what the build needs on Debian 12 and
# configure build directories. Safe to run again.
set -euo pipefail

TILEFMT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$TILEFMT_ROOT"

say() { printf '\n== %s\n' "$*"; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

DEB_PACKAGES=(meson ninja-build pkg-config cmake g++ clang libclang-rt-14-dev
  libboost1.81-dev libxsimd-dev libzstd-dev liblz4-dev zlib1g-dev libbz2-dev
  libssl-dev libmd-dev libwebp-dev libcurl4-openssl-dev doctest-dev libbenchmark-dev python3 python3-venv python3-dev)
# The WebAssembly build and the browser tests (scripts/wasm.sh, web/tests).
WEB_PACKAGES=(emscripten chromium chromium-driver bzip2 xz-utils)

# install_packages [PACKAGE...]: those missing of the list (default: DEB_PACKAGES).

install_packages() {
  local missing=() wanted=("$@")
  [ $# -gt 0 ] || wanted=("${DEB_PACKAGES[@]}")
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    say "Debian packages: all present"
    return
  fi
  say "Installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  # On CI the downloaded .deb files go: a fresh machine's disk is the limit
  # there (scripts/test.sh), and they are not needed again.
  [ "${CI:-}" != "true" ] || $SUDO apt-get clean
}

# configure DIR [meson args...]: set up or reconfigure a build directory.
# An existing one is first regenerated (`setup --reconfigure`), which picks
# up options added to meson_options.txt since it was set up, then given the
# arguments with `meson configure` (meson 1.0 ignores -Dcpp_args on
# --reconfigure). Meson's own output is shown only when it fails.
configure() {
  local dir="$1"; shift
  local log status=0
  log=$(mktemp)
  if [ -f "$dir/build.ninja" ]; then
    { meson setup --reconfigure "$dir" && meson configure "$dir" "$@"; } >"$log" 2>&1 || status=$?
  else
    meson setup "$dir" "$@" >"$log" 2>&1 || status=$?
  fi
  [ $status -eq 0 ] || cat "$log"
  rm -f "$log"
  return $status
}

jobs() { nproc 2>/dev/null || echo 2; }
