//! A list page's search box: the words go in the page's URL (`?q=`), so a search is a link
//! that can be shared, reloaded and gone back to; it works as a plain form before the
//! page is hydrated.

use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

/// Searches `action` (a page path) for the typed words, keeping `keep` (other query
/// parameters) as they are.
#[component]
pub fn SearchBox(
    action: &'static str,
    id: &'static str,
    label: &'static str,
    placeholder: &'static str,
    #[prop(into)] value: Signal<String>,
    #[prop(default = Vec::new())] keep: Vec<(&'static str, String)>,
) -> impl IntoView {
    let typed: NodeRef<leptos::html::Input> = NodeRef::new();
    let go = use_navigate();
    let kept = keep.clone();
    view! {
        <form method="get" action=action class="note-search" role="search" on:submit=move |event| {
            event.prevent_default();
            let q = typed.get().map(|input| input.value()).unwrap_or_default();
            let mut query: Vec<String> = kept
                .iter()
                .filter(|(_, value)| !value.is_empty())
                .map(|(name, value)| format!("{name}={}", query_value(value)))
                .collect();
            if !q.trim().is_empty() {
                query.push(format!("q={}", query_value(q.trim())));
            }
            let link = if query.is_empty() { action.to_owned() } else { format!("{action}?{}", query.join("&")) };
            go(&link, Default::default());
        }>
            <label class="visually-hidden" for=id>{label}</label>
            <input id=id type="search" name="q" placeholder=placeholder maxlength="200" node_ref=typed prop:value=move || value.get() />
            {keep.into_iter().filter(|(_, value)| !value.is_empty()).map(|(name, value)| view! {
                <input type="hidden" name=name value=value />
            }).collect_view()}
            <button type="submit" class="button">"Search"</button>
        </form>
    }
}

/// `value` as it may stand in a URL's query: every byte but the unreserved ones
/// percent-encoded.
pub fn query_value(value: &str) -> String {
    value
        .bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
                char::from(byte).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect()
}
