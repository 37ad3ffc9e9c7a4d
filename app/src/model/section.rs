//! The workspace sections the sidebar lists beside the threads: names, paths, and what
//! each holds.

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
    /// The sections the primary navigation lists: those that hold records. The others
    /// keep their pages (and say what they will hold) until they can do something.
    pub const NAVIGATION: [Section; 6] = [
        Section::Projects,
        Section::Notes,
        Section::Memory,
        Section::Passvault,
        Section::Schedules,
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
    pub fn purpose(self) -> &'static str {
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
            Section::CuratorJobs => {
                "Curator jobs are the background work of the workspace: schedule fires, retention."
            }
        }
    }

    /// The honest empty state.
    pub fn empty(self) -> String {
        let lower = match self {
            Section::Kanban => "kanban cards".to_owned(),
            other => other.title().to_lowercase(),
        };
        format!(
            "There are no {lower} in this workspace yet, and this console cannot create them yet."
        )
    }
}
