//! A receipt checked against its ask: the action meant, the data allowed, what is recorded.

use serde_json::{Map, Value, json};

use super::{Receipt, ReceiptError, ReceiptTime, ValidatedAnswer};
use crate::protocol::ask::{Ask, AskKind, Component, RecordedAnswer};

const REDACTED: &str = "redacted";

fn bad(field: &str, problem: impl Into<String>) -> ReceiptError {
    ReceiptError::BadData {
        field: if field.is_empty() {
            String::new()
        } else {
            format!(".{field}")
        },
        problem: problem.into(),
    }
}

fn string_field<'a>(data: &'a Value, field: &str) -> Result<&'a str, ReceiptError> {
    match data.get(field) {
        Some(Value::String(text)) => Ok(text),
        Some(other) => Err(bad(
            field,
            format!("expected a string, got {}", type_name(other)),
        )),
        None => Err(bad(field, "is missing")),
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn approval_summary(action: &str) -> &'static str {
    match action {
        "once" => "Approved once",
        "session" => "Approved for session",
        "always" => "Always approved",
        "deny" => "Denied",
        _ => "Answered",
    }
}

/// Checks a receipt against the ask it answers.
pub fn validate(ask: &Ask, receipt: &Receipt) -> Result<ValidatedAnswer, ReceiptError> {
    if !ask.state.is_pending() {
        return Err(ReceiptError::AlreadyClosed {
            state: ask.state.label().to_owned(),
        });
    }
    if receipt.tool_call_id != ask.id {
        return Err(ReceiptError::WrongAsk {
            got: receipt.tool_call_id.clone(),
            expected: ask.id.clone(),
        });
    }
    if receipt.component != ask.component.as_str() {
        return Err(ReceiptError::WrongComponent {
            got: receipt.component.clone(),
            expected: ask.component.as_str().to_owned(),
        });
    }
    if !(receipt.data.is_null() || receipt.data.is_object()) {
        return Err(bad(
            "",
            format!("expected an object, got {}", type_name(&receipt.data)),
        ));
    }
    let action = meant_action(ask, receipt)?;
    let action = action.as_str();
    let mut from_vault = None;
    let (data, recorded_data, summary) = match ask.component {
        Component::ApprovalCard => {
            let mut kept = Map::new();
            if let Some(all) = receipt.data.get("all") {
                if !all.is_boolean() {
                    return Err(bad(
                        "all",
                        format!("expected a boolean, got {}", type_name(all)),
                    ));
                }
                kept.insert("all".into(), all.clone());
            }
            if let Some(reason) = receipt.data.get("reason") {
                if !reason.is_string() {
                    return Err(bad("reason", "expected a string"));
                }
                kept.insert("reason".into(), reason.clone());
            }
            if let Some(edited) = receipt.data.get("editedArgs") {
                if !edited.is_object() {
                    return Err(bad(
                        "editedArgs",
                        "expected an object of replacement arguments",
                    ));
                }
                kept.insert("editedArgs".into(), edited.clone());
            }
            let data = Value::Object(kept);
            let summary = match (&ask.kind, action) {
                (AskKind::Approval, _) => approval_summary(action).to_owned(),
                _ => approval_summary(action).to_owned(),
            };
            (data.clone(), data, summary)
        }
        Component::OptionList => {
            if action == "cancel" {
                (Value::Null, Value::Null, "Cancelled".to_owned())
            } else {
                let answer = string_field(&receipt.data, "answer")?;
                let choices = ask
                    .questions
                    .first()
                    .map(|q| q.choices.as_slice())
                    .unwrap_or(&[]);
                if !choices.iter().any(|choice| choice == answer) {
                    return Err(bad(
                        "answer",
                        format!(
                            "`{answer}` is not one of the choices: {}",
                            choices.join(", ")
                        ),
                    ));
                }
                let data = json!({ "answer": answer });
                (data.clone(), data, format!("Answered — {answer}"))
            }
        }
        Component::QuestionFlow => {
            if action == "cancel" {
                (Value::Null, Value::Null, "Cancelled".to_owned())
            } else {
                let answers = validate_answers(ask, &receipt.data)?;
                let summary = ask
                    .questions
                    .iter()
                    .filter_map(|q| answers.get(&q.id).and_then(|a| a.as_str()))
                    .collect::<Vec<_>>()
                    .join(", ");
                let data = json!({ "answers": answers });
                (data.clone(), data, format!("Answered — {summary}"))
            }
        }
        Component::SudoPrompt | Component::SecretPrompt => {
            let field = credential_field(ask.component);
            if action == "skip" {
                (
                    json!({ field: "" }),
                    json!({ "skipped": true }),
                    "Skipped".to_owned(),
                )
            } else if let Some(entry) = receipt.data.get("vaultEntry") {
                let entry = match entry {
                    Value::String(id) if !id.trim().is_empty() && id.len() <= 200 => id.clone(),
                    _ => return Err(bad("vaultEntry", "expected the id of a passvault entry")),
                };
                if receipt.data.get(field).is_some() {
                    return Err(bad(field, "give a value or a vaultEntry, not both"));
                }
                from_vault = Some(entry.clone());
                // The server opens the entry and puts the value in `data`.
                (
                    Value::Null,
                    json!({ "vaultEntry": entry }),
                    "Sent from the passvault".to_owned(),
                )
            } else {
                let secret = string_field(&receipt.data, field)?;
                if secret.is_empty() {
                    return Err(bad(field, "is empty; use the `skip` action to skip"));
                }
                let summary = if ask.component == Component::SudoPrompt {
                    "Password sent"
                } else {
                    "Secret saved"
                };
                (
                    json!({ field: secret }),
                    json!({ field: REDACTED }),
                    summary.to_owned(),
                )
            }
        }
        Component::CodeDiff => {
            let summary = if action == "accept" {
                "Accepted"
            } else {
                "Rejected"
            };
            (Value::Null, Value::Null, summary.to_owned())
        }
        Component::FrontendTool => {
            if action == "cancel" {
                (Value::Null, Value::Null, "Declined".to_owned())
            } else {
                let result = receipt
                    .data
                    .get("result")
                    .cloned()
                    .ok_or_else(|| bad("result", "is missing"))?;
                let data = json!({ "result": result });
                (data.clone(), data, "Tool result sent".to_owned())
            }
        }
    };
    Ok(ValidatedAnswer {
        ask_id: ask.id.clone(),
        action: action.to_owned(),
        data,
        from_vault,
        recorded: RecordedAnswer {
            action: action.to_owned(),
            data: recorded_data,
            summary,
            actor: None,
            at: receipt.ts.map(ReceiptTime::to_rfc3339),
        },
    })
}

/// The field of a password or secret prompt's answer that carries the value.
pub fn credential_field(component: Component) -> &'static str {
    if component == Component::SudoPrompt {
        "password"
    } else {
        "value"
    }
}

/// The action a receipt means. An approval card also takes the contract's generic
/// `approve` (the ask's `data.choice` when it names an approving action, else `once`) and
/// `reject` (`deny`); anything else must be one of the ask's own actions.
fn meant_action(ask: &Ask, receipt: &Receipt) -> Result<String, ReceiptError> {
    let given = receipt.action.as_str();
    let not_allowed = || ReceiptError::ActionNotAllowed {
        got: given.to_owned(),
        allowed: ask.actions.join(", "),
    };
    if ask.actions.iter().any(|action| action == given) {
        return Ok(given.to_owned());
    }
    if ask.component != Component::ApprovalCard {
        return Err(not_allowed());
    }
    let approving = |action: &str| action != "deny" && ask.actions.iter().any(|a| a == action);
    let approved = match receipt.data.get("approved") {
        None => None,
        Some(Value::Bool(approved)) => Some(*approved),
        Some(other) => {
            return Err(bad(
                "approved",
                format!("expected a boolean, got {}", type_name(other)),
            ));
        }
    };
    let meant = match given {
        "approve" => {
            if approved == Some(false) {
                return Err(bad("approved", "is false, but the action is `approve`"));
            }
            match receipt.data.get("choice") {
                None => ["once", "session", "always"]
                    .into_iter()
                    .find(|action| approving(action)),
                Some(Value::String(choice)) if approving(choice) => Some(choice.as_str()),
                Some(choice) => {
                    return Err(bad(
                        "choice",
                        format!(
                            "`{}` is not an approving action of this ask; allowed: {}",
                            choice
                                .as_str()
                                .map_or_else(|| choice.to_string(), str::to_owned),
                            ask.actions
                                .iter()
                                .filter(|action| *action != "deny")
                                .cloned()
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                }
            }
        }
        "reject" => {
            if approved == Some(true) {
                return Err(bad("approved", "is true, but the action is `reject`"));
            }
            ask.actions
                .iter()
                .any(|action| action == "deny")
                .then_some("deny")
        }
        _ => None,
    };
    meant.map(str::to_owned).ok_or_else(not_allowed)
}

fn validate_answers(ask: &Ask, data: &Value) -> Result<Map<String, Value>, ReceiptError> {
    let answers = match data.get("answers") {
        Some(Value::Object(answers)) => answers,
        Some(other) => {
            return Err(bad(
                "answers",
                format!("expected an object, got {}", type_name(other)),
            ));
        }
        None => return Err(bad("answers", "is missing")),
    };
    for key in answers.keys() {
        if !ask.questions.iter().any(|q| q.id == *key) {
            return Err(bad(
                &format!("answers.{key}"),
                "names no question of this ask",
            ));
        }
    }
    let mut out = Map::new();
    for question in &ask.questions {
        let field = format!("answers.{}", question.id);
        match answers.get(&question.id) {
            None => return Err(bad(&field, "is missing")),
            Some(Value::Null) => {
                out.insert(question.id.clone(), Value::Null);
            }
            Some(Value::String(text)) => {
                if !question.choices.is_empty()
                    && !question.multi_select
                    && !question.choices.iter().any(|c| c == text)
                {
                    return Err(bad(
                        &field,
                        format!(
                            "`{text}` is not one of the choices: {}",
                            question.choices.join(", ")
                        ),
                    ));
                }
                out.insert(question.id.clone(), Value::String(text.clone()));
            }
            Some(other) => {
                return Err(bad(
                    &field,
                    format!("expected a string or null, got {}", type_name(other)),
                ));
            }
        }
    }
    Ok(out)
}
