//! Which gateway sessions have a turn under way, as their frames tell (`message.start`
//! … `message.complete`). A stopped turn the gateway has not ended within the grace may
//! still send frames after the thread's next prompt went out (the gateway queues that
//! prompt behind it); the next run skips them, up to and including that turn's
//! `message.complete`. Hermes 0.19 frames carry no turn id, so the turn boundary is the
//! only way to tell them apart.

use std::collections::HashSet;
use std::sync::Mutex;

use serde_json::{Value, json};

#[derive(Default)]
pub(super) struct LiveTurns(Mutex<HashSet<String>>);

impl LiveTurns {
    /// Notes what a session's event frame says of its turn.
    pub fn see(&self, session: &str, event: Option<&str>) {
        let mut live = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match event {
            Some("message.start") => {
                live.insert(session.to_owned());
            }
            Some("message.complete") => {
                live.remove(session);
            }
            _ => {}
        }
    }

    /// Whether a turn of `session` has started and not completed.
    pub fn is_live(&self, session: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .contains(session)
    }

    /// Forgets every turn (the gateway is gone).
    pub fn clear(&self) {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clear();
    }
}

/// The type of a session event frame (`{"method": "event", "params": {"type": …}}`).
pub(super) fn event_type(frame: &Value) -> Option<&str> {
    if frame.get("method")?.as_str()? != "event" {
        return None;
    }
    frame.pointer("/params/type")?.as_str()
}

/// The reply to a request of a stopped turn, so the gateway does not wait on an answer
/// no one will give.
pub(super) fn stopped_turn_reply(rpc_id: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": rpc_id,
        "error": { "code": -32000, "message": "the turn this belongs to was stopped" }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_is_live_from_its_start_to_its_completion() {
        let turns = LiveTurns::default();
        let frame =
            |kind: &str| json!({"method": "event", "params": {"type": kind, "session_id": "s"}});
        assert_eq!(event_type(&frame("message.start")), Some("message.start"));
        assert_eq!(
            event_type(&json!({"method": "approval.request", "id": "r1"})),
            None
        );
        turns.see("s", event_type(&frame("message.start")));
        turns.see("s", event_type(&frame("message.delta")));
        assert!(turns.is_live("s"));
        assert!(!turns.is_live("other"));
        turns.see("s", event_type(&frame("message.complete")));
        assert!(!turns.is_live("s"));
    }
}
