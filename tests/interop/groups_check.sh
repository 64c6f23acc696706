#!/usr/bin/env bash
# Groups both ways between tilefmt and every release of the interop corpus
# (groups.py): tilefmt's view of each release's groups must be the view that
# release recorded (CORPUS/<release>/groups/expected.json); with `both`,
# tilefmt also writes group trees and every release reads them through its C
# API as tilefmt does. Exits 77 (skip) without a corpus (scripts/interop.sh
# makes it under build/interop, or set TILEFMT_INTEROP_DIR).
#
#   groups_check.sh INTEROP_GROUPS_EXE SOURCE_ROOT read|both
set -u
exe=$1
src=$2
mode=$3
dir=${TILEFMT_INTEROP_DIR:-$src/build/interop}
shopt -s nullglob
expected=("$dir"/corpus/*/groups/expected.json)
if [ ${#expected[@]} -eq 0 ]; then
  echo "no group corpus under $dir/corpus (run scripts/interop.sh or set TILEFMT_INTEROP_DIR): skipped"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/tilefmt-groups.XXXXXX")
trap 'rm -rf "$work"' EXIT
rc=0
echo "== tilefmt reads each release's groups as that release does"
for e in "${expected[@]}"; do
  release=$(basename "$(dirname "$(dirname "$e")")")
  if ! "$exe" view "$(dirname "$e")" > "$work/view.json"; then
    echo "  $release: FAIL: interop-groups view failed"; rc=1; continue
  fi
  if python3 "$src/tests/interop/groups.py" compare "$e" "$work/view.json" > "$work/diff.txt"; then
    echo "  $release: ok ($(python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); print(", ".join(e["cases"]))' "$e"))"
  else
    echo "  $release: FAIL"; sed 's/^/  /' "$work/diff.txt"; rc=1
  fi
done
[ "$mode" = both ] || exit $rc
echo "== every release reads the groups tilefmt writes as tilefmt does"
"$exe" write "$work/written" || exit 1
libs=("$dir"/libtiledb/*/ "$dir"/venv/tiledb-*/lib/python3*/site-packages/tiledb.libs/)
[ ${#libs[@]} -gt 0 ] || { echo "no libtiledb releases under $dir"; exit 1; }
for lib in "${libs[@]}"; do
  python3 "$src/tests/interop/groups.py" check --lib "$lib" "$work/written" || rc=1
done
exit $rc
