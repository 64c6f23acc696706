#!/bin/sh
# round_trip.sh WRITER READER: the array the writer makes, read by the reader,
# gives the sums the probes' data imply (a column of 1..8, a query over [2, 4]).
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
expected="sum 36, query [2, 4]: 9"
"$1" "$dir/a" > /dev/null
got=$("$2" "$dir/a")
if [ "$got" != "$expected" ]; then
  echo "$(basename "$1") then $(basename "$2"): \"$got\", expected \"$expected\"" >&2
  exit 1
fi
echo "$(basename "$1") then $(basename "$2"): $got"
