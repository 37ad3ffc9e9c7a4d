#!/usr/bin/env bash
# `make bench-ui`: the long-run browser benchmark. Builds the release site and server,
# starts the server on a free port with a throwaway database, and prints the figures of
# end2end/bench/long-run.mjs (10,000 items; 200 deltas/s). Usage: scripts/bench-ui.sh [items] [seconds]
source "$(dirname "$0")/lib.sh"

scripts/setup.sh test
scripts/build.sh release

bench_server target/release/agent-os
(cd end2end && BASE_URL="http://127.0.0.1:$port" node bench/long-run.mjs "${1:-10000}" "${2:-20}")
