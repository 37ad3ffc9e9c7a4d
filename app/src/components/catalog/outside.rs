//! What points outside the console, shared by the link and media renderers: a link out
//! (a new tab, no opener, no referrer), the site it goes to, and a remote image that
//! sends no referrer.

use leptos::prelude::*;

use crate::markdown::host_of;

/// A link to another site: a new tab, no opener, no referrer.
#[component]
pub(super) fn OutLink(
    #[prop(into)] href: String,
    #[prop(optional)] class: &'static str,
    /// The id of the element that describes the link (a citation's card).
    #[prop(optional, into)]
    described_by: Option<String>,
    children: Children,
) -> impl IntoView {
    let class = (!class.is_empty()).then_some(class);
    view! {
        <a href=href class=class rel="noopener noreferrer" target="_blank" aria-describedby=described_by>
            {children()}
            <span class="visually-hidden">" (opens in a new tab)"</span>
        </a>
    }
}

/// The site a link goes to: as the payload names it, else the URL's host without "www.".
pub(super) fn domain_of(given: Option<&String>, href: &str) -> String {
    given.cloned().unwrap_or_else(|| {
        let host = host_of(href).unwrap_or_default();
        host.strip_prefix("www.").map(str::to_owned).unwrap_or(host)
    })
}

/// An image that sends no referrer, for a
/// [`RemoteMedia`](crate::components::remote_media::RemoteMedia) gate to show once allowed.
pub(super) fn remote_image(src: String, alt: String) -> impl Fn() -> AnyView + Send + Sync {
    move || {
        view! { <img src=src.clone() alt=alt.clone() referrerpolicy="no-referrer" decoding="async" /> }
            .into_any()
    }
}
