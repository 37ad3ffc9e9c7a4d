//! Output surfaces: a terminal run (ANSI colours), a code block, a code diff (unified or
//! split; accepted or rejected whole or hunk by hunk when it is a decision).

use leptos::prelude::*;
use serde_json::json;

use super::OnAction;
use crate::ansi::runs;
use crate::catalog::code::{Change, CodeBlock, CodeDiff, DiffStyle};
use crate::catalog::terminal::Terminal;
use crate::components::code::{Code, CodeLayout};
use crate::components::code_diff::CodeDiff as DiffTable;
use crate::components::copy::copy_from_button;
use crate::protocol::diff::{DiffLineKind, diff_lines, unified_between};

fn lines_kept(limit: Option<i64>) -> Option<usize> {
    limit
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| *n > 0)
}

/// Terminal text with its colours as classes; escape sequences never reach the page.
fn ansi_view(text: &str) -> AnyView {
    runs(text)
        .into_iter()
        .map(|(style, piece)| {
            let classes = style.classes();
            if classes.is_empty() {
                piece.into_any()
            } else {
                view! { <span class=classes>{piece}</span> }.into_any()
            }
        })
        .collect_view()
        .into_any()
}

#[component]
pub fn TerminalView(terminal: Terminal) -> impl IntoView {
    let ok = terminal.exit_code == 0;
    let output = format!(
        "{}{}",
        terminal.stdout.clone().unwrap_or_default(),
        terminal.stderr.clone().unwrap_or_default()
    );
    let plain: String = runs(&output).into_iter().map(|(_, text)| text).collect();
    let line_count = plain.lines().count();
    let limit = lines_kept(terminal.max_collapsed_lines).filter(|n| line_count > *n);
    let expanded = RwSignal::new(false);
    let stdout = terminal.stdout.clone().unwrap_or_default();
    let stderr = terminal.stderr.clone().unwrap_or_default();
    let shown = move |text: &str| -> String {
        match (limit, expanded.get()) {
            (Some(limit), false) => text.lines().take(limit).map(|l| format!("{l}\n")).collect(),
            _ => text.to_owned(),
        }
    };
    view! {
        <figure class="catalog terminal" data-slot="terminal" data-tool-ui-id=terminal.base.id.clone()>
            <figcaption>
                <code>{format!("$ {}", terminal.command)}</code>
                <span class=if ok { "exit ok" } else { "exit failed" }>
                    {if ok { "exit 0 ✓".to_owned() } else { format!("exit {} ✗", terminal.exit_code) }}
                </span>
                {terminal.duration_ms.map(|ms| view! { <span class="muted">{format!("{:.1} s", ms / 1000.0)}</span> })}
                <button type="button" class="button small ghost" aria-label="Copy output"
                    on:click=move |event| copy_from_button(&event, plain.clone(), "Copy")>"Copy"</button>
            </figcaption>
            {terminal.cwd.map(|cwd| view! { <p class="muted terminal-cwd">{cwd}</p> })}
            <pre class="terminal-output" tabindex="0">
                {move || ansi_view(&shown(&stdout))}
                {
                    let stderr = stderr.clone();
                    move || (!stderr.is_empty()).then(|| view! { <span class="terminal-stderr">{ansi_view(&shown(&stderr))}</span> })
                }
            </pre>
            {terminal.truncated.then(|| view! { <p class="muted">"Output was cut short before it reached the console."</p> })}
            {limit.map(|limit| view! {
                <button type="button" class="button small ghost" aria-expanded=move || expanded.get().to_string()
                    on:click=move |_| expanded.update(|open| *open = !*open)>
                    {move || if expanded.get() { "Collapse".to_owned() } else { format!("Show all {line_count} lines ({} more)", line_count - limit) }}
                </button>
            })}
        </figure>
    }
}

#[component]
pub fn CodeBlockView(block: CodeBlock) -> impl IntoView {
    let layout = CodeLayout {
        filename: block.filename,
        line_numbers: block.show_line_numbers,
        marked_lines: block
            .highlight_lines
            .iter()
            .filter_map(|n| usize::try_from(*n).ok())
            .collect(),
        collapse_after: lines_kept(block.max_collapsed_lines),
    };
    view! {
        <div class="catalog" data-tool-ui-id=block.base.id>
            <Code code=block.code language=block.language layout />
        </div>
    }
}

/// Each hunk's decision: accepted (true), rejected (false) or not yet decided.
type HunkDecisions = RwSignal<Vec<Option<bool>>>;

#[component]
pub fn CodeDiffView(diff: CodeDiff, on_action: OnAction) -> impl IntoView {
    let patch = match &diff.change {
        Change::Patch { patch } => patch.clone(),
        Change::Files { old_code, new_code } => unified_between(old_code, new_code),
    };
    let hunks: Vec<String> = diff_lines(&patch)
        .into_iter()
        .filter(|line| line.kind == DiffLineKind::Hunk)
        .map(|line| line.text)
        .collect();
    let decisions: HunkDecisions = RwSignal::new(vec![None; hunks.len()]);
    let sent = RwSignal::new(None::<&'static str>);
    let send = move |action: &'static str| {
        let Some(send) = on_action else { return };
        let chosen = decisions.get_untracked();
        sent.set(Some(action));
        let data = match action {
            "apply" => {
                json!({ "hunks": chosen.iter().map(|d| d.unwrap_or(false)).collect::<Vec<_>>() })
            }
            _ => json!({}),
        };
        send.run((action.to_owned(), data));
    };
    let per_hunk = on_action.is_some() && hunks.len() > 1;
    view! {
        <div class="catalog code-diff-surface" data-tool-ui-id=diff.base.id.clone()
            data-receipt=move || sent.get().map(|_| "true")>
            <DiffTable patch filename=diff.filename.clone() split=diff.diff_style == DiffStyle::Split />
            {per_hunk.then(|| view! {
                <ol class="hunk-decisions" aria-label="Hunks">
                    {hunks.iter().enumerate().map(|(n, header)| {
                        let state = move || decisions.with(|d| d.get(n).copied().flatten());
                        let set = move |value: bool| decisions.update(|d| if let Some(slot) = d.get_mut(n) { *slot = Some(value) });
                        view! {
                            <li>
                                <code>{header.clone()}</code>
                                <button type="button" class="button small" aria-pressed=move || (state() == Some(true)).to_string()
                                    disabled=move || sent.get().is_some() on:click=move |_| set(true)>"Accept hunk"</button>
                                <button type="button" class="button small ghost" aria-pressed=move || (state() == Some(false)).to_string()
                                    disabled=move || sent.get().is_some() on:click=move |_| set(false)>"Reject hunk"</button>
                            </li>
                        }
                    }).collect_view()}
                </ol>
            })}
            {on_action.is_some().then(|| view! {
                <footer class="catalog-actions">
                    {move || sent.get().map(|action| view! { <p class="catalog-receipt" role="status">{match action { "accept" => "Accepted", "reject" => "Rejected", _ => "Applied the chosen hunks" }}</p> })}
                    <button type="button" class="button ghost" data-action="reject" disabled=move || sent.get().is_some() on:click=move |_| send("reject")>"Reject"</button>
                    {per_hunk.then(|| view! {
                        <button type="button" class="button" data-action="apply"
                            disabled=move || sent.get().is_some() || decisions.with(|d| d.iter().any(Option::is_none))
                            on:click=move |_| send("apply")>"Apply chosen hunks"</button>
                    })}
                    <button type="button" class="button primary" data-action="accept" disabled=move || sent.get().is_some() on:click=move |_| send("accept")>"Accept"</button>
                </footer>
            })}
        </div>
    }
}
