//! KsADK's hosted runtime as it speaks the OpenAI APIs: calls it runs itself and reports
//! with `response.ksadk.tool_result` (Chat: `response.tool_call` / `.tool_result`), and
//! approvals of its LangChain human-in-the-loop interrupts — an `mcp_approval_request`
//! carrying `allowed_decisions`, its `response.incomplete` naming `ksadk_interrupt`, or
//! Chat's `response.approval_request` — answered with a `ksadk_resume` input item that
//! carries one decision per reviewed action, in the session holding the interrupt.

use serde_json::{Value, json};

use super::{OpenAiNormalizer, draft, mcp_approval_ask};
use crate::protocol::ask::{Ask, AskOrigin, KsAdkInterrupt};
use crate::protocol::channel::{EventBody, EventDraft};

/// One interrupt as the stream describes it.
struct Interrupt<'a> {
    id: &'a str,
    name: &'a str,
    /// JSON text.
    arguments: String,
    description: Option<&'a str>,
    decisions: Vec<&'a str>,
    actions: usize,
}

impl<'a> Interrupt<'a> {
    /// An `mcp_approval_request` item that says which decisions it takes (KsADK's mark).
    fn of_item(item: &'a Value) -> Option<Self> {
        let decisions = item.get("allowed_decisions")?.as_array()?;
        Some(Self {
            id: item.get("id")?.as_str()?,
            name: item.get("name").and_then(Value::as_str).unwrap_or("a tool"),
            arguments: item
                .get("arguments")
                .and_then(Value::as_str)
                .unwrap_or("{}")
                .to_owned(),
            description: item.get("description").and_then(Value::as_str),
            decisions: decisions.iter().filter_map(Value::as_str).collect(),
            actions: 1,
        })
    }

    /// The interrupt record of `response.incomplete` (`ksadk_interrupt`) or of Chat's
    /// `response.approval_request` (`interrupt_info`).
    fn of_record(record: &'a Value) -> Option<Self> {
        let id = record
            .get("approval_request_id")
            .or_else(|| record.get("id"))?
            .as_str()?;
        let actions = record
            .get("action_requests")
            .and_then(Value::as_array)
            .map_or(1, |actions| actions.len().max(1));
        let decisions = record
            .pointer("/review_configs/0/allowed_decisions")
            .and_then(Value::as_array)
            .map(|all| all.iter().filter_map(Value::as_str).collect())
            .unwrap_or_else(|| vec!["approve", "reject"]);
        Some(Self {
            id,
            name: record
                .get("tool_name")
                .and_then(Value::as_str)
                .unwrap_or("a tool"),
            arguments: record
                .get("arguments")
                .map_or_else(|| "{}".to_owned(), Value::to_string),
            description: record.get("description").and_then(Value::as_str),
            decisions,
            actions,
        })
    }

    /// The approval ask for this interrupt, answered in `session_id` as `user`.
    fn ask(&self, session_id: Option<String>, user: Option<String>) -> Ask {
        let mut ask = mcp_approval_ask(self.id, self.name, None, &self.arguments);
        ask.description = self.description.map(str::to_owned);
        ask.actions = actions_for(&self.decisions);
        ask.origin = AskOrigin::OpenAiApproval {
            approval_request_id: self.id.to_owned(),
            ksadk: Some(KsAdkInterrupt {
                session_id,
                user,
                actions: self.actions,
            }),
        };
        ask
    }
}

/// The approval ask an interrupt record describes (`ksadk_interrupt`, `interrupt_info`, or
/// the `detail` of a stored `interaction.requested`); `None` when it names no interrupt.
pub fn interrupt_ask(
    record: &Value,
    session_id: Option<String>,
    user: Option<String>,
) -> Option<Ask> {
    Interrupt::of_record(record).map(|interrupt| interrupt.ask(session_id, user))
}

/// The console's actions for KsADK's decisions: approving once, denying (with a reason).
fn actions_for(decisions: &[&str]) -> Vec<String> {
    let mut actions: Vec<String> = decisions
        .iter()
        .filter_map(|decision| match *decision {
            "approve" => Some("once".to_owned()),
            "reject" => Some("deny".to_owned()),
            _ => None,
        })
        .collect();
    if actions.is_empty() {
        actions = vec!["once".into(), "deny".into()];
    }
    actions
}

/// The input item that answers interrupt `interrupt_id`: the same decision for each of
/// its `actions`; a rejection carries the operator's reason.
pub fn resume_item(
    interrupt_id: &str,
    approve: bool,
    reason: Option<&str>,
    actions: usize,
) -> Value {
    let decision = if approve {
        json!({"type": "approve"})
    } else {
        json!({"type": "reject", "message": reason.unwrap_or("Denied by the operator")})
    };
    json!({
        "type": "ksadk_resume",
        "interrupt_id": interrupt_id,
        "value": {"decisions": vec![decision; actions.max(1)]},
    })
}

impl OpenAiNormalizer {
    /// An `mcp_approval_request` from KsADK; false when the item is not one.
    pub(super) fn ksadk_approval_item(&mut self, item: &Value) -> bool {
        match Interrupt::of_item(item) {
            Some(interrupt) => {
                self.hold_interrupt(&interrupt);
                true
            }
            None => false,
        }
    }

    /// The interrupt a response ended on or a Chat stream announced (which says how many
    /// actions it reviews); false when the record names none.
    pub(super) fn ksadk_interrupt(&mut self, record: &Value) -> bool {
        match Interrupt::of_record(record) {
            Some(interrupt) => {
                self.hold_interrupt(&interrupt);
                true
            }
            None => false,
        }
    }

    /// Keeps an interrupt's ask until the response ends, when everything the stream says
    /// of it (the actions it reviews, the session) is known; one ask per interrupt.
    fn hold_interrupt(&mut self, interrupt: &Interrupt<'_>) {
        if let Some(known) = self
            .interrupts
            .iter_mut()
            .find(|ask| ask.id == interrupt.id)
        {
            if let AskOrigin::OpenAiApproval {
                ksadk: Some(held), ..
            } = &mut known.origin
            {
                held.actions = held.actions.max(interrupt.actions);
            }
            return;
        }
        if self.approvals.iter().any(|known| known == interrupt.id) {
            return;
        }
        self.approvals.push(interrupt.id.to_owned());
        let ask = interrupt.ask(None, self.ksadk_user.clone());
        self.interrupts.push(ask);
    }

    /// The interrupts held, opened as the response ends, in the session it named.
    pub(super) fn open_interrupts(&mut self, index: u64, out: &mut Vec<EventDraft>) {
        for mut ask in std::mem::take(&mut self.interrupts) {
            if let AskOrigin::OpenAiApproval {
                ksadk: Some(held), ..
            } = &mut ask.origin
            {
                held.session_id = self.session_id.clone();
            }
            out.push(draft(EventBody::AskOpened { ask: Box::new(ask) }, index));
        }
    }

    /// A call the runtime ran, reported with its result (`run_id` is the call's id): it
    /// is no longer the console's to run.
    pub(super) fn runtime_tool_result(
        &mut self,
        event: &Value,
        index: u64,
        out: &mut Vec<EventDraft>,
    ) {
        let Some(call_id) = event.get("run_id").and_then(Value::as_str) else {
            return;
        };
        let name = event.get("name").and_then(Value::as_str);
        if let Some(call) = self
            .calls
            .iter_mut()
            .find(|call| call.tool_call_id == call_id)
        {
            call.function = false;
        }
        let content = match event.get("output") {
            Some(Value::String(text)) => Value::String(text.clone()),
            Some(other) => other.clone(),
            None => Value::Null,
        };
        out.push(draft(
            EventBody::ToolResult {
                tool_call_id: call_id.to_owned(),
                tool_name: name.map(str::to_owned),
                content,
                is_error: event.get("error").is_some_and(|e| !e.is_null()),
                duration_ms: None,
            },
            index,
        ));
    }

    /// Chat's `response.tool_call`: a call the runtime makes, its arguments whole.
    pub(super) fn runtime_tool_call(
        &mut self,
        event: &Value,
        index: u64,
        out: &mut Vec<EventDraft>,
    ) {
        let Some(call_id) = event.get("run_id").and_then(Value::as_str) else {
            return;
        };
        let name = event
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("unnamed");
        self.start_call(call_id, call_id, name, false, index, out);
        let arguments = event.get("args").map(Value::to_string).unwrap_or_default();
        self.call_args(call_id, &arguments, index, out);
        self.end_call(call_id, index, out);
    }
}
