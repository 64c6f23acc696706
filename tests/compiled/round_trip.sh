#!/bin/sh
# round_trip.sh WRITER_HEADER READER_HEADER WRITER_COMPILED READER_COMPILED:
# every writer's array, read by every reader, gives the same sums.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
expected="sum 36, query [2, 4]: 9"
for w in "$1" "$3"; do
  for r in "$2" "$4"; do
    rm -rf "$dir/a"
    "$w" "$dir/a" > /dev/null
    got=$("$r" "$dir/a")
    if [ "$got" != "$expected" ]; then
      echo "$(basename "$w") then $(basename "$r"): \"$got\", expected \"$expected\"" >&2
      exit 1
    fi
    echo "$(basename "$w") then $(basename "$r"): $got"
  done
done
