//! Arbitrary bytes as a posted receipt, validated against every kind of ask; a valid one
//! is mapped to its gateway answer. Nothing may panic, and a recorded answer never holds
//! the secret a receipt carried.

#![no_main]

use app::protocol::ask::AskState;
use app::protocol::recorded::normalize_recorded;
use app::protocol::receipts::{ReceiptEnvelope, hermes_answer, resolved_state, validate};
use app::protocol::channel::EventBody;
use libfuzzer_sys::fuzz_target;

const ASKS: &str = include_str!("../../fixtures/hermes/asks_request_form.jsonl");

fuzz_target!(|data: &[u8]| {
    let Ok(envelope) = ReceiptEnvelope::parse(data) else {
        return;
    };
    for draft in normalize_recorded(ASKS.as_bytes(), Default::default()) {
        let EventBody::AskOpened { ask } = draft.body else {
            continue;
        };
        let mut ask = *ask;
        ask.state = AskState::Pending;
        let mut receipt = envelope.receipt.clone();
        receipt.tool_call_id = ask.id.clone();
        if let Ok(answer) = validate(&ask, &receipt) {
            let _ = hermes_answer(&ask, &answer);
            let AskState::Resolved { answer: recorded } = resolved_state(&answer) else {
                panic!("an accepted receipt must resolve the ask");
            };
            for key in ["password", "value"] {
                if let Some(kept) = recorded.data.get(key) {
                    assert_eq!(kept, "redacted", "a secret leaked into the record");
                }
            }
        }
    }
});
