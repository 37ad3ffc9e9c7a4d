//! Responses `mcp_approval_request`s: the approval ask one becomes (KsADK's, which say
//! the decisions they take, are its own: `ksadk.rs`), and the input item that answers it.

use serde_json::{Value, json};

use super::{OpenAiNormalizer, draft};
use crate::protocol::ask::{Ask, AskKind, AskOrigin, Component, ToolPreview};
use crate::protocol::channel::{EventBody, EventDraft};
use crate::protocol::limits::excerpt;

impl OpenAiNormalizer {
    /// An MCP tool call the runtime will not make until the operator approves it.
    pub(super) fn approval(&mut self, item: &Value, index: u64, out: &mut Vec<EventDraft>) {
        if self.ksadk_approval_item(item) {
            return;
        }
        let Some(id) = item.get("id").and_then(Value::as_str) else {
            out.push(draft(
                EventBody::ProtocolViolation {
                    message: format!(
                        "an mcp_approval_request without an id: {}",
                        excerpt(&item.to_string(), 120)
                    ),
                    applied: false,
                },
                index,
            ));
            return;
        };
        if self.approvals.iter().any(|known| known == id) {
            return;
        }
        let name = item.get("name").and_then(Value::as_str).unwrap_or("a tool");
        let server = item.get("server_label").and_then(Value::as_str);
        let arguments = item
            .get("arguments")
            .and_then(Value::as_str)
            .unwrap_or("{}");
        self.approvals.push(id.to_owned());
        let ask = mcp_approval_ask(id, name, server, arguments);
        out.push(draft(EventBody::AskOpened { ask: Box::new(ask) }, index));
    }
}

/// The approval ask for a Responses `mcp_approval_request`.
pub fn mcp_approval_ask(id: &str, name: &str, server: Option<&str>, arguments: &str) -> Ask {
    let tool = ToolPreview::from_call(name, arguments);
    let title = crate::plain_call::question(name, &tool.arguments, server);
    let mut metadata = vec![("tool".into(), name.to_owned())];
    if let Some(server) = server {
        metadata.push(("server".into(), server.to_owned()));
    }
    Ask {
        tool: Some(tool),
        metadata,
        ..Ask::new(
            id.to_owned(),
            AskKind::Approval,
            Component::ApprovalCard,
            title,
            vec!["once".into(), "deny".into()],
            AskOrigin::OpenAiApproval {
                approval_request_id: id.to_owned(),
                ksadk: None,
            },
        )
    }
}

/// The JSON an approval answer goes back as (Responses `mcp_approval_response` input item).
pub fn mcp_approval_response(approval_request_id: &str, approve: bool) -> Value {
    json!({"type": "mcp_approval_response", "approval_request_id": approval_request_id, "approve": approve})
}
