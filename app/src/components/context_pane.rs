//! The right-hand pane: agent state, plan and workspace context of the selected run.

use leptos::prelude::*;

#[component]
pub fn ContextPane() -> impl IntoView {
    view! {
        <aside class="context-pane" aria-label="Context">
            <section aria-labelledby="ctx-state">
                <h2 id="ctx-state">"Agent state"</h2>
                <p class="muted">"No run selected."</p>
            </section>
            <section aria-labelledby="ctx-plan">
                <h2 id="ctx-plan">"Plan"</h2>
                <p class="muted">"No plan published."</p>
            </section>
        </aside>
    }
}
