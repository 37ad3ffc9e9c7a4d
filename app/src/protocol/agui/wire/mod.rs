//! AG-UI wire events: JSON text → typed [`AgUiEvent`], with a clear error for anything
//! malformed. The deprecated THINKING_* family is translated to REASONING_* here.

use std::borrow::Cow;

use serde::{Deserialize, de};
use serde_json::Value;

use crate::protocol::channel::Role;
use crate::protocol::limits::{self, LimitError};

mod decode;
mod typed;

pub(crate) use self::decode::RawEventId;
use self::decode::fill;
use self::typed::typed;

/// Writes [`WireEvent`], its wire field names and the filling of each field from one
/// table, so the three cannot disagree.
macro_rules! wire_event {
    ($($field:ident: $ty:ty => $variant:ident $name:literal,)*) => {
        /// Every field any AG-UI event may carry; filled in place in one pass (no
        /// intermediate tree, and the struct is never moved while it is filled).
        #[derive(Debug, Default)]
        struct WireEvent<'a> {
            kind: Cow<'a, str>,
            $($field: Option<$ty>,)*
        }

        /// The name of each [`WireEvent`] field on the wire.
        #[derive(Deserialize)]
        #[serde(field_identifier)]
        enum Field {
            #[serde(rename = "type")]
            Type,
            $(#[serde(rename = $name)] $variant,)*
            #[serde(other)]
            Other,
        }

        impl WireEvent<'_> {
            /// Reads the value of `field` into its slot (`type` and unknown fields are
            /// the caller's).
            fn fill_field<'de, A: de::MapAccess<'de>>(
                &mut self,
                field: Field,
                map: &mut A,
            ) -> Result<(), A::Error> {
                match field {
                    $(Field::$variant => fill(&mut self.$field, $name, map),)*
                    Field::Type | Field::Other => Ok(()),
                }
            }
        }
    };
}

wire_event! {
    timestamp: Value => Timestamp "timestamp",
    protocol_version: String => ProtocolVersion "protocolVersion",
    outcome: Value => Outcome "outcome",
    message: String => Message "message",
    code: Value => Code "code",
    step_name: String => StepName "stepName",
    message_id: String => MessageId "messageId",
    role: String => Role "role",
    name: String => Name "name",
    delta: Value => Delta "delta",
    tool_call_id: String => ToolCallId "toolCallId",
    tool_call_name: String => ToolCallName "toolCallName",
    parent_message_id: String => ParentMessageId "parentMessageId",
    content: Value => Content "content",
    subtype: String => Subtype "subtype",
    entity_id: String => EntityId "entityId",
    encrypted_value: String => EncryptedValue "encryptedValue",
    snapshot: Value => Snapshot "snapshot",
    messages: Value => Messages "messages",
    activity_type: String => ActivityType "activityType",
    replace: bool => Replace "replace",
    patch: Value => Patch "patch",
    event: Value => Event "event",
    source: String => Source "source",
    value: Value => Value "value",
    subagent_run_id: String => SubagentRunId "subagentRunId",
    description: String => Description "description",
    raw_event: RawEventId => RawEvent "rawEvent",
}

/// A typed AG-UI event. Chunk variants are expanded by `chunks` before verification.
#[derive(Clone, Debug, PartialEq)]
pub enum AgUiEvent {
    RunStarted {
        protocol_version: Option<String>,
    },
    RunFinished {
        outcome: Option<Value>,
    },
    RunError {
        message: String,
        code: Option<String>,
    },
    StepStarted {
        name: String,
    },
    StepFinished {
        name: String,
    },
    TextStart {
        id: String,
        role: Role,
        name: Option<String>,
    },
    TextContent {
        id: String,
        delta: String,
    },
    TextEnd {
        id: String,
    },
    TextChunk {
        id: Option<String>,
        role: Option<Role>,
        name: Option<String>,
        delta: Option<String>,
    },
    ToolStart {
        id: String,
        name: String,
        parent: Option<String>,
    },
    ToolArgs {
        id: String,
        delta: String,
    },
    ToolEnd {
        id: String,
    },
    ToolChunk {
        id: Option<String>,
        name: Option<String>,
        parent: Option<String>,
        delta: Option<String>,
    },
    ToolResult {
        tool_call_id: String,
        content: Value,
    },
    ReasoningStart {
        id: String,
    },
    ReasoningEnd {
        id: String,
    },
    ReasoningMessageStart {
        id: String,
    },
    ReasoningMessageContent {
        id: String,
        delta: String,
    },
    ReasoningMessageEnd {
        id: String,
    },
    ReasoningChunk {
        id: Option<String>,
        delta: Option<String>,
    },
    ReasoningEncrypted {
        subtype: String,
        entity_id: String,
        value: String,
    },
    StateSnapshot {
        snapshot: Value,
    },
    StateDelta {
        patch: Value,
    },
    MessagesSnapshot {
        messages: Value,
    },
    ActivitySnapshot {
        id: String,
        activity_type: String,
        content: Value,
        replace: bool,
    },
    ActivityDelta {
        id: String,
        patch: Value,
    },
    Raw {
        event: Value,
        source: Option<String>,
    },
    Custom {
        name: String,
        value: Value,
        /// `rawEvent.id`: the framework's own id for what the event announces.
        raw_id: Option<String>,
    },
    SubagentStarted {
        id: String,
        name: String,
        description: Option<String>,
    },
    SubagentFinished {
        id: String,
        outcome: Option<Value>,
    },
    SubagentError {
        id: String,
        message: String,
    },
    /// A type this version does not know; kept whole so nothing is lost.
    Unknown {
        type_name: String,
        json: Value,
    },
    /// THINKING_START / THINKING_END (deprecated): a reasoning phase without an id.
    ThinkingStart,
    ThinkingEnd,
    /// THINKING_TEXT_MESSAGE_* (deprecated): reasoning text without an id.
    ThinkingTextStart,
    ThinkingTextContent {
        delta: String,
    },
    ThinkingTextEnd,
}

impl AgUiEvent {
    /// A *_CHUNK event, which the chunk expander turns into START / CONTENT / END.
    pub fn is_chunk(&self) -> bool {
        matches!(
            self,
            AgUiEvent::TextChunk { .. }
                | AgUiEvent::ToolChunk { .. }
                | AgUiEvent::ReasoningChunk { .. }
        )
    }

    /// One of the deprecated THINKING_* events, translated to REASONING_*.
    pub fn is_thinking(&self) -> bool {
        matches!(
            self,
            AgUiEvent::ThinkingStart
                | AgUiEvent::ThinkingEnd
                | AgUiEvent::ThinkingTextStart
                | AgUiEvent::ThinkingTextContent { .. }
                | AgUiEvent::ThinkingTextEnd
        )
    }

    /// The upstream type name, for diagnoses.
    pub fn type_name(&self) -> &str {
        use AgUiEvent::*;
        match self {
            RunStarted { .. } => "RUN_STARTED",
            RunFinished { .. } => "RUN_FINISHED",
            RunError { .. } => "RUN_ERROR",
            StepStarted { .. } => "STEP_STARTED",
            StepFinished { .. } => "STEP_FINISHED",
            TextStart { .. } => "TEXT_MESSAGE_START",
            TextContent { .. } => "TEXT_MESSAGE_CONTENT",
            TextEnd { .. } => "TEXT_MESSAGE_END",
            TextChunk { .. } => "TEXT_MESSAGE_CHUNK",
            ToolStart { .. } => "TOOL_CALL_START",
            ToolArgs { .. } => "TOOL_CALL_ARGS",
            ToolEnd { .. } => "TOOL_CALL_END",
            ToolChunk { .. } => "TOOL_CALL_CHUNK",
            ToolResult { .. } => "TOOL_CALL_RESULT",
            ReasoningStart { .. } => "REASONING_START",
            ReasoningEnd { .. } => "REASONING_END",
            ReasoningMessageStart { .. } => "REASONING_MESSAGE_START",
            ReasoningMessageContent { .. } => "REASONING_MESSAGE_CONTENT",
            ReasoningMessageEnd { .. } => "REASONING_MESSAGE_END",
            ReasoningChunk { .. } => "REASONING_MESSAGE_CHUNK",
            ReasoningEncrypted { .. } => "REASONING_ENCRYPTED_VALUE",
            StateSnapshot { .. } => "STATE_SNAPSHOT",
            StateDelta { .. } => "STATE_DELTA",
            MessagesSnapshot { .. } => "MESSAGES_SNAPSHOT",
            ActivitySnapshot { .. } => "ACTIVITY_SNAPSHOT",
            ActivityDelta { .. } => "ACTIVITY_DELTA",
            Raw { .. } => "RAW",
            Custom { .. } => "CUSTOM",
            SubagentStarted { .. } => "SUBAGENT_STARTED",
            SubagentFinished { .. } => "SUBAGENT_FINISHED",
            SubagentError { .. } => "SUBAGENT_ERROR",
            Unknown { type_name, .. } => type_name,
            ThinkingStart => "THINKING_START",
            ThinkingEnd => "THINKING_END",
            ThinkingTextStart => "THINKING_TEXT_MESSAGE_START",
            ThinkingTextContent { .. } => "THINKING_TEXT_MESSAGE_CONTENT",
            ThinkingTextEnd => "THINKING_TEXT_MESSAGE_END",
        }
    }
}

/// A decoded event with the fields every event shares.
#[derive(Clone, Debug, PartialEq)]
pub struct Upstream {
    pub event: AgUiEvent,
    /// Unix milliseconds.
    pub ts: Option<i64>,
    /// The subagent run that owns the event (AG-UI 1.0), if any.
    pub subagent: Option<String>,
}

/// Why a text could not become an event.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error(transparent)]
    Limit(#[from] LimitError),
    #[error("event is not valid JSON: {0}")]
    Json(String),
    #[error("{event_type} event is malformed: {problem}")]
    Field { event_type: String, problem: String },
}

fn timestamp_ms(value: Option<&Value>) -> Option<i64> {
    match value? {
        Value::Number(number) => number
            .as_i64()
            .or_else(|| number.as_f64().map(|float| float as i64)),
        _ => None,
    }
}

/// Parses one event. Size and depth are checked first, so hostile input gets an error,
/// never a panic or a blown stack.
pub fn parse_event(text: &str) -> Result<Upstream, WireError> {
    limits::check(text)?;
    let mut wire = WireEvent::default();
    if let Err(error) = wire.parse_into(text) {
        return Err(describe_parse_failure(text, error));
    }
    let ts = timestamp_ms(wire.timestamp.as_ref());
    let subagent = wire.subagent_run_id.clone();
    let event = typed(&mut wire, text)?;
    Ok(Upstream {
        event,
        ts,
        subagent,
    })
}

/// Names the event type in the error when the JSON is an object with a `type`.
fn describe_parse_failure(text: &str, error: serde_json::Error) -> WireError {
    if error.is_syntax() || error.is_eof() {
        return WireError::Json(error.to_string());
    }
    let event_type = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|value| value.get("type")?.as_str().map(str::to_owned));
    match event_type {
        Some(event_type) => WireError::Field {
            event_type,
            problem: error.to_string(),
        },
        None => WireError::Json(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_field_type_is_named_with_the_event_type() {
        let error = parse_event(r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":5,"delta":"x"}"#)
            .unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with("TEXT_MESSAGE_CONTENT event is malformed:"),
            "{message}"
        );
        assert!(message.contains("expected a string"), "{message}");
    }

    #[test]
    fn a_missing_required_field_is_named() {
        let error = parse_event(r#"{"type":"TOOL_CALL_START","toolCallId":"c1"}"#).unwrap_err();
        assert_eq!(
            error.to_string(),
            "TOOL_CALL_START event is malformed: `toolCallName` is missing"
        );
    }

    #[test]
    fn an_unknown_type_keeps_the_whole_event() {
        let parsed = parse_event(r#"{"type":"FUTURE_THING","x":[1,2]}"#).unwrap();
        assert_eq!(
            parsed.event,
            AgUiEvent::Unknown {
                type_name: "FUTURE_THING".into(),
                json: serde_json::json!({"type":"FUTURE_THING","x":[1,2]})
            }
        );
    }

    #[test]
    fn malformed_json_is_an_error_not_a_panic() {
        assert!(matches!(parse_event("{\"type\":"), Err(WireError::Json(_))));
        assert!(matches!(parse_event("[]"), Err(WireError::Json(_))));
    }
}
