#!/usr/bin/env bash
# `make test`: setup, format and lint checks, the Rust tests under each feature set, a
# build, then the Playwright suite in headless Chromium against a freshly started server
# with a throwaway database. Exits non-zero on the first failure.
source "$(dirname "$0")/lib.sh"

scripts/setup.sh test

postgres_note() {
    if [ -z "${AGENT_OS_TEST_POSTGRES_URL:-}" ]; then
        printf '\n!!! SKIPPED: the PostgreSQL store tests. Set AGENT_OS_TEST_POSTGRES_URL (e.g.\n!!! postgres://postgres@127.0.0.1:5432/postgres) to run them; .ci/run does.\n\n' >&2
    else
        say "PostgreSQL store tests run against ${AGENT_OS_TEST_POSTGRES_URL%%@*}@…"
    fi
}
postgres_note

say "cargo fmt --check"
cargo fmt --all --check

say "cargo clippy (server feature set, browser feature set, pure core)"
cargo clippy -q --workspace --all-targets -- -D warnings
cargo clippy -q -p app --features hydrate --all-targets -- -D warnings
cargo clippy -q -p app --no-default-features --all-targets -- -D warnings

say "the pure core (app without features) depends on neither Leptos nor tokio"
if cargo tree -q -p app --no-default-features -e normal | grep -E '(^|[^a-z_])(leptos|tokio)[a-z_-]* v'; then
    die "app --no-default-features pulls in the crates above"
fi

say "cargo test --workspace (app with ssr, server)"
cargo test --workspace
say "cargo test -p app --features hydrate"
cargo test -p app --features hydrate

say "building the site and the server"
scripts/build.sh debug

say "the JSON API fuzzed from its OpenAPI description (schemathesis)"
scripts/fuzz-api.sh "$ROOT/target/debug/agent-os"

say "Playwright suite in headless Chromium"
port="$(free_port)"
scratch="$(mktemp -d)"
server_log="$scratch/server.log"
# The suite signs in as an owner of tenant `default`, made here as an operator would.
export AGENT_OS_TEST_USER=ada AGENT_OS_TEST_PASSWORD="suite-password-$RANDOM$RANDOM"
AGENT_OS_PASSWORD="$AGENT_OS_TEST_PASSWORD" RUST_LOG=error target/debug/agent-os user add \
    "$AGENT_OS_TEST_USER" --tenant default --role owner --data-dir "$scratch/data" >/dev/null
# Besides the demo agent (the default), a demo endpoint that breaks the protocol, so the
# browser suite can check that a violation is shown with its diagnosis. The demo agents
# answer to the demo key, which the suite is given to read what they were sent.
export AGENT_OS_DEMO_KEY="suite-demo-key-$RANDOM$RANDOM"
RUST_LOG="${RUST_LOG:-info,sqlx=warn}" target/debug/agent-os serve \
    --addr "127.0.0.1:$port" --data-dir "$scratch/data" --site-root "$SITE_ROOT" \
    --agent "raw-unbracketed=http://127.0.0.1:$port/demo/raw/unbracketed,api_key_env=AGENT_OS_DEMO_KEY" --default-agent demo \
    >"$server_log" 2>&1 &
server_pid=$!
stop_server() {
    kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    rm -rf "$scratch"
}
trap stop_server EXIT

for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$server_log" >&2; die "the server exited during start"; }
    sleep 0.1
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { cat "$server_log" >&2; die "the server did not answer /healthz"; }

# The suite reads the data directory (a secret must be in no stored byte) and starts its
# own servers for the restart test.
if ! (cd end2end && BASE_URL="http://127.0.0.1:$port" AGENT_OS_DATA_DIR="$scratch/data" \
    AGENT_OS_BIN="$ROOT/target/debug/agent-os" AGENT_OS_SITE_ROOT="$SITE_ROOT" \
    npx --no-install playwright test --project chromium); then
    say "server log (last 50 lines)"
    tail -n 50 "$server_log" >&2
    exit 1
fi

say "the client-side build (Trunk) against the same server"
spa_port="$(free_port)"
spa_log="$scratch/trunk.log"
scripts/spa.sh serve "$spa_port" "http://127.0.0.1:$port" >"$spa_log" 2>&1 &
spa_pid=$!
trap 'kill "$spa_pid" 2>/dev/null; wait "$spa_pid" 2>/dev/null || true; stop_server' EXIT
# Trunk builds before it listens; a cold build takes minutes.
for _ in $(seq 1 1200); do
    curl -fsS "http://127.0.0.1:$spa_port/" 2>/dev/null | grep -q '_bg.wasm' && break
    kill -0 "$spa_pid" 2>/dev/null || { cat "$spa_log" >&2; die "trunk serve exited"; }
    sleep 1
done
curl -fsS "http://127.0.0.1:$spa_port/" | grep -q '_bg.wasm' || { cat "$spa_log" >&2; die "trunk serve did not come up"; }
if ! (cd end2end && BASE_URL="http://127.0.0.1:$port" CSR_BASE_URL="http://127.0.0.1:$spa_port" \
    npx --no-install playwright test --project csr); then
    say "trunk log (last 30 lines)"
    tail -n 30 "$spa_log" >&2
    exit 1
fi
postgres_note
say "all checks passed"
