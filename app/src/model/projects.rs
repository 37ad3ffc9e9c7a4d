//! Projects: a piece of work that groups threads and notes, gives new threads their agent,
//! and pins what every run in it is given.

use serde::{Deserialize, Serialize};

use super::notes::NoteSummary;
use super::{RunSummary, ThreadSummary};

/// The longest name a project may have, in characters.
pub const NAME_MOST: usize = 100;
/// The longest description, in characters.
pub const DESCRIPTION_MOST: usize = 4000;

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Project {
    pub id: String,
    pub name: String,
    pub description: String,
    /// The agent a thread started in the project talks to, unless it names another.
    pub default_agent: Option<String>,
    /// Set while the project is archived: it is listed apart and takes no new threads.
    pub archived_at_ms: Option<i64>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectList {
    pub projects: Vec<Project>,
    pub next_offset: Option<u32>,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewProject {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub default_agent: Option<String>,
}

/// An edit: each field given replaces the project's; `archived` archives or restores it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectEdit {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// `Some(None)` (JSON `null`) clears the default agent.
    #[serde(default, with = "super::notes::double_option")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub default_agent: Option<Option<String>>,
    #[serde(default)]
    pub archived: Option<bool>,
}

/// A pending ask as a project lists it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenAsk {
    pub key: String,
    pub thread_id: String,
    pub run_id: String,
    pub title: String,
    pub created_at_ms: i64,
}

/// A run as a project lists it: with the thread it is in.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectRun {
    pub thread_id: String,
    pub run: RunSummary,
}

/// A project with what is in it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectPage {
    pub project: Project,
    pub threads: Vec<ThreadSummary>,
    pub notes: Vec<NoteSummary>,
    pub open_asks: Vec<OpenAsk>,
    /// The latest runs of its threads, newest first.
    pub recent_runs: Vec<ProjectRun>,
}

/// A name as stored: trimmed, not empty, at most [`NAME_MOST`] characters.
pub fn check_name(name: &str) -> Result<String, String> {
    let name = name.trim();
    if name.is_empty() {
        return Err("name is empty: a project needs a name".into());
    }
    if name.chars().count() > NAME_MOST {
        return Err(format!("name is longer than {NAME_MOST} characters"));
    }
    if name.chars().any(char::is_control) {
        return Err("name holds a control character".into());
    }
    Ok(name.to_owned())
}

pub fn check_description(description: &str) -> Result<String, String> {
    if description.chars().count() > DESCRIPTION_MOST {
        return Err(format!(
            "description is longer than {DESCRIPTION_MOST} characters"
        ));
    }
    Ok(description.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_must_say_something_and_an_edit_tells_null_from_absent() {
        assert_eq!(check_name("  Launch ").unwrap(), "Launch");
        assert!(check_name("").unwrap_err().starts_with("name"));
        assert!(check_name(&"n".repeat(NAME_MOST + 1)).is_err());
        let edit: ProjectEdit = serde_json::from_str(r#"{"default_agent": null}"#).unwrap();
        assert_eq!(edit.default_agent, Some(None));
        assert!(serde_json::from_str::<ProjectEdit>(r#"{"nmae": "x"}"#).is_err());
    }
}
