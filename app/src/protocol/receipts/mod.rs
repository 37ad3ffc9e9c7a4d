//! Receipts: the user's typed answer to one pending ask, its validation, and the pure
//! mapping from a validated answer to what the agent's gateway expects.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ask::{Ask, AskState, Component, RecordedAnswer};

mod envelope;
mod gateway;
mod resume;
mod validate;

pub use self::envelope::{Receipt, ReceiptEnvelope, ReceiptTime};
pub use self::gateway::{GatewayAnswer, hermes_answer};
pub use self::resume::{ResumeEntry, agui_resume, custom_interrupt_resume};
pub use self::validate::{credential_field, validate};

/// Why a receipt was refused; each message names the field and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "error", content = "message", rename_all = "snake_case")]
pub enum ReceiptError {
    #[error("{0}")]
    Malformed(String),
    #[error("receipt.toolCallId `{got}` does not name this ask (`{expected}`)")]
    WrongAsk { got: String, expected: String },
    #[error("receipt.component `{got}` does not match the ask; expected `{expected}`")]
    WrongComponent { got: String, expected: String },
    #[error("receipt.action `{got}` is not allowed here; allowed: {allowed}")]
    ActionNotAllowed { got: String, allowed: String },
    #[error("receipt.data{field}: {problem}")]
    BadData { field: String, problem: String },
    #[error("the ask is already {state}")]
    AlreadyClosed { state: String },
    #[error("{0}")]
    IncompleteResume(String),
}

/// A receipt checked against its ask. `data` may hold a secret: it only ever goes to
/// the gateway; `recorded` is what the store and every view keep.
#[derive(Clone, PartialEq)]
pub struct ValidatedAnswer {
    pub ask_id: String,
    pub action: String,
    pub data: Value,
    /// The passvault entry whose value answers a password or secret prompt: the server
    /// opens it and fills `data` ([`ValidatedAnswer::fill_from_vault`]) before anything
    /// goes to the agent.
    pub from_vault: Option<String>,
    pub recorded: RecordedAnswer,
}

impl ValidatedAnswer {
    /// The answer for an ask closed without one (cancelled, expired, or left for a message
    /// sent instead): "cancel", with an empty password or secret where the ask wants one.
    pub fn not_answered(ask: &Ask) -> Self {
        let data = match ask.component {
            Component::SudoPrompt | Component::SecretPrompt => {
                serde_json::json!({ credential_field(ask.component): "" })
            }
            _ => Value::Null,
        };
        ValidatedAnswer {
            ask_id: ask.id.clone(),
            action: "cancel".into(),
            data,
            from_vault: None,
            recorded: RecordedAnswer {
                action: "cancel".into(),
                data: Value::Null,
                summary: "Not answered".into(),
                actor: None,
                at: None,
            },
        }
    }

    /// Puts the value opened from passvault entry `name` where the agent reads it; the
    /// record names the entry, never the value.
    pub fn fill_from_vault(&mut self, component: Component, value: &str, name: &str) {
        let field = credential_field(component);
        self.data = serde_json::json!({ field: value });
        self.recorded.data = serde_json::json!({ "vaultEntry": self.from_vault, "name": name });
        self.recorded.summary = format!("Sent from the passvault: {name}");
    }
}

impl fmt::Debug for ValidatedAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ValidatedAnswer")
            .field("ask_id", &self.ask_id)
            .field("action", &self.action)
            .field("from_vault", &self.from_vault)
            .field("recorded", &self.recorded)
            .finish_non_exhaustive()
    }
}

/// The closed state an ask moves to once its receipt is accepted.
pub fn resolved_state(answer: &ValidatedAnswer) -> AskState {
    AskState::Resolved {
        answer: answer.recorded.clone(),
    }
}
