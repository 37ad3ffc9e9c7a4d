//! Responses API events: output items (messages, reasoning, function calls, MCP calls
//! and approval requests) open and close, their text and arguments stream as deltas,
//! and `response.completed`, `.incomplete` or `.failed` (or `error`) end the run. The
//! terminal events carry the response under `response`, or are it (KsADK).

use serde_json::Value;

use super::{OpenAiNormalizer, error_of, notice};
use crate::protocol::channel::{EventDraft, Level};

/// Output item types that are calls the runtime itself makes (shown as tool calls).
const HOSTED_CALLS: &[&str] = &[
    "mcp_call",
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "image_generation_call",
    "computer_call",
    "local_shell_call",
];

impl OpenAiNormalizer {
    pub(super) fn responses_event(&mut self, event: &Value, index: u64, out: &mut Vec<EventDraft>) {
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let item_id = event
            .get("item_id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let delta = event
            .get("delta")
            .and_then(Value::as_str)
            .unwrap_or_default();
        // The response object: under `response`, or the event itself (KsADK).
        let response = event.get("response").unwrap_or(event);
        match kind {
            "response.created" => {
                if let Some(id) = response.get("id").and_then(Value::as_str) {
                    self.response_id = id.to_owned();
                }
                self.note_session(response);
            }
            "response.output_item.added" => self.item_added(event.get("item"), index, out),
            "response.output_item.done" => self.item_done(event.get("item"), index, out),
            "response.output_text.delta" if item_id.is_empty() => {
                let message_id = format!("{}-message", self.response_id);
                self.text(&message_id, delta, index, out)
            }
            "response.output_text.delta" => self.text(item_id, delta, index, out),
            "response.refusal.delta" => {
                self.refused = true;
                self.text(item_id, delta, index, out);
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                self.reason(item_id, delta, index, out)
            }
            "response.function_call_arguments.delta" | "response.mcp_call_arguments.delta" => {
                self.call_args(item_id, delta, index, out)
            }
            "response.ksadk.tool_result" | "response.tool_result" => {
                self.runtime_tool_result(event, index, out)
            }
            "response.tool_call" => self.runtime_tool_call(event, index, out),
            "response.approval_request" => {
                if let Some(record) = event.get("interrupt_info")
                    && self.ksadk_interrupt(record)
                {
                    self.ends_on_approval = true;
                }
            }
            "response.completed" => {
                self.note_session(response);
                let usage = response.get("usage").cloned();
                self.end_run(usage.as_ref(), index, out);
            }
            "response.incomplete" => {
                self.note_session(response);
                if let Some(record) = response.pointer("/incomplete_details/ksadk_interrupt") {
                    self.ksadk_interrupt(record);
                }
                let reason = response
                    .pointer("/incomplete_details/reason")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown");
                if self.approvals.is_empty() {
                    out.push(notice(
                        Level::Warning,
                        &format!("The response is incomplete ({}).", reason.replace('_', " ")),
                        "openai.incomplete",
                        index,
                    ));
                }
                let usage = response.get("usage").cloned();
                self.end_run(usage.as_ref(), index, out);
            }
            "response.failed" => {
                let (message, code) = response
                    .get("error")
                    .and_then(error_of)
                    .unwrap_or_else(|| ("the response failed".into(), None));
                self.fail(message, code, index, out);
            }
            "error" => {
                let (message, code) = error_of(event)
                    .unwrap_or_else(|| ("the endpoint reported an error".into(), None));
                self.fail(message, code, index, out);
            }
            // An error without a type, as some proxies send one mid-stream.
            "" if event.get("error").is_some_and(|e| !e.is_null()) => {
                let (message, code) = error_of(event)
                    .unwrap_or_else(|| ("the endpoint reported an error".into(), None));
                self.fail(message, code, index, out);
            }
            // Progress markers and whole-text repeats of what the deltas already carried.
            _ => {}
        }
    }

    fn item_added(&mut self, item: Option<&Value>, index: u64, out: &mut Vec<EventDraft>) {
        let Some(item) = item else { return };
        let id = item.get("id").and_then(Value::as_str).unwrap_or_default();
        match item.get("type").and_then(Value::as_str).unwrap_or_default() {
            "function_call" => {
                let call_id = item.get("call_id").and_then(Value::as_str).unwrap_or(id);
                let name = item
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("unnamed");
                self.start_call(id, call_id, name, true, index, out);
            }
            // KsADK announces its approval as the item opens.
            "mcp_approval_request" => {
                self.ksadk_approval_item(item);
            }
            kind if HOSTED_CALLS.contains(&kind) => {
                let name = item
                    .get("name")
                    .and_then(Value::as_str)
                    .map_or_else(|| kind.trim_end_matches("_call").to_owned(), str::to_owned);
                self.start_call(id, id, &name, false, index, out);
            }
            _ => {}
        }
    }

    fn item_done(&mut self, item: Option<&Value>, index: u64, out: &mut Vec<EventDraft>) {
        let Some(item) = item else { return };
        let id = item.get("id").and_then(Value::as_str).unwrap_or_default();
        match item.get("type").and_then(Value::as_str).unwrap_or_default() {
            "message" if self.message.as_deref() == Some(id) => self.end_message(index, out),
            "reasoning" if self.reasoning.as_deref() == Some(id) => self.end_reasoning(index, out),
            "mcp_approval_request" => self.approval(item, index, out),
            "function_call" => {
                // Arguments may come whole with the item, without deltas before it.
                let streamed = self
                    .calls
                    .iter()
                    .any(|c| c.key == id && !c.arguments.is_empty());
                if let Some(arguments) = item.get("arguments").and_then(Value::as_str)
                    && !streamed
                {
                    self.call_args(id, arguments, index, out);
                }
                self.end_call(id, index, out)
            }
            kind if HOSTED_CALLS.contains(&kind) => {
                self.end_call(id, index, out);
                if let Some(output) = item.get("output").filter(|o| !o.is_null()) {
                    out.push(super::draft(
                        crate::protocol::channel::EventBody::ToolResult {
                            tool_call_id: id.to_owned(),
                            tool_name: None,
                            content: output.clone(),
                            is_error: item.get("error").is_some_and(|e| !e.is_null()),
                            duration_ms: None,
                        },
                        index,
                    ));
                }
                if let Some(error) = item.get("error").and_then(Value::as_str) {
                    out.push(notice(
                        Level::Warning,
                        &format!("{} failed: {error}", kind.replace('_', " ")),
                        "openai.hosted_call",
                        index,
                    ));
                }
            }
            _ => {}
        }
    }
}
