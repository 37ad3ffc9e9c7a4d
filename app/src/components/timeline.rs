//! The run timeline: every channel rendered from the projection, grouped (tool calls as
//! one card) or in arrival order. Nothing is dropped: anything without a component is
//! shown as readable JSON.

use leptos::prelude::*;

use crate::api::load_run_arrivals;
use crate::components::artifacts::JsonBlock;
use crate::components::asks::AskReceipt;
use crate::components::tool_card::ToolCard;
use crate::components::window::Windowing;
use crate::projection::{ErrorKind, Item, ItemBody, RunView};
use crate::protocol::channel::{Level, Role};

/// What the preview pane shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    Artifact { run: usize, id: String },
    Edit { run: usize, id: String },
}

/// "table: Tasks" — what the artifact is, in the words its producer gave it.
fn artifact_label(artifact: &crate::projection::ArtifactView) -> String {
    match &artifact.title {
        Some(title) => format!("{}: {title}", artifact.kind),
        None => format!("{} {}", artifact.kind, artifact.artifact_id),
    }
}

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
    let run_id = StoredValue::new(run_id);
    let entries = Memo::new(move |_| {
        view.with(|view| {
            view.items
                .iter()
                .enumerate()
                .filter(|(_, item)| !item.is_blank())
                .map(|(index, item)| (index, item.sequence, render_version(item)))
                .collect::<Vec<_>>()
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
                <For each=keys key=|(_, sequence, version)| (*sequence, *version) let:entry>
                    {
                        let item = view.with_untracked(|view| {
                            let item = view.items[entry.0].clone();
                            let ask = match &item.body {
                                ItemBody::Ask { ask_id } => view.ask(ask_id).cloned(),
                                _ => None,
                            };
                            let artifact = match &item.body {
                                ItemBody::Artifact { artifact_id } => view.artifact(artifact_id).map(artifact_label),
                                _ => None,
                            };
                            (item, ask, artifact)
                        });
                        let (item, ask, artifact) = (item.0, item.1, item.2);
                        let index = entry.0;
                        let run_id = run_id.get_value();
                        view! { <ItemView run run_id item index view ask artifact show_reasoning on_select on_retry /> }
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
                        arrivals_problem.try_set(Some(error.to_string()));
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

/// Longest block a message's text is laid out in. The browser lays out a changed block
/// whole, so a message streaming into one block costs more each delta; in blocks only
/// the last one changes.
const TEXT_BLOCK_BYTES: usize = 2048;

/// Cuts `text` into blocks of at most `limit` bytes: after the last newline that fits,
/// else after the last space, else at a character boundary. Cuts depend only on the text
/// before them, so appending never moves an earlier one.
pub fn text_blocks(text: &str, limit: usize) -> Vec<(usize, usize)> {
    let mut blocks = Vec::new();
    let mut start = 0;
    while text.len() - start > limit {
        let mut end = start + limit;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if end == start {
            // A limit below one character's width still makes progress.
            end += text[start..].chars().next().map_or(1, char::len_utf8);
        }
        let window = &text[start..end];
        let cut = window
            .rfind('\n')
            .or_else(|| window.rfind([' ', '\t']))
            .map_or(end, |at| start + at + 1);
        blocks.push((start, cut));
        start = cut;
    }
    if start < text.len() || blocks.is_empty() {
        blocks.push((start, text.len()));
    }
    blocks
}

/// A message's text, updated in place as it streams.
#[component]
fn MessageText(view: RwSignal<RunView>, index: usize) -> impl IntoView {
    fn text_of(view: &RunView, index: usize) -> &str {
        match view.items.get(index).map(|item| &item.body) {
            Some(ItemBody::Message { text, .. }) => text,
            _ => "",
        }
    }
    let blocks =
        Memo::new(move |_| view.with(|view| text_blocks(text_of(view, index), TEXT_BLOCK_BYTES)));
    view! {
        <div class="message-text">
            <For each=move || blocks.get() key=|block| *block let:block>
                <div class="text-block">
                    {view.with_untracked(|view| text_of(view, index).get(block.0..block.1).unwrap_or_default().to_owned())}
                </div>
            </For>
        </div>
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
    artifact: Option<String>,
    show_reasoning: Signal<bool>,
    on_select: Callback<Selection>,
    on_retry: Callback<()>,
) -> impl IntoView {
    let channel = item.channel.as_str();
    let body = match item.body {
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
            view! {
                <article class=class aria-busy=streaming.to_string()>
                    <header class="message-head">
                        <span class="who">{who}</span>
                        {is_final.then(|| view! { <span class="badge">"Final answer"</span> })}
                        {streaming.then(|| view! { <span class="badge muted">"streaming…"</span> })}
                    </header>
                    <MessageText view index />
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
            Some(ask) => view! {
                <p class="notice waiting" role="status">
                    {format!("Waiting for you — {}", ask.command.clone().unwrap_or(ask.title.clone()))}
                    " (see Pending asks)"
                </p>
            }
            .into_any(),
            None => view! { <p class="notice">{format!("Ask {ask_id}")}</p> }.into_any(),
        },
        ItemBody::Edit { edit_id } => {
            let id = edit_id.clone();
            view! {
                <button type="button" class="preview-link" on:click=move |_| on_select.run(Selection::Edit { run, id: id.clone() })>
                    "Open edit preview: " {edit_id}
                </button>
            }
            .into_any()
        }
        ItemBody::Artifact { artifact_id } => {
            let id = artifact_id.clone();
            view! {
                <button type="button" class="preview-link" on:click=move |_| on_select.run(Selection::Artifact { run, id: id.clone() })>
                    "Open " {artifact.unwrap_or(artifact_id)}
                </button>
            }
            .into_any()
        }
        ItemBody::Step { name, active } => view! {
            <p class="step">{format!("Step {name}")} {active.then_some(" (running)")}</p>
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
        ItemBody::Notice { level, text, .. } => {
            let (class, label) = match level {
                Level::Info => ("notice", "Note"),
                Level::Warning => ("notice warning", "Warning"),
                Level::Error => ("notice error", "Error"),
            };
            view! { <p class=class><span class="label">{label}": "</span>{text}</p> }.into_any()
        }
        ItemBody::Json { label, json } => view! {
            <details class="json-item">
                <summary>{label}</summary>
                <JsonBlock value=json />
            </details>
        }
        .into_any(),
        ItemBody::Error { kind, message, excerpt } => {
            let retry = kind == ErrorKind::RunFailed;
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
                    {retry.then(|| view! {
                        <button type="button" class="button small" on:click=move |_| on_retry.run(())>"Retry"</button>
                    })}
                </div>
            }
            .into_any()
        }
    };
    view! { <div class="item" data-channel=channel>{body}</div> }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str, limit: usize) -> Vec<&str> {
        text_blocks(text, limit)
            .into_iter()
            .map(|(start, end)| &text[start..end])
            .collect()
    }

    #[test]
    fn short_text_is_one_block() {
        assert_eq!(pieces("hello", 10), vec!["hello"]);
        assert_eq!(pieces("", 10), vec![""]);
    }

    #[test]
    fn long_text_is_cut_after_a_newline_then_a_space() {
        assert_eq!(
            pieces("one two\nthree four", 12),
            vec!["one two\n", "three four"]
        );
        assert_eq!(
            pieces("one two three four", 10),
            vec!["one two ", "three four"]
        );
    }

    #[test]
    fn a_word_longer_than_the_limit_is_cut_on_a_character_boundary() {
        let text = "ééééé";
        let blocks = pieces(text, 3);
        assert_eq!(blocks.concat(), text);
        assert!(blocks.iter().all(|block| !block.is_empty()));
        assert_eq!(pieces("abc", 0).concat(), "abc");
    }

    #[test]
    fn appending_never_moves_an_earlier_cut() {
        let mut text = String::new();
        let mut earlier: Vec<(usize, usize)> = Vec::new();
        for n in 0..2_000 {
            text.push_str(&format!("w{n} "));
            if n % 97 == 0 {
                text.push('\n');
            }
            let blocks = text_blocks(&text, 64);
            assert_eq!(blocks.iter().map(|(s, e)| e - s).sum::<usize>(), text.len());
            // Every block but the last is final.
            let settled = earlier.len().saturating_sub(1);
            assert_eq!(&blocks[..settled], &earlier[..settled]);
            earlier = blocks;
        }
    }
}
