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
rm -rf "$pkg" "$SITE_ROOT/hash.txt"
mkdir -p "$pkg"
wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section --out-dir "$pkg" --out-name "$OUTPUT_NAME" \
    "$front_dir/$wasm_target/wasm-release/frontend.wasm"
# One stylesheet: main.css with its `@import "x.css";` lines inlined.
awk '/^@import "[^"]+";$/ { f = $2; gsub(/[";]/, "", f); while ((getline line < ("style/" f)) > 0) print line; close("style/" f); next } { print }' \
    style/main.css > "$pkg/$OUTPUT_NAME.css"
cp -R public/. "$SITE_ROOT/"
# Each file is named after its content (`agent_os.<hash>.js`, `.wasm`, `.css`), so the
# server can let browsers keep it for good; hash.txt tells the server the names.
content_hash() { sha256sum "$1" | cut -c1-16; }
js_hash="$(content_hash "$pkg/$OUTPUT_NAME.js")"
wasm_hash="$(content_hash "$pkg/${OUTPUT_NAME}_bg.wasm")"
css_hash="$(content_hash "$pkg/$OUTPUT_NAME.css")"
mv "$pkg/$OUTPUT_NAME.js" "$pkg/$OUTPUT_NAME.$js_hash.js"
mv "$pkg/${OUTPUT_NAME}_bg.wasm" "$pkg/$OUTPUT_NAME.$wasm_hash.wasm"
mv "$pkg/$OUTPUT_NAME.css" "$pkg/$OUTPUT_NAME.$css_hash.css"
printf 'js: %s\nwasm: %s\ncss: %s\n' "$js_hash" "$wasm_hash" "$css_hash" > "$SITE_ROOT/hash.txt"
# Precompressed copies: the server sends these to browsers that accept gzip.
for asset in "$pkg/$OUTPUT_NAME.$js_hash.js" "$pkg/$OUTPUT_NAME.$wasm_hash.wasm" "$pkg/$OUTPUT_NAME.$css_hash.css"; do
    gzip -9 -k -f "$asset"
done

case "$server_profile" in
    release) cargo build -p server --release ;;
    debug) cargo build -p server ;;
    *) die "unknown server profile $server_profile (debug or release)" ;;
esac
