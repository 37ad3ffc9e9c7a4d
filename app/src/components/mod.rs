//! UI building blocks; each renders the data it is given and reports user intent upward.

pub mod a2ui;
pub mod artifacts;
pub mod asks;
pub mod canvas;
pub mod catalog;
pub mod code;
pub mod code_diff;
pub mod composer;
pub mod context_chips;
pub mod context_pane;
pub mod copy;
pub mod focus;
pub mod identity;
pub mod inbox;
#[cfg(all(test, feature = "ssr"))]
pub mod inert;
pub mod layout;
pub mod markdown;
pub mod message;
pub mod on_demand;
pub mod output_card;
pub mod palette;
pub mod pinned;
pub mod pinned_memory;
pub mod remote_media;
pub mod run_section;
pub mod scroll_port;
pub mod search_box;
pub mod sidebar;
pub mod thread_list;
pub mod timeline;
pub mod tool_card;
pub mod tool_policy;
pub mod window;

/// `text` as a piece of a DOM id: letters, digits and `-` only, at most 64 characters
/// (ids from agents may hold any character).
pub fn id_fragment(text: &str) -> String {
    text.chars()
        .take(64)
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// Whether the `<details>` a `toggle` event is on is now open.
pub fn details_open(event: &leptos::ev::Event) -> Option<bool> {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        use wasm_bindgen::JsCast;
        event
            .target()
            .and_then(|target| target.dyn_into::<web_sys::HtmlDetailsElement>().ok())
            .map(|details| details.open())
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    {
        let _ = event;
        None
    }
}
