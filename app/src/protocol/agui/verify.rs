//! AG-UI ordering rules. A violation is described precisely; the caller decides whether
//! the offending event is applied.

use crate::protocol::idmap::{IdSet, PackedIdMap};

use serde_json::Value;

use super::wire::AgUiEvent;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Terminal {
    Finished,
    Errored,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    Open,
    Ended,
}

/// What the verifier knows of one stream.
#[derive(Debug, Default)]
pub struct Verifier {
    started: bool,
    terminal: Option<Terminal>,
    messages: PackedIdMap<Life>,
    calls: PackedIdMap<Life>,
    reasoning: PackedIdMap<Life>,
    reasoning_phases: IdSet,
    steps: Vec<String>,
    subagents: IdSet,
    /// Tool calls ended in earlier runs of the thread: a resume may deliver their results.
    prior_calls: IdSet,
}

/// What the stream left open when it ended.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct OpenAtEnd {
    pub messages: Vec<String>,
    pub calls: Vec<String>,
    pub reasoning: Vec<String>,
}

fn open_ids(map: &PackedIdMap<Life>) -> Vec<String> {
    let mut ids: Vec<String> = map
        .iter()
        .filter(|(_, life)| *life == Life::Open)
        .map(|(id, _)| id.to_owned())
        .collect();
    ids.sort();
    ids
}

impl Verifier {
    pub fn new(prior_calls: IdSet) -> Self {
        Self {
            prior_calls,
            ..Self::default()
        }
    }

    pub fn is_started(&self) -> bool {
        self.started
    }

    pub fn is_terminated(&self) -> bool {
        self.terminal.is_some()
    }

    /// Checks `event` against what came before; on success records its effect.
    pub fn check(&mut self, event: &AgUiEvent) -> Result<(), String> {
        self.rule(event)?;
        self.record(event);
        Ok(())
    }

    /// Records an event's effect without checking it (verification switched off).
    pub fn record(&mut self, event: &AgUiEvent) {
        use AgUiEvent::*;
        match event {
            RunStarted { .. } => self.started = true,
            RunFinished { .. } => self.terminal = Some(Terminal::Finished),
            RunError { .. } => self.terminal = Some(Terminal::Errored),
            StepStarted { name } => self.steps.push(name.clone()),
            StepFinished { name } => {
                if let Some(index) = self.steps.iter().rposition(|step| step == name) {
                    self.steps.remove(index);
                }
            }
            TextStart { id, .. } => self.messages.set(id, Life::Open),
            TextEnd { id } => self.messages.set(id, Life::Ended),
            ToolStart { id, .. } => self.calls.set(id, Life::Open),
            ToolEnd { id } => self.calls.set(id, Life::Ended),
            ReasoningStart { id } => {
                self.reasoning_phases.insert(id.clone());
            }
            ReasoningEnd { id } => {
                self.reasoning_phases.remove(id);
            }
            ReasoningMessageStart { id } => self.reasoning.set(id, Life::Open),
            ReasoningMessageEnd { id } => self.reasoning.set(id, Life::Ended),
            SubagentStarted { id, .. } => {
                self.subagents.insert(id.clone());
            }
            SubagentFinished { id, .. } | SubagentError { id, .. } => {
                self.subagents.remove(id);
            }
            _ => {}
        }
    }

    fn rule(&self, event: &AgUiEvent) -> Result<(), String> {
        use AgUiEvent::*;
        let kind = event.type_name();
        match self.terminal {
            Some(Terminal::Finished) if matches!(event, RunError { .. }) => return Ok(()),
            Some(_) => return Err(format!("{kind} arrived after the run had already finished")),
            None => {}
        }
        if !self.started {
            return match event {
                RunStarted { .. } | RunError { .. } | Raw { .. } | Custom { .. } => Ok(()),
                _ => Err(format!("{kind} arrived before RUN_STARTED")),
            };
        }
        let entity = |map: &PackedIdMap<Life>, id: &str, what: &str, opening: bool| match (
            map.get(id),
            opening,
        ) {
            (Some(Life::Open), true) => {
                Err(format!("{kind} for {what} {id:?}, which is already open"))
            }
            (_, true) => Ok(()),
            (Some(Life::Open), false) => Ok(()),
            (Some(Life::Ended), false) => {
                Err(format!("{kind} for {what} {id:?}, which has already ended"))
            }
            (None, false) => Err(format!("{kind} for {what} {id:?}, which was never opened")),
        };
        match event {
            RunStarted { .. } => Err("RUN_STARTED arrived twice in one stream".into()),
            RunFinished { outcome } => {
                if let Some(id) = open_ids(&self.messages).first() {
                    return Err(format!(
                        "RUN_FINISHED arrived while message {id:?} was still open"
                    ));
                }
                if let Some(id) = open_ids(&self.calls).first() {
                    return Err(format!(
                        "RUN_FINISHED arrived while tool call {id:?} was still open"
                    ));
                }
                if let Some(id) = open_ids(&self.reasoning).first() {
                    return Err(format!(
                        "RUN_FINISHED arrived while reasoning message {id:?} was still open"
                    ));
                }
                if let Some(step) = self.steps.last() {
                    return Err(format!(
                        "RUN_FINISHED arrived while step {step:?} was still active"
                    ));
                }
                if let Some(id) = self.subagents.iter().min() {
                    return Err(format!(
                        "RUN_FINISHED arrived while subagent {id:?} was still running"
                    ));
                }
                if let Some(outcome) = outcome
                    && outcome.get("type").and_then(Value::as_str) == Some("interrupt")
                {
                    let count = outcome
                        .get("interrupts")
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    if count == 0 {
                        return Err(
                            "RUN_FINISHED carries an interrupt outcome with no interrupts".into(),
                        );
                    }
                }
                Ok(())
            }
            StepStarted { name } => {
                if self.steps.iter().any(|step| step == name) {
                    Err(format!(
                        "STEP_STARTED for step {name:?}, which is already active"
                    ))
                } else {
                    Ok(())
                }
            }
            StepFinished { name } => {
                if self.steps.iter().any(|step| step == name) {
                    Ok(())
                } else {
                    Err(format!(
                        "STEP_FINISHED for step {name:?}, which never started"
                    ))
                }
            }
            TextStart { id, .. } => entity(&self.messages, id, "message", true),
            TextContent { id, .. } | TextEnd { id } => entity(&self.messages, id, "message", false),
            ToolStart { id, .. } => entity(&self.calls, id, "tool call", true),
            ToolArgs { id, .. } | ToolEnd { id } => entity(&self.calls, id, "tool call", false),
            ToolResult { tool_call_id, .. } => match self.calls.get(tool_call_id) {
                Some(Life::Open) => Err(format!(
                    "TOOL_CALL_RESULT for tool call {tool_call_id:?}, which has not ended yet"
                )),
                Some(Life::Ended) => Ok(()),
                None if self.prior_calls.contains(tool_call_id) => Ok(()),
                None => Err(format!(
                    "TOOL_CALL_RESULT for tool call {tool_call_id:?}, which was never opened"
                )),
            },
            ReasoningMessageStart { id } => entity(&self.reasoning, id, "reasoning message", true),
            ReasoningMessageContent { id, .. } | ReasoningMessageEnd { id } => {
                entity(&self.reasoning, id, "reasoning message", false)
            }
            ReasoningStart { id } => {
                if self.reasoning_phases.contains(id) {
                    Err(format!(
                        "REASONING_START for reasoning {id:?}, which is already open"
                    ))
                } else {
                    Ok(())
                }
            }
            ReasoningEnd { id } => {
                if self.reasoning_phases.contains(id) {
                    Ok(())
                } else {
                    Err(format!(
                        "REASONING_END for reasoning {id:?}, which was never opened"
                    ))
                }
            }
            SubagentStarted { id, .. } => {
                if self.subagents.contains(id) {
                    Err(format!(
                        "SUBAGENT_STARTED for subagent {id:?}, which is already running"
                    ))
                } else {
                    Ok(())
                }
            }
            SubagentFinished { id, .. } | SubagentError { id, .. } => {
                if self.subagents.contains(id) {
                    Ok(())
                } else {
                    Err(format!("{kind} for subagent {id:?}, which never started"))
                }
            }
            _ => Ok(()),
        }
    }

    /// End of input: the diagnosis when the stream stopped early, and what it left open.
    pub fn finish(&self) -> (Option<String>, OpenAtEnd) {
        let open = OpenAtEnd {
            messages: open_ids(&self.messages),
            calls: open_ids(&self.calls),
            reasoning: open_ids(&self.reasoning),
        };
        let diagnosis = if !self.started {
            Some("the stream ended before RUN_STARTED".to_owned())
        } else if self.terminal.is_none() {
            Some("the stream ended before RUN_FINISHED or RUN_ERROR".to_owned())
        } else {
            None
        };
        (diagnosis, open)
    }
}
