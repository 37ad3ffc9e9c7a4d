//! Receipts: the user's typed answer to one pending ask, its validation, and the pure
//! mapping from a validated answer to what the agent's gateway expects.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::ask::{Ask, AskKind, AskOrigin, AskState, Component, RecordedAnswer};

/// The envelope a client posts: `{"channel":"tool-result","receipt":{…}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReceiptEnvelope {
    pub channel: String,
    pub receipt: Receipt,
}

/// The answer to one ask, named by the ask's id in `toolCallId`.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Receipt {
    pub tool_call_id: String,
    pub component: String,
    pub action: String,
    #[serde(default)]
    pub data: Value,
    /// When the user acted; required in a posted receipt (see [`ReceiptEnvelope::parse`]),
    /// absent in answers read back from a transcript.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<ReceiptTime>,
}

/// The time a receipt was made, in epoch milliseconds. Read from a JSON integer (what the
/// contract and the console write) or an RFC 3339 string; always written as the integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ReceiptTime(pub i64);

impl ReceiptTime {
    /// The time as RFC 3339 in UTC with milliseconds, e.g. `2026-12-02T10:00:00.000Z`.
    pub fn to_rfc3339(self) -> String {
        let nanos = i128::from(self.0) * 1_000_000;
        time::OffsetDateTime::from_unix_timestamp_nanos(nanos)
            .ok()
            .and_then(|at| {
                at.format(&time::format_description::well_known::Rfc3339)
                    .ok()
            })
            .unwrap_or_else(|| self.0.to_string())
    }

    /// Reads an RFC 3339 time (any offset) as epoch milliseconds.
    pub fn parse_rfc3339(text: &str) -> Option<ReceiptTime> {
        let at = time::OffsetDateTime::parse(
            text.trim(),
            &time::format_description::well_known::Rfc3339,
        )
        .ok()?;
        let millis = at.unix_timestamp_nanos().div_euclid(1_000_000);
        i64::try_from(millis)
            .ok()
            .filter(|ms| *ms >= 0)
            .map(ReceiptTime)
    }
}

const TS_EXPECTED: &str = "epoch milliseconds (a non-negative integer) or an RFC 3339 time";

impl Serialize for ReceiptTime {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(self.0)
    }
}

impl<'de> Deserialize<'de> for ReceiptTime {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = ReceiptTime;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(TS_EXPECTED)
            }

            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<ReceiptTime, E> {
                i64::try_from(value)
                    .map(ReceiptTime)
                    .map_err(|_| E::custom(format!("receipt.ts {value} is out of range")))
            }

            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<ReceiptTime, E> {
                if value < 0 {
                    return Err(E::custom(format!(
                        "receipt.ts {value} is negative; expected {TS_EXPECTED}"
                    )));
                }
                Ok(ReceiptTime(value))
            }

            fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<ReceiptTime, E> {
                ReceiptTime::parse_rfc3339(value).ok_or_else(|| {
                    E::custom(format!(
                        "receipt.ts `{value}` is not a time; expected {TS_EXPECTED}"
                    ))
                })
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Receipts carry passwords and secrets: never print their data.
impl fmt::Debug for Receipt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receipt")
            .field("tool_call_id", &self.tool_call_id)
            .field("component", &self.component)
            .field("action", &self.action)
            .field("data", &"<not shown>")
            .field("ts", &self.ts)
            .finish()
    }
}

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

impl ReceiptEnvelope {
    /// Parses a posted body, naming the first field that is wrong.
    pub fn parse(body: &[u8]) -> Result<ReceiptEnvelope, ReceiptError> {
        let envelope: ReceiptEnvelope = serde_json::from_slice(body)
            .map_err(|error| ReceiptError::Malformed(format!("receipt is not valid: {error}")))?;
        if envelope.channel != "tool-result" {
            return Err(ReceiptError::Malformed(format!(
                "channel `{}` is not allowed; expected `tool-result`",
                envelope.channel
            )));
        }
        let receipt = &envelope.receipt;
        if receipt.ts.is_none() {
            return Err(ReceiptError::Malformed(format!(
                "receipt.ts is missing; expected {TS_EXPECTED}"
            )));
        }
        for (field, value) in [
            ("toolCallId", &receipt.tool_call_id),
            ("component", &receipt.component),
            ("action", &receipt.action),
        ] {
            if value.trim().is_empty() {
                return Err(ReceiptError::Malformed(format!(
                    "receipt.{field} must not be empty"
                )));
            }
        }
        Ok(envelope)
    }
}

/// A receipt checked against its ask. `data` may hold a secret: it only ever goes to
/// the gateway; `recorded` is what the store and every view keep.
#[derive(Clone, PartialEq)]
pub struct ValidatedAnswer {
    pub ask_id: String,
    pub action: String,
    pub data: Value,
    pub recorded: RecordedAnswer,
}

impl fmt::Debug for ValidatedAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ValidatedAnswer")
            .field("ask_id", &self.ask_id)
            .field("action", &self.action)
            .field("recorded", &self.recorded)
            .finish_non_exhaustive()
    }
}

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
            let field = if ask.component == Component::SudoPrompt {
                "password"
            } else {
                "value"
            };
            if action == "skip" {
                (
                    json!({ field: "" }),
                    json!({ "skipped": true }),
                    "Skipped".to_owned(),
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
        recorded: RecordedAnswer {
            action: action.to_owned(),
            data: recorded_data,
            summary,
            actor: None,
            at: receipt.ts.map(ReceiptTime::to_rfc3339),
        },
    })
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

/// The closed state an ask moves to once its receipt is accepted.
pub fn resolved_state(answer: &ValidatedAnswer) -> AskState {
    AskState::Resolved {
        answer: answer.recorded.clone(),
    }
}

/// What travels to the agent. May carry a secret: never log or store it.
#[derive(Clone, PartialEq)]
pub enum GatewayAnswer {
    /// Older Hermes form: call `method` with `params`.
    HermesCall { method: String, params: Value },
    /// Newer Hermes form: reply to server request `id` with `result`.
    HermesReply { id: String, result: Value },
    /// A tool message for the next AG-UI run's `messages`.
    AgUiToolMessage {
        tool_call_id: String,
        content: String,
        error: Option<String>,
    },
}

impl fmt::Debug for GatewayAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GatewayAnswer::HermesCall { method, .. } => {
                write!(f, "HermesCall {{ method: {method:?}, .. }}")
            }
            GatewayAnswer::HermesReply { id, .. } => write!(f, "HermesReply {{ id: {id:?}, .. }}"),
            GatewayAnswer::AgUiToolMessage { tool_call_id, .. } => {
                write!(
                    f,
                    "AgUiToolMessage {{ tool_call_id: {tool_call_id:?}, .. }}"
                )
            }
        }
    }
}

/// Maps a validated answer to the Hermes gateway call or reply for its ask.
pub fn hermes_answer(ask: &Ask, answer: &ValidatedAnswer) -> Option<GatewayAnswer> {
    let text_of = |field: &str| answer.data.get(field).cloned().unwrap_or(json!(""));
    let single_answer = || {
        answer
            .data
            .get("answer")
            .cloned()
            .or_else(|| {
                let first = ask.questions.first()?;
                answer.data.get("answers")?.get(&first.id).cloned()
            })
            .filter(|value| !value.is_null())
            .unwrap_or(json!(""))
    };
    match &ask.origin {
        AskOrigin::HermesEvent {
            method,
            session_id,
            request_id,
        } => {
            let mut params = Map::new();
            match ask.kind {
                AskKind::Approval => {
                    params.insert("session_id".into(), json!(session_id));
                    params.insert("choice".into(), json!(answer.action));
                    if let Some(request_id) = request_id {
                        params.insert("request_id".into(), json!(request_id));
                    }
                    if answer.data.get("all") == Some(&Value::Bool(true)) {
                        params.insert("all".into(), json!(true));
                    }
                }
                AskKind::Clarify => {
                    params.insert("request_id".into(), json!(request_id));
                    let text = if answer.action == "cancel" {
                        json!("")
                    } else {
                        single_answer()
                    };
                    params.insert("answer".into(), text);
                }
                AskKind::Sudo => {
                    params.insert("request_id".into(), json!(request_id));
                    params.insert("password".into(), text_of("password"));
                }
                AskKind::Secret => {
                    params.insert("request_id".into(), json!(request_id));
                    params.insert("value".into(), text_of("value"));
                }
                AskKind::TerminalRead => {
                    params.insert("request_id".into(), json!(request_id));
                    let text = if answer.action == "cancel" {
                        json!("")
                    } else {
                        single_answer()
                    };
                    params.insert("text".into(), text);
                }
                _ => return None,
            }
            Some(GatewayAnswer::HermesCall {
                method: method.clone(),
                params: Value::Object(params),
            })
        }
        AskOrigin::HermesRequest { rpc_id, .. } => {
            let result = match ask.kind {
                AskKind::Approval => {
                    let mut result = Map::new();
                    result.insert("choice".into(), json!(answer.action));
                    if answer.data.get("all") == Some(&Value::Bool(true)) {
                        result.insert("all".into(), json!(true));
                    }
                    Value::Object(result)
                }
                AskKind::Clarify => {
                    if answer.action == "cancel" {
                        json!({})
                    } else {
                        json!({ "answers": answer.data.get("answers").cloned().unwrap_or(json!({})) })
                    }
                }
                AskKind::Sudo => json!({ "value": text_of("password") }),
                AskKind::Secret => json!({ "value": text_of("value") }),
                AskKind::TerminalRead => {
                    let value = if answer.action == "cancel" {
                        json!("")
                    } else {
                        single_answer()
                    };
                    json!({ "value": value })
                }
                _ => return None,
            };
            Some(GatewayAnswer::HermesReply {
                id: rpc_id.clone(),
                result,
            })
        }
        AskOrigin::AgUiFrontendTool { .. } => {
            let (content, error) = if answer.action == "cancel" {
                (
                    String::new(),
                    Some("The user declined to run this tool.".to_owned()),
                )
            } else {
                let result = answer.data.get("result").cloned().unwrap_or(Value::Null);
                let content = match result {
                    Value::String(text) => text,
                    other => other.to_string(),
                };
                (content, None)
            };
            Some(GatewayAnswer::AgUiToolMessage {
                tool_call_id: ask.tool_call_id.clone().unwrap_or_else(|| ask.id.clone()),
                content,
                error,
            })
        }
        AskOrigin::AgUiInterrupt { .. } | AskOrigin::AgUiCustomInterrupt => None,
    }
}

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
    match ask.component {
        Component::ApprovalCard => {
            let approved = answer.action != "deny";
            if !approved && !approval_schema {
                return (false, None);
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
        _ if answer.action == "cancel" => (false, None),
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
