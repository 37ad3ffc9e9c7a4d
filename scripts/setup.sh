#!/usr/bin/env bash
# Installs whatever the build (and, with `test`, the browser tests) needs and is missing.
# Idempotent and quiet when everything is present. Downloads only from crates.io, npm and
# Debian. Usage: scripts/setup.sh [run|test]
source "$(dirname "$0")/lib.sh"
purpose="${1:-run}"

command -v cargo >/dev/null 2>&1 || die "cargo is not installed: install Rust from https://rustup.rs or your distribution"

debs=()
if [ "$(wasm_toolchain)" = debian ]; then
    # No prebuilt wasm32 standard library: compile it from source with Debian's toolchain.
    debs+=(rustc-web cargo-web rust-web-src lld-22)
fi
if [ "$purpose" = test ]; then
    debs+=(chromium)
    command -v node >/dev/null 2>&1 || debs+=(nodejs)
    command -v npm >/dev/null 2>&1 || debs+=(npm)
fi
command -v python3 >/dev/null 2>&1 || debs+=(python3)
command -v gzip >/dev/null 2>&1 || debs+=(gzip)
mapfile -t missing < <(missing_debs "${debs[@]}")
apt_install "${missing[@]}"

want="$(wasm_bindgen_version)"
[ -n "$want" ] || die "Cargo.lock names no wasm-bindgen version"
have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
if [ "$have" != "$want" ]; then
    say "installing wasm-bindgen-cli $want (the version Cargo.lock pins)"
    cargo install -q wasm-bindgen-cli --version "$want" --force
fi

# Splits the wasm bundle at its `#[lazy]` functions into chunks loaded on first use
# (docs/build.md#lazy-chunks); the version reads what wasm_split_helpers 0.2.3 writes.
split_version=0.2.4
if ! command -v wasm-split-cli >/dev/null 2>&1 \
    || ! cargo install --list | grep -q "^wasm_split_cli_support v$split_version:"; then
    say "installing wasm-split-cli $split_version (splits the bundle into lazy chunks)"
    cargo install -q wasm_split_cli_support --version "$split_version" --locked --features build-binary --force
fi

# Trunk builds and serves the client-side build the browser suite also tests. 0.21 is
# the newest line that compiles with the Rust this machine has. Built unoptimized: it
# compiles in a third of the time and spends its runs waiting on cargo anyway.
trunk_version=0.21.14
if [ "$purpose" = test ] && [ "$(trunk --version 2>/dev/null | awk '{print $2}')" != "$trunk_version" ]; then
    say "installing trunk $trunk_version (builds the client-side app)"
    cargo install -q trunk --version "$trunk_version" --locked --debug --force
fi

if [ "$purpose" = test ] && ! "$(schemathesis_bin)" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
    say "installing schemathesis $SCHEMATHESIS_VERSION (fuzzes the JSON API from its description)"
    python3 -m venv "$ROOT/target/schemathesis" \
        || die "python3 cannot make a venv: install Debian's python3-venv"
    "$ROOT/target/schemathesis/bin/pip" install -q --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

if [ "$purpose" = test ]; then
    stamp="$ROOT/end2end/node_modules/.installed-from-lock"
    if [ ! -f "$stamp" ] || [ "$ROOT/end2end/package-lock.json" -nt "$stamp" ]; then
        say "installing the end-to-end test packages (npm ci)"
        (cd "$ROOT/end2end" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >/dev/null)
        touch "$stamp"
    fi
fi
