//! Asks opened and closed: the run's ask list, their items, and the first close that counts.

use super::{ItemBody, Keyed, RunView, ToolResultView, ToolStatus};
use crate::protocol::ask::{AskOrigin, AskState};
use crate::protocol::channel::{EventBody, RunEvent};

impl RunView {
    pub(super) fn apply_ask(&mut self, event: &RunEvent) -> Option<usize> {
        match &event.body {
            EventBody::AskOpened { ask } => {
                match self.index.asks.get(&ask.id) {
                    // An ask once answered (or expired) stays as it was closed.
                    Some(&position) if !self.asks[position].state.is_pending() => return None,
                    Some(&position) => {
                        self.asks[position] = (**ask).clone();
                        if let Some(&item) = self.index.ask_items.get(&ask.id) {
                            self.touch(item, event);
                            return Some(item);
                        }
                    }
                    None => {
                        self.index.asks.insert(ask.id.clone(), self.asks.len());
                        self.asks.push((**ask).clone());
                    }
                }
                let position = self.push_item(
                    event,
                    ItemBody::Ask {
                        ask_id: ask.id.clone(),
                    },
                );
                self.index.ask_items.insert(ask.id.clone(), position);
                Some(position)
            }
            EventBody::AskClosed { ask_id, state, .. } => {
                let position = *self.index.asks.get(ask_id)?;
                // The first close is the one that counts: a late expiry does not relabel
                // an answer. Only the console reopens a closed ask (its answer was lost
                // before it reached the agent).
                if !self.asks[position].state.is_pending() && !state.is_pending() {
                    return None;
                }
                self.asks[position].state = (**state).clone();
                let item = self.index.ask_items.get(ask_id).copied();
                if let Some(item) = item {
                    self.touch(item, event);
                }
                if !matches!(**state, AskState::Pending) {
                    self.answer_frontend_call(position, event);
                    self.settle_if_terminal();
                }
                item
            }
            // apply_body routes only the kinds above here.
            _ => None,
        }
    }

    /// The asks still open when the run fails close with it
    /// ([`AskState::closed_by_failed_run`]), as the store closes them.
    pub(super) fn close_asks_of_failed_run(&mut self, event: &RunEvent) {
        let open: Vec<usize> = (0..self.asks.len())
            .filter(|&position| self.asks[position].state.is_pending())
            .collect();
        for position in open {
            self.asks[position].state = AskState::closed_by_failed_run();
            if let Some(&item) = self.index.ask_items.get(&self.asks[position].id) {
                self.touch(item, event);
            }
            self.answer_frontend_call(position, event);
        }
    }
}

impl RunView {
    /// A frontend tool's call is answered by its ask: the card of that call shows the
    /// result the console or the operator gave (or that it was declined), in place.
    fn answer_frontend_call(&mut self, ask_position: usize, event: &RunEvent) {
        let ask = &self.asks[ask_position];
        if !matches!(ask.origin, AskOrigin::AgUiFrontendTool { .. }) {
            return;
        }
        let Some(call_id) = ask.tool_call_id.clone() else {
            return;
        };
        let (content, is_error) = match &ask.state {
            AskState::Resolved { answer } if answer.action != "cancel" => {
                let content = answer
                    .data
                    .get("result")
                    .cloned()
                    .unwrap_or(serde_json::Value::Null);
                let is_error = content.get("error").is_some();
                (content, is_error)
            }
            AskState::Resolved { answer } => {
                (serde_json::Value::String(answer.summary.clone()), true)
            }
            other => (
                serde_json::Value::String(format!("The ask {}", other.label())),
                true,
            ),
        };
        let Some(item) = self.index.items.get(&self.items, Keyed::Tool, &call_id) else {
            return;
        };
        if let ItemBody::ToolCall {
            status,
            result,
            started_ts,
            ..
        } = &mut self.items[item].body
        {
            *status = if is_error {
                ToolStatus::Failed
            } else {
                ToolStatus::Done
            };
            *result = Some(ToolResultView {
                content,
                is_error,
                duration_ms: u64::try_from(event.ts - *started_ts).ok(),
                ts: event.ts,
            });
        }
        self.touch(item, event);
    }
}
