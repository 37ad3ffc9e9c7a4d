//! The awkward demo agent: a real AG-UI endpoint (POST RunAgentInput, SSE back) whose
//! scenarios exercise every corner of the protocol. The first word of the last user
//! message picks the scenario; a resume run is recognised by its interrupt ids.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use sha2::Digest;

mod catalog;
mod http;
mod resume;
mod scenarios;
mod surface;

pub use self::http::{cancellations, raw, resumes, run, tools};

/// The tool set the demo agent needs offered; also served as the default tools file.
pub const TOOLS: &str = include_str!("../tools.json");

/// The words that pick a scenario, in the order the composer suggests them.
pub const SCENARIOS: [(&str, &str); 18] = [
    ("chunks", "A reply streamed in pieces that split an emoji"),
    ("call", "A tool call whose arguments arrive in parts"),
    ("parallel", "Two tool calls running side by side"),
    (
        "mixed",
        "Reasoning, text and a tool call, none of them closed",
    ),
    ("approve", "Two decisions for you at once"),
    (
        "busy",
        "Work with a plan and state, paused for your go-ahead",
    ),
    ("slow", "A run that never finishes, to stop"),
    ("fail", "A run that fails, to retry"),
    ("clarify", "A question with choices"),
    ("sudo", "A request for an administrator password"),
    ("secret", "A request for a secret, sent from the passvault"),
    ("terminal", "A command's terminal output to read"),
    ("edit", "A code change to review and accept or reject"),
    (
        "artifacts",
        "A table, a chart, an image, code and terminal output",
    ),
    ("plan", "A plan of tasks kept up to date"),
    (
        "frontend",
        "A tool the console runs itself: the thread's colour",
    ),
    (
        "remember deploys happen on Fridays",
        "A fact for the tenant's memory, queued for review",
    ),
    ("jot Release checklist", "A note, written once you allow it"),
];

/// Shared by every request: cancellations observed, approvals remembered per thread.
#[derive(Clone, Default)]
pub struct DemoAgent {
    inner: Arc<DemoInner>,
}

/// Runs the demo agent streams at once; past it, it answers 503.
pub const MOST_STREAMS: usize = 32;
/// Cancellations and resumes kept for a test to read, and threads whose approvals are
/// remembered: the latest ones, so the demo's memory stays bounded.
const KEPT: usize = 200;
const THREADS_REMEMBERED: usize = 1000;

struct StreamSlots(Arc<tokio::sync::Semaphore>);

impl Default for StreamSlots {
    fn default() -> Self {
        Self(Arc::new(tokio::sync::Semaphore::new(MOST_STREAMS)))
    }
}

#[derive(Default)]
struct DemoInner {
    streams: StreamSlots,
    cancelled: Mutex<Vec<String>>,
    /// Every resume received: its run id, and each interrupt it answered with its status
    /// and whether a password or secret came with it (never the value).
    resumes: Mutex<Vec<Value>>,
    session_approvals: Mutex<HashMap<String, HashSet<String>>>,
    /// Pause between events, so a browser sees text stream in.
    delay: Duration,
}

impl DemoAgent {
    pub fn new(delay: Duration) -> Self {
        Self {
            inner: Arc::new(DemoInner {
                delay,
                ..DemoInner::default()
            }),
        }
    }

    /// Run ids whose response stream the client dropped before the run ended.
    pub fn cancelled(&self) -> Vec<String> {
        self.inner
            .cancelled
            .lock()
            .map(|list| list.clone())
            .unwrap_or_default()
    }

    fn record_resume(&self, run_id: &str, resume: &[Value]) {
        let answered: Vec<Value> = resume
            .iter()
            .map(|entry| {
                let payload = entry.get("payload");
                let given = ["password", "value"]
                    .iter()
                    .find_map(|field| payload?.get(*field)?.as_str());
                let secret = given.map(|text| if text.is_empty() { "empty" } else { "given" });
                // For the holder of the demo key (a test) to check the value arrived
                // whole; never said in the thread.
                let digest = given
                    .filter(|text| !text.is_empty())
                    .map(|text| hex::encode(sha2::Sha256::digest(text.as_bytes())));
                json!({
                    "interruptId": entry.get("interruptId"),
                    "status": entry.get("status"),
                    "secret": secret,
                    "sha256": digest,
                })
            })
            .collect();
        if let Ok(mut list) = self.inner.resumes.lock() {
            keep_latest(
                &mut list,
                json!({ "runId": run_id, "interrupts": answered }),
            );
        }
    }

    fn record_cancel(&self, run_id: &str) {
        if let Ok(mut list) = self.inner.cancelled.lock() {
            keep_latest(&mut list, run_id.to_owned());
        }
    }

    /// A place to stream one more run, while fewer than [`MOST_STREAMS`] stream.
    fn stream_slot(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        self.inner.streams.0.clone().try_acquire_owned().ok()
    }

    fn remembered(&self, thread_id: &str) -> HashSet<String> {
        self.inner
            .session_approvals
            .lock()
            .ok()
            .and_then(|map| map.get(thread_id).cloned())
            .unwrap_or_default()
    }

    fn remember(&self, thread_id: &str, key: &str) {
        if let Ok(mut map) = self.inner.session_approvals.lock() {
            if map.len() >= THREADS_REMEMBERED && !map.contains_key(thread_id) {
                map.clear();
            }
            map.entry(thread_id.to_owned())
                .or_default()
                .insert(key.to_owned());
        }
    }
}

/// Appends `entry`, dropping the oldest past [`KEPT`].
fn keep_latest<T>(list: &mut Vec<T>, entry: T) {
    if list.len() >= KEPT {
        list.remove(0);
    }
    list.push(entry);
}

/// One thing the stream does.
enum Step {
    Event(Value),
    /// Keep the stream open without a word, until the client goes away.
    Hang,
    /// Wait until this long after the previous tick (the first: after now), so a paced
    /// stream keeps its rate however long each send takes.
    Tick(std::time::Duration),
    /// An event sent at once, without the demo's pacing (bulk loads).
    Unpaced(Value),
    /// `long N S`, made item by item as it is sent.
    Long {
        run_id: String,
        items: usize,
        seconds: u64,
    },
}

fn now_ms() -> i64 {
    crate::clock::now_ms()
}

fn ev(kind: &str, fields: Value) -> Step {
    let mut event = json!({ "type": kind, "timestamp": now_ms() });
    if let (Value::Object(target), Value::Object(fields)) = (&mut event, fields) {
        target.extend(fields);
    }
    Step::Event(event)
}

struct Run<'a> {
    thread_id: &'a str,
    run_id: &'a str,
}

impl Run<'_> {
    fn started(&self) -> Step {
        ev(
            "RUN_STARTED",
            json!({"threadId": self.thread_id, "runId": self.run_id, "protocolVersion": "1.0"}),
        )
    }

    fn finished(&self) -> Step {
        ev(
            "RUN_FINISHED",
            json!({"threadId": self.thread_id, "runId": self.run_id, "outcome": {"type": "success"}}),
        )
    }

    fn interrupted(&self, interrupts: Value) -> Step {
        ev(
            "RUN_FINISHED",
            json!({"threadId": self.thread_id, "runId": self.run_id,
                   "outcome": {"type": "interrupt", "interrupts": interrupts}}),
        )
    }
}

/// A whole assistant message, streamed word by word.
fn say(steps: &mut Vec<Step>, id: &str, text: &str) {
    steps.push(ev(
        "TEXT_MESSAGE_START",
        json!({"messageId": id, "role": "assistant"}),
    ));
    for word in text.split_inclusive(' ') {
        steps.push(ev(
            "TEXT_MESSAGE_CONTENT",
            json!({"messageId": id, "delta": word}),
        ));
    }
    steps.push(ev("TEXT_MESSAGE_END", json!({"messageId": id})));
}

fn call(steps: &mut Vec<Step>, id: &str, name: &str, args: &str, result: Option<&str>) {
    steps.push(ev(
        "TOOL_CALL_START",
        json!({"toolCallId": id, "toolCallName": name}),
    ));
    steps.push(ev(
        "TOOL_CALL_ARGS",
        json!({"toolCallId": id, "delta": args}),
    ));
    steps.push(ev("TOOL_CALL_END", json!({"toolCallId": id})));
    if let Some(result) = result {
        steps.push(ev(
            "TOOL_CALL_RESULT",
            json!({"messageId": format!("result-{id}"), "toolCallId": id, "content": result, "role": "tool"}),
        ));
    }
}

fn tasks_state(titles: &[&str]) -> Step {
    let tasks: Vec<Value> = titles
        .iter()
        .enumerate()
        .map(|(n, title)| json!({"id": n + 1, "title": title, "done": false}))
        .collect();
    ev("STATE_SNAPSHOT", json!({"snapshot": {"tasks": tasks}}))
}
