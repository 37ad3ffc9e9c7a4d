//! The follow-up run that carries a paused AG-UI run's answers: the 1.0 `resume` list for
//! interrupts announced in the outcome, LangGraph's `forwardedProps.command.resume` for
//! one announced by a CUSTOM event, and the tool messages of frontend tools (which reach
//! the agent through the thread's history).

use app::error::ApiError;
use app::protocol::ask::{Ask, AskOrigin, AskState, Component};
use app::protocol::channel::{EventBody, EventDraft, Level};
use app::protocol::receipts::{ValidatedAnswer, agui_resume, custom_interrupt_resume};
use serde_json::{Value, json};

use crate::clock::now_ms;
use crate::connectors::{Paused, Prepared};

/// `input` with the paused run's answers in it; the recorded copy has every password and
/// secret replaced by what the ask's record keeps.
pub(super) fn with_answers(mut input: Value, paused: &Paused) -> Result<Prepared, ApiError> {
    let mut recorded = input.clone();
    let interrupts: Vec<&Ask> = paused
        .asks
        .iter()
        .map(|record| &record.ask)
        .filter(|ask| matches!(ask.origin, AskOrigin::AgUiInterrupt { .. }))
        .collect();
    if !interrupts.is_empty() {
        let entries = agui_resume(&interrupts, &paused.answers)
            .map_err(|error| ApiError::Conflict(error.to_string()))?;
        input["resume"] = serde_json::to_value(&entries).unwrap_or(Value::Null);
        let kept: std::collections::BTreeMap<String, ValidatedAnswer> = paused
            .answers
            .iter()
            .map(|(id, answer)| (id.clone(), as_recorded(paused, id, answer)))
            .collect();
        let entries = agui_resume(&interrupts, &kept)
            .map_err(|error| ApiError::Conflict(error.to_string()))?;
        recorded["resume"] = serde_json::to_value(&entries).unwrap_or(Value::Null);
    }
    if let Some(custom) = paused
        .asks
        .iter()
        .find(|record| matches!(record.ask.origin, AskOrigin::AgUiCustomInterrupt))
        && let Some(answer) = paused.answers.get(&custom.ask.id)
    {
        input["forwardedProps"] =
            json!({ "command": { "resume": custom_interrupt_resume(&custom.ask, answer) } });
        let kept = as_recorded(paused, &custom.ask.id, answer);
        recorded["forwardedProps"] =
            json!({ "command": { "resume": custom_interrupt_resume(&custom.ask, &kept) } });
    }
    let summary = paused
        .asks
        .iter()
        .filter_map(|record| match &record.ask.state {
            AskState::Resolved { answer } => {
                Some(format!("{} — {}", answer.summary, record.ask.title))
            }
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("; ");
    Ok(Prepared {
        recorded,
        input,
        first: vec![EventDraft::new(
            EventBody::Notice {
                level: Level::Info,
                text: format!("Resuming with the answers: {summary}"),
                source: "console".into(),
            },
            Some(now_ms()),
            None,
        )],
    })
}

/// The answer as the store may keep it: a password or secret replaced by its record.
fn as_recorded(paused: &Paused, ask_id: &str, answer: &ValidatedAnswer) -> ValidatedAnswer {
    let secret = paused.asks.iter().any(|record| {
        record.ask.id == ask_id
            && matches!(
                record.ask.component,
                Component::SudoPrompt | Component::SecretPrompt
            )
    });
    if !secret {
        return answer.clone();
    }
    let field = if answer.data.get("password").is_some() {
        "password"
    } else {
        "value"
    };
    ValidatedAnswer {
        data: json!({ field: "redacted" }),
        ..answer.clone()
    }
}
