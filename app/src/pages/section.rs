//! The workspace sections the sidebar lists, and the page of each that has no records of
//! its own yet (`/schedules`, `/kanban`, `/curator`, …): it says so plainly rather than
//! showing anything made up.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::layout::ContextFrame;

/// A workspace section beside the threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    Projects,
    Notes,
    Memory,
    Passvault,
    Schedules,
    Kanban,
    CuratorJobs,
}

impl Section {
    pub const ALL: [Section; 7] = [
        Section::Projects,
        Section::Notes,
        Section::Memory,
        Section::Passvault,
        Section::Schedules,
        Section::Kanban,
        Section::CuratorJobs,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Section::Projects => "Projects",
            Section::Notes => "Notes",
            Section::Memory => "Memory",
            Section::Passvault => "Passvault",
            Section::Schedules => "Schedules",
            Section::Kanban => "Kanban",
            Section::CuratorJobs => "Curator jobs",
        }
    }

    pub fn path(self) -> &'static str {
        match self {
            Section::Projects => "/projects",
            Section::Notes => "/notes",
            Section::Memory => "/memory",
            Section::Passvault => "/passvault",
            Section::Schedules => "/schedules",
            Section::Kanban => "/kanban",
            Section::CuratorJobs => "/curator",
        }
    }

    /// What the section holds, in one sentence.
    fn purpose(self) -> &'static str {
        match self {
            Section::Projects => {
                "Projects group threads, notes and schedules around one piece of work."
            }
            Section::Notes => "Notes are text you and your agents keep beside the threads.",
            Section::Memory => {
                "Memory holds the facts agents remember across threads, each one reviewable and removable."
            }
            Section::Passvault => {
                "The passvault keeps credentials agents may use, by name; values are never shown again after saving."
            }
            Section::Schedules => "Schedules start agent runs at set times.",
            Section::Kanban => {
                "The kanban board tracks tasks agents and people move through columns."
            }
            Section::CuratorJobs => "Curator jobs are background runs that tidy memory and notes.",
        }
    }

    /// The honest empty state.
    fn empty(self) -> String {
        let lower = match self {
            Section::Passvault => "passvault entries".to_owned(),
            Section::Kanban => "kanban cards".to_owned(),
            other => other.title().to_lowercase(),
        };
        format!(
            "There are no {lower} in this workspace yet, and this console cannot create them yet."
        )
    }
}

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
