//! The browser entry point: hydrates the page the server rendered.

#[cfg(all(target_arch = "wasm32", feature = "hydrate"))]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // As `hydrate_lazy`, awaiting the code of a lazy page the server rendered before
    // taking it over; only then is the page marked interactive.
    wasm_bindgen_futures::spawn_local(async {
        let Some(body) = leptos::prelude::document().body() else {
            return;
        };
        leptos::mount::hydrate_from_async(body, app::App)
            .await
            .forget();
        app::interactive::mark_interactive();
    });
}

/// Client-side-only build (Trunk): mounts the app into an empty page.
#[cfg(all(target_arch = "wasm32", feature = "csr", not(feature = "hydrate")))]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
