//! Answers on a recorded transcript's client side, read back as closed asks.

use serde_json::{Map, Value, json};

use super::{HermesNormalizer, draft, text_of};
use crate::protocol::ask::{Ask, AskKind, AskOrigin, AskState, Component};
use crate::protocol::channel::{EventBody, EventDraft};
use crate::protocol::receipts::{Receipt, resolved_state, validate};

impl HermesNormalizer {
    /// A frame the client sent (a recorded transcript's `ui->gw` side): answers become
    /// closed asks, redacted exactly as a live receipt would be.
    pub fn push_client_frame(&mut self, frame: &Value, out: &mut Vec<EventDraft>) {
        let index = self.next_upstream;
        let method = frame.get("method").and_then(Value::as_str);
        let params = frame.get("params").cloned().unwrap_or(Value::Null);
        let found = match (method, frame.get("id")) {
            (Some(method), _) if method.ends_with(".respond") => {
                let request_id = text_of(&params, "request_id");
                let position = match &request_id {
                    Some(id) => self.open_asks.iter().position(|ask| {
                        ask.id == *id
                            || matches!(&ask.origin, AskOrigin::HermesEvent { request_id: Some(r), .. } if r == id)
                    }),
                    // 0.19 approvals carry no id: the oldest pending approval is answered.
                    None => self
                        .open_asks
                        .iter()
                        .position(|ask| ask.kind == AskKind::Approval),
                };
                position.map(|position| {
                    let answer = event_form_receipt(&self.open_asks[position], &params);
                    (position, answer)
                })
            }
            (None, Some(Value::String(rpc_id))) => {
                let position = self.open_asks.iter().position(|ask| ask.id == *rpc_id);
                let result = frame.get("result").cloned().unwrap_or(Value::Null);
                position.map(|position| {
                    let answer = request_form_receipt(&self.open_asks[position], &result);
                    (position, answer)
                })
            }
            _ => None,
        };
        let Some((position, (action, data))) = found else {
            return;
        };
        let ask = self.open_asks.remove(position);
        let receipt = Receipt {
            tool_call_id: ask.id.clone(),
            component: ask.component.as_str().to_owned(),
            action,
            data,
            ts: None,
        };
        let state = match validate(&ask, &receipt) {
            Ok(answer) => resolved_state(&answer),
            Err(error) => AskState::Cancelled {
                reason: format!("the recorded answer was not valid: {error}"),
            },
        };
        out.push(draft(
            EventBody::AskClosed {
                ask_id: ask.id,
                ask_kind: ask.kind,
                state: Box::new(state),
            },
            index,
        ));
    }
}

/// The receipt action and data an older-form `*.respond` call amounts to.
fn event_form_receipt(ask: &Ask, params: &Value) -> (String, Value) {
    let text = |key: &str| text_of(params, key).unwrap_or_default();
    match ask.kind {
        AskKind::Approval => {
            let mut data = Map::new();
            if let Some(all) = params.get("all") {
                data.insert("all".into(), all.clone());
            }
            (text("choice"), Value::Object(data))
        }
        AskKind::Sudo if text("password").is_empty() => ("skip".into(), Value::Null),
        AskKind::Sudo => ("submit".into(), json!({ "password": text("password") })),
        AskKind::Secret if text("value").is_empty() => ("skip".into(), Value::Null),
        AskKind::Secret => ("save".into(), json!({ "value": text("value") })),
        _ => {
            let answer = text_of(params, "answer")
                .or_else(|| text_of(params, "text"))
                .unwrap_or_default();
            if answer.is_empty() {
                ("cancel".into(), Value::Null)
            } else if ask.component == Component::OptionList {
                ("answer".into(), json!({ "answer": answer }))
            } else {
                let qid = ask
                    .questions
                    .first()
                    .map_or("answer".to_owned(), |q| q.id.clone());
                ("answer".into(), json!({ "answers": { qid: answer } }))
            }
        }
    }
}

/// The receipt action and data a newer-form JSON-RPC result amounts to.
fn request_form_receipt(ask: &Ask, result: &Value) -> (String, Value) {
    let value = text_of(result, "value").unwrap_or_default();
    match ask.kind {
        AskKind::Approval => {
            let mut data = Map::new();
            if let Some(all) = result.get("all") {
                data.insert("all".into(), all.clone());
            }
            (
                text_of(result, "choice").unwrap_or_default(),
                Value::Object(data),
            )
        }
        AskKind::Clarify => match result.get("answers") {
            Some(answers) => ("answer".into(), json!({ "answers": answers })),
            None => ("cancel".into(), Value::Null),
        },
        AskKind::Sudo if value.is_empty() => ("skip".into(), Value::Null),
        AskKind::Sudo => ("submit".into(), json!({ "password": value })),
        AskKind::Secret if value.is_empty() => ("skip".into(), Value::Null),
        AskKind::Secret => ("save".into(), json!({ "value": value })),
        _ if value.is_empty() => ("cancel".into(), Value::Null),
        _ => {
            let qid = ask
                .questions
                .first()
                .map_or("answer".to_owned(), |q| q.id.clone());
            ("answer".into(), json!({ "answers": { qid: value } }))
        }
    }
}
