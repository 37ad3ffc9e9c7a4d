//! Chat Completions chunks: `choices[0].delta` carries text (`content`), reasoning
//! (`reasoning_content` or `reasoning`), refusals and tool calls by `index`;
//! `finish_reason` closes the turn, a last chunk may carry `usage`, `[DONE]` ends it.

use serde_json::Value;

use super::{OpenAiNormalizer, error_of, notice};
use crate::protocol::channel::{EventDraft, Level};

impl OpenAiNormalizer {
    pub(super) fn chat_chunk(&mut self, chunk: &Value, index: u64, out: &mut Vec<EventDraft>) {
        if chunk.get("error").is_some_and(|e| !e.is_null()) {
            let (message, code) = error_of(chunk)
                .unwrap_or_else(|| ("the endpoint reported an error".to_owned(), None));
            return self.fail(message, code, index, out);
        }
        if let Some(id) = chunk.get("id").and_then(Value::as_str) {
            self.response_id = id.to_owned();
        }
        let message_id = format!("{}-message", self.response_id);
        let reasoning_id = format!("{}-reasoning", self.response_id);
        if let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|choices| choices.first())
        {
            let delta = choice.get("delta").unwrap_or(&Value::Null);
            for key in ["reasoning_content", "reasoning"] {
                if let Some(text) = delta.get(key).and_then(Value::as_str) {
                    self.reason(&reasoning_id, text, index, out);
                }
            }
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                self.text(&message_id, text, index, out);
            }
            if let Some(text) = delta.get("refusal").and_then(Value::as_str) {
                self.refused = true;
                self.text(&message_id, text, index, out);
            }
            for call in delta
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let key = call
                    .get("index")
                    .and_then(Value::as_u64)
                    .unwrap_or(0)
                    .to_string();
                if let Some(id) = call.get("id").and_then(Value::as_str) {
                    let name = call
                        .pointer("/function/name")
                        .and_then(Value::as_str)
                        .unwrap_or("unnamed");
                    self.start_call(&key, id, name, true, index, out);
                }
                if let Some(arguments) = call.pointer("/function/arguments").and_then(Value::as_str)
                {
                    self.call_args(&key, arguments, index, out);
                }
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish_reason = Some(reason.to_owned());
                self.close_all(Some(index), out);
                match reason {
                    "length" => out.push(notice(
                        Level::Warning,
                        "The reply was cut at the model's token limit.",
                        "openai.finish_reason",
                        index,
                    )),
                    "content_filter" => out.push(notice(
                        Level::Warning,
                        "The endpoint's content filter stopped the reply.",
                        "openai.finish_reason",
                        index,
                    )),
                    _ => {}
                }
            }
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
        }
    }

    /// `[DONE]`: the end, when the model said why it stopped; otherwise the stream broke off.
    pub(super) fn chat_done(&mut self, index: u64, out: &mut Vec<EventDraft>) {
        if self.ended {
            return;
        }
        if self.finish_reason.is_none() {
            return self.fail(
                "the stream ended before the model said why it stopped".into(),
                Some("truncated".into()),
                index,
                out,
            );
        }
        let usage = self.usage.take();
        self.end_run(usage.as_ref(), index, out);
    }
}
