//! The run timeline: every channel rendered from the projection, grouped (tool calls as
//! one card) or in arrival order. Nothing is dropped: anything without a component is
//! shown as readable JSON.

use leptos::prelude::*;

use crate::api::load_run_arrivals;
use crate::components::artifacts::JsonBlock;
use crate::components::asks::AskReceipt;
use crate::components::identity::{VIEWER_NOTE, may_act};
use crate::components::message::{MessageCopy, MessageText};
use crate::components::output_card::{EditCard, OutputCard, Selection};
use crate::components::tool_card::{ContinuedCalls, ExpandedRows, ToolCard};
use crate::components::window::Windowing;
use crate::projection::{ErrorKind, Item, ItemBody, RunView, ToolStatus};
use crate::protocol::channel::{Level, Role};

/// The thread's last run once it is over: the run offers Retry.
#[derive(Clone, Copy)]
pub struct RetryableRun(pub Memo<Option<String>>);

/// `(run id, message id)` of user messages a retry sent again: shown once, where first sent.
#[derive(Clone, Copy)]
pub struct RepeatedMessages(pub Memo<std::collections::HashSet<(String, String)>>);

#[component]
pub fn Timeline(
    run: usize,
    /// The run's id, to read its arrival order, which the page leaves out.
    run_id: String,
    view: RwSignal<RunView>,
    #[prop(into)] show_reasoning: Signal<bool>,
    #[prop(into)] arrival: Signal<bool>,
    #[prop(into)] on_select: Callback<Selection>,
    #[prop(into)] on_retry: Callback<()>,
) -> impl IntoView {
    // A follow-up run leaves out the calls its paused run shows (one card per call).
    let continued = use_context::<ContinuedCalls>()
        .filter(|_| crate::projection::history::resumed_run(&run_id).is_some());
    let run_id = StoredValue::new(run_id);
    let entries = Memo::new(move |_| {
        let shown_elsewhere = |item: &Item| match (&item.body, continued) {
            (ItemBody::ToolCall { tool_call_id, .. }, Some(calls)) => {
                calls.0.with(|calls| calls.contains_key(tool_call_id))
            }
            _ => false,
        };
        view.with(|view| {
            rows(
                view.items
                    .iter()
                    .enumerate()
                    .filter(|(_, item)| !item.is_blank() && !shown_elsewhere(item)),
            )
        })
    });
    let grouped = move || {
        let window = Windowing::new(Memo::new(move |_| entries.with(Vec::len)), 72.0);
        let keys = move || {
            let slice = window.slice.get();
            entries.with(|entries| entries[slice.start..slice.end].to_vec())
        };
        view! {
            <div class="items" node_ref=window.root>
                <div class="spacer" aria-hidden="true" style=move || window.spacer_above()></div>
                <For each=keys key=Row::clone let:row>
                    {
                        match row {
                            Row::Tools(members) => {
                                let run_id = run_id.get_value();
                                view! { <ToolGroup members view run_id /> }.into_any()
                            }
                            Row::Item(entry) => {
                        let item = view.with_untracked(|view| {
                            let item = view.items[entry.0].clone();
                            let ask = match &item.body {
                                ItemBody::Ask { ask_id } => view.ask(ask_id).cloned(),
                                _ => None,
                            };
                            (item, ask)
                        });
                        let (item, ask) = (item.0, item.1);
                        let index = entry.0;
                        let run_id = run_id.get_value();
                        view! { <ItemView run run_id item index view ask show_reasoning on_select on_retry /> }.into_any()
                            }
                        }
                    }
                </For>
                <div class="spacer" aria-hidden="true" style=move || window.spacer_below()></div>
            </div>
        }
    };
    let arrivals_problem = RwSignal::new(None::<String>);
    let in_arrival_order = move || {
        // The page leaves the arrival list out (one entry an event); the first look at it
        // reads it, and events applied meanwhile keep their place after it.
        if !view.with_untracked(RunView::arrivals_complete) {
            arrivals_problem.set(None);
            leptos::task::spawn_local(async move {
                match load_run_arrivals(run_id.get_value()).await {
                    Ok(full) => {
                        view.try_update(|view| view.restore_arrivals(&full));
                    }
                    Err(error) => {
                        arrivals_problem.try_set(Some(error.say()));
                    }
                }
            });
        }
        let window = Windowing::new(
            // Only a complete list is shown: a partial one would look like a gap.
            Memo::new(move |_| {
                view.with(|view| {
                    if view.arrivals_complete() {
                        view.arrivals.len()
                    } else {
                        0
                    }
                })
            }),
            26.0,
        );
        view! {
            <div class="items" node_ref=window.root>
                <div class="spacer" aria-hidden="true" style=move || window.spacer_above()></div>
                {move || match arrivals_problem.get() {
                    Some(problem) => Some(view! { <p class="error-text" role="alert">{problem}</p> }.into_any()),
                    None => (!view.with(RunView::arrivals_complete)).then(|| view! {
                        <p class="muted" role="status">"Reading the arrival order…"</p>
                    }.into_any()),
                }}
                <ol class="arrivals" aria-label="Events in arrival order">
                    {move || {
                        let slice = window.slice.get();
                        view.with(|view| {
                            view.arrivals[slice.start..slice.end]
                                .iter()
                                .map(|arrival| {
                                    let target = arrival.item().and_then(|index| view.items.get(index)).map(|item| item.summary_line(&view.asks));
                                    view! {
                                        <li class="arrival" data-channel=arrival.channel.as_str()>
                                            <span class="seq">{format!("#{}", arrival.sequence)}</span>
                                            <span class="channel">{arrival.channel.as_str()}</span>
                                            <span class="kind">{arrival.kind()}</span>
                                            {target.map(|line| view! { <span class="target">{line}</span> })}
                                        </li>
                                    }
                                })
                                .collect_view()
                        })
                    }}
                </ol>
                <div class="spacer" aria-hidden="true" style=move || window.spacer_below()></div>
            </div>
        }
    };
    move || {
        if arrival.get() {
            in_arrival_order().into_any()
        } else {
            grouped().into_any()
        }
    }
}

/// One row of the grouped timeline: an item `(index, sequence, version)`, or two or more
/// consecutive tool calls shown as one "Ran 3 tools" group. A row renders anew when it
/// changes (its key is itself).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Row {
    Item((usize, u64, u64)),
    Tools(Vec<(usize, u64, u64)>),
}

/// The rows of `items` (with their indexes): consecutive tool calls grouped.
fn rows<'a>(items: impl Iterator<Item = (usize, &'a Item)>) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    let mut calls: Vec<(usize, u64, u64)> = Vec::new();
    let close = |calls: &mut Vec<(usize, u64, u64)>, rows: &mut Vec<Row>| match calls.len() {
        0 => {}
        1 => rows.push(Row::Item(calls.remove(0))),
        _ => rows.push(Row::Tools(std::mem::take(calls))),
    };
    for (index, item) in items {
        let entry = (index, item.sequence, render_version(item));
        if matches!(item.body, ItemBody::ToolCall { .. }) {
            calls.push(entry);
        } else {
            close(&mut calls, &mut rows);
            rows.push(Row::Item(entry));
        }
    }
    close(&mut calls, &mut rows);
    rows
}

/// Consecutive tool calls, collapsed to "Ran 3 tools" until opened.
#[component]
fn ToolGroup(
    members: Vec<(usize, u64, u64)>,
    view: RwSignal<RunView>,
    run_id: String,
) -> impl IntoView {
    let bodies: Vec<ItemBody> = view.with_untracked(|view| {
        members
            .iter()
            .filter_map(|(index, ..)| view.items.get(*index).map(|item| item.body.clone()))
            .collect()
    });
    let count = bodies.len();
    let statuses: Vec<ToolStatus> = bodies
        .iter()
        .filter_map(|body| match body {
            ItemBody::ToolCall { status, .. } => Some(*status),
            _ => None,
        })
        .collect();
    let running = statuses
        .iter()
        .any(|status| matches!(status, ToolStatus::Streaming | ToolStatus::Running));
    let failed = statuses
        .iter()
        .filter(|status| **status == ToolStatus::Failed)
        .count();
    let mut label = if running {
        format!("Running {count} tools…")
    } else {
        format!("Ran {count} tools")
    };
    if failed > 0 {
        label.push_str(&format!(" · {failed} failed"));
    }
    let first_sequence = members.first().map_or(0, |member| member.1);
    let open = use_context::<ExpandedRows>()
        .map(|rows| rows.key(&format!("{run_id}/group/{first_sequence}")));
    let cards = bodies
        .into_iter()
        .map(|body| {
            let run_id = run_id.clone();
            view! { <ToolCard body run_id /> }
        })
        .collect_view();
    view! {
        <div class="item" data-channel="tool-group">
            <details class="tool-group" open=open.is_some_and(|row| row.is_open())
                on:toggle=move |event| if let Some(row) = open { row.toggled(&event) }>
                <summary>{label}</summary>
                <div class="tool-group-cards">{cards}</div>
            </details>
        </div>
    }
}

/// What makes a row render anew. A message's text streams into its row in place (see
/// `MessageText`), so only its badges count; any other item re-renders when it changes.
fn render_version(item: &Item) -> u64 {
    match &item.body {
        ItemBody::Message {
            streaming,
            is_final,
            ..
        } => u64::from(*streaming) | (u64::from(*is_final) << 1),
        _ => item.updated,
    }
}

#[component]
fn ItemView(
    run: usize,
    /// The run's id (a follow-up run leaves out cards the paused run shows).
    run_id: String,
    item: Item,
    /// Where the item sits in `view`, for the parts that update in place.
    index: usize,
    view: RwSignal<RunView>,
    ask: Option<crate::protocol::ask::Ask>,
    show_reasoning: Signal<bool>,
    on_select: Callback<Selection>,
    on_retry: Callback<()>,
) -> impl IntoView {
    let channel = item.channel.as_str();
    let body = match item.body {
        ItemBody::Message {
            role: Role::User,
            ref message_id,
            ..
        } if use_context::<RepeatedMessages>().is_some_and(|repeated| {
            repeated
                .0
                .with_untracked(|repeated| repeated.contains(&(run_id.clone(), message_id.clone())))
        }) =>
        {
            view! {
                <p class="notice retry-note" role="note">
                    <span aria-hidden="true">"↻ "</span>"Your last message, sent again"
                </p>
            }
            .into_any()
        }
        ItemBody::Message {
            role,
            streaming,
            is_final,
            name,
            ..
        } => {
            let who = match role {
                Role::User => "You".to_owned(),
                Role::Assistant => name.unwrap_or_else(|| "Agent".to_owned()),
                Role::System => "System".to_owned(),
                Role::Developer => "Developer".to_owned(),
                Role::Tool => "Tool".to_owned(),
            };
            let class = match (role, is_final) {
                (Role::User, _) => "message user",
                (_, true) => "message final",
                _ => "message",
            };
            let at = crate::when::rfc3339(item.ts);
            let at_text = crate::when::readable(&at);
            let at_title = at_text.clone();
            view! {
                <article class=class aria-busy=streaming.to_string()>
                    <header class="message-head">
                        <span class="who">{who}</span>
                        {is_final.then(|| view! { <span class="badge">"Final answer"</span> })}
                        {streaming.then(|| view! { <span class="visually-hidden">"Still writing"</span> })}
                        <time datetime=at title=at_title>{at_text}</time>
                    </header>
                    <MessageText view index markdown=!matches!(role, Role::User) />
                    {(!streaming).then(|| view! { <MessageCopy view index /> })}
                </article>
            }
            .into_any()
        }
        ItemBody::Reasoning { text, streaming, .. } => view! {
            <details class="reasoning" hidden=move || !show_reasoning.get() aria-busy=streaming.to_string()>
                <summary>"Reasoning" {streaming.then_some(" (streaming…)")}</summary>
                <p>{text}</p>
            </details>
        }
        .into_any(),
        ItemBody::EncryptedReasoning { subtype, .. } => view! {
            <p class="notice muted" hidden=move || !show_reasoning.get()>
                {format!("Encrypted reasoning ({subtype}) kept for the agent")}
            </p>
        }
        .into_any(),
        body @ ItemBody::ToolCall { .. } => view! { <ToolCard body run_id /> }.into_any(),
        ItemBody::Ask { ask_id } => match ask {
            Some(ask) if !ask.state.is_pending() => view! { <AskReceipt ask /> }.into_any(),
            // The question itself is asked once, in the lane: here only where to answer it.
            Some(ask) => {
                let ask_id = ask.id.clone();
                view! {
                    <p class="notice waiting" role="status">
                        "Waiting for your answer. "
                        <button type="button" class="link-button"
                            on:click=move |_| crate::components::focus::focus_ask(&ask_id)>"Answer it"</button>
                    </p>
                }
                .into_any()
            }
            None => view! { <p class="notice">{format!("Ask {ask_id}")}</p> }.into_any(),
        },
        ItemBody::Edit { edit_id } => {
            view! { <EditCard run view edit_id on_select /> }.into_any()
        }
        ItemBody::Artifact { artifact_id } => {
            view! { <OutputCard run view artifact_id on_select /> }.into_any()
        }
        // The agent's own step markers: detail, shown with the reasoning.
        ItemBody::Step { name, active } => view! {
            <p class="step" hidden=move || !show_reasoning.get()>
                {if active { format!("Working on: {name}") } else { format!("Finished: {name}") }}
            </p>
        }
        .into_any(),
        ItemBody::Subagent { name, running, error, .. } => view! {
            <p class="step">
                {format!("Subagent {name}")}
                {match (running, error) {
                    (_, Some(error)) => format!(" failed: {error}"),
                    (true, None) => " (running)".to_owned(),
                    (false, None) => " finished".to_owned(),
                }}
            </p>
        }
        .into_any(),
        // Information reads as a plain, quiet line; only what went wrong is labelled.
        ItemBody::Notice { level, text, .. } => {
            let (class, label) = match level {
                Level::Info => ("notice muted", None),
                Level::Warning => ("notice warning", Some("Warning: ")),
                Level::Error => ("notice error", Some("Error: ")),
            };
            view! { <p class=class>{label.map(|label| view! { <span class="label">{label}</span> })}{text}</p> }
                .into_any()
        }
        ItemBody::SurfaceAction { action } => {
            let context = (!action.context.is_empty())
                .then(|| serde_json::Value::Object(action.context.clone()));
            view! {
                <div class="surface-action">
                    <p><span class="label">"You: "</span>
                        {format!("sent \u{201c}{}\u{201d} from surface {} ({})", action.name, action.surface_id, action.source_component_id)}
                    </p>
                    {context.map(|value| view! {
                        <details class="json-item"><summary>"What it carried"</summary><JsonBlock value /></details>
                    })}
                </div>
            }
            .into_any()
        }
        ItemBody::Json { label, json } => view! {
            <details class="json-item">
                <summary>{label}</summary>
                <JsonBlock value=json />
            </details>
        }
        .into_any(),
        ItemBody::Error { kind, message, excerpt } => {
            // Only the thread's last run can be retried: an older failure's card offers
            // nothing (Retry sends the thread's last message again).
            let retryable = use_context::<RetryableRun>();
            let may_act = may_act();
            let retry = move || {
                kind == ErrorKind::RunFailed
                    && retryable.is_some_and(|last| {
                        last.0.with(|last| last.as_deref() == Some(run_id.as_str()))
                    })
            };
            view! {
                <div class="error-card" data-kind=format!("{kind:?}")>
                    <span class="label">{match kind {
                        ErrorKind::RunFailed => "Run failed",
                        ErrorKind::ProtocolViolation => "Protocol violation",
                        ErrorKind::Malformed => "Unreadable event",
                        ErrorKind::Patch => "Patch failed",
                        ErrorKind::Gateway => "Gateway error",
                    }}</span>
                    <p>{message}</p>
                    {excerpt.map(|e| view! { <pre><code>{e}</code></pre> })}
                    {move || retry().then(|| view! {
                        <button type="button" class="button small" on:click=move |_| on_retry.run(())
                            disabled=move || !may_act.get() title=move || (!may_act.get()).then_some(VIEWER_NOTE)>"Retry"</button>
                    })}
                </div>
            }
            .into_any()
        }
    };
    view! { <div class="item" data-channel=channel>{body}</div> }
}
