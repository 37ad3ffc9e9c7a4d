//! The end of an AG-UI run: its interrupts, frontend tool calls left waiting, the final answer.

use serde_json::Value;

use super::AgUiNormalizer;
use super::asks::{InterruptSource, ask_for_frontend_tool, ask_from_interrupt};
use crate::protocol::channel::{EventBody, EventDraft, Level, RunOutcome};
use crate::protocol::limits::excerpt;

impl AgUiNormalizer {
    pub(super) fn finish_run(
        &mut self,
        outcome: Option<Value>,
        ts: Option<i64>,
        index: u64,
        out: &mut Vec<EventDraft>,
    ) {
        let outcome_type = outcome
            .as_ref()
            .and_then(|o| o.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("success");
        let interrupts = match outcome_type {
            "interrupt" => outcome
                .as_ref()
                .and_then(|o| o.get("interrupts"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        // A held CUSTOM interrupt the outcome names again is that interrupt: the outcome's
        // form wins (it resumes with the 1.0 `resume` list), filled in from the CUSTOM one.
        let mut announced: Vec<(usize, Value)> = Vec::new();
        for (position, interrupt) in interrupts.iter().enumerate() {
            let id = interrupt.get("id").and_then(Value::as_str);
            let held = id.and_then(|id| {
                self.held_interrupts
                    .iter()
                    .position(|held| held.raw_id.as_deref() == Some(id) || held.ask.id == id)
            });
            if let Some(held) = held {
                let held = self.held_interrupts.remove(held);
                announced.push((position, merge_interrupt(held.value, interrupt)));
            }
        }
        let mut ask_ids = self.open_held_interrupts(out);
        let mut emit = |body: EventBody| out.push(EventDraft::new(body, ts, Some(index)));
        match outcome_type {
            "interrupt" => {
                for (position, interrupt) in interrupts.iter().enumerate() {
                    let merged = announced
                        .iter()
                        .find(|(merged, _)| *merged == position)
                        .map(|(_, merged)| merged);
                    match ask_from_interrupt(merged.unwrap_or(interrupt), InterruptSource::Outcome)
                    {
                        Ok(ask) => {
                            ask_ids.push(ask.id.clone());
                            emit(EventBody::AskOpened { ask: Box::new(ask) });
                        }
                        Err(problem) => emit(EventBody::Malformed {
                            message: format!("RUN_FINISHED interrupt is malformed: {problem}"),
                            excerpt: excerpt(&interrupt.to_string(), 240),
                        }),
                    }
                }
            }
            "cancelled" => {
                emit(EventBody::RunFinished {
                    outcome: RunOutcome::Cancelled,
                });
                return;
            }
            other => {
                if other != "success" {
                    emit(EventBody::Notice {
                        level: Level::Warning,
                        text: format!("unknown run outcome {other:?}, treated as success"),
                        source: "RUN_FINISHED".into(),
                    });
                }
                let pending: Vec<String> = match outcome
                    .as_ref()
                    .and_then(|o| o.get("pendingToolCallIds"))
                    .and_then(Value::as_array)
                {
                    Some(ids) => ids
                        .iter()
                        .filter_map(|id| id.as_str().map(str::to_owned))
                        .collect(),
                    None => {
                        let mut waiting: Vec<(usize, &String)> = self
                            .calls
                            .iter()
                            .filter(|(_, call)| call.ended && call.offered)
                            .map(|(id, call)| (call.order, id))
                            .collect();
                        waiting.sort_unstable();
                        waiting.into_iter().map(|(_, id)| id.clone()).collect()
                    }
                };
                for id in pending {
                    let (name, arguments) = match self.calls.get(&id) {
                        Some(call) => (call.name.clone(), call.arguments.clone()),
                        None => (
                            self.config
                                .prior_calls
                                .get(&id)
                                .cloned()
                                .unwrap_or_else(|| "tool".into()),
                            String::new(),
                        ),
                    };
                    ask_ids.push(id.clone());
                    emit(EventBody::AskOpened {
                        ask: Box::new(ask_for_frontend_tool(&id, &name, &arguments)),
                    });
                }
            }
        }
        if ask_ids.is_empty() {
            if let Some((message_id, true)) = self.final_candidate.take() {
                emit(EventBody::FinalAnswer {
                    message_id: Some(message_id),
                    text: None,
                });
            }
            emit(EventBody::RunFinished {
                outcome: RunOutcome::Success,
            });
        } else {
            emit(EventBody::RunFinished {
                outcome: RunOutcome::Interrupted { ask_ids },
            });
        }
    }

    /// Opens the held CUSTOM interrupts the outcome did not repeat, at their own place in
    /// the upstream log; returns their ids.
    pub(super) fn open_held_interrupts(&mut self, out: &mut Vec<EventDraft>) -> Vec<String> {
        std::mem::take(&mut self.held_interrupts)
            .into_iter()
            .map(|held| {
                let id = held.ask.id.clone();
                out.push(EventDraft::new(
                    EventBody::AskOpened {
                        ask: Box::new(held.ask),
                    },
                    held.ts,
                    Some(held.index),
                ));
                id
            })
            .collect()
    }
}

/// The outcome's interrupt over the CUSTOM event's value: the outcome's fields win.
fn merge_interrupt(custom: Value, outcome: &Value) -> Value {
    let (Value::Object(mut merged), Value::Object(outcome)) = (custom, outcome) else {
        return outcome.clone();
    };
    for (key, value) in outcome {
        merged.insert(key.clone(), value.clone());
    }
    Value::Object(merged)
}
