//! AG-UI resumes: the `resume` list for every open interrupt, and LangGraph-style resumes.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{ReceiptError, ValidatedAnswer};
use crate::protocol::ask::{Ask, AskOrigin, Component};

/// One entry of an AG-UI `resume` array.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResumeEntry {
    pub interrupt_id: String,
    /// `resolved` or `cancelled`.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<Value>,
}

/// The payload an AG-UI interrupt answer carries, and whether it counts as resolved.
fn interrupt_payload(ask: &Ask, answer: &ValidatedAnswer) -> (bool, Option<Value>) {
    let approval_schema = matches!(
        ask.origin,
        AskOrigin::AgUiInterrupt {
            approval_schema: true,
            ..
        }
    );
    // Closed without an answer (expired, cancelled, or left for a message sent instead):
    // abandoned, never approved; an agent whose schema wants a decision hears a refusal.
    if answer.action == "cancel" {
        return match (ask.component, approval_schema) {
            (Component::ApprovalCard, true) => (true, Some(json!({ "approved": false }))),
            _ => (false, None),
        };
    }
    match ask.component {
        Component::ApprovalCard => {
            let approved = answer.action != "deny";
            if !approved && !approval_schema {
                // Abandoned, yet the operator's reason still goes along.
                let reason = answer.data.get("reason").cloned();
                return (false, reason.map(|reason| json!({ "reason": reason })));
            }
            let mut payload = Map::new();
            payload.insert("approved".into(), json!(approved));
            payload.insert("choice".into(), json!(answer.action));
            if let Value::Object(extra) = &answer.data {
                for (key, value) in extra {
                    if key != "all" {
                        payload.insert(key.clone(), value.clone());
                    }
                }
            }
            (true, Some(Value::Object(payload)))
        }
        Component::CodeDiff => (
            true,
            Some(json!({ "accepted": answer.action == "accept", "toolCallId": ask.tool_call_id })),
        ),
        // A skipped password or secret is still an answer: the agent goes on without it.
        Component::SudoPrompt | Component::SecretPrompt => (true, Some(answer.data.clone())),
        _ => {
            let answers = answer.data.get("answers").cloned().unwrap_or(Value::Null);
            let single = ask
                .questions
                .first()
                .filter(|_| ask.questions.len() == 1)
                .and_then(|q| answers.get(&q.id).cloned())
                .or_else(|| answer.data.get("answer").cloned());
            let payload = match single {
                Some(value) => json!({ "answer": value }),
                None => json!({ "answers": answers }),
            };
            (true, Some(payload))
        }
    }
}

/// One AG-UI resume covering every open interrupt of a run. Refuses an answer set that
/// leaves an interrupt uncovered, since AG-UI has no partial resume.
pub fn agui_resume(
    open: &[&Ask],
    answers: &BTreeMap<String, ValidatedAnswer>,
) -> Result<Vec<ResumeEntry>, ReceiptError> {
    let missing: Vec<&str> = open
        .iter()
        .filter(|ask| !answers.contains_key(&ask.id))
        .map(|ask| ask.id.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(ReceiptError::IncompleteResume(format!(
            "a resume must answer every open interrupt; unanswered: {}",
            missing.join(", ")
        )));
    }
    open.iter()
        .map(|ask| {
            let AskOrigin::AgUiInterrupt { interrupt_id, .. } = &ask.origin else {
                return Err(ReceiptError::IncompleteResume(format!(
                    "ask `{}` is not an AG-UI interrupt",
                    ask.id
                )));
            };
            let answer = &answers[&ask.id];
            let (resolved, payload) = interrupt_payload(ask, answer);
            Ok(ResumeEntry {
                interrupt_id: interrupt_id.clone(),
                status: if resolved { "resolved" } else { "cancelled" }.to_owned(),
                payload,
            })
        })
        .collect()
}

/// The `forwardedProps.command.resume` value for a LangGraph-style interrupt.
pub fn custom_interrupt_resume(ask: &Ask, answer: &ValidatedAnswer) -> Value {
    let (_, payload) = interrupt_payload(ask, answer);
    payload.unwrap_or_else(|| json!({ "approved": false }))
}
