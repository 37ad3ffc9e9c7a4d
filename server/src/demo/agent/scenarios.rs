//! The scripts of new runs: the first word of the user's last message picks the scenario.

use serde_json::{Value, json};

use super::{DemoAgent, Run, Step, call, ev, say, tasks_state};

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
pub(super) fn tool_answer(input: &Value) -> Option<String> {
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
pub(super) fn script(agent: &DemoAgent, input: &Value, run: &Run<'_>) -> Vec<Step> {
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
                // "approve later": the agent thinks a while before it says anything and
                // asks (the operator may be typing meanwhile).
                if second == "later" {
                    steps.push(Step::Tick(std::time::Duration::from_millis(1500)));
                }
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
        "markdown" => super::catalog::markdown(&mut steps, run),
        "catalog" => super::catalog::catalog(&mut steps, run),
        "hostile" => super::catalog::hostile(&mut steps, run),
        "surface" => super::surface::booking(&mut steps, run),
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
            // gives; `frontend choose` calls option_list, which the operator answers by
            // choosing.
            let (tool, arguments) = match second.as_str() {
                "operator" => ("render_a2ui", json!({"surfaceId": "demo"}).to_string()),
                "choose" => ("option_list", json!({"id": "option-list-region", "selectionMode": "single",
                    "options": [{"id": "eu", "label": "Europe (Frankfurt)"}, {"id": "us", "label": "US East"}]}).to_string()),
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
        "remember" | "jot" => {
            // The console's workspace tools: `remember <fact>` calls memory, `jot <title>`
            // calls note_write; the console runs them on the server (at once, or once an
            // operator allows it) and the run ends waiting for the result.
            let rest = text
                .split_once(char::is_whitespace)
                .map(|(_, rest)| rest.trim().to_owned())
                .unwrap_or_default();
            let (tool, arguments) = if word == "remember" {
                (
                    "memory",
                    json!({"action": "add", "target": "memory", "content": rest}),
                )
            } else {
                (
                    "note_write",
                    json!({"title": rest, "body": format!("Written by the demo agent: {rest}."), "tags": ["demo"]}),
                )
            };
            let id = format!("ws-{}", run.run_id);
            call(&mut steps, &id, tool, &arguments.to_string(), None);
            steps.push(ev(
                "RUN_FINISHED",
                json!({"threadId": run.thread_id, "runId": run.run_id,
                       "outcome": {"type": "success", "pendingToolCallIds": [id]}}),
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
/// the long-run benchmark; made item by item as it is sent ([`long_item`], [`long_tail`]).
fn long_run(steps: &mut Vec<Step>, run: &Run<'_>, items: usize, seconds: u64) {
    steps.push(Step::Long {
        run_id: run.run_id.to_owned(),
        items,
        seconds,
    });
}

/// Item `n` of a `long` run, sent at once (the load sets its own pace).
pub(super) fn long_item(run_id: &str, n: usize) -> Vec<Step> {
    let mut bulk = Vec::new();
    if n % 5 == 4 {
        call(
            &mut bulk,
            &format!("c{n}-{run_id}"),
            "add_task",
            &format!("{{\"title\":\"task {n}\"}}"),
            Some(&format!("{{\"id\":{n},\"title\":\"task {n}\"}}")),
        );
    } else {
        let id = format!("m{n}-{run_id}");
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
    unpaced(bulk)
}

/// The streaming tail of a `long` run: 200 deltas a second for `seconds`.
pub(super) fn long_tail(run_id: &str, seconds: u64) -> Box<dyn Iterator<Item = Step> + Send> {
    if seconds == 0 {
        return Box::new(std::iter::empty());
    }
    let id = format!("live-{run_id}");
    let start = ev(
        "TEXT_MESSAGE_START",
        json!({"messageId": id, "role": "assistant"}),
    );
    let end = ev("TEXT_MESSAGE_END", json!({"messageId": id}));
    let deltas = (0..seconds * 200).flat_map(move |n| {
        [
            Step::Tick(LONG_DELTA_PERIOD),
            ev(
                "TEXT_MESSAGE_CONTENT",
                json!({"messageId": id, "delta": format!("w{n} ")}),
            ),
        ]
    });
    Box::new(
        std::iter::once(start)
            .chain(deltas)
            .chain(std::iter::once(end))
            .map(without_pace),
    )
}

/// The steps without the demo's pacing.
fn unpaced(steps: Vec<Step>) -> Vec<Step> {
    steps.into_iter().map(without_pace).collect()
}

fn without_pace(step: Step) -> Step {
    match step {
        Step::Event(event) => Step::Unpaced(event),
        other => other,
    }
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
    steps.push(activity("image", "image", json!({"id": "image-board", "assetId": "board", "title": "Board snapshot", "alt": "Three task cards in a column",
        "src": "data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg' width='240' height='120'><rect width='240' height='120' fill='%23eef1f5'/><rect x='20' y='15' width='200' height='25' rx='4' fill='%231f6feb'/><rect x='20' y='48' width='200' height='25' rx='4' fill='%233fb950'/><rect x='20' y='81' width='200' height='25' rx='4' fill='%23d29922'/></svg>"})));
    steps.push(activity("terminal", "terminal", json!({"title": "Build", "command": "cargo test", "exitCode": 0,
        "stdout": "running 3 tests\ntest agenda ... ok\ntest room ... ok\ntest invites ... ok\n\ntest result: ok. 3 passed", "durationMs": 1840})));
    steps.push(activity("code", "code", json!({"title": "Task model", "language": "rust", "filename": "src/task.rs",
        "code": "pub struct Task {\n    pub id: u32,\n    pub title: String,\n    pub done: bool,\n}\n"})));
    // The model again, revised: the artifact's second version.
    steps.push(activity("code", "code", json!({"title": "Task model", "language": "rust", "filename": "src/task.rs",
        "code": "pub struct Task {\n    pub id: u32,\n    pub title: String,\n    pub done: bool,\n    pub minutes: u32,\n}\n"})));
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
