//! A tool call's card. One card per call across the thread: when a follow-up run brings
//! the result of a call the paused run started, the card in the paused run shows it and
//! the follow-up shows no second card.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::components::markdown::Markdown;
use crate::projection::{Item, ItemBody, ToolResultView, ToolStatus};

/// The calls of the thread that a follow-up run finished, by call id, as the page sees
/// them: the follow-up's item of each.
#[derive(Clone, Copy)]
pub struct ContinuedCalls(pub Memo<HashMap<String, Item>>);

/// The calls a pending ask of the thread is about: they wait for the operator.
#[derive(Clone, Copy)]
pub struct WaitingCalls(pub Memo<Vec<String>>);

/// The calls an ask of the thread declined (an approval denied, an edit rejected): their
/// row says so, whatever result the agent reported for them.
#[derive(Clone, Copy)]
pub struct DeclinedCalls(pub Memo<Vec<String>>);

fn status_text(status: ToolStatus) -> (&'static str, &'static str) {
    match status {
        ToolStatus::Streaming => ("…", "streaming arguments"),
        ToolStatus::Running => ("◌", "running"),
        ToolStatus::Done => ("✓", "done"),
        ToolStatus::Failed => ("✗", "failed"),
        ToolStatus::NoResult => ("–", "no result"),
    }
}

/// JSON text laid out for reading (arguments, a result); anything else as it is.
fn pretty_json(text: &str) -> String {
    crate::codec::from_json::<serde_json::Value>(text)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or_else(|| text.to_owned())
}

/// One line saying what a call was given, by argument name: `note: "…", title: "ship
/// the SDK"`. Arguments still streaming (not yet JSON) are shown as they are, cut short.
pub fn argument_brief(arguments: &str) -> String {
    const MOST: usize = 80;
    let cut = |text: &str, most: usize| -> String {
        if text.chars().count() <= most {
            text.to_owned()
        } else {
            let kept: String = text.chars().take(most.saturating_sub(1)).collect();
            format!("{kept}…")
        }
    };
    let line = match crate::codec::from_json::<serde_json::Value>(arguments) {
        Ok(serde_json::Value::Object(fields)) => fields
            .iter()
            .map(|(key, value)| {
                let value = match value {
                    serde_json::Value::String(text) => format!("{:?}", cut(text, 40)),
                    other => cut(&other.to_string(), 40),
                };
                format!("{key}: {value}")
            })
            .collect::<Vec<_>>()
            .join(", "),
        Ok(other) => other.to_string(),
        Err(_) => arguments.split_whitespace().collect::<Vec<_>>().join(" "),
    };
    cut(&line, MOST)
}

/// Which collapsed rows of the timeline the operator opened, kept across re-renders (a
/// card renders anew as its call progresses) by a key of the row's own.
#[derive(Clone, Copy)]
pub struct ExpandedRows(pub RwSignal<std::collections::HashSet<String>>);

impl ExpandedRows {
    pub fn key(self, key: &str) -> ExpandedRow {
        ExpandedRow {
            rows: self,
            key: StoredValue::new(key.to_owned()),
        }
    }
}

/// One row's place in [`ExpandedRows`].
#[derive(Clone, Copy)]
pub struct ExpandedRow {
    rows: ExpandedRows,
    key: StoredValue<String>,
}

impl ExpandedRow {
    pub fn is_open(self) -> bool {
        self.key
            .with_value(|key| self.rows.0.with_untracked(|rows| rows.contains(key)))
    }

    /// Remembers the state a `toggle` event of the row's `<details>` reports.
    pub fn toggled(self, event: &leptos::ev::Event) {
        let Some(open) = crate::components::details_open(event) else {
            return;
        };
        if open != self.is_open() {
            let key = self.key.get_value();
            self.rows.0.update(|rows| {
                if open {
                    rows.insert(key);
                } else {
                    rows.remove(&key);
                }
            });
        }
    }
}

fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// The status and result a call shows: its own, or those a follow-up run brought — that
/// result lasting from this call (`started_ts`) to it when the follow-up could not tell.
fn outcome(
    status: ToolStatus,
    result: Option<ToolResultView>,
    started_ts: i64,
    later: Option<&Item>,
) -> (ToolStatus, Option<ToolResultView>) {
    let finished = matches!(status, ToolStatus::Done | ToolStatus::Failed);
    match later.map(|item| &item.body) {
        Some(ItemBody::ToolCall {
            status: later_status,
            result: later_result,
            ..
        }) if !finished => {
            let result = later_result.clone().map(|mut result| {
                if result.duration_ms.is_none() {
                    result.duration_ms = u64::try_from(result.ts - started_ts)
                        .ok()
                        .filter(|ms| *ms > 0);
                }
                result
            });
            (*later_status, result)
        }
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
        started_ts,
        ..
    } = body
    else {
        return ().into_any();
    };
    let continued = use_context::<ContinuedCalls>();
    let waiting = use_context::<WaitingCalls>();
    let declined = use_context::<DeclinedCalls>();
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
        outcome(status, result.clone(), started_ts, later.as_ref())
    });
    let id = tool_call_id.clone();
    let for_you = Signal::derive(move || {
        waiting.is_some_and(|calls| calls.0.with(|calls| calls.contains(&id)))
    });
    let id = tool_call_id.clone();
    let was_declined = Signal::derive(move || {
        declined.is_some_and(|calls| calls.0.with(|calls| calls.contains(&id)))
    });
    // What the card says of its state: an ask about the call makes it wait for you; one
    // that declined it says so, above the agent's own word on it.
    let label = move || {
        let (status, _) = shown.get();
        if for_you.get() && !matches!(status, ToolStatus::Done | ToolStatus::Failed) {
            ("⏸", "waiting for you")
        } else if was_declined.get() && status != ToolStatus::Streaming {
            ("⊘", "declined")
        } else {
            status_text(status)
        }
    };
    let brief = argument_brief(&arguments);
    let scope = crate::components::id_fragment(&tool_call_id);
    let open = use_context::<ExpandedRows>().map(|rows| rows.key(&tool_call_id));
    view! {
        <article class="tool-card" data-status=move || label().1 data-tool-call-id=tool_call_id>
            <details class="tool-details" open=open.is_some_and(|row| row.is_open())
                on:toggle=move |event| if let Some(row) = open { row.toggled(&event) }>
                <summary class="tool-head">
                    <span class="tool-icon" aria-hidden="true">{move || label().0}</span>
                    <span class="tool-name">{name}</span>
                    <span class="tool-brief">{brief}</span>
                    <span class="tool-status">{move || label().1}</span>
                    {move || shown.get().1.and_then(|r| r.duration_ms).map(|t| view! { <span class="tool-duration muted">{duration(t)}</span> })}
                </summary>
                {summary.map(|s| view! { <p class="muted">{s}</p> })}
                <pre class="tool-args" aria-label="Arguments"><code>{pretty_json(&arguments)}</code></pre>
                {(!progress.is_empty()).then(|| view! { <p class="muted">{progress.join(" · ")}</p> })}
                {move || {
                    let (status, result) = shown.get();
                    match result {
                        Some(result) => {
                            // Prose (a string that is not JSON) reads as Markdown; data as JSON.
                            let body = match &result.content {
                                serde_json::Value::String(text)
                                    if crate::codec::from_json::<serde_json::Value>(text).is_err() =>
                                {
                                    view! { <Markdown text=text.clone() scope=scope.clone() /> }.into_any()
                                }
                                serde_json::Value::String(text) => {
                                    view! { <pre><code>{pretty_json(text)}</code></pre> }.into_any()
                                }
                                other => {
                                    let text = serde_json::to_string_pretty(other).unwrap_or_default();
                                    view! { <pre><code>{text}</code></pre> }.into_any()
                                }
                            };
                            view! {
                                <div class=if result.is_error { "tool-result error" } else { "tool-result" }>
                                    <span class="label">{if result.is_error { "Error result" } else { "Result" }}</span>
                                    {body}
                                </div>
                            }
                            .into_any()
                        }
                        None => view! {
                            <p class="tool-result pending muted">
                                {if status == ToolStatus::NoResult {
                                    "No result came back."
                                } else if for_you.get() {
                                    "Waiting for your answer."
                                } else {
                                    "Waiting for the result…"
                                }}
                            </p>
                        }
                        .into_any(),
                    }
                }}
            </details>
        </article>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_brief_names_each_argument_and_cuts_long_values() {
        assert_eq!(
            argument_brief(r#"{"title":"ship the SDK","count":3}"#),
            r#"count: 3, title: "ship the SDK""#
        );
        let long = format!(r#"{{"text":"{}"}}"#, "x".repeat(100));
        let brief = argument_brief(&long);
        assert!(brief.chars().count() <= 80, "{brief}");
        assert!(brief.contains('…'));
    }

    #[test]
    fn arguments_still_streaming_are_shown_as_they_are() {
        assert_eq!(argument_brief("{\"ti"), "{\"ti");
        assert_eq!(argument_brief(""), "");
    }
}
