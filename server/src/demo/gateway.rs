//! The demo Hermes-style gateway (`agent-os demo-gateway`): newline-delimited JSON-RPC on
//! stdin/stdout, shaped like hermes-agent's `tui_gateway`. It raises every kind of ask in
//! both forms — `*.request` events answered by `*.respond` calls (older), and server
//! requests with `srq-…` ids answered by JSON-RPC responses (newer) — so the bridge is
//! exercised end to end. The first word of the prompt picks the scenario; a second word
//! `new` picks the newer ask form.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, mpsc, oneshot};

mod cron;
mod turn;

pub use cron::CRON_FILE_ENV;

use turn::Turn;

/// The words that pick a gateway scenario.
pub const SCENARIOS: [(&str, &str); 15] = [
    ("approve", "A command that waits for your approval"),
    ("clarify", "A question with choices"),
    ("sudo", "A request for an administrator password"),
    ("secret", "A request for a secret"),
    ("terminal", "A command's terminal output to read"),
    ("expire", "An ask that expires unanswered"),
    ("edit", "A file edit to review"),
    ("slow", "A turn that takes its time, to stop"),
    ("stubborn", "A turn that goes on after it is stopped"),
    ("vanish", "A turn that never completes"),
    ("fail", "A turn that fails"),
    ("idle", "A session let go without a word"),
    ("exit", "A gateway that exits after taking the prompt"),
    ("hang", "A gateway silent until stopped"),
    ("whoami", "The gateway says which tenant it serves"),
];

/// Frames out, one JSON text each; the transport writes them.
type Out = mpsc::UnboundedSender<String>;

#[derive(Default)]
struct Shared {
    /// Asks waiting for an answer: request id (older) or srq id (newer) → who waits.
    waiting: HashMap<String, oneshot::Sender<Value>>,
    /// Older-form approvals carry no id: answered first in, first out, per session.
    approvals: Vec<(String, oneshot::Sender<Value>)>,
    /// Interrupts sent per session. A turn is stopped by any sent after its prompt was,
    /// so a stop also reaches a prompt still queued behind the turn it interrupted.
    interrupts: HashMap<String, u64>,
    /// One turn at a time per session, as Hermes runs them: a prompt sent during a turn
    /// is queued behind it.
    turns: HashMap<String, Arc<Mutex<()>>>,
    /// Live session id → the stored session it resumed.
    resumed: HashMap<String, String>,
    /// Live sessions let go (as Hermes reclaims idle ones): prompts to them fail 4001.
    reclaimed: HashSet<String>,
    next: u64,
}

async fn write(out: &Out, frame: Value) {
    let _ = out.send(frame.to_string());
}

async fn event(out: &Out, session: &str, kind: &str, payload: Value) {
    let mut params = json!({ "type": kind, "session_id": session });
    if !payload.is_null() {
        params["payload"] = payload;
    }
    write(
        out,
        json!({ "jsonrpc": "2.0", "method": "event", "params": params }),
    )
    .await;
}

/// Runs the gateway on stdin/stdout until stdin closes.
pub async fn run() -> std::io::Result<()> {
    let (out, mut outgoing) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(frame) = outgoing.recv().await {
            if stdout
                .write_all(format!("{frame}\n").as_bytes())
                .await
                .is_err()
                || stdout.flush().await.is_err()
            {
                break;
            }
        }
    });
    let (lines_in, incoming) = mpsc::unbounded_channel::<String>();
    let reader = tokio::spawn(async move {
        let mut lines = BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if lines_in.send(line).is_err() {
                break;
            }
        }
    });
    serve(incoming, out).await;
    reader.abort();
    // Its console is gone: turns still running (waiting on an answer, say) end with the
    // process, once what they wrote is flushed.
    let _ = tokio::time::timeout(Duration::from_millis(500), writer).await;
    Ok(())
}

/// `agent-os demo-gateway --ws --port N`: the same gateway over WebSocket at `/api/ws`.
pub async fn run_websocket(port: u16) -> std::io::Result<()> {
    use axum::extract::ws::{Message, WebSocketUpgrade};
    use futures_util::{SinkExt, StreamExt};
    let app = axum::Router::new().route(
        "/api/ws",
        axum::routing::get(|upgrade: WebSocketUpgrade| async move {
            upgrade.on_upgrade(|socket| async move {
                let (mut sink, mut stream) = socket.split();
                let (out, mut outgoing) = mpsc::unbounded_channel::<String>();
                let writer = tokio::spawn(async move {
                    while let Some(frame) = outgoing.recv().await {
                        if sink.send(Message::Text(frame.into())).await.is_err() {
                            break;
                        }
                    }
                });
                let (lines_in, incoming) = mpsc::unbounded_channel::<String>();
                let reader = tokio::spawn(async move {
                    while let Some(Ok(message)) = stream.next().await {
                        let Message::Text(text) = message else {
                            continue;
                        };
                        for line in text.lines() {
                            if lines_in.send(line.to_owned()).is_err() {
                                return;
                            }
                        }
                    }
                });
                serve(incoming, out).await;
                reader.abort();
                writer.abort();
            })
        }),
    );
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("Demo gateway at ws://{}/api/ws", listener.local_addr()?);
    axum::serve(listener, app).await
}

/// Speaks the gateway protocol over any line transport until its input ends.
pub async fn serve(mut incoming: mpsc::UnboundedReceiver<String>, out: Out) {
    let shared = Arc::new(Mutex::new(Shared::default()));
    write(&out, json!({"jsonrpc": "2.0", "method": "event", "params": {"type": "gateway.ready", "payload": {"skin": {"name": "demo"}}}})).await;
    while let Some(line) = incoming.recv().await {
        let Ok(frame) = serde_json::from_str::<Value>(&line) else {
            write(&out, json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse error"}})).await;
            continue;
        };
        let id = frame.get("id").cloned().unwrap_or(Value::Null);
        let params = frame.get("params").cloned().unwrap_or(Value::Null);
        let Some(method) = frame.get("method").and_then(Value::as_str) else {
            // A response to one of our server requests.
            if let Some(srq) = id.as_str()
                && let Some(waiter) = shared.lock().await.waiting.remove(srq)
            {
                let _ = waiter.send(
                    frame
                        .get("result")
                        .cloned()
                        .unwrap_or(json!({"error": frame.get("error")})),
                );
            }
            continue;
        };
        let reply = |result: Value| json!({ "jsonrpc": "2.0", "id": id, "result": result });
        let session = params
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        match method {
            "session.create" => {
                // A slow model host: how long opening a session takes, to stop a run
                // while its session is still opening.
                if let Some(delay) = std::env::var("AGENT_OS_DEMO_SESSION_DELAY_MS")
                    .ok()
                    .and_then(|ms| ms.parse().ok())
                {
                    tokio::time::sleep(Duration::from_millis(delay)).await;
                }
                let session_id = {
                    let mut shared = shared.lock().await;
                    shared.next += 1;
                    format!("{:08x}", 0x5e55_0000 + shared.next)
                };
                write(&out, reply(json!({"session_id": session_id, "stored_session_id": format!("demo_{session_id}"),
                    "message_count": 0, "messages": [], "info": {"model": "demo", "tools": {}}}))).await;
            }
            "session.resume" => {
                let stored = params
                    .get("session_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let session_id = {
                    let mut shared = shared.lock().await;
                    shared.next += 1;
                    let live = format!("{:08x}", 0x5e55_0000 + shared.next);
                    shared.resumed.insert(live.clone(), stored.clone());
                    live
                };
                write(&out, reply(json!({"session_id": session_id, "stored_session_id": stored, "resumed": true,
                    "message_count": 0, "messages": [], "info": {"model": "demo"}}))).await;
            }
            "prompt.submit" if shared.lock().await.reclaimed.contains(&session) => {
                write(&out, json!({"jsonrpc": "2.0", "id": id, "error": {"code": 4001, "message": "session not found"}})).await;
            }
            "prompt.submit" => {
                let one_at_a_time = Arc::clone(
                    shared
                        .lock()
                        .await
                        .turns
                        .entry(session.clone())
                        .or_default(),
                );
                let status = match one_at_a_time.clone().try_lock_owned() {
                    Ok(_) => "streaming",
                    Err(_) => "queued",
                };
                write(&out, reply(json!({ "status": status }))).await;
                let text = params
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let stops_before = shared
                    .lock()
                    .await
                    .interrupts
                    .get(&session)
                    .copied()
                    .unwrap_or(0);
                let (out, shared) = (out.clone(), shared.clone());
                tokio::spawn(async move {
                    let _turn = one_at_a_time.lock_owned().await;
                    turn(out, shared, session, stops_before, text).await;
                });
            }
            "session.interrupt" => {
                *shared.lock().await.interrupts.entry(session).or_default() += 1;
                write(&out, reply(json!({"status": "interrupted"}))).await;
            }
            "approval.respond" => {
                let waiter = {
                    let mut shared = shared.lock().await;
                    let position = shared.approvals.iter().position(|(s, _)| *s == session);
                    position.map(|position| shared.approvals.remove(position).1)
                };
                // Resolved only if its turn still waits (it gave up at its timeout: deny).
                let resolved =
                    usize::from(waiter.is_some_and(|waiter| waiter.send(params.clone()).is_ok()));
                write(&out, reply(json!({"resolved": resolved}))).await;
            }
            "clarify.respond" | "sudo.respond" | "secret.respond" | "terminal.read.respond" => {
                let request_id = params
                    .get("request_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let waiter = shared.lock().await.waiting.remove(&request_id);
                match waiter {
                    Some(waiter) => {
                        let _ = waiter.send(params.clone());
                        write(&out, reply(json!({"status": "ok"}))).await;
                    }
                    None if method == "sudo.respond" || method == "secret.respond" => {
                        write(&out, reply(json!({"status": "expired"}))).await;
                    }
                    None => {
                        write(&out, json!({"jsonrpc": "2.0", "id": id, "error": {"code": 4009, "message": "no pending request"}})).await;
                    }
                }
            }
            "session.close" => write(&out, reply(json!({"closed": true}))).await,
            "cron.manage" => match cron::manage(&params) {
                Ok(result) => write(&out, reply(result)).await,
                Err((code, message)) => {
                    write(&out, json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})).await;
                }
            },
            other => {
                write(&out, json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("unknown method {other}")}})).await;
            }
        }
    }
}

async fn turn(
    out: Out,
    shared: Arc<Mutex<Shared>>,
    session: String,
    stops_before: u64,
    text: String,
) {
    let mut words = text.split_whitespace();
    let word = words.next().unwrap_or_default().to_lowercase();
    let newer = words
        .next()
        .is_some_and(|second| second.eq_ignore_ascii_case("new"));
    if word == "exit" {
        // The gateway dies after taking the prompt, while the agent is still being built.
        tokio::time::sleep(Duration::from_millis(100)).await;
        std::process::exit(0);
    }
    let turn = Turn::new(out, shared, session, stops_before, newer);
    turn.event("message.start", Value::Null).await;
    // Stopped while it waited in the queue: it ends before it begins.
    if turn.interrupted().await {
        turn.complete("", "interrupted").await;
        return;
    }
    turn.event("thinking.delta", json!({"text": "(•_•) pondering..."}))
        .await;
    turn.event("thinking.delta", json!({"text": ""})).await;
    match word.as_str() {
        "approve" => {
            turn.say("I will clean the build directory. ").await;
            turn.event(
                "message.interim",
                json!({"text": "I will clean the build directory.", "already_streamed": true}),
            )
            .await;
            turn.event("tool.start", json!({"tool_id": "tool-rm", "name": "terminal", "context": "Running rm -rf build/"})).await;
            let answer = turn
                .ask("approval.request", "approval", json!({"command": "rm -rf build/", "pattern_key": "recursive delete",
                    "pattern_keys": ["recursive delete"], "description": "recursive delete", "allow_permanent": true,
                    "choices": ["once", "session", "always", "deny"], "request_id": "appr-demo"}))
                .await;
            if answer.is_none() && !turn.interrupted().await {
                // Denied at its timeout; the model's next step takes a moment.
                tokio::time::sleep(Duration::from_secs(3)).await;
            }
            let choice = answer
                .as_ref()
                .and_then(|a| a.get("choice"))
                .and_then(Value::as_str)
                .unwrap_or("deny")
                .to_owned();
            let result = if choice == "deny" {
                json!({"output": "", "exit_code": -1, "error": "BLOCKED: Command denied by user.", "status": "blocked"})
            } else {
                json!({"output": "", "exit_code": 0, "error": null, "approval": format!("approved ({choice})")})
            };
            turn.event("tool.complete", json!({"tool_id": "tool-rm", "name": "terminal", "args": {"command": "rm -rf build/"},
                "duration_s": 0.02, "result": result})).await;
            let text = if choice == "deny" {
                "Left build/ alone."
            } else {
                "Cleaned build/."
            };
            turn.say(text).await;
            turn.complete(text, "complete").await;
        }
        "clarify" => {
            let answer = if turn.newer {
                turn.ask("clarify.request", "clarify", json!({"questions": [
                    {"qid": "q1", "question": "Which branch?", "choices": ["main", "dev"], "multi_select": false},
                    {"qid": "q2", "question": "Commit message?", "multi_select": false}]})).await
            } else {
                turn.ask("clarify.request", "clarify", json!({"question": "Which color should I use?", "choices": ["red", "green", "blue"]})).await
            };
            let said = match &answer {
                Some(answer) if turn.newer => format!(
                    "Answers: {}",
                    answer.get("answers").cloned().unwrap_or(Value::Null)
                ),
                Some(answer) => format!(
                    "You picked {}.",
                    answer
                        .get("answer")
                        .and_then(Value::as_str)
                        .unwrap_or("nothing")
                ),
                None => "No answer.".into(),
            };
            turn.say(&said).await;
            turn.complete(&said, "complete").await;
        }
        "sudo" | "secret" => {
            let (older, newer_method, payload) = if word == "sudo" {
                turn.event("tool.start", json!({"tool_id": "tool-sudo", "name": "terminal", "context": "Running sudo systemctl restart web"})).await;
                (
                    "sudo.request",
                    "sudo",
                    json!({"command": "sudo systemctl restart web"}),
                )
            } else {
                (
                    "secret.request",
                    "secret",
                    json!({"prompt": "Enter the demo token", "env_var": "DEMO_TOKEN",
                    "metadata": {"skill_name": "demo-skill", "help": "Any text works."}}),
                )
            };
            let answer = turn.ask(older, newer_method, payload).await;
            let value = answer
                .as_ref()
                .and_then(|a| a.get("password").or_else(|| a.get("value")))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if word == "sudo" {
                turn.event("tool.complete", json!({"tool_id": "tool-sudo", "name": "terminal", "args": {"command": "sudo systemctl restart web"},
                    "duration_s": 0.01, "result": {"output": if value.is_empty() { "skipped" } else { "restarted web" }, "exit_code": 0}})).await;
            }
            journal(&value);
            // Nothing made from the value goes into the thread.
            let said = if value.is_empty() {
                "Skipped.".to_owned()
            } else {
                "Got it.".to_owned()
            };
            turn.say(&said).await;
            turn.complete(&said, "complete").await;
        }
        "terminal" => {
            let answer = turn
                .ask(
                    "terminal.read.request",
                    "terminal.read",
                    json!({"start": 0, "count": 2}),
                )
                .await;
            let screen = answer
                .as_ref()
                .and_then(|a| a.get("text").or_else(|| a.get("value")))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let said = format!("Your terminal shows: {screen}");
            turn.say(&said).await;
            turn.complete(&said, "complete").await;
        }
        "expire" => {
            let (sender, _receiver) = oneshot::channel::<Value>();
            let id = "srq-00000000e7e7".to_owned();
            if turn.newer {
                turn.shared.lock().await.waiting.insert(id.clone(), sender);
                write(&turn.out, json!({"jsonrpc": "2.0", "id": id, "method": "sudo", "params": {"session_id": turn.session, "command": "sudo true"}})).await;
                tokio::time::sleep(Duration::from_millis(300)).await;
                turn.shared.lock().await.waiting.remove(&id);
                turn.event(
                    "request.cancel",
                    json!({"id": id, "method": "sudo", "reason": "timeout"}),
                )
                .await;
            } else {
                turn.shared
                    .lock()
                    .await
                    .waiting
                    .insert("sudo-expiring".into(), sender);
                turn.event("sudo.request", json!({"request_id": "sudo-expiring"}))
                    .await;
                tokio::time::sleep(Duration::from_millis(300)).await;
                turn.shared.lock().await.waiting.remove("sudo-expiring");
                turn.event("sudo.expire", json!({"request_id": "sudo-expiring"}))
                    .await;
            }
            turn.say("The password prompt timed out.").await;
            turn.complete("The password prompt timed out.", "complete")
                .await;
        }
        "edit" => {
            turn.event(
                "tool.start",
                json!({"tool_id": "tool-patch", "name": "patch", "context": "Editing src/lib.rs"}),
            )
            .await;
            let diff = "\u{1b}[2m  ┊ review diff\u{1b}[0m\n\u{1b}[1ma/src/lib.rs → b/src/lib.rs\u{1b}[0m\n@@ -1,2 +1,2 @@\n fn main() {\n\u{1b}[31m-    println!(\"hi\");\u{1b}[0m\n\u{1b}[32m+    println!(\"hello\");\u{1b}[0m\n";
            turn.event(
                "tool.complete",
                json!({"tool_id": "tool-patch", "name": "patch", "args": {"path": "src/lib.rs"},
                "duration_s": 0.01, "result": {"success": true}, "inline_diff": diff}),
            )
            .await;
            turn.say("Patched src/lib.rs.").await;
            turn.complete("Patched src/lib.rs.", "complete").await;
        }
        "slow" => stream_until_stopped(&turn, 0).await,
        // A model host that stops answering: nothing more until an interrupt.
        "hang" => {
            turn.say("Thinking hard. ").await;
            while !turn.interrupted().await {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            turn.complete("Thinking hard. ", "interrupted").await;
        }
        // The turn ends, then the gateway lets the session go without a word, as its idle
        // timeout would.
        "idle" => {
            turn.say("Going idle.").await;
            turn.complete("Going idle.", "complete").await;
            let mut shared = turn.shared.lock().await;
            shared.reclaimed.insert(turn.session.clone());
        }
        // Slow to stop: an interrupt ends it only after seven more seconds of words,
        // longer than the console waits.
        "stubborn" => stream_until_stopped(&turn, 70).await,
        // A turn that ends without its `message.complete` (a gateway that lost it).
        "vanish" => turn.say("gone before the end ").await,
        "whoami" => {
            // Which tenant this process serves: a gateway run per tenant is told its own.
            let text = match std::env::var(crate::connectors::hermes::gateway::TENANT_ENV) {
                Ok(tenant) => format!("This gateway serves tenant {tenant} alone."),
                Err(_) => "This gateway serves every tenant.".to_owned(),
            };
            turn.say(&text).await;
            turn.complete(&text, "complete").await;
        }
        "fail" => {
            turn.event("status.update", json!({"kind": "lifecycle", "text": "❌ Non-retryable error (HTTP 400): the model refused"})).await;
            turn.complete("the model refused", "error").await;
        }
        _ => {
            let resumed = turn.shared.lock().await.resumed.get(&turn.session).cloned();
            let text = match resumed {
                Some(stored) => {
                    format!("Hello again from the demo gateway (session {stored} resumed).")
                }
                None => "Hello from the demo gateway.".to_owned(),
            };
            turn.event("reasoning.delta", json!({"text": "A plain turn."}))
                .await;
            turn.say(&text).await;
            turn.event("reasoning.available", json!({"text": text}))
                .await;
            turn.complete(&text, "complete").await;
        }
    }
}

/// Words every 100 ms for a minute; once interrupted, `words_after_stop` more ("lateN")
/// before the turn ends as interrupted.
async fn stream_until_stopped(turn: &Turn, words_after_stop: usize) {
    let mut streamed = String::new();
    let mut stopped_at = None;
    for n in 0..600 {
        if stopped_at.is_none() && turn.interrupted().await {
            stopped_at = Some(n);
        }
        if stopped_at.is_some_and(|at| n >= at + words_after_stop) {
            turn.complete(&streamed, "interrupted").await;
            return;
        }
        let word = match stopped_at {
            Some(_) => format!("late{n} "),
            None => format!("word{n} "),
        };
        streamed.push_str(&word);
        turn.event("message.delta", json!({"text": word})).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    turn.complete(&streamed, "complete").await;
}

/// With `AGENT_OS_DEMO_GATEWAY_JOURNAL` set (by whoever runs the console, for a test), the
/// SHA-256 of each password or secret the gateway received goes to that file, a line each:
/// enough to check the value arrived whole, never the value, and never in the thread.
fn journal(value: &str) {
    use sha2::Digest;
    let Ok(path) = std::env::var(JOURNAL_ENV) else {
        return;
    };
    if value.is_empty() {
        return;
    }
    let line = format!("{}\n", hex::encode(sha2::Sha256::digest(value.as_bytes())));
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut file| std::io::Write::write_all(&mut file, line.as_bytes()));
    if let Err(error) = written {
        eprintln!("demo gateway: could not write its journal {path}: {error}");
    }
}

/// The variable naming the demo gateway's journal of secrets received (as digests).
pub const JOURNAL_ENV: &str = "AGENT_OS_DEMO_GATEWAY_JOURNAL";
