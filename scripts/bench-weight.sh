#!/usr/bin/env bash
# `make bench-weight`: what each page fetches of the bundle before it is interactive.
# Builds the release site and server, starts the server on a free port with a throwaway
# database, and prints the figures of end2end/bench/page-weight.mjs.
# Usage: scripts/bench-weight.sh [release|debug]   (the server's profile; the wasm is always release)
source "$(dirname "$0")/lib.sh"

scripts/setup.sh test
scripts/build.sh "${1:-release}"

port="$(free_port)"
scratch="$(mktemp -d)"
bin="target/${1:-release}/agent-os"
export AGENT_OS_USER=bench AGENT_OS_PASSWORD="bench-password-$RANDOM$RANDOM"
RUST_LOG=error "$bin" user add "$AGENT_OS_USER" --tenant default --role owner \
    --data-dir "$scratch/data" >/dev/null
RUST_LOG=warn "$bin" serve --addr "127.0.0.1:$port" --data-dir "$scratch/data" \
    --site-root "$SITE_ROOT" >"$scratch/server.log" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true; rm -rf "$scratch"' EXIT
for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done
(cd end2end && BASE_URL="http://127.0.0.1:$port" node bench/page-weight.mjs)
