#!/usr/bin/env bash
# The main job: builds the library's examples and runs them.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

install_packages
say "Build (release)"
configure build/demo -Dbuildtype=release -Dtests=false -Dbench=false
ninja -C build/demo -j "$(jobs)"

say "examples/quickstart: a declared struct, encoded, decoded and printed by field name"
build/demo/examples/quickstart

say "examples/custom_format: a non-TileDB format (a sensor log) from declarations only"
build/demo/examples/custom_format
