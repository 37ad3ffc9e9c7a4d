//! Scripted AG-UI agents on loopback for tests that check what an agent received: each
//! keeps every RunAgentInput it was sent.

#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Reads one HTTP request: its method, its path and its body.
pub async fn read_http(socket: &mut TcpStream) -> Option<(String, String, Vec<u8>)> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let read = socket.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
        let Some(end) = buffer.windows(4).position(|window| window == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&buffer[..end]).into_owned();
        let mut line = head.lines().next()?.split(' ');
        let (method, path) = (line.next()?.to_owned(), line.next()?.to_owned());
        let length: usize = head
            .to_ascii_lowercase()
            .lines()
            .find_map(|line| line.strip_prefix("content-length:"))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or(0);
        while buffer.len() < end + 4 + length {
            let read = socket.read(&mut chunk).await.ok()?;
            if read == 0 {
                return None;
            }
            buffer.extend_from_slice(&chunk[..read]);
        }
        return Some((method, path, buffer[end + 4..end + 4 + length].to_vec()));
    }
}

/// Reads one request's JSON body.
pub async fn read_request(socket: &mut TcpStream) -> Option<Value> {
    let (_, _, body) = read_http(socket).await?;
    serde_json::from_slice(&body).ok()
}

/// Answers one request with `events` as a Server-Sent Events stream, then closes.
pub async fn respond(socket: &mut TcpStream, events: &[Value]) {
    let body: String = events
        .iter()
        .map(|event| format!("data: {event}\n\n"))
        .collect();
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n{body}"
    );
    let _ = socket.write_all(response.as_bytes()).await;
    let _ = socket.shutdown().await;
}

/// An agent at the returned URL that answers each run with the events `script` makes of
/// its RunAgentInput, keeping every input it was sent.
pub async fn scripted(
    script: impl Fn(&Value) -> Vec<Value> + Send + 'static,
) -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/agent", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let Some(input) = read_request(&mut socket).await else {
                continue;
            };
            kept.lock().unwrap().push(input.clone());
            respond(&mut socket, &script(&input)).await;
        }
    });
    (url, seen)
}

/// `event` with the run's `threadId` and `runId` from `input`.
pub fn of_run(input: &Value, mut event: Value) -> Value {
    event["threadId"] = input["threadId"].clone();
    event["runId"] = input["runId"].clone();
    event
}

/// The events of one assistant message saying `text`.
pub fn said(message_id: &str, text: &str) -> [Value; 3] {
    [
        json!({"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"}),
        json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": text}),
        json!({"type": "TEXT_MESSAGE_END", "messageId": message_id}),
    ]
}

/// An agent that answers every run with `reply` as one text message, keeping each input.
pub async fn recording(reply: &'static str) -> (String, Arc<Mutex<Vec<Value>>>) {
    scripted(move |input| {
        let mut events = vec![of_run(input, json!({"type": "RUN_STARTED"}))];
        events.extend(said("m1", reply));
        events.push(of_run(input, json!({"type": "RUN_FINISHED"})));
        events
    })
    .await
}

/// An agent whose user message is `{"tool": name, "arguments": {…}}`: it calls that tool
/// and ends waiting for the result; the run that brings the result says "got: <result>",
/// and one that brings other words says "heard: <words>; got: <every result so far>".
pub async fn tool_calling() -> (String, Arc<Mutex<Vec<Value>>>) {
    scripted(|input| {
        let run = input["runId"].as_str().unwrap_or_default();
        let messages = input["messages"].as_array().unwrap();
        let last = messages.last().unwrap();
        let mut events = vec![of_run(input, json!({"type": "RUN_STARTED"}))];
        let content = last["content"].as_str().unwrap_or_default();
        let wanted = serde_json::from_str::<Value>(content).ok();
        match (last["role"].as_str(), wanted) {
            (Some("tool"), _) => events.extend(said(&format!("m-{run}"), &format!("got: {content}"))),
            (_, Some(wanted)) => {
                let call = format!("call-{run}");
                events.extend([
                    json!({"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": wanted["tool"]}),
                    json!({"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": wanted["arguments"].to_string()}),
                    json!({"type": "TOOL_CALL_END", "toolCallId": call}),
                    of_run(input, json!({"type": "RUN_FINISHED",
                           "outcome": {"type": "success", "pendingToolCallIds": [call]}})),
                ]);
                return events;
            }
            _ => {
                let results: Vec<&str> = messages
                    .iter()
                    .filter(|message| message["role"] == "tool")
                    .filter_map(|message| message["content"].as_str())
                    .collect();
                let reply = format!("heard: {content}; got: {}", results.join(", "));
                events.extend(said(&format!("m-{run}"), &reply));
            }
        }
        events.push(of_run(input, json!({"type": "RUN_FINISHED"})));
        events
    })
    .await
}

/// What a recording agent was last sent as a tool result (its JSON when it is JSON).
pub fn last_tool_result(seen: &Mutex<Vec<Value>>) -> Value {
    let seen = seen.lock().unwrap();
    let last = seen.last().unwrap()["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "tool", "{last}");
    serde_json::from_str(last["content"].as_str().unwrap()).unwrap_or(last["content"].clone())
}
