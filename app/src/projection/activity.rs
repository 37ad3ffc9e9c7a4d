//! What a run in progress is doing, in one line: the line the agent is writing, the tool
//! it calls, the step it is in, the ask it waits on. Read from the run's events as they
//! pass; the "Running now" list shows it.

use crate::protocol::channel::{EventBody, Role};

/// The longest line kept, in characters; the rest is cut with an ellipsis.
const LONGEST: usize = 160;

/// Follows one run's events and says what it did last.
#[derive(Clone, Debug, Default)]
pub struct ActivityTracker {
    /// The assistant text since the last line break, as it streams.
    writing: String,
    /// Tool names by call id, so a result can name its tool (a few calls at a time).
    tools: Vec<(String, String)>,
}

impl ActivityTracker {
    /// The line `body` makes the run's latest activity, if it is worth a line.
    pub fn see(&mut self, body: &EventBody) -> Option<String> {
        let line = match body {
            EventBody::RunStarted { .. } => "Started".to_owned(),
            EventBody::MessageStarted { role, .. } if *role == Role::Assistant => {
                self.writing.clear();
                return None;
            }
            EventBody::TextDelta { delta, .. } => {
                self.writing.push_str(delta);
                if let Some(at) = self.writing.rfind('\n') {
                    let after = &self.writing[at + 1..];
                    self.writing = if after.trim().is_empty() {
                        // A line just ended: it stays the activity until the next begins.
                        let last = self
                            .writing
                            .lines()
                            .rev()
                            .find(|line| !line.trim().is_empty());
                        format!("{}\n", last.unwrap_or(""))
                    } else {
                        after.to_owned()
                    };
                }
                // Memory stays bounded however long a line streams.
                if self.writing.len() > LONGEST * 8 {
                    let keep = floor_char_boundary(&self.writing, LONGEST * 4);
                    self.writing.truncate(keep);
                }
                let line = self.writing.trim();
                if line.is_empty() {
                    return None;
                }
                line.to_owned()
            }
            EventBody::FinalAnswer {
                text: Some(text), ..
            } => text
                .lines()
                .rev()
                .find(|line| !line.trim().is_empty())?
                .trim()
                .to_owned(),
            EventBody::ReasoningStarted { .. } => "Thinking…".to_owned(),
            EventBody::ToolCallStarted {
                tool_call_id,
                name,
                summary,
                ..
            } => {
                if self.tools.len() >= 16 {
                    self.tools.remove(0);
                }
                self.tools.push((tool_call_id.clone(), name.clone()));
                match summary {
                    Some(summary) => format!("Calling {name}: {summary}"),
                    None => format!("Calling {name}"),
                }
            }
            EventBody::ToolProgress { text, .. } => text.clone(),
            EventBody::ToolResult {
                tool_call_id,
                tool_name,
                is_error,
                ..
            } => {
                let name = tool_name.clone().or_else(|| {
                    self.tools
                        .iter()
                        .find(|(id, _)| id == tool_call_id)
                        .map(|(_, name)| name.clone())
                })?;
                if *is_error {
                    format!("{name} failed")
                } else {
                    format!("{name} finished")
                }
            }
            EventBody::StepStarted { name } => format!("Step: {name}"),
            EventBody::SubagentStarted { name, .. } => format!("Subagent {name} started"),
            EventBody::Edit { filename, .. } => match filename {
                Some(file) => format!("Editing {file}"),
                None => "Editing files".to_owned(),
            },
            EventBody::Artifact {
                title,
                artifact_kind,
                ..
            } => match title {
                Some(title) => format!("Made {title}"),
                None => format!("Made a {artifact_kind}"),
            },
            EventBody::AskOpened { ask } => format!("Waiting for an answer: {}", ask.title),
            EventBody::Notice { text, .. } => text.clone(),
            _ => return None,
        };
        Some(one_line(&line))
    }
}

/// `text` on one line of at most [`LONGEST`] characters.
fn one_line(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= LONGEST {
        return flat;
    }
    let mut cut: String = flat.chars().take(LONGEST - 1).collect();
    cut.push('…');
    cut
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn delta(text: &str) -> EventBody {
        EventBody::TextDelta {
            message_id: "m".into(),
            delta: text.into(),
        }
    }

    #[test]
    fn the_line_being_written_is_the_activity_as_it_streams() {
        let mut tracker = ActivityTracker::default();
        assert_eq!(tracker.see(&delta("Look")).as_deref(), Some("Look"));
        assert_eq!(
            tracker.see(&delta("ing it up")).as_deref(),
            Some("Looking it up")
        );
        assert_eq!(tracker.see(&delta(".\nNow ")).as_deref(), Some("Now"));
        assert_eq!(
            tracker.see(&delta("the rest\n")).as_deref(),
            Some("Now the rest")
        );
        assert_eq!(tracker.see(&delta("\n")), Some("Now the rest".into()));
    }

    #[test]
    fn tools_steps_and_asks_are_said_in_words_and_results_name_their_tool() {
        let mut tracker = ActivityTracker::default();
        let started = EventBody::ToolCallStarted {
            tool_call_id: "c1".into(),
            name: "search".into(),
            parent_message_id: None,
            summary: None,
        };
        assert_eq!(tracker.see(&started).as_deref(), Some("Calling search"));
        let result = EventBody::ToolResult {
            tool_call_id: "c1".into(),
            tool_name: None,
            content: json!("ok"),
            is_error: false,
            duration_ms: None,
        };
        assert_eq!(tracker.see(&result).as_deref(), Some("search finished"));
        let step = EventBody::StepStarted {
            name: "plan".into(),
        };
        assert_eq!(tracker.see(&step).as_deref(), Some("Step: plan"));
        let unknown_result = EventBody::ToolResult {
            tool_call_id: "c9".into(),
            tool_name: None,
            content: json!("ok"),
            is_error: true,
            duration_ms: None,
        };
        assert_eq!(tracker.see(&unknown_result), None);
    }

    #[test]
    fn an_endless_line_is_cut_and_memory_stays_bounded() {
        let mut tracker = ActivityTracker::default();
        let mut last = None;
        for _ in 0..10_000 {
            last = tracker.see(&delta("é long line without end "));
        }
        let line = last.unwrap();
        assert_eq!(line.chars().count(), LONGEST);
        assert!(line.ends_with('…'));
        assert!(tracker.writing.len() <= LONGEST * 8 + 64);
    }
}
