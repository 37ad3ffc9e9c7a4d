//! `/`: the workspace with no thread selected.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::layout::ContextFrame;

#[component]
pub fn HomePage() -> impl IntoView {
    view! {
        <Title text="" />
        <main class="main" id="main" tabindex="-1">
            <section class="empty-state" aria-labelledby="home-heading">
                <h1 id="home-heading">"Workspace"</h1>
                <p>"Select a thread in the sidebar, or start a new one."</p>
            </section>
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"Context"</h2>
                <p class="muted">"Open a thread to see its agent state, plan, routing, notes and memory."</p>
            </section>
        </ContextFrame>
    }
}
