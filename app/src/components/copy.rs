//! Copying text to the clipboard from a button, with the outcome written into the button.

/// Copies `text` and shows "Copied" (or "Could not copy") in the clicked button for two
/// seconds before putting `label` back. No reactive state: a long thread has many buttons.
pub fn copy_from_button(event: &leptos::ev::MouseEvent, text: String, label: &'static str) {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        use leptos::prelude::{set_timeout, window};
        use wasm_bindgen::JsCast;
        let Some(button) = event
            .current_target()
            .and_then(|target| target.dyn_into::<web_sys::HtmlElement>().ok())
        else {
            return;
        };
        let promise = window().navigator().clipboard().write_text(&text);
        leptos::task::spawn_local(async move {
            let done = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
            button.set_text_content(Some(if done { "Copied" } else { "Could not copy" }));
            set_timeout(
                move || button.set_text_content(Some(label)),
                std::time::Duration::from_millis(2000),
            );
        });
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    let _ = (event, text, label);
}
