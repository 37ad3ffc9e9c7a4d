//! The workspace tools the console offers AG-UI agents and runs on the server: `memory`
//! (Hermes' tool), `notes_search`, `note_read`, `note_write` and `schedule_create`. Their definitions as an
//! agent sees them, each call's arguments checked, whether it writes, and the per-tenant
//! policy of which run at once and which ask an operator first.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::memory::{Action, Operation};

pub const MEMORY: &str = "memory";
pub const NOTES_SEARCH: &str = "notes_search";
pub const NOTE_READ: &str = "note_read";
pub const NOTE_WRITE: &str = "note_write";
pub const SCHEDULE_CREATE: &str = "schedule_create";
/// Every workspace tool, in the order they are offered.
pub const NAMES: [&str; 5] = [MEMORY, NOTES_SEARCH, NOTE_READ, NOTE_WRITE, SCHEDULE_CREATE];

/// The most notes one search returns to an agent.
pub const SEARCH_MOST: u32 = 20;

/// Whether a call runs at once or waits for an operator's approval.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolPolicy {
    /// Runs as soon as the agent calls it.
    Free,
    /// Raises an approval ask; runs only once an operator allows it.
    Ask,
}

impl ToolPolicy {
    pub fn label(self) -> &'static str {
        match self {
            ToolPolicy::Free => "free",
            ToolPolicy::Ask => "ask",
        }
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "free" => Ok(ToolPolicy::Free),
            "ask" => Ok(ToolPolicy::Ask),
            other => Err(format!("policy: {other:?} is not a policy (free or ask)")),
        }
    }
}

/// The policy a tenant has until an owner sets another: reads run freely; `note_write`
/// asks first; `memory` runs freely because what it proposes waits in the memory review
/// queue (asked first, an allowed call is applied at once as approved by the operator).
pub fn default_policy(name: &str) -> ToolPolicy {
    if name == NOTE_WRITE || always_asks(name) {
        ToolPolicy::Ask
    } else {
        ToolPolicy::Free
    }
}

/// Whether the tool asks an operator first whatever the tenant's policy: an agent that
/// makes a schedule makes work that goes on without anyone at the keyboard.
pub fn always_asks(name: &str) -> bool {
    name == SCHEDULE_CREATE
}

pub fn is_workspace_tool(name: &str) -> bool {
    NAMES.contains(&name)
}

/// Whether the tool changes the workspace.
pub fn writes(name: &str) -> bool {
    matches!(name, MEMORY | NOTE_WRITE | SCHEDULE_CREATE)
}

/// A tool as a tenant's settings list it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSetting {
    pub name: String,
    pub description: String,
    pub writes: bool,
    pub policy: ToolPolicy,
}

/// A workspace tool call, its arguments checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkspaceCall {
    /// Hermes' target `memory`: the thread's project's memory when it has one, else the
    /// tenant's (the console keeps no user profile for agents).
    Memory {
        operation: Operation,
    },
    NotesSearch {
        query: String,
        limit: u32,
    },
    NoteRead {
        id: String,
    },
    NoteWrite {
        /// The note to change; a new note when absent.
        id: Option<String>,
        title: String,
        body: String,
        tags: Vec<String>,
        /// The version the agent read: a note changed since is not overwritten.
        version: Option<u32>,
    },
    /// A schedule proposed by the agent: its own prompt to itself on a clock.
    ScheduleCreate {
        name: String,
        prompt: String,
        when: crate::model::schedules::When,
        timezone: String,
    },
}

fn text_field(arguments: &Value, tool: &str, field: &str) -> Result<Option<String>, String> {
    match arguments.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(format!("{tool}: `{field}` must be a string")),
    }
}

fn required(arguments: &Value, tool: &str, field: &str) -> Result<String, String> {
    text_field(arguments, tool, field)?
        .filter(|text| !text.trim().is_empty())
        .ok_or_else(|| format!("{tool}: `{field}` is missing"))
}

impl WorkspaceCall {
    /// The call for tool `name`: `None` when it is not a workspace tool, `Err` naming the
    /// argument that is wrong.
    pub fn from_call(name: &str, arguments: &str) -> Option<Result<Self, String>> {
        if !is_workspace_tool(name) {
            return None;
        }
        let parsed = crate::codec::from_json::<Value>(if arguments.trim().is_empty() {
            "{}"
        } else {
            arguments
        })
        .map_err(|error| format!("{name}: arguments are not JSON: {error}"))
        .and_then(|arguments| {
            if arguments.is_object() {
                Ok(arguments)
            } else {
                Err(format!("{name}: arguments must be an object"))
            }
        });
        Some(parsed.and_then(|arguments| Self::checked(name, &arguments)))
    }

    fn checked(name: &str, arguments: &Value) -> Result<Self, String> {
        match name {
            MEMORY => {
                let action = match required(arguments, name, "action")?.as_str() {
                    "add" => Action::Add,
                    "replace" => Action::Replace,
                    "remove" => Action::Remove,
                    other => {
                        return Err(format!(
                            "memory: `action` {other:?} is not add, replace or remove"
                        ));
                    }
                };
                match text_field(arguments, name, "target")?.as_deref() {
                    None | Some("memory") => {}
                    Some("user") => {
                        return Err("memory: the console keeps no user profile for agents; use target \"memory\"".into());
                    }
                    Some(other) => {
                        return Err(format!("memory: `target` {other:?} is not \"memory\""));
                    }
                }
                Ok(WorkspaceCall::Memory {
                    operation: Operation {
                        action,
                        content: text_field(arguments, name, "content")?,
                        old_text: text_field(arguments, name, "old_text")?,
                    },
                })
            }
            NOTES_SEARCH => {
                let limit = match arguments.get("limit") {
                    None | Some(Value::Null) => 10,
                    Some(value) => value
                        .as_u64()
                        .and_then(|limit| u32::try_from(limit).ok())
                        .filter(|limit| (1..=SEARCH_MOST).contains(limit))
                        .ok_or(format!(
                            "notes_search: `limit` must be a whole number from 1 to {SEARCH_MOST}"
                        ))?,
                };
                Ok(WorkspaceCall::NotesSearch {
                    query: required(arguments, name, "query")?,
                    limit,
                })
            }
            NOTE_READ => Ok(WorkspaceCall::NoteRead {
                id: required(arguments, name, "id")?,
            }),
            SCHEDULE_CREATE => {
                use crate::model::schedules::When;
                let given: Vec<(&str, String)> = ["cron", "every", "at"]
                    .into_iter()
                    .filter_map(|field| {
                        text_field(arguments, name, field)
                            .transpose()
                            .map(|text| text.map(|text| (field, text)))
                    })
                    .collect::<Result<_, _>>()?;
                let when = match given.as_slice() {
                    [(kind, text)] => {
                        When::from_parts(if *kind == "at" { "once" } else { kind }, text)
                            .map_err(|problem| format!("schedule_create: {problem}"))?
                    }
                    _ => {
                        return Err(
                            "schedule_create: give exactly one of `cron`, `every` or `at`".into(),
                        );
                    }
                };
                Ok(WorkspaceCall::ScheduleCreate {
                    name: required(arguments, name, "name")?,
                    prompt: required(arguments, name, "prompt")?,
                    when,
                    timezone: text_field(arguments, name, "timezone")?
                        .filter(|zone| !zone.trim().is_empty())
                        .unwrap_or_else(|| "UTC".to_owned()),
                })
            }
            _ => {
                let tags = match arguments.get("tags") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(tags)) => tags
                        .iter()
                        .map(|tag| tag.as_str().map(str::to_owned))
                        .collect::<Option<Vec<_>>>()
                        .ok_or("note_write: `tags` must be strings")?,
                    Some(_) => return Err("note_write: `tags` must be a list of strings".into()),
                };
                let version = match arguments.get("version") {
                    None | Some(Value::Null) => None,
                    Some(value) => Some(
                        value
                            .as_u64()
                            .and_then(|version| u32::try_from(version).ok())
                            .ok_or("note_write: `version` must be a whole number")?,
                    ),
                };
                Ok(WorkspaceCall::NoteWrite {
                    id: text_field(arguments, name, "id")?.filter(|id| !id.is_empty()),
                    title: required(arguments, name, "title")?,
                    body: text_field(arguments, name, "body")?.unwrap_or_default(),
                    tags,
                    version,
                })
            }
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            WorkspaceCall::Memory { .. } => MEMORY,
            WorkspaceCall::NotesSearch { .. } => NOTES_SEARCH,
            WorkspaceCall::NoteRead { .. } => NOTE_READ,
            WorkspaceCall::NoteWrite { .. } => NOTE_WRITE,
            WorkspaceCall::ScheduleCreate { .. } => SCHEDULE_CREATE,
        }
    }

    /// What the call does, as an operator deciding on it reads it.
    pub fn describe(&self) -> String {
        match self {
            WorkspaceCall::Memory { operation } => {
                let content = operation.content.as_deref().unwrap_or_default();
                let old = operation.old_text.as_deref().unwrap_or_default();
                match operation.action {
                    Action::Add => format!("Remember: “{content}”"),
                    Action::Replace => {
                        format!("Replace the memory entry with “{old}” by “{content}”")
                    }
                    Action::Remove => format!("Forget the memory entry with “{old}”"),
                }
            }
            WorkspaceCall::NotesSearch { query, .. } => format!("Search the notes for “{query}”"),
            WorkspaceCall::NoteRead { id } => format!("Read note {id}"),
            WorkspaceCall::NoteWrite {
                id: None, title, ..
            } => format!("Write a new note “{title}”"),
            WorkspaceCall::NoteWrite {
                id: Some(id),
                title,
                ..
            } => format!("Change note {id} (“{title}”)"),
            WorkspaceCall::ScheduleCreate {
                name,
                prompt,
                when,
                timezone,
            } => format!(
                "Make the schedule “{name}”: {} in {timezone}, each time telling the agent “{}”",
                when.describe(),
                crate::protocol::limits::excerpt(prompt, 200)
            ),
        }
    }
}

/// The tools as AG-UI's RunAgentInput offers them: `{name, description, parameters}`.
pub fn definitions() -> Vec<Value> {
    vec![
        json!({
            "name": MEMORY,
            "description": "Save durable facts to the workspace's memory, which every later run is given. \
                Add an entry, or replace or remove the one entry containing old_text. \
                What you propose may wait for an operator's review.",
            "parameters": {
                "type": "object",
                "properties": {
                    "action": {"type": "string", "enum": ["add", "replace", "remove"]},
                    "target": {"type": "string", "enum": ["memory"], "description": "Always \"memory\"."},
                    "content": {"type": "string", "description": "The entry's text (add, replace)."},
                    "old_text": {"type": "string", "description": "A unique part of the entry to replace or remove."}
                },
                "required": ["action"]
            }
        }),
        json!({
            "name": NOTES_SEARCH,
            "description": "Search the workspace's notes by words; returns ids, titles, versions and snippets.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_MOST}
                },
                "required": ["query"]
            }
        }),
        json!({
            "name": NOTE_READ,
            "description": "Read one note (Markdown) by its id.",
            "parameters": {
                "type": "object",
                "properties": {"id": {"type": "string"}},
                "required": ["id"]
            }
        }),
        json!({
            "name": NOTE_WRITE,
            "description": "Write a new note, or change one by id (give the version you read, so a note \
                changed since is not overwritten). May wait for an operator's approval.",
            "parameters": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "title": {"type": "string"},
                    "body": {"type": "string", "description": "Markdown."},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "version": {"type": "integer"}
                },
                "required": ["title", "body"]
            }
        }),
        json!({
            "name": SCHEDULE_CREATE,
            "description": "Propose a schedule: the console gives you `prompt` on a clock, as a new run \
                each time. Give exactly one of cron (5 fields), every (an interval such as 2h) or at \
                (once, 2026-12-24T09:00), read in timezone (IANA, default UTC). An operator always \
                approves it first.",
            "parameters": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "prompt": {"type": "string", "description": "Markdown: what you are told each time."},
                    "cron": {"type": "string"},
                    "every": {"type": "string"},
                    "at": {"type": "string"},
                    "timezone": {"type": "string"}
                },
                "required": ["name", "prompt"]
            }
        }),
    ]
}

/// What a tool's result says when it could not run.
pub fn failed(problem: &str) -> Value {
    json!({ "error": problem })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_checked_argument_by_argument_and_only_workspace_tools_are_taken() {
        assert_eq!(WorkspaceCall::from_call("change_background", "{}"), None);
        let add = WorkspaceCall::from_call(
            "memory",
            r#"{"action":"add","target":"memory","content":"CI has 2 cores"}"#,
        );
        assert!(matches!(add, Some(Ok(WorkspaceCall::Memory { .. }))));
        let refused = |name: &str, arguments: &str| {
            WorkspaceCall::from_call(name, arguments)
                .and_then(Result::err)
                .unwrap_or_default()
        };
        assert!(refused("memory", r#"{"action":"shout"}"#).contains("`action`"));
        assert!(refused("memory", r#"{"action":"add","target":"user"}"#).contains("user profile"));
        assert!(refused("notes_search", r#"{"query":"x","limit":500}"#).contains("`limit`"));
        assert!(refused("notes_search", "{}").contains("`query` is missing"));
        assert!(refused("note_read", "[1]").contains("must be an object"));
        assert!(refused("note_write", r#"{"title":"t","tags":"x"}"#).contains("`tags`"));
        assert!(refused("note_write", "not json").contains("not JSON"));
        let write = WorkspaceCall::from_call(
            "note_write",
            r##"{"title":"Runbook","body":"# Steps","tags":["ops"]}"##,
        );
        assert_eq!(
            write.and_then(Result::ok).map(|call| call.describe()),
            Some("Write a new note “Runbook”".to_owned())
        );
    }

    #[test]
    fn reads_run_freely_and_note_writes_ask_unless_a_tenant_says_otherwise() {
        assert_eq!(default_policy(NOTES_SEARCH), ToolPolicy::Free);
        assert_eq!(default_policy(NOTE_READ), ToolPolicy::Free);
        assert_eq!(default_policy(NOTE_WRITE), ToolPolicy::Ask);
        assert_eq!(default_policy(MEMORY), ToolPolicy::Free);
        assert!(writes(MEMORY) && writes(NOTE_WRITE) && !writes(NOTE_READ));
        assert_eq!(ToolPolicy::parse("ask"), Ok(ToolPolicy::Ask));
        assert!(ToolPolicy::parse("sometimes").is_err());
        let names: Vec<_> = definitions()
            .iter()
            .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
            .collect();
        assert_eq!(names, NAMES);
    }

    #[test]
    fn a_schedule_an_agent_proposes_names_exactly_one_clock_and_always_asks() {
        let refused = |arguments: &str| {
            WorkspaceCall::from_call(SCHEDULE_CREATE, arguments)
                .and_then(Result::err)
                .unwrap_or_default()
        };
        assert!(refused(r#"{"name":"n","prompt":"p"}"#).contains("exactly one"));
        assert!(
            refused(r#"{"name":"n","prompt":"p","cron":"0 9 * * *","every":"2h"}"#)
                .contains("exactly one")
        );
        assert!(refused(r#"{"prompt":"p","every":"2h"}"#).contains("`name` is missing"));
        let made = WorkspaceCall::from_call(
            SCHEDULE_CREATE,
            r#"{"name":"Digest","prompt":"Summarise","every":"2h","timezone":"Europe/Berlin"}"#,
        )
        .and_then(Result::ok)
        .unwrap();
        assert_eq!(
            made.describe(),
            "Make the schedule “Digest”: every 2h in Europe/Berlin, each time telling the agent “Summarise”"
        );
        assert_eq!(default_policy(SCHEDULE_CREATE), ToolPolicy::Ask);
        assert!(always_asks(SCHEDULE_CREATE) && !always_asks(NOTE_WRITE));
    }
}
