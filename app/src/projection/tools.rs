//! Tool call events, and settling the calls a finished run left without a result.

use super::{ItemBody, Keyed, RunView, ToolResultView, ToolStatus};
use crate::protocol::channel::{EventBody, RunEvent};

impl RunView {
    pub(super) fn apply_tool(&mut self, event: &RunEvent) -> Option<usize> {
        match &event.body {
            EventBody::ToolCallStarted {
                tool_call_id,
                name,
                parent_message_id,
                summary,
            } => {
                let position = self.tool_item(event, tool_call_id, name);
                if let ItemBody::ToolCall {
                    name: n,
                    parent_message_id: p,
                    summary: s,
                    status,
                    started_ts,
                    ..
                } = &mut self.items[position].body
                {
                    n.clone_from(name);
                    p.clone_from(parent_message_id);
                    if summary.is_some() {
                        s.clone_from(summary);
                    }
                    *status = ToolStatus::Streaming;
                    *started_ts = event.ts;
                }
                self.activity = None;
                Some(position)
            }
            EventBody::ToolCallArgs {
                tool_call_id,
                delta,
            } => {
                let position = self.tool_item(event, tool_call_id, "unknown");
                if let ItemBody::ToolCall { arguments, .. } = &mut self.items[position].body {
                    arguments.push_str(delta);
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::ToolCallEnded { tool_call_id } => {
                let position = self.tool_item(event, tool_call_id, "unknown");
                if let ItemBody::ToolCall {
                    status, ended_ts, ..
                } = &mut self.items[position].body
                {
                    if *status == ToolStatus::Streaming {
                        *status = ToolStatus::Running;
                    }
                    *ended_ts = Some(event.ts);
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::ToolProgress { tool_call_id, text } => {
                let position = self.tool_item(event, tool_call_id, "unknown");
                if let ItemBody::ToolCall { progress, .. } = &mut self.items[position].body {
                    progress.push(text.clone());
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::ToolResult {
                tool_call_id,
                tool_name,
                content,
                is_error,
                duration_ms,
            } => {
                let name = tool_name.as_deref().unwrap_or("unknown");
                // A call begun in an earlier run (a resume's result) has no start here.
                let began_here = self
                    .index
                    .items
                    .get(&self.items, Keyed::Tool, tool_call_id)
                    .is_some();
                let position = self.tool_item(event, tool_call_id, name);
                if let ItemBody::ToolCall {
                    status,
                    result,
                    started_ts,
                    ..
                } = &mut self.items[position].body
                {
                    *status = if *is_error {
                        ToolStatus::Failed
                    } else {
                        ToolStatus::Done
                    };
                    // From call to result, the operator's wait on an ask about it included;
                    // what the agent reports (the tool's own time) when no clock tells.
                    let measured = began_here
                        .then(|| u64::try_from(event.ts - *started_ts).ok())
                        .flatten()
                        .filter(|ms| *ms > 0);
                    *result = Some(ToolResultView {
                        content: content.clone(),
                        is_error: *is_error,
                        duration_ms: measured.or(*duration_ms),
                        ts: event.ts,
                    });
                }
                self.touch(position, event);
                Some(position)
            }
            // apply_body routes only the kinds above here.
            _ => None,
        }
    }

    fn tool_item(&mut self, event: &RunEvent, tool_call_id: &str, name: &str) -> usize {
        if let Some(position) = self.index.items.get(&self.items, Keyed::Tool, tool_call_id) {
            return position;
        }
        let position = self.push_item(
            event,
            ItemBody::ToolCall {
                tool_call_id: tool_call_id.to_owned(),
                name: name.to_owned(),
                arguments: String::new(),
                status: ToolStatus::Streaming,
                summary: None,
                parent_message_id: None,
                started_ts: event.ts,
                ended_ts: None,
                progress: Vec::new(),
                result: None,
            },
        );
        self.index.items.insert(&self.items, position);
        position
    }

    /// Once the run is over nothing streams, no step or subagent is active, and calls
    /// still waiting for a result will not get one here — unless an open ask is about
    /// that very call.
    pub(super) fn settle_open_items(&mut self) {
        let waiting: Vec<&str> = self
            .asks
            .iter()
            .filter(|ask| ask.state.is_pending())
            .filter_map(|ask| ask.tool_call_id.as_deref())
            .collect();
        for item in &mut self.items {
            match &mut item.body {
                ItemBody::ToolCall {
                    status,
                    tool_call_id,
                    ..
                } if matches!(status, ToolStatus::Streaming | ToolStatus::Running)
                    && !waiting.contains(&tool_call_id.as_str()) =>
                {
                    *status = ToolStatus::NoResult;
                }
                ItemBody::Step { active, .. } => {
                    *active = false;
                    self.index.active_steps.clear();
                }
                ItemBody::Subagent { running, .. } => *running = false,
                // A run that ended (stopped, failed, cut off) streams nothing more.
                ItemBody::Message { streaming, .. } | ItemBody::Reasoning { streaming, .. } => {
                    *streaming = false;
                }
                _ => {}
            }
        }
    }

    pub(super) fn settle_if_terminal(&mut self) {
        if self.status.is_terminal() {
            self.settle_open_items();
        }
    }
}
