//! The tenant's live stream read the way a browser reads it: one SSE message at a time,
//! with its feed position.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

/// One message of an SSE stream: its id (feed row), its event name, its data.
#[derive(Debug)]
pub struct Message {
    pub id: Option<u64>,
    pub event: Option<String>,
    pub data: Value,
}

pub struct Stream {
    response: reqwest::Response,
    buffer: String,
}

impl Stream {
    pub async fn open(client: &reqwest::Client, url: String, last_event_id: Option<u64>) -> Stream {
        let mut request = client.get(url);
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id.to_string());
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        let mut stream = Stream {
            response,
            buffer: String::new(),
        };
        // Every stream opens by naming its tenant.
        let named = stream.next(Duration::from_secs(5)).await.unwrap();
        assert_eq!(named.event.as_deref(), Some("tenant"), "{named:?}");
        stream
    }

    /// The next message with data, or none within `wait`.
    pub async fn next(&mut self, wait: Duration) -> Option<Message> {
        let deadline = Instant::now() + wait;
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut message = Message {
                    id: None,
                    event: None,
                    data: Value::Null,
                };
                let mut has_data = false;
                for line in block.lines() {
                    if let Some(id) = line.strip_prefix("id: ") {
                        message.id = Some(id.parse().unwrap());
                    } else if let Some(event) = line.strip_prefix("event: ") {
                        message.event = Some(event.to_owned());
                    } else if let Some(data) = line.strip_prefix("data: ") {
                        has_data = true;
                        message.data = serde_json::from_str(data).unwrap_or(json!(data));
                    }
                }
                if has_data {
                    return Some(message);
                }
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            match tokio::time::timeout(left, self.response.chunk()).await {
                Ok(Ok(Some(chunk))) => self.buffer.push_str(std::str::from_utf8(&chunk).unwrap()),
                _ => return None,
            }
        }
    }

    /// Messages until one satisfies `wanted` (which is returned last), failing after 10 s.
    pub async fn until(&mut self, wanted: impl Fn(&Message) -> bool) -> Vec<Message> {
        let mut seen = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(message) = self.next(left).await else {
                panic!("the stream never sent what was awaited; it sent {seen:#?}");
            };
            let done = wanted(&message);
            seen.push(message);
            if done {
                return seen;
            }
        }
    }
}
