#!/usr/bin/env bash
# Builds the site: the browser bundle (wasm-release profile) into target/site/pkg, the
# stylesheet and public assets beside it, then the server.
# Usage: scripts/build.sh [debug|release]   (the server's profile; the wasm is always release)
source "$(dirname "$0")/lib.sh"
server_profile="${1:-release}"

wasm_target=wasm32-unknown-unknown
case "$(wasm_toolchain)" in
    rustup)
        front_dir="$ROOT/target/front"
        cargo build -p frontend --lib --target "$wasm_target" --profile wasm-release \
            --target-dir "$front_dir"
        ;;
    debian)
        # Debian's rustc ships no prebuilt wasm32 std, so std is built from source.
        front_dir="$ROOT/target/front-debian"
        mapfile -t wasm_env < <(debian_wasm_env)
        env "${wasm_env[@]}" cargo build -p frontend --lib --target "$wasm_target" \
            --profile wasm-release --target-dir "$front_dir"
        ;;
esac

pkg="$SITE_ROOT/pkg"
mkdir -p "$pkg"
wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section --out-dir "$pkg" --out-name "$OUTPUT_NAME" \
    "$front_dir/$wasm_target/wasm-release/frontend.wasm"
# One stylesheet: main.css with its `@import "x.css";` lines inlined.
awk '/^@import "[^"]+";$/ { f = $2; gsub(/[";]/, "", f); while ((getline line < ("style/" f)) > 0) print line; close("style/" f); next } { print }' \
    style/main.css > "$pkg/$OUTPUT_NAME.css"
cp -R public/. "$SITE_ROOT/"
# Precompressed copies: the server sends these to browsers that accept gzip.
for asset in "$pkg/$OUTPUT_NAME.js" "$pkg/${OUTPUT_NAME}_bg.wasm" "$pkg/$OUTPUT_NAME.css"; do
    gzip -9 -k -f "$asset"
done

case "$server_profile" in
    release) cargo build -p server --release ;;
    debug) cargo build -p server ;;
    *) die "unknown server profile $server_profile (debug or release)" ;;
esac
