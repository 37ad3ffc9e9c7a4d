#!/usr/bin/env bash
# `make bench-weight`: what each page fetches of the bundle before it is interactive.
# Builds the release site and server, starts the server on a free port with a throwaway
# database, and prints the figures of end2end/bench/page-weight.mjs.
# Usage: scripts/bench-weight.sh [release|debug]   (the server's profile; the wasm is always release)
source "$(dirname "$0")/lib.sh"

scripts/setup.sh test
scripts/build.sh "${1:-release}"

bench_server "target/${1:-release}/agent-os"
(cd end2end && BASE_URL="http://127.0.0.1:$port" node bench/page-weight.mjs)
