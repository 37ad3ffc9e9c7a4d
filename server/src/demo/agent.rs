//! The awkward demo agent: a real AG-UI endpoint (POST RunAgentInput, SSE back) whose
//! scenarios exercise every corner of the protocol. The first word of the last user
//! message picks the scenario; a resume run is recognised by its interrupt ids.

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// The tool set the demo agent needs offered; also served as the default tools file.
pub const TOOLS: &str = include_str!("tools.json");

/// The words that pick a scenario, in the order the composer suggests them.
pub const SCENARIOS: [&str; 16] = [
    "chunks",
    "call",
    "parallel",
    "mixed",
    "approve",
    "busy",
    "slow",
    "fail",
    "clarify",
    "sudo",
    "secret",
    "terminal",
    "edit",
    "artifacts",
    "plan",
    "frontend",
];

/// Shared by every request: cancellations observed, approvals remembered per thread.
#[derive(Clone, Default)]
pub struct DemoAgent {
    inner: Arc<DemoInner>,
}

#[derive(Default)]
struct DemoInner {
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
                let secret = ["password", "value"]
                    .iter()
                    .find_map(|field| payload?.get(*field)?.as_str())
                    .map(|text| if text.is_empty() { "empty" } else { "given" });
                json!({
                    "interruptId": entry.get("interruptId"),
                    "status": entry.get("status"),
                    "secret": secret,
                })
            })
            .collect();
        if let Ok(mut list) = self.inner.resumes.lock() {
            list.push(json!({ "runId": run_id, "interrupts": answered }));
        }
    }

    fn record_cancel(&self, run_id: &str) {
        if let Ok(mut list) = self.inner.cancelled.lock() {
            list.push(run_id.to_owned());
        }
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
            map.entry(thread_id.to_owned())
                .or_default()
                .insert(key.to_owned());
        }
    }
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

fn last_user_text(input: &Value) -> String {
    let Some(messages) = input.get("messages").and_then(Value::as_array) else {
        return String::new();
    };
    messages
        .iter()
        .rev()
        .find(|message| message.get("role").and_then(Value::as_str) == Some("user"))
        .and_then(|message| match message.get("content") {
            Some(Value::String(text)) => Some(text.clone()),
            Some(Value::Array(parts)) => Some(
                parts
                    .iter()
                    .filter_map(|part| part.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            _ => None,
        })
        .unwrap_or_default()
}

/// The content of the last message, when it is a tool message (a frontend tool answer).
fn tool_answer(input: &Value) -> Option<String> {
    let last = input.get("messages")?.as_array()?.last()?;
    if last.get("role")?.as_str()? != "tool" {
        return None;
    }
    let content = last.get("content")?.as_str()?.to_owned();
    Some(match last.get("error").and_then(Value::as_str) {
        Some(error) => format!("it refused ({error})"),
        None => content,
    })
}

fn offered(input: &Value, tool: &str) -> bool {
    input
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|tools| {
            tools
                .iter()
                .any(|t| t.get("name").and_then(Value::as_str) == Some(tool))
        })
}

fn approval(id: &str, message: &str, command: &str) -> Value {
    json!({"id": id, "reason": "tool_approval", "message": message,
           "metadata": {"choices": ["once", "session", "always", "deny"], "allowPermanent": true,
                        "command": command, "description": message}})
}

/// The script for a new run.
fn script(agent: &DemoAgent, input: &Value, run: &Run<'_>) -> Vec<Step> {
    let text = last_user_text(input);
    let mut words = text.split_whitespace();
    let word = words.next().unwrap_or_default().to_lowercase();
    let second = words.next().unwrap_or_default().to_lowercase();
    let third = words.next().unwrap_or_default().to_lowercase();
    let mut steps = vec![run.started()];
    let needs_add_task = matches!(word.as_str(), "call" | "parallel" | "busy");
    if needs_add_task && !offered(input, "add_task") {
        steps.push(ev(
            "RUN_ERROR",
            json!({"message": "this scenario needs the add_task tool, and the client offered no such tool", "code": "tool_not_offered"}),
        ));
        return steps;
    }
    match word.as_str() {
        "chunks" => {
            let first = json!({"messageId": format!("chunks-{}", run.run_id), "role": "assistant",
                               "delta": "Chunked text arrives in frag"});
            steps.push(ev("TEXT_MESSAGE_CHUNK", first));
            for delta in [
                "ments, and the client rejoins ",
                "them — emoji included: 👩",
                "\u{200d}",
                "💻.",
            ] {
                steps.push(ev("TEXT_MESSAGE_CHUNK", json!({"delta": delta})));
            }
            steps.push(run.finished());
        }
        "call" => {
            let id = format!("call-{}", run.run_id);
            steps.push(ev(
                "TOOL_CALL_CHUNK",
                json!({"toolCallId": id, "toolCallName": "add_task", "delta": "{\"no"}),
            ));
            for delta in [
                "te\":\"line\\",
                "nbreak\",\"ti",
                "tle\":\"ship ",
                "the SDK\",\"depth\":3}",
            ] {
                steps.push(ev("TOOL_CALL_CHUNK", json!({"delta": delta})));
            }
            steps.push(ev(
                "TOOL_CALL_RESULT",
                json!({"messageId": format!("result-{id}"), "toolCallId": id, "content": "{\"id\":1,\"title\":\"ship the SDK\"}"}),
            ));
            steps.push(run.finished());
        }
        "parallel" => {
            parallel(&mut steps, run.run_id);
            steps.push(tasks_state(&["write it down", "read it back"]));
            steps.push(run.finished());
        }
        "mixed" => {
            steps.push(ev("REASONING_MESSAGE_CHUNK", json!({"messageId": format!("r-{}", run.run_id), "delta": "three streams, no brackets"})));
            steps.push(ev(
                "TEXT_MESSAGE_CHUNK",
                json!({"messageId": format!("m-{}", run.run_id), "delta": "Reading the board"}),
            ));
            steps.push(ev(
                "TEXT_MESSAGE_CHUNK",
                json!({"delta": ", then adding to it."}),
            ));
            steps.push(ev(
                "TOOL_CALL_CHUNK",
                json!({"toolCallId": format!("c-{}", run.run_id), "toolCallName": "add_task", "delta": "{\"title\":\"unbracketed\"}"}),
            ));
            steps.push(run.finished());
        }
        "approve" => {
            let remembered = agent.remembered(run.thread_id);
            if remembered.contains("budget") && remembered.contains("date") {
                say(
                    &mut steps,
                    &format!("m-{}", run.run_id),
                    "Both approved earlier for this session. Booked.",
                );
                steps.push(run.finished());
            } else {
                say(
                    &mut steps,
                    &format!("m-{}", run.run_id),
                    "Two decisions before I book.",
                );
                steps.push(run.interrupted(json!([
                    approval(
                        "approve-budget",
                        "Approve the budget?",
                        "book --budget 1200"
                    ),
                    approval(
                        "confirm-date",
                        "Confirm the date?",
                        "book --date 2026-12-24"
                    ),
                ])));
            }
        }
        "busy" => {
            parallel(&mut steps, run.run_id);
            steps.push(tasks_state(&["write it down", "read it back"]));
            say(
                &mut steps,
                &format!("m-{}", run.run_id),
                "Two added. The third needs sign-off.",
            );
            steps.push(run.interrupted(json!([{"id": "busy-third", "reason": "tool_approval",
                "message": "Add the third task too?", "metadata": {"command": "add_task sign it off"}}])));
        }
        "slow" => {
            let id = format!("m-{}", run.run_id);
            steps.push(ev(
                "TEXT_MESSAGE_START",
                json!({"messageId": id, "role": "assistant"}),
            ));
            steps.push(ev(
                "TEXT_MESSAGE_CONTENT",
                json!({"messageId": id, "delta": "working on it, this will take a while"}),
            ));
            steps.push(Step::Hang);
        }
        "fail" => {
            steps.push(ev(
                "RUN_ERROR",
                json!({"message": "the model refused, and said so at length", "code": "refused"}),
            ));
        }
        "clarify" => {
            let free = second == "free";
            let interrupt = if free {
                json!({"id": "clarify-free", "reason": "clarify", "message": "What should the new task be called?"})
            } else {
                json!({"id": "clarify-color", "reason": "clarify", "message": "Which color should I use?",
                       "metadata": {"choices": ["red", "green", "blue"]}})
            };
            say(
                &mut steps,
                &format!("m-{}", run.run_id),
                "One question first.",
            );
            steps.push(run.interrupted(json!([interrupt])));
        }
        "sudo" => {
            call(
                &mut steps,
                &format!("t-{}", run.run_id),
                "terminal",
                "{\"command\":\"sudo systemctl restart web\"}",
                None,
            );
            steps.push(
                run.interrupted(json!([{"id": "sudo-restart", "reason": "agent-os:sudo",
                "message": "sudo needs your password", "toolCallId": format!("t-{}", run.run_id),
                "metadata": {"command": "sudo systemctl restart web"}}])),
            );
        }
        "secret" => {
            steps.push(run.interrupted(json!([{"id": "secret-token", "reason": "agent-os:secret",
                "message": "Paste the demo token",
                "metadata": {"envVar": "DEMO_TOKEN", "prompt": "Paste the demo token", "skill_name": "demo-skill",
                             "help": "Any text works; it is never stored."}}])));
        }
        "terminal" => {
            steps.push(run.interrupted(
                json!([{"id": "terminal-read", "reason": "agent-os:terminal_read",
                "message": "What does your terminal show?"}]),
            ));
        }
        "edit" => {
            let id = format!("e-{}", run.run_id);
            let patch = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,4 +1,4 @@\n pub fn greet(name: &str) -> String {\n-    format!(\"Hello {}\", name)\n+    format!(\"Hello, {name}!\")\n }\n \n";
            call(
                &mut steps,
                &id,
                "edit_file",
                &json!({"path": "src/lib.rs", "patch": patch}).to_string(),
                None,
            );
            steps.push(run.interrupted(
                json!([{"id": "edit-apply", "reason": "edit_preview", "toolCallId": id,
                "message": "Apply this edit to src/lib.rs?",
                "metadata": {"filename": "src/lib.rs", "language": "rust", "patch": patch}}]),
            ));
        }
        "artifacts" => artifacts(&mut steps, run),
        "long" => {
            let items = second.parse().unwrap_or(1_000).min(LONG_MAX_ITEMS);
            let seconds = third.parse().unwrap_or(0).min(LONG_MAX_SECONDS);
            long_run(&mut steps, run, items, seconds);
            steps.push(run.finished());
        }
        "frontend" => {
            // A call to a tool the client must run; the run ends waiting for it.
            // `frontend` and `frontend <colour>` call change_background, which the console
            // runs itself; `frontend operator` calls render_a2ui, whose result the operator
            // gives.
            let (tool, arguments) = match second.as_str() {
                "operator" => ("render_a2ui", json!({"surfaceId": "demo"}).to_string()),
                "" => ("change_background", json!({"color": "#0b7285"}).to_string()),
                colour => ("change_background", json!({"color": colour}).to_string()),
            };
            if !offered(input, tool) {
                steps.push(ev(
                    "RUN_ERROR",
                    json!({"message": format!("this scenario needs the {tool} tool, and the client offered no such tool"), "code": "tool_not_offered"}),
                ));
                return steps;
            }
            call(
                &mut steps,
                &format!("bg-{}", run.run_id),
                tool,
                &arguments,
                None,
            );
            steps.push(ev(
                "RUN_FINISHED",
                json!({"threadId": run.thread_id, "runId": run.run_id,
                       "outcome": {"type": "success", "pendingToolCallIds": [format!("bg-{}", run.run_id)]}}),
            ));
        }
        "plan" => {
            let todos = |statuses: [&str; 3]| {
                json!({"todos": [
                    {"id": "1", "label": "Read the board", "status": statuses[0]},
                    {"id": "2", "label": "Group the tasks", "status": statuses[1]},
                    {"id": "3", "label": "Write the summary", "status": statuses[2]},
                ]})
            };
            let plan_id = format!("plan-{}", run.run_id);
            for statuses in [
                ["in_progress", "pending", "pending"],
                ["completed", "in_progress", "pending"],
                ["completed", "completed", "in_progress"],
            ] {
                steps.push(ev("ACTIVITY_SNAPSHOT", json!({"messageId": plan_id, "activityType": "plan", "content": todos(statuses)})));
            }
            say(
                &mut steps,
                &format!("m-{}", run.run_id),
                "Summary: two tasks, both open.",
            );
            steps.push(ev(
                "ACTIVITY_SNAPSHOT",
                json!({"messageId": plan_id, "activityType": "plan",
                "content": todos(["completed", "completed", "completed"])}),
            ));
            steps.push(run.finished());
        }
        _ => well_behaved(&mut steps, input, run),
    }
    steps
}

fn parallel(steps: &mut Vec<Step>, run_id: &str) {
    let (a, b) = (format!("a-{run_id}"), format!("b-{run_id}"));
    for id in [&a, &b] {
        steps.push(ev(
            "TOOL_CALL_START",
            json!({"toolCallId": id, "toolCallName": "add_task"}),
        ));
    }
    for (id, delta) in [
        (&a, "{\"title\":"),
        (&b, "{\"title\":"),
        (&a, "\"write it down\"}"),
        (&b, "\"read it back\"}"),
    ] {
        steps.push(ev(
            "TOOL_CALL_ARGS",
            json!({"toolCallId": id, "delta": delta}),
        ));
    }
    for id in [&a, &b] {
        steps.push(ev("TOOL_CALL_END", json!({"toolCallId": id})));
    }
    for (n, (id, title)) in [(&a, "write it down"), (&b, "read it back")]
        .into_iter()
        .enumerate()
    {
        steps.push(ev(
            "TOOL_CALL_RESULT",
            json!({"messageId": format!("result-{id}"), "toolCallId": id,
                   "content": json!({"id": n + 1, "title": title}).to_string()}),
        ));
    }
}

const LONG_MAX_ITEMS: usize = 50_000;
const LONG_MAX_SECONDS: u64 = 120;
/// The pace of the streaming tail of `long`: 200 deltas a second.
const LONG_DELTA_PERIOD: std::time::Duration = std::time::Duration::from_millis(5);

/// `long N S`: N timeline items at once (four messages to each tool call with its
/// result), then a message that streams 200 deltas a second for S seconds. The load of
/// the long-run benchmark.
fn long_run(steps: &mut Vec<Step>, run: &Run<'_>, items: usize, seconds: u64) {
    let mut bulk = Vec::new();
    for n in 0..items {
        if n % 5 == 4 {
            call(
                &mut bulk,
                &format!("c{n}-{}", run.run_id),
                "add_task",
                &format!("{{\"title\":\"task {n}\"}}"),
                Some(&format!("{{\"id\":{n},\"title\":\"task {n}\"}}")),
            );
        } else {
            let id = format!("m{n}-{}", run.run_id);
            bulk.push(ev(
                "TEXT_MESSAGE_START",
                json!({"messageId": id, "role": "assistant"}),
            ));
            bulk.push(ev(
                "TEXT_MESSAGE_CONTENT",
                json!({"messageId": id, "delta": format!("Item {n}: the board has {n} entries so far, each one checked twice.")}),
            ));
            bulk.push(ev("TEXT_MESSAGE_END", json!({"messageId": id})));
        }
    }
    if seconds > 0 {
        let id = format!("live-{}", run.run_id);
        bulk.push(ev(
            "TEXT_MESSAGE_START",
            json!({"messageId": id, "role": "assistant"}),
        ));
        for n in 0..seconds * 200 {
            bulk.push(Step::Tick(LONG_DELTA_PERIOD));
            bulk.push(ev(
                "TEXT_MESSAGE_CONTENT",
                json!({"messageId": id, "delta": format!("w{n} ")}),
            ));
        }
        bulk.push(ev("TEXT_MESSAGE_END", json!({"messageId": id})));
    }
    // The load sets its own pace: none for the items, LONG_DELTA_PERIOD for the tail.
    steps.extend(bulk.into_iter().map(|step| match step {
        Step::Event(event) => Step::Unpaced(event),
        other => other,
    }));
}

fn artifacts(steps: &mut Vec<Step>, run: &Run<'_>) {
    say(
        steps,
        &format!("m-{}", run.run_id),
        "Here is the board five ways.",
    );
    let activity = |id: &str, kind: &str, content: Value| {
        ev(
            "ACTIVITY_SNAPSHOT",
            json!({"messageId": format!("{id}-{}", run.run_id), "activityType": kind, "content": content}),
        )
    };
    steps.push(activity("table", "table", json!({"title": "Tasks",
        "columns": [{"key": "id", "label": "#"}, {"key": "title", "label": "Task"}, {"key": "estimate", "label": "Minutes", "align": "right"}],
        "data": [{"id": 1, "title": "draft the agenda", "estimate": 30}, {"id": 2, "title": "book the room", "estimate": 10},
                 {"id": 3, "title": "send invites", "estimate": 15}]})));
    steps.push(activity("chart", "chart", json!({"title": "Minutes per task", "type": "bar", "xKey": "title",
        "series": [{"key": "estimate", "label": "Minutes"}],
        "data": [{"title": "agenda", "estimate": 30}, {"title": "room", "estimate": 10}, {"title": "invites", "estimate": 15}]})));
    steps.push(activity("image", "image", json!({"title": "Board snapshot", "alt": "Three task cards in a column",
        "src": "data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg' width='240' height='120'><rect width='240' height='120' fill='%23eef1f5'/><rect x='20' y='15' width='200' height='25' rx='4' fill='%231f6feb'/><rect x='20' y='48' width='200' height='25' rx='4' fill='%233fb950'/><rect x='20' y='81' width='200' height='25' rx='4' fill='%23d29922'/></svg>"})));
    steps.push(activity("terminal", "terminal", json!({"title": "Build", "command": "cargo test", "exitCode": 0,
        "stdout": "running 3 tests\ntest agenda ... ok\ntest room ... ok\ntest invites ... ok\n\ntest result: ok. 3 passed", "durationMs": 1840})));
    steps.push(activity("code", "code", json!({"title": "Task model", "language": "rust", "filename": "src/task.rs",
        "code": "pub struct Task {\n    pub id: u32,\n    pub title: String,\n    pub done: bool,\n}\n"})));
    steps.push(run.finished());
}

fn well_behaved(steps: &mut Vec<Step>, input: &Value, run: &Run<'_>) {
    steps.push(ev("STEP_STARTED", json!({"stepName": "turn"})));
    let reasoning = format!("r-{}", run.run_id);
    steps.push(ev("REASONING_START", json!({"messageId": reasoning})));
    steps.push(ev(
        "REASONING_MESSAGE_START",
        json!({"messageId": reasoning, "role": "reasoning"}),
    ));
    steps.push(ev(
        "REASONING_MESSAGE_CONTENT",
        json!({"messageId": reasoning, "delta": "nothing unusual about this one"}),
    ));
    steps.push(ev("REASONING_MESSAGE_END", json!({"messageId": reasoning})));
    steps.push(ev("REASONING_END", json!({"messageId": reasoning})));
    let earlier = input
        .get("messages")
        .and_then(Value::as_array)
        .map_or(0, |messages| messages.len().saturating_sub(1));
    let known_tasks = input
        .get("state")
        .and_then(|state| state.get("tasks"))
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let mut text = "Two tasks on the board. 2 open · 0 done".to_owned();
    if earlier > 0 {
        text.push_str(&format!(
            " (I remember {earlier} earlier messages; the board had {known_tasks} tasks.)"
        ));
    }
    say(steps, &format!("m-{}", run.run_id), &text);
    steps.push(tasks_state(&["draft the agenda", "book the room"]));
    steps.push(ev("STEP_FINISHED", json!({"stepName": "turn"})));
    let surface = json!({"a2ui_operations": [
        {"version": "v0.9", "createSurface": {"surfaceId": "board-watch", "catalogId": "https://a2ui.org/specification/v0_9/basic_catalog.json"}},
        {"version": "v0.9", "updateComponents": {"surfaceId": "board-watch", "components": [
            {"id": "root", "component": "Column", "children": ["heading", "list"]},
            {"id": "heading", "component": "Text", "text": {"path": "/title"}, "variant": "h2"},
            {"id": "list", "component": "List", "children": {"componentId": "row", "path": "/tasks"}},
            {"id": "row", "component": "Text", "text": {"path": "line"}}]}},
        {"version": "v0.9", "updateDataModel": {"surfaceId": "board-watch", "path": "/", "value": {
            "title": "Watched board", "tasks": [{"line": "[ ] #1 draft the agenda"}, {"line": "[ ] #2 book the room"}]}}}
    ]});
    call(
        steps,
        &format!("s-{}", run.run_id),
        "render_a2ui",
        "{\"surfaceId\":\"board-watch\"}",
        Some(&surface.to_string()),
    );
    steps.push(run.finished());
}

/// The script for a resume run, chosen by the interrupts it answers.
fn resume_script(agent: &DemoAgent, input: &Value, run: &Run<'_>) -> Vec<Step> {
    let answers: HashMap<String, Value> = input
        .get("resume")
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .filter_map(|entry| {
                    Some((
                        entry.get("interruptId")?.as_str()?.to_owned(),
                        entry.clone(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let resolved = |id: &str| {
        answers
            .get(id)
            .and_then(|a| a.get("status"))
            .and_then(Value::as_str)
            == Some("resolved")
    };
    let payload = |id: &str| {
        answers
            .get(id)
            .and_then(|a| a.get("payload"))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let approved =
        |id: &str| resolved(id) && payload(id).get("approved") != Some(&Value::Bool(false));
    let mut steps = vec![run.started()];
    let message = format!("m-{}", run.run_id);
    if answers.contains_key("approve-budget") || answers.contains_key("confirm-date") {
        for (id, key) in [("approve-budget", "budget"), ("confirm-date", "date")] {
            let choice = payload(id)
                .get("choice")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if approved(id) && (choice == "session" || choice == "always") {
                agent.remember(run.thread_id, key);
            }
        }
        let declined: Vec<&str> = ["approve-budget", "confirm-date"]
            .into_iter()
            .filter(|id| !approved(id))
            .collect();
        let text = match declined.len() {
            0 => "Both approved. Booked.".to_owned(),
            2 => "Both declined. Nothing booked.".to_owned(),
            _ => format!("Declined: {}. Nothing booked.", declined.join(", ")),
        };
        say(&mut steps, &message, &text);
    } else if answers.contains_key("busy-third") {
        if approved("busy-third") {
            call(
                &mut steps,
                &format!("c-{}", run.run_id),
                "add_task",
                "{\"title\":\"sign it off\"}",
                Some("{\"id\":3,\"title\":\"sign it off\"}"),
            );
            steps.push(tasks_state(&[
                "write it down",
                "read it back",
                "sign it off",
            ]));
            say(&mut steps, &message, "Three on the board.");
        } else {
            say(&mut steps, &message, "Left it at two.");
        }
    } else if answers.contains_key("clarify-color") || answers.contains_key("clarify-free") {
        let id = if answers.contains_key("clarify-color") {
            "clarify-color"
        } else {
            "clarify-free"
        };
        let text = match payload(id).get("answer").and_then(Value::as_str) {
            Some(answer) if resolved(id) => format!("You said: {answer}. Done."),
            _ => "No answer, so I left it.".to_owned(),
        };
        say(&mut steps, &message, &text);
    } else if answers.contains_key("sudo-restart") {
        let password = payload("sudo-restart")
            .get("password")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let tool = format!(
            "t-{}",
            input
                .get("parentRunId")
                .and_then(Value::as_str)
                .unwrap_or(run.run_id)
        );
        let (result, text) = if password.is_empty() {
            (
                "{\"exit_code\":1,\"error\":\"no password given\"}".to_owned(),
                "Skipped: web was not restarted.".to_owned(),
            )
        } else {
            (
                "{\"exit_code\":0,\"output\":\"restarted web\"}".to_owned(),
                format!(
                    "Restarted web with the password you gave ({} characters, not repeated here).",
                    password.chars().count()
                ),
            )
        };
        steps.push(ev(
            "TOOL_CALL_RESULT",
            json!({"messageId": format!("result-{tool}"), "toolCallId": tool, "content": result}),
        ));
        say(&mut steps, &message, &text);
    } else if answers.contains_key("secret-token") {
        let value = payload("secret-token")
            .get("value")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let text = if value.is_empty() {
            "Skipped: DEMO_TOKEN stays unset.".to_owned()
        } else {
            "Saved DEMO_TOKEN.".to_owned()
        };
        say(&mut steps, &message, &text);
    } else if answers.contains_key("terminal-read") {
        let text = match payload("terminal-read")
            .get("answer")
            .and_then(Value::as_str)
        {
            Some(screen) if resolved("terminal-read") => format!("Your terminal shows: {screen}"),
            _ => "No terminal text, so I carried on.".to_owned(),
        };
        say(&mut steps, &message, &text);
    } else if answers.contains_key("edit-apply") {
        let accepted = payload("edit-apply").get("accepted") == Some(&Value::Bool(true));
        let tool = payload("edit-apply")
            .get("toolCallId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let (result, text) = if accepted {
            ("{\"applied\":true}", "Applied the edit to src/lib.rs.")
        } else {
            ("{\"applied\":false}", "Left src/lib.rs unchanged.")
        };
        steps.push(ev(
            "TOOL_CALL_RESULT",
            json!({"messageId": format!("result-{tool}"), "toolCallId": tool, "content": result}),
        ));
        say(&mut steps, &message, text);
    } else {
        let ids: Vec<&String> = answers.keys().collect();
        steps.push(ev(
            "RUN_ERROR",
            json!({"message": format!("a resume for interrupts this agent never raised: {ids:?}")}),
        ));
        return steps;
    }
    steps.push(run.finished());
    steps
}

fn sse_frame(event: &Value) -> Bytes {
    Bytes::from(format!("data: {event}\n\n"))
}

/// Streams `frames` with the demo's pacing; notices a client that goes away.
fn stream_response(agent: DemoAgent, run_id: String, steps: Vec<Step>) -> Response {
    let (tx, mut rx) = mpsc::channel::<Bytes>(16);
    let delay = agent.inner.delay;
    tokio::spawn(async move {
        let mut last_tick = None;
        for step in steps {
            match step {
                Step::Event(event) => {
                    if !delay.is_zero() {
                        tokio::select! {
                            () = tx.closed() => { agent.record_cancel(&run_id); return; }
                            () = tokio::time::sleep(delay) => {}
                        }
                    }
                    if tx.send(sse_frame(&event)).await.is_err() {
                        agent.record_cancel(&run_id);
                        return;
                    }
                }
                Step::Unpaced(event) => {
                    if tx.send(sse_frame(&event)).await.is_err() {
                        agent.record_cancel(&run_id);
                        return;
                    }
                }
                Step::Hang => {
                    tx.closed().await;
                    agent.record_cancel(&run_id);
                    return;
                }
                Step::Tick(period) => {
                    let deadline = last_tick.unwrap_or_else(tokio::time::Instant::now) + period;
                    last_tick = Some(deadline);
                    tokio::select! {
                        () = tx.closed() => { agent.record_cancel(&run_id); return; }
                        () = tokio::time::sleep_until(deadline) => {}
                    }
                }
            }
        }
    });
    let body = futures_util::stream::poll_fn(move |cx| {
        rx.poll_recv(cx).map(|next| next.map(Ok::<_, Infallible>))
    });
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

/// POST /demo/agent — one AG-UI run.
pub async fn run(State(agent): State<DemoAgent>, body: Bytes) -> Response {
    let input: Value = match serde_json::from_slice(&body) {
        Ok(Value::Object(input)) => Value::Object(input),
        Ok(_) => return reject("RunAgentInput must be a JSON object"),
        Err(error) => return reject(&format!("RunAgentInput is not valid JSON: {error}")),
    };
    let (Some(thread_id), Some(run_id)) = (
        input.get("threadId").and_then(Value::as_str),
        input.get("runId").and_then(Value::as_str),
    ) else {
        return reject("RunAgentInput needs threadId and runId");
    };
    if !input.get("messages").is_some_and(Value::is_array) {
        return reject("RunAgentInput needs messages (an array)");
    }
    let run = Run { thread_id, run_id };
    let resume = input
        .get("resume")
        .and_then(Value::as_array)
        .filter(|r| !r.is_empty());
    if let Some(resume) = resume {
        agent.record_resume(run_id, resume);
    }
    let steps = if resume.is_some() {
        resume_script(&agent, &input, &run)
    } else if let Some(result) = tool_answer(&input) {
        // A follow-up run carrying the console's answer to a frontend tool call.
        let mut steps = vec![run.started()];
        say(
            &mut steps,
            &format!("m-{}", run.run_id),
            &format!("The console ran it: {result}"),
        );
        steps.push(run.finished());
        steps
    } else {
        script(&agent, &input, &run)
    };
    stream_response(agent.clone(), run_id.to_owned(), steps)
}

fn reject(message: &str) -> Response {
    (
        StatusCode::UNPROCESSABLE_ENTITY,
        Json(json!({ "error": message })),
    )
        .into_response()
}

/// GET|POST /demo/raw/{scenario} — hand-framed streams that break the rules.
pub async fn raw(Path(scenario): Path<String>) -> Response {
    let thread = "\"threadId\":\"raw\",\"runId\":\"raw-1\"";
    let body = match scenario.as_str() {
        "unbracketed" => format!(
            "data: {{\"type\":\"RUN_STARTED\",{thread}}}\n\n\
             data: {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"ghost\",\"delta\":\"text nobody opened\"}}\n\n\
             data: {{\"type\":\"RUN_FINISHED\",{thread}}}\n\n"
        ),
        "truncated" => format!(
            "data: {{\"type\":\"RUN_STARTED\",{thread}}}\n\n\
             data: {{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"cut\",\"role\":\"assistant\"}}\n\n\
             data: {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"cut\",\"delta\":\"half a sen\"}}\n\n"
        ),
        "orphan-result" => format!(
            "data: {{\"type\":\"RUN_STARTED\",{thread}}}\n\n\
             data: {{\"type\":\"TOOL_CALL_RESULT\",\"messageId\":\"answer\",\"toolCallId\":\"never-called\",\"content\":\"{{}}\"}}\n\n\
             data: {{\"type\":\"RUN_FINISHED\",{thread}}}\n\n"
        ),
        _ => format!(
            "data: {{\"type\":\"RUN_STARTED\",{thread}}}\n\ndata: {{\"type\":\"RUN_FINISHED\",{thread}}}\n\n"
        ),
    };
    ([(header::CONTENT_TYPE, "text/event-stream")], body).into_response()
}

/// GET /demo/resumes — each resume received, without any password or secret.
pub async fn resumes(State(agent): State<DemoAgent>) -> Json<Vec<Value>> {
    Json(
        agent
            .inner
            .resumes
            .lock()
            .map(|list| list.clone())
            .unwrap_or_default(),
    )
}

/// GET /demo/cancellations — run ids whose stream the client dropped.
pub async fn cancellations(State(agent): State<DemoAgent>) -> Json<Vec<String>> {
    Json(agent.cancelled())
}

/// GET /demo/tools — the tool set this agent expects to be offered.
pub async fn tools() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], TOOLS).into_response()
}
