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
        # `--emit-relocs` lets the bundle be split at its lazy functions (below).
        CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="--cfg erase_components -Clink-args=--emit-relocs" \
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
content_hash() { sha256sum "$1" | cut -c1-16; }

# The bundle split at its `#[lazy]` functions: main.wasm (the first load) and one chunk
# per lazy part, fetched by the loader module __wasm_split.js on first use.
split_dir="$front_dir/split"
rm -rf "$split_dir"
command -v wasm-split-cli >/dev/null 2>&1 || die "wasm-split-cli is missing: run scripts/setup.sh"
wasm-split-cli "$front_dir/$wasm_target/wasm-release/frontend.wasm" "$split_dir" >/dev/null
wasm-bindgen --target web --no-typescript --keep-lld-exports --no-demangle \
    --remove-name-section --remove-producers-section --out-dir "$pkg" --out-name "$OUTPUT_NAME" \
    "$split_dir/main.wasm"
# One stylesheet: main.css with its `@import "x.css";` lines inlined.
awk '/^@import "[^"]+";$/ { f = $2; gsub(/[";]/, "", f); while ((getline line < ("style/" f)) > 0) print line; close("style/" f); next } { print }' \
    style/main.css > "$pkg/$OUTPUT_NAME.css"
cp -R public/. "$SITE_ROOT/"

# Each file is named after its content (`agent_os.<hash>.js`, `.wasm`, `.css`), so the
# server can let browsers keep it for good; hash.txt tells the server the first load's
# names. Chunks are named after their own content; the main module and the loader import
# each other by name, so both names come from one hash over both (any change to either,
# or to a chunk, renames both).
main_js="$pkg/$OUTPUT_NAME.js"
loader="$pkg/__wasm_split.js"
cp "$split_dir/__wasm_split.js" "$loader"
for chunk in "$split_dir"/*.wasm; do
    name="$(basename "$chunk")"
    [ "$name" = main.wasm ] && continue
    hash="$(content_hash "$chunk")"
    cp "$chunk" "$pkg/$OUTPUT_NAME.$hash.wasm"
    sed -i "s|\"./$name\"|\"./$OUTPUT_NAME.$hash.wasm\"|g" "$loader"
done
js_hash="$(cat "$main_js" "$loader" | sha256sum | cut -c1-16)"
if grep -q 'from "./__wasm_split.js"' "$main_js"; then
    split_hash="$(cat "$loader" "$main_js" | sha256sum | cut -c1-16)"
    # Only the import specifiers change: the imports object keeps the module name the
    # wasm itself imports from.
    sed -i "s|from \"./__wasm_split.js\"|from \"./$OUTPUT_NAME.$split_hash.js\"|" "$main_js"
    sed -i "s|from \"./main.js\"|from \"./$OUTPUT_NAME.$js_hash.js\"|" "$loader"
    grep -q "from \"./$OUTPUT_NAME.$js_hash.js\"" "$loader" || die "the split loader imports no main module"
    mv "$loader" "$pkg/$OUTPUT_NAME.$split_hash.js"
else
    rm -f "$loader"
fi
wasm_hash="$(content_hash "$pkg/${OUTPUT_NAME}_bg.wasm")"
css_hash="$(content_hash "$pkg/$OUTPUT_NAME.css")"
mv "$main_js" "$pkg/$OUTPUT_NAME.$js_hash.js"
mv "$pkg/${OUTPUT_NAME}_bg.wasm" "$pkg/$OUTPUT_NAME.$wasm_hash.wasm"
mv "$pkg/$OUTPUT_NAME.css" "$pkg/$OUTPUT_NAME.$css_hash.css"
printf 'js: %s\nwasm: %s\ncss: %s\n' "$js_hash" "$wasm_hash" "$css_hash" > "$SITE_ROOT/hash.txt"
# Precompressed copies: the server sends these to browsers that accept gzip.
for asset in "$pkg/$OUTPUT_NAME".*.js "$pkg/$OUTPUT_NAME".*.wasm "$pkg/$OUTPUT_NAME".*.css; do
    gzip -9 -k -f "$asset"
done

case "$server_profile" in
    release) cargo build -p server --release ;;
    debug) cargo build -p server ;;
    *) die "unknown server profile $server_profile (debug or release)" ;;
esac
