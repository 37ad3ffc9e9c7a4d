#!/usr/bin/env bash
# The client-side build of the app (Trunk, `csr` feature).
#   scripts/spa.sh build               build into dist/ (Trunk.toml as written)
#   scripts/spa.sh serve PORT BACKEND  build and serve on 127.0.0.1:PORT, proxying /fn and
#                                      /api to BACKEND (e.g. http://127.0.0.1:3000)
# On the Debian wasm route Trunk runs in the environment of scripts/lib.sh's
# debian_wasm_env, like the hydrate build.
source "$(dirname "$0")/lib.sh"

command -v trunk >/dev/null 2>&1 || die "trunk is not installed: run scripts/setup.sh test"
mode="${1:-build}"

trunk_env=(CARGO_TARGET_DIR="$ROOT/target/front-csr")
if [ "$(wasm_toolchain)" = debian ]; then
    mapfile -t debian_env < <(debian_wasm_env)
    trunk_env+=("${debian_env[@]}")
fi
# --offline: Trunk uses the wasm-bindgen on PATH (the pinned one) and downloads nothing.
trunk_bin="$(command -v trunk)"

case "$mode" in
    build)
        env "${trunk_env[@]}" "$trunk_bin" build --offline
        ;;
    serve)
        port="${2:?port}"
        backend="${3:?backend URL}"
        config_dir="$ROOT/target/trunk"
        mkdir -p "$config_dir"
        # Trunk.toml with this run's addresses; paths made absolute for the new location.
        sed -e "s|^target = .*|target = \"$ROOT/index.html\"|" \
            -e "s|^dist = .*|dist = \"$ROOT/target/spa\"|" \
            -e "s|^port = .*|port = $port|" \
            -e "s|http://127.0.0.1:3000|$backend|" \
            "$ROOT/Trunk.toml" > "$config_dir/Trunk.toml"
        exec env "${trunk_env[@]}" "$trunk_bin" --config "$config_dir/Trunk.toml" serve --offline --no-autoreload
        ;;
    *) die "unknown mode $mode (build or serve)" ;;
esac
