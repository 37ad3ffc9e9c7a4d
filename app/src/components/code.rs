//! Code as the console shows it everywhere (Markdown fences, code_block payloads, tool
//! output): a header with the language or file name and Copy, lines optionally numbered,
//! marked or collapsed, and colours from the server's highlighter once the code has
//! stopped changing.

use leptos::prelude::*;

use crate::components::copy::copy_from_button;
use crate::error::ApiError;
use crate::highlight::{Runs, TokenClass, pieces};

/// How long code must stay unchanged before it is highlighted: a streaming block is
/// replaced on every delta, so only a settled one is ever sent.
#[cfg(any(feature = "hydrate", feature = "csr"))]
const SETTLE_MS: u64 = 300;

/// The token runs of `code` in `language` (empty when the language is unknown or the
/// code too long, and the code stays plain).
#[server(prefix = "/fn", endpoint = "highlight_code")]
pub async fn highlight_code(language: String, code: String) -> Result<Runs, ApiError> {
    Ok(crate::highlight::highlight(&language, &code).unwrap_or_default())
}

/// How a piece of code is laid out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CodeLayout {
    pub filename: Option<String>,
    pub line_numbers: bool,
    /// 1-based lines to mark.
    pub marked_lines: Vec<usize>,
    /// Lines shown before "Show all"; everything when `None`.
    pub collapse_after: Option<usize>,
}

/// A block of code with its header and Copy button.
#[component]
pub fn Code(
    #[prop(into)] code: String,
    #[prop(optional)] language: Option<String>,
    #[prop(optional)] layout: CodeLayout,
) -> impl IntoView {
    let runs = RwSignal::new(None::<Runs>);
    if let Some(language) = language.clone().filter(|l| l != "text" && !code.is_empty()) {
        request_highlight(language, code.clone(), runs);
    }
    let total_lines = code.lines().count().max(1);
    let collapsible = layout.collapse_after.filter(|limit| total_lines > *limit);
    let expanded = RwSignal::new(false);
    let label = layout
        .filename
        .clone()
        .or_else(|| language.clone())
        .unwrap_or_else(|| "text".to_owned());
    let copy_text = code.clone();
    let body = {
        let code = code.clone();
        let layout = layout.clone();
        move || {
            let shown = if expanded.get() { None } else { collapsible };
            lines_view(&code, runs.get().as_deref(), &layout, shown)
        }
    };
    view! {
        <figure class="code-block" data-slot="code_block" data-lang=language>
            <figcaption>
                <span class="code-label">{label}</span>
                <button type="button" class="button small ghost code-copy" aria-label="Copy code"
                    on:click=move |event| copy_from_button(&event, copy_text.clone(), "Copy")>"Copy"</button>
            </figcaption>
            <pre tabindex="0"><code>{body}</code></pre>
            {collapsible.map(|limit| view! {
                <button type="button" class="button small ghost code-more" aria-expanded=move || expanded.get().to_string()
                    on:click=move |_| expanded.update(|open| *open = !*open)>
                    {move || if expanded.get() { "Collapse".to_owned() } else { format!("Show all {total_lines} lines ({} more)", total_lines - limit) }}
                </button>
            })}
        </figure>
    }
}

/// Asks the server for colours once the code has been on screen for [`SETTLE_MS`].
fn request_highlight(language: String, code: String, runs: RwSignal<Option<Runs>>) {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    Effect::new(move |_| {
        let (language, code) = (language.clone(), code.clone());
        set_timeout(
            move || {
                // Gone already (a streaming block replaced by its next version).
                if runs.try_get_untracked().is_none() {
                    return;
                }
                leptos::task::spawn_local(async move {
                    if let Ok(found) = highlight_code(language, code).await
                        && !found.is_empty()
                    {
                        runs.try_set(Some(found));
                    }
                });
            },
            std::time::Duration::from_millis(SETTLE_MS),
        );
    });
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    let _ = (language, code, runs);
}

/// The code's lines, coloured when `runs` fit it, numbered and marked as laid out.
fn lines_view(
    code: &str,
    runs: Option<&[(u8, u32)]>,
    layout: &CodeLayout,
    shown: Option<usize>,
) -> AnyView {
    let coloured = runs
        .and_then(|runs| pieces(code, runs))
        .unwrap_or_else(|| vec![(TokenClass::Plain, code)]);
    let mut lines: Vec<Vec<(TokenClass, &str)>> = vec![Vec::new()];
    for (class, piece) in coloured {
        for (n, part) in piece.split('\n').enumerate() {
            if n > 0 {
                lines.push(Vec::new());
            }
            if !part.is_empty()
                && let Some(line) = lines.last_mut()
            {
                line.push((class, part));
            }
        }
    }
    if code.ends_with('\n') && lines.len() > 1 {
        lines.pop();
    }
    let limit = shown.unwrap_or(usize::MAX);
    lines
        .into_iter()
        .take(limit)
        .enumerate()
        .map(|(n, parts)| {
            let number = n + 1;
            let class = if layout.marked_lines.contains(&number) {
                "code-line marked"
            } else {
                "code-line"
            };
            let parts = parts
                .into_iter()
                .map(|(class, text)| match class {
                    TokenClass::Plain => text.to_owned().into_any(),
                    class => view! { <span class=class.css_class()>{text.to_owned()}</span> }
                        .into_any(),
                })
                .collect_view();
            view! {
                <span class=class>
                    {layout.line_numbers.then(|| view! { <span class="ln" aria-hidden="true">{number}</span> })}
                    {parts}"\n"
                </span>
            }
        })
        .collect_view()
        .into_any()
}
