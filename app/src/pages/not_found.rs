//! Any path no route matches.

use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn NotFoundPage() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <Title text="Not found" />
        <main class="main" id="main" tabindex="-1">
            <section class="empty-state" aria-labelledby="nf-heading">
                <h1 id="nf-heading">"Page not found"</h1>
                <p>
                    "Nothing lives at this address. " <a href="/">"Back to the workspace"</a>
                </p>
            </section>
        </main>
    }
}
