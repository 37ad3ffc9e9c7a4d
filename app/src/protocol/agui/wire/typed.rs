//! A filled [`WireEvent`] checked and turned into the [`AgUiEvent`] its `type` names.

use serde_json::Value;

use super::{AgUiEvent, WireError, WireEvent};
use crate::protocol::channel::Role;

fn missing(kind: &str, field: &str) -> WireError {
    WireError::Field {
        event_type: kind.to_owned(),
        problem: format!("`{field}` is missing"),
    }
}

fn delta_text(kind: &str, delta: Option<Value>) -> Result<Option<String>, WireError> {
    match delta {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(WireError::Field {
            event_type: kind.to_owned(),
            problem: format!("`delta` must be a string, got {other}"),
        }),
    }
}

pub(super) fn typed(wire: &mut WireEvent<'_>, text: &str) -> Result<AgUiEvent, WireError> {
    let kind_name = wire.kind.clone();
    let kind: &str = &kind_name;
    let need = |value: Option<String>, field: &str| value.ok_or_else(|| missing(kind, field));
    let role =
        |role: Option<String>| -> Result<Option<Role>, WireError> {
            match role {
            None => Ok(None),
            Some(text) => Role::parse(&text).map(Some).ok_or_else(|| WireError::Field {
                event_type: kind.to_owned(),
                problem: format!(
                    "`role` must be assistant, user, system, developer or tool, got {text:?}"
                ),
            }),
        }
        };
    Ok(match kind {
        "RUN_STARTED" => AgUiEvent::RunStarted {
            protocol_version: wire.protocol_version.take(),
        },
        "RUN_FINISHED" => AgUiEvent::RunFinished {
            outcome: wire.outcome.take().filter(|o| !o.is_null()),
        },
        "RUN_ERROR" => AgUiEvent::RunError {
            message: need(wire.message.take(), "message")?,
            code: wire.code.take().map(|code| match code {
                Value::String(text) => text,
                other => other.to_string(),
            }),
        },
        "STEP_STARTED" => AgUiEvent::StepStarted {
            name: need(wire.step_name.take(), "stepName")?,
        },
        "STEP_FINISHED" => AgUiEvent::StepFinished {
            name: need(wire.step_name.take(), "stepName")?,
        },
        "TEXT_MESSAGE_START" => AgUiEvent::TextStart {
            id: need(wire.message_id.take(), "messageId")?,
            role: role(wire.role.take())?.unwrap_or_default(),
            name: wire.name.take(),
        },
        "TEXT_MESSAGE_CONTENT" => AgUiEvent::TextContent {
            id: need(wire.message_id.take(), "messageId")?,
            delta: delta_text(kind, wire.delta.take())?.ok_or_else(|| missing(kind, "delta"))?,
        },
        "TEXT_MESSAGE_END" => AgUiEvent::TextEnd {
            id: need(wire.message_id.take(), "messageId")?,
        },
        "TEXT_MESSAGE_CHUNK" => AgUiEvent::TextChunk {
            id: wire.message_id.take(),
            role: role(wire.role.take())?,
            name: wire.name.take(),
            delta: delta_text(kind, wire.delta.take())?,
        },
        "TOOL_CALL_START" => AgUiEvent::ToolStart {
            id: need(wire.tool_call_id.take(), "toolCallId")?,
            name: need(wire.tool_call_name.take(), "toolCallName")?,
            parent: wire.parent_message_id.take(),
        },
        "TOOL_CALL_ARGS" => AgUiEvent::ToolArgs {
            id: need(wire.tool_call_id.take(), "toolCallId")?,
            delta: delta_text(kind, wire.delta.take())?.ok_or_else(|| missing(kind, "delta"))?,
        },
        "TOOL_CALL_END" => AgUiEvent::ToolEnd {
            id: need(wire.tool_call_id.take(), "toolCallId")?,
        },
        "TOOL_CALL_CHUNK" => AgUiEvent::ToolChunk {
            id: wire.tool_call_id.take(),
            name: wire.tool_call_name.take(),
            parent: wire.parent_message_id.take(),
            delta: delta_text(kind, wire.delta.take())?,
        },
        "TOOL_CALL_RESULT" => AgUiEvent::ToolResult {
            tool_call_id: need(wire.tool_call_id.take(), "toolCallId")?,
            content: wire
                .content
                .take()
                .ok_or_else(|| missing(kind, "content"))?,
        },
        "REASONING_START" => AgUiEvent::ReasoningStart {
            id: need(wire.message_id.take(), "messageId")?,
        },
        "REASONING_END" => AgUiEvent::ReasoningEnd {
            id: need(wire.message_id.take(), "messageId")?,
        },
        "REASONING_MESSAGE_START" => AgUiEvent::ReasoningMessageStart {
            id: need(wire.message_id.take(), "messageId")?,
        },
        "REASONING_MESSAGE_CONTENT" => AgUiEvent::ReasoningMessageContent {
            id: need(wire.message_id.take(), "messageId")?,
            delta: delta_text(kind, wire.delta.take())?.ok_or_else(|| missing(kind, "delta"))?,
        },
        "REASONING_MESSAGE_END" => AgUiEvent::ReasoningMessageEnd {
            id: need(wire.message_id.take(), "messageId")?,
        },
        "REASONING_MESSAGE_CHUNK" => AgUiEvent::ReasoningChunk {
            id: wire.message_id.take(),
            delta: delta_text(kind, wire.delta.take())?,
        },
        "REASONING_ENCRYPTED_VALUE" => AgUiEvent::ReasoningEncrypted {
            subtype: need(wire.subtype.take(), "subtype")?,
            entity_id: need(wire.entity_id.take(), "entityId")?,
            value: need(wire.encrypted_value.take(), "encryptedValue")?,
        },
        "STATE_SNAPSHOT" => AgUiEvent::StateSnapshot {
            snapshot: wire.snapshot.take().unwrap_or(Value::Null),
        },
        "STATE_DELTA" => {
            let patch = wire.delta.take().ok_or_else(|| missing(kind, "delta"))?;
            if !patch.is_array() {
                return Err(WireError::Field {
                    event_type: kind.to_owned(),
                    problem: "`delta` must be an array of RFC 6902 operations".into(),
                });
            }
            AgUiEvent::StateDelta { patch }
        }
        "MESSAGES_SNAPSHOT" => AgUiEvent::MessagesSnapshot {
            messages: wire
                .messages
                .take()
                .ok_or_else(|| missing(kind, "messages"))?,
        },
        "ACTIVITY_SNAPSHOT" => AgUiEvent::ActivitySnapshot {
            id: need(wire.message_id.take(), "messageId")?,
            activity_type: need(wire.activity_type.take(), "activityType")?,
            content: wire
                .content
                .take()
                .ok_or_else(|| missing(kind, "content"))?,
            replace: wire.replace.take().unwrap_or(true),
        },
        "ACTIVITY_DELTA" => AgUiEvent::ActivityDelta {
            id: need(wire.message_id.take(), "messageId")?,
            patch: wire.patch.take().ok_or_else(|| missing(kind, "patch"))?,
        },
        "RAW" => AgUiEvent::Raw {
            event: wire.event.take().unwrap_or(Value::Null),
            source: wire.source.take(),
        },
        "CUSTOM" => AgUiEvent::Custom {
            name: need(wire.name.take(), "name")?,
            value: wire.value.take().unwrap_or(Value::Null),
            raw_id: wire.raw_event.take().and_then(|raw| raw.0),
        },
        "SUBAGENT_STARTED" => AgUiEvent::SubagentStarted {
            id: need(wire.subagent_run_id.take(), "subagentRunId")?,
            name: need(wire.name.take(), "name")?,
            description: wire.description.take(),
        },
        "SUBAGENT_FINISHED" => AgUiEvent::SubagentFinished {
            id: need(wire.subagent_run_id.take(), "subagentRunId")?,
            outcome: wire.outcome.take(),
        },
        "SUBAGENT_ERROR" => AgUiEvent::SubagentError {
            id: need(wire.subagent_run_id.take(), "subagentRunId")?,
            message: need(wire.message.take(), "message")?,
        },
        "THINKING_START" => AgUiEvent::ThinkingStart,
        "THINKING_END" => AgUiEvent::ThinkingEnd,
        "THINKING_TEXT_MESSAGE_START" => AgUiEvent::ThinkingTextStart,
        "THINKING_TEXT_MESSAGE_CONTENT" => AgUiEvent::ThinkingTextContent {
            delta: delta_text(kind, wire.delta.take())?.ok_or_else(|| missing(kind, "delta"))?,
        },
        "THINKING_TEXT_MESSAGE_END" => AgUiEvent::ThinkingTextEnd,
        _ => AgUiEvent::Unknown {
            type_name: wire.kind.clone().into_owned(),
            json: serde_json::from_str(text).unwrap_or(Value::Null),
        },
    })
}
