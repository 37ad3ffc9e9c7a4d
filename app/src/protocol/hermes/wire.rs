//! Hermes JSON-RPC wire forms: transcript records, terminal text, request and error frames.

use serde_json::{Map, Value, json};

use crate::protocol::limits;

/// Server-request methods this console answers; others get a JSON-RPC -32601 reply.
pub const SUPPORTED_REQUESTS: [&str; 6] = [
    "approval",
    "clarify",
    "sudo",
    "secret",
    "terminal.read",
    "preview.read",
];

pub fn is_supported_request(method: &str) -> bool {
    SUPPORTED_REQUESTS.contains(&method)
}

/// One line of a recorded transcript (`{"seq","ts","t","dir","msg"}`).
#[derive(Clone, Debug, PartialEq)]
pub struct TranscriptLine {
    /// `gw->ui` (from the gateway) or `ui->gw` (from the client).
    pub from_gateway: bool,
    pub message: Value,
}

/// Reads one transcript record; a bare JSON-RPC frame counts as coming from the gateway.
pub fn parse_transcript_line(line: &str) -> Result<TranscriptLine, String> {
    limits::check(line).map_err(|error| error.to_string())?;
    let value: Value =
        serde_json::from_str(line).map_err(|error| format!("line is not valid JSON: {error}"))?;
    match (value.get("dir"), value.get("msg")) {
        (Some(Value::String(dir)), Some(message)) => Ok(TranscriptLine {
            from_gateway: dir == "gw->ui",
            message: message.clone(),
        }),
        _ if value.get("jsonrpc").is_some() => Ok(TranscriptLine {
            from_gateway: true,
            message: value,
        }),
        _ => Err("line is neither a transcript record nor a JSON-RPC frame".into()),
    }
}

/// Removes ANSI escape sequences (colours, cursor moves) from terminal text.
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                // CSI: parameters and intermediates, then one final byte in @..~
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                chars.next();
                // OSC: until BEL or ESC \
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' {
                        chars.next();
                        break;
                    }
                }
            }
            Some(_) => {
                chars.next();
            }
            None => {}
        }
    }
    out
}

/// The JSON-RPC error reply for a server request this console cannot handle.
pub fn unsupported_request_reply(rpc_id: &str, method: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": rpc_id,
        "error": { "code": -32601, "message": format!("this client does not handle `{method}`") }
    })
}

/// Params of a JSON-RPC request frame as a map, for the bridge.
pub fn request_frame(id: u64, method: &str, params: Value) -> Value {
    let mut frame = Map::new();
    frame.insert("jsonrpc".into(), json!("2.0"));
    frame.insert("id".into(), json!(id));
    frame.insert("method".into(), json!(method));
    frame.insert("params".into(), params);
    Value::Object(frame)
}
