//! Which gateway sessions have a turn under way: from its prompt (or its `message.start`)
//! to its `message.complete`. A stopped turn the gateway has not ended within the grace
//! may still send frames after the thread's next prompt went out (the gateway queues that
//! prompt behind it); the next run skips them, up to and including that turn's
//! `message.complete`. Hermes 0.19 frames carry no turn id, so the turn boundary is the
//! only way to tell them apart; a prompt the gateway runs at once (`streaming`) says
//! nothing was ahead of it.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use serde_json::{Value, json};

#[derive(Default)]
pub(super) struct LiveTurns(Mutex<Turns>);

#[derive(Default)]
struct Turns {
    live: HashSet<String>,
    /// Prompts awaiting their reply: request id → session.
    prompts: HashMap<u64, String>,
}

impl LiveTurns {
    fn turns(&self) -> MutexGuard<'_, Turns> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A prompt went to `session` as request `id`: its turn is under way until it
    /// completes, even before its `message.start`.
    pub fn prompt_sent(&self, id: u64, session: &str) {
        let mut turns = self.turns();
        turns.live.insert(session.to_owned());
        turns.prompts.insert(id, session.to_owned());
    }

    /// The session of prompt `id` when `reply` says it runs at once (`streaming`): the
    /// gateway had no turn under way, whatever the frames seemed to say (a turn that
    /// ended without its `message.complete`).
    pub fn prompt_answered(&self, id: u64, reply: &Value) -> Option<String> {
        let session = self.turns().prompts.remove(&id)?;
        let streaming =
            reply.pointer("/result/status").and_then(Value::as_str) == Some("streaming");
        streaming.then_some(session)
    }

    /// Notes what a session's event frame says of its turn.
    pub fn see(&self, session: &str, event: Option<&str>) {
        let live = &mut self.turns().live;
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

    /// Whether a turn of `session` is under way.
    pub fn is_live(&self, session: &str) -> bool {
        self.turns().live.contains(session)
    }

    /// Forgets every turn (the gateway is gone).
    pub fn clear(&self) {
        let mut turns = self.turns();
        turns.live.clear();
        turns.prompts.clear();
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
    fn a_turn_is_live_from_its_prompt_to_its_completion() {
        let turns = LiveTurns::default();
        let frame =
            |kind: &str| json!({"method": "event", "params": {"type": kind, "session_id": "s"}});
        assert_eq!(event_type(&frame("message.start")), Some("message.start"));
        assert_eq!(
            event_type(&json!({"method": "approval.request", "id": "r1"})),
            None
        );
        turns.prompt_sent(1, "s");
        assert!(turns.is_live("s"), "before its message.start");
        turns.see("s", event_type(&frame("message.start")));
        turns.see("s", event_type(&frame("message.delta")));
        assert!(turns.is_live("s"));
        assert!(!turns.is_live("other"));
        turns.see("s", event_type(&frame("message.complete")));
        assert!(!turns.is_live("s"));
    }

    #[test]
    fn only_a_prompt_that_runs_at_once_says_nothing_was_ahead_of_it() {
        let turns = LiveTurns::default();
        turns.prompt_sent(7, "s");
        turns.prompt_sent(8, "t");
        let reply = |status: &str| json!({"jsonrpc": "2.0", "id": 1, "result": {"status": status}});
        assert_eq!(
            turns.prompt_answered(7, &reply("streaming")),
            Some("s".to_owned())
        );
        assert_eq!(turns.prompt_answered(7, &reply("streaming")), None, "once");
        assert_eq!(turns.prompt_answered(8, &reply("queued")), None);
        assert_eq!(
            turns.prompt_answered(9, &reply("streaming")),
            None,
            "not a prompt"
        );
    }
}
