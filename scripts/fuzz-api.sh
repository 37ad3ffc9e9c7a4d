#!/usr/bin/env bash
# The JSON API fuzzed from its own description: schemathesis (PyPI) against a fresh
# `agent-os serve` with an owner's token, every operation of /api/v1/openapi.json but the
# endless event streams. Passes when no call answers 5xx and every answer's status,
# content type and body match the description. Usage: scripts/fuzz-api.sh [BIN]
source "$(dirname "$0")/lib.sh"
bin="${1:-$ROOT/target/debug/agent-os}"
st="$(schemathesis_bin)"
[ -x "$st" ] || die "schemathesis is not installed: run scripts/setup.sh test"

bench_server "$bin"
token="$(RUST_LOG=error "$bin" token create --user "$AGENT_OS_USER" --tenant default \
    --data-dir "$bench_scratch/data" | grep -o 'aos_[A-Za-z0-9_]*')"
[ -n "$token" ] || die "no API token was made for the fuzzer"

# Its working files (.hypothesis, .schemathesis) stay in the scratch directory.
if ! (cd "$bench_scratch" && timeout 900 "$st" run "http://127.0.0.1:$port/api/v1/openapi.json" \
    --url "http://127.0.0.1:$port" \
    -H "Authorization: Bearer $token" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
    --exclude-path '/api/v1/runs/{run_id}/events' --exclude-path '/api/v1/inbox/events' \
    --max-examples 25 --generation-deterministic --request-timeout 20 --workers 1 --no-color); then
    say "server log (last 40 lines)"
    tail -n 40 "$bench_scratch/server.log" >&2
    exit 1
fi
