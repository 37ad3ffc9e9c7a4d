//! Whether the browser has taken over the page the server rendered. Hydration may wait for
//! a lazy page's code, and state changed meanwhile would make the browser draw something
//! the server did not; what loads state in the browser and changes what is drawn (the
//! media hosts, say) waits for this.

use leptos::prelude::*;

thread_local! {
    static INTERACTIVE: ArcRwSignal<bool> = ArcRwSignal::new(false);
}

/// Marks the page interactive once the whole of it is hydrated (or mounted, without a
/// server page): the `data-hydrated` attribute tests and scripts wait for, and the signal
/// [`is_interactive`] reads.
pub fn mark_interactive() {
    if let Some(body) = document().body() {
        let _ = body.set_attribute("data-hydrated", "true");
    }
    INTERACTIVE.with(|interactive| interactive.set(true));
}

/// Whether the page is interactive yet (tracked: an effect reading it runs again once it is).
pub fn is_interactive() -> bool {
    INTERACTIVE.with(|interactive| interactive.get())
}
