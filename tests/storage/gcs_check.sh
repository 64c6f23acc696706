#!/usr/bin/env bash
# The GCS backend against gcp-storage-emulator (from the Python package
# index, in a virtual environment cached under WORKDIR) and, for the
# service-account sign-in, gcs_token_server.py with a key made here by
# openssl. Exits 77 (skip) when the emulator cannot be installed.
#
#   gcs_check.sh TEST_GCS_EXE SOURCE_ROOT WORKDIR
#   gcs_check.sh --prepare WORKDIR
set -u
install_emulator() {
  local venv=$1/gcs-venv
  [ -x "$venv/bin/gcp-storage-emulator" ] && return 0
  mkdir -p "$1"
  python3 -m venv "$venv" || return 1
  PIP_CACHE_DIR=$1/pip-cache "$venv/bin/pip" install -q 'gcp-storage-emulator==2026.7.19' >"$1/pip.log" 2>&1 || {
    tail -5 "$1/pip.log"
    return 1
  }
}
if [ "${1:-}" = --prepare ]; then
  install_emulator "$2"
  exit
fi
exe=$1
src=$2
work=$3
mkdir -p "$work"
install_emulator "$work" || {
  echo "gcp-storage-emulator could not be installed: skipped"
  exit 77
}
venv=$work/gcs-venv
port=$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$venv/bin/gcp-storage-emulator" start -H 127.0.0.1 --port "$port" --in-memory -q >"$work/emulator.log" 2>&1 &
server=$!
# A service account's key, and the token endpoint that knows its public half.
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/key.pem" 2>/dev/null
openssl pkey -in "$work/key.pem" -pubout -out "$work/public.pem"
rm -f "$work/token.port"
python3 "$src/tests/storage/gcs_token_server.py" "$work/token.port" "$work/public.pem" &
tokens=$!
trap 'kill $server $tokens 2>/dev/null; wait $server $tokens 2>/dev/null' EXIT
for _ in $(seq 100); do
  "$venv/bin/python" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null && break
  sleep 0.1
done
for _ in $(seq 50); do [ -s "$work/token.port" ] && break; sleep 0.1; done
token_port=$(cat "$work/token.port")
"$venv/bin/python" - "$work/key.pem" "http://127.0.0.1:$token_port/token" >"$work/service_account.json" <<'PY'
import json, sys
print(json.dumps({"type": "service_account", "client_email": "reader@tilefmt-test.iam.gserviceaccount.com",
                  "private_key": open(sys.argv[1]).read(), "token_uri": sys.argv[2]}))
PY
export TILEFMT_GCS_ENDPOINT=http://127.0.0.1:$port TILEFMT_GCS_TOKEN_SERVER=http://127.0.0.1:$token_port \
  TILEFMT_GCS_KEY_FILE=$work/service_account.json
"$exe"
