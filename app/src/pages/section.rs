//! The page of a workspace section that has no records of its own yet (`/schedules`,
//! `/kanban`, `/curator`): it says so plainly rather than showing anything made up.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::layout::ContextFrame;
use crate::model::section::Section;

#[component]
pub fn SectionPage(section: Section) -> impl IntoView {
    view! {
        <Title text=section.title() />
        <main class="main" id="main" tabindex="-1">
            <section class="empty-state section-page" aria-labelledby="section-heading" data-section=section.path()>
                <h1 id="section-heading">{section.title()}</h1>
                <p>{section.purpose()}</p>
                <p class="muted" role="status">{section.empty()}</p>
            </section>
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"Context"</h2>
                <p class="muted">"Nothing selected."</p>
            </section>
        </ContextFrame>
    }
}
