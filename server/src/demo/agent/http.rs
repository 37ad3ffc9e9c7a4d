//! The demo agent's HTTP handlers, and a script streamed as paced SSE.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::resume::resume_script;
use super::scenarios::{long_item, long_tail, script, tool_answer};
use super::{DemoAgent, Run, Step, TOOLS, say};

fn sse_frame(event: &Value) -> Bytes {
    Bytes::from(format!("data: {event}\n\n"))
}

/// What became of sending one step.
enum Played {
    Sent,
    /// The client went away (recorded as a cancellation).
    Gone,
}

/// Sends one step with the demo's pacing.
async fn play(
    step: Step,
    tx: &mpsc::Sender<Bytes>,
    delay: std::time::Duration,
    last_tick: &mut Option<tokio::time::Instant>,
) -> Played {
    let sent = match step {
        Step::Event(event) => {
            if !delay.is_zero() {
                tokio::select! {
                    () = tx.closed() => return Played::Gone,
                    () = tokio::time::sleep(delay) => {}
                }
            }
            tx.send(sse_frame(&event)).await.is_ok()
        }
        Step::Unpaced(event) => tx.send(sse_frame(&event)).await.is_ok(),
        Step::Hang => {
            tx.closed().await;
            false
        }
        Step::Tick(period) => {
            let deadline = last_tick.unwrap_or_else(tokio::time::Instant::now) + period;
            *last_tick = Some(deadline);
            tokio::select! {
                () = tx.closed() => false,
                () = tokio::time::sleep_until(deadline) => true,
            }
        }
        // Made one item at a time as it is sent: however long the run, the demo holds
        // one item of it.
        Step::Long {
            run_id,
            items,
            seconds,
        } => {
            for n in 0..items {
                for step in long_item(&run_id, n) {
                    if let Played::Gone = Box::pin(play(step, tx, delay, last_tick)).await {
                        return Played::Gone;
                    }
                }
            }
            for step in long_tail(&run_id, seconds) {
                if let Played::Gone = Box::pin(play(step, tx, delay, last_tick)).await {
                    return Played::Gone;
                }
            }
            true
        }
    };
    if sent { Played::Sent } else { Played::Gone }
}

/// Streams `steps` with the demo's pacing; notices a client that goes away. At most
/// [`super::MOST_STREAMS`] stream at once; past that the demo answers 503.
fn stream_response(agent: DemoAgent, run_id: String, steps: Vec<Step>) -> Response {
    let Some(slot) = agent.stream_slot() else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "error": "the demo agent is streaming as many runs as it serves at once; try again" })),
        )
            .into_response();
    };
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    let delay = agent.inner.delay;
    tokio::spawn(async move {
        let _slot = slot;
        let mut last_tick = None;
        for step in steps {
            if let Played::Gone = play(step, &tx, delay, &mut last_tick).await {
                agent.record_cancel(&run_id);
                return;
            }
        }
    });
    super::super::sse_response(rx)
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
    } else if let Some(action) = super::surface::action_of(&input) {
        super::surface::answer(action, &input, &run)
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
