//! Asks opened and closed: the run's ask list, their items, and the first close that counts.

use super::{ItemBody, RunView};
use crate::protocol::ask::AskState;
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
                    self.settle_if_terminal();
                }
                item
            }
            // apply_body routes only the kinds above here.
            _ => None,
        }
    }
}
