//! code_diff: a unified diff shown unified or side by side.

use leptos::prelude::*;

use crate::protocol::diff::{DiffLineKind as LineKind, diff_lines as parse};

fn marker(kind: LineKind) -> &'static str {
    match kind {
        LineKind::Added => "+",
        LineKind::Removed => "−",
        LineKind::Hunk | LineKind::Note => "",
        LineKind::Context => " ",
    }
}

fn class(kind: LineKind) -> &'static str {
    match kind {
        LineKind::Added => "diff-line added",
        LineKind::Removed => "diff-line removed",
        LineKind::Hunk => "diff-line hunk",
        LineKind::Note => "diff-line note",
        LineKind::Context => "diff-line",
    }
}

fn number(n: Option<u32>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}

#[component]
pub fn CodeDiff(
    patch: String,
    filename: Option<String>,
    /// Start side by side.
    #[prop(optional)]
    split: bool,
) -> impl IntoView {
    let lines = parse(&patch);
    let split = RwSignal::new(split);
    let added = lines.iter().filter(|l| l.kind == LineKind::Added).count();
    let removed = lines.iter().filter(|l| l.kind == LineKind::Removed).count();
    let unified_rows = lines
        .iter()
        .map(|line| {
            view! {
                <tr class=class(line.kind)>
                    <td class="ln">{number(line.old)}</td>
                    <td class="ln">{number(line.new)}</td>
                    <td class="mark" aria-hidden="true">{marker(line.kind)}</td>
                    <td class="code"><code>{line.text.clone()}</code></td>
                </tr>
            }
        })
        .collect_view();
    let split_rows = lines
        .iter()
        .map(|line| {
            let (left, right) = match line.kind {
                LineKind::Added => (None, Some(line.clone())),
                LineKind::Removed => (Some(line.clone()), None),
                _ => (Some(line.clone()), Some(line.clone())),
            };
            view! {
                <tr class=class(line.kind)>
                    <td class="ln">{left.as_ref().map(|l| number(l.old)).unwrap_or_default()}</td>
                    <td class="code old"><code>{left.map(|l| l.text).unwrap_or_default()}</code></td>
                    <td class="ln">{right.as_ref().map(|l| number(l.new)).unwrap_or_default()}</td>
                    <td class="code new"><code>{right.map(|l| l.text).unwrap_or_default()}</code></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <figure class="code-diff" data-slot="code_diff">
            <figcaption class="diff-head">
                <span class="filename">{filename.unwrap_or_else(|| "diff".to_owned())}</span>
                <span class="diff-stat">{format!("+{added} −{removed}")}</span>
                <div class="segmented diff-layout" role="group" aria-label="Diff layout">
                    <button type="button" class="button small" aria-pressed=move || (!split.get()).to_string()
                        on:click=move |_| split.set(false)>"Unified"</button>
                    <button type="button" class="button small" aria-pressed=move || split.get().to_string()
                        on:click=move |_| split.set(true)>"Split"</button>
                </div>
            </figcaption>
            <div class="diff-scroll">
                <table class="diff unified" hidden=move || split.get()>
                    <tbody>{unified_rows}</tbody>
                </table>
                <table class="diff split" hidden=move || !split.get()>
                    <tbody>{split_rows}</tbody>
                </table>
            </div>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_number_old_and_new_lines_apart() {
        let lines = parse("--- a/x\n+++ b/x\n@@ -3,3 +3,3 @@\n keep\n-old\n+new\n tail\n");
        let numbered: Vec<(Option<u32>, Option<u32>, &str)> = lines
            .iter()
            .skip(1)
            .map(|l| (l.old, l.new, l.text.as_str()))
            .collect();
        assert_eq!(
            numbered,
            [
                (Some(3), Some(3), "keep"),
                (Some(4), None, "old"),
                (None, Some(4), "new"),
                (Some(5), Some(5), "tail")
            ]
        );
    }
}
