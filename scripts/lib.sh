# Shared helpers for the Makefile's scripts. Sourced, not executed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# The file stem of the bundle: /pkg/agent_os.<hash>.js, .wasm and .css.
OUTPUT_NAME=agent_os
SITE_ROOT="$ROOT/target/site"

say() { printf "==> [%s] %s\n" "$(date +%T)" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Runs a command as root, through sudo when we are not root already.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else die "need root to run: $* (install sudo or run as root)"
    fi
}

# How the browser bundle is compiled: "rustup" when the toolchain has the wasm32 target
# installed (a normal developer machine), otherwise "debian": Debian's rustc-web with the
# standard library built from source (rust-web-src) and linked by lld.
wasm_toolchain() {
    if command -v rustup >/dev/null 2>&1 \
        && rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
        echo rustup
    else
        echo debian
    fi
}

# The wasm linker for the Debian route: rust-lld when rust-web-llvm provides it, otherwise
# lld-22's own wasm-ld (same linker, installed without LLVM's full toolchain).
wasm_linker() {
    local candidate
    for candidate in rust-lld wasm-ld-22 wasm-ld; do
        command -v "$candidate" >/dev/null 2>&1 && { echo "$candidate"; return; }
    done
    die "no wasm linker found (install lld-22)"
}

# The environment of one wasm build on the Debian route, one VAR=value a line: Debian's
# cargo and rustc, the standard library built from source (the nightly switch that allows
# it goes only to the command given this environment), and the wasm linker.
# Since std is built from source anyway, it is built small: a panic aborts on the spot
# (no message formatting or unwinding code), panics carry no file/line strings, and
# derived Debug output names the type only. About 5 % of the gzip bundle.
debian_wasm_env() {
    printf '%s\n' "PATH=/usr/bin:$PATH" RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 \
        CARGO_UNSTABLE_BUILD_STD=std,panic_abort \
        "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS=-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Zfmt-debug=shallow --cfg erase_components -Clink-args=--emit-relocs" \
        "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=$(wasm_linker)"
}

# The wasm-bindgen version the lockfile resolved; the CLI must match it exactly.
wasm_bindgen_version() {
    awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

# apt packages from the list that are not installed yet.
missing_debs() {
    local pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || echo "$pkg"
    done
}

apt_install() {
    [ "$#" -gt 0 ] || return 0
    command -v apt-get >/dev/null 2>&1 || die "missing packages ($*) and no apt-get to install them"
    say "installing Debian packages: $*"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null
}

# A free TCP port on loopback.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Starts `$1 serve` (an agent-os binary) for a benchmark: a free port, a throwaway
# database with one owner, stopped and removed on exit. Sets `port`, and exports
# AGENT_OS_USER / AGENT_OS_PASSWORD for the benchmark to sign in with.
bench_server() {
    local bin="$1"
    port="$(free_port)"
    bench_scratch="$(mktemp -d)"
    export AGENT_OS_USER=bench AGENT_OS_PASSWORD="bench-password-$RANDOM$RANDOM"
    RUST_LOG=error "$bin" user add "$AGENT_OS_USER" --tenant default --role owner \
        --data-dir "$bench_scratch/data" >/dev/null
    RUST_LOG=warn "$bin" serve --addr "127.0.0.1:$port" --data-dir "$bench_scratch/data" \
        --site-root "$SITE_ROOT" >"$bench_scratch/server.log" 2>&1 &
    bench_pid=$!
    trap 'kill "$bench_pid" 2>/dev/null; wait "$bench_pid" 2>/dev/null || true; rm -rf "$bench_scratch"' EXIT
    for _ in $(seq 1 100); do
        curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
        sleep 0.1
    done
}

# Where `setup.sh test` installs schemathesis (the API fuzzer), pinned, in a venv of its own.
SCHEMATHESIS_VERSION=4.32.5
schemathesis_bin() {
    echo "$ROOT/target/schemathesis/bin/st"
}
