//! A tool call's card. One card per call across the thread: when a follow-up run brings
//! the result of a call the paused run started, the card in the paused run shows it and
//! the follow-up shows no second card.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::projection::{Item, ItemBody, ToolResultView, ToolStatus};

/// The calls of the thread that a follow-up run finished, by call id, as the page sees
/// them: the follow-up's item of each.
#[derive(Clone, Copy)]
pub struct ContinuedCalls(pub Memo<HashMap<String, Item>>);

/// The calls a pending ask of the thread is about: they wait for the operator.
#[derive(Clone, Copy)]
pub struct WaitingCalls(pub Memo<Vec<String>>);

fn status_text(status: ToolStatus) -> (&'static str, &'static str) {
    match status {
        ToolStatus::Streaming => ("…", "streaming arguments"),
        ToolStatus::Running => ("◌", "running"),
        ToolStatus::Done => ("✓", "done"),
        ToolStatus::Failed => ("✗", "failed"),
        ToolStatus::NoResult => ("–", "no result"),
    }
}

fn pretty_arguments(arguments: &str) -> String {
    crate::codec::from_json::<serde_json::Value>(arguments)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or_else(|| arguments.to_owned())
}

fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// The status and result a call shows: its own, or those a follow-up run brought.
fn outcome(
    status: ToolStatus,
    result: Option<ToolResultView>,
    later: Option<&Item>,
) -> (ToolStatus, Option<ToolResultView>) {
    let finished = matches!(status, ToolStatus::Done | ToolStatus::Failed);
    match later.map(|item| &item.body) {
        Some(ItemBody::ToolCall {
            status: later_status,
            result: later_result,
            ..
        }) if !finished => (*later_status, later_result.clone()),
        _ => (status, result),
    }
}

#[component]
pub fn ToolCard(
    body: ItemBody,
    /// The run's id: a follow-up's card of a call the paused run shows is left out.
    run_id: String,
) -> impl IntoView {
    let ItemBody::ToolCall {
        tool_call_id,
        name,
        arguments,
        status,
        summary,
        progress,
        result,
        ..
    } = body
    else {
        return ().into_any();
    };
    let continued = use_context::<ContinuedCalls>();
    let waiting = use_context::<WaitingCalls>();
    if crate::projection::history::resumed_run(&run_id).is_some()
        && continued.is_some_and(|calls| {
            calls
                .0
                .with_untracked(|calls| calls.contains_key(&tool_call_id))
        })
    {
        return ().into_any();
    }
    let id = tool_call_id.clone();
    let shown = Signal::derive(move || {
        let later = continued.and_then(|calls| calls.0.with(|calls| calls.get(&id).cloned()));
        outcome(status, result.clone(), later.as_ref())
    });
    let id = tool_call_id.clone();
    let for_you = Signal::derive(move || {
        waiting.is_some_and(|calls| calls.0.with(|calls| calls.contains(&id)))
    });
    // What the card says of its state: an ask about the call makes it wait for you.
    let label = move || {
        let (status, _) = shown.get();
        if for_you.get() && !matches!(status, ToolStatus::Done | ToolStatus::Failed) {
            ("⏸", "waiting for you")
        } else {
            status_text(status)
        }
    };
    view! {
        <article class="tool-card" data-status=move || label().1 data-tool-call-id=tool_call_id>
            <header class="tool-head">
                <span class="tool-name">{name}</span>
                <span class="tool-status">{move || {
                    let (icon, label) = label();
                    view! { <span aria-hidden="true">{icon}</span>" " {label} }
                }}</span>
                {move || shown.get().1.and_then(|r| r.duration_ms).map(|t| view! { <span class="muted">{duration(t)}</span> })}
            </header>
            {summary.map(|s| view! { <p class="muted">{s}</p> })}
            <pre class="tool-args" aria-label="Arguments"><code>{pretty_arguments(&arguments)}</code></pre>
            {(!progress.is_empty()).then(|| view! { <p class="muted">{progress.join(" · ")}</p> })}
            {move || {
                let (status, result) = shown.get();
                match result {
                    Some(result) => {
                        let text = match &result.content {
                            serde_json::Value::String(text) => text.clone(),
                            other => serde_json::to_string_pretty(other).unwrap_or_default(),
                        };
                        view! {
                            <div class=if result.is_error { "tool-result error" } else { "tool-result" }>
                                <span class="label">{if result.is_error { "Error result" } else { "Result" }}</span>
                                <pre><code>{text}</code></pre>
                            </div>
                        }
                        .into_any()
                    }
                    None => view! {
                        <p class="tool-result pending muted">
                            {if status == ToolStatus::NoResult {
                                "No result came back."
                            } else if for_you.get() {
                                "Waiting for your answer (see Pending asks)."
                            } else {
                                "Waiting for the result…"
                            }}
                        </p>
                    }
                    .into_any(),
                }
            }}
        </article>
    }
    .into_any()
}
