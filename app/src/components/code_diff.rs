//! code_diff: a unified diff shown unified or side by side.

use leptos::prelude::*;

#[derive(Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Context,
    Added,
    Removed,
    Hunk,
}

#[derive(Clone)]
struct Line {
    kind: LineKind,
    old: Option<u32>,
    new: Option<u32>,
    text: String,
}

/// Reads a unified diff into numbered lines (file headers dropped).
fn parse(patch: &str) -> Vec<Line> {
    let (mut old, mut new) = (0u32, 0u32);
    let mut lines = Vec::new();
    for raw in patch.lines() {
        if raw.starts_with("--- ") || raw.starts_with("+++ ") {
            continue;
        }
        if let Some(header) = raw.strip_prefix("@@") {
            let numbers: Vec<u32> = header
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|n| n.parse().ok())
                .collect();
            old = numbers.first().copied().unwrap_or(1);
            new = numbers
                .get(2)
                .copied()
                .or(numbers.get(1).copied())
                .unwrap_or(1);
            lines.push(Line {
                kind: LineKind::Hunk,
                old: None,
                new: None,
                text: raw.to_owned(),
            });
            continue;
        }
        let (kind, text) = match raw.chars().next() {
            Some('+') => (LineKind::Added, &raw[1..]),
            Some('-') => (LineKind::Removed, &raw[1..]),
            Some(' ') => (LineKind::Context, &raw[1..]),
            _ => (LineKind::Context, raw),
        };
        let (o, n) = match kind {
            LineKind::Added => {
                new += 1;
                (None, Some(new - 1))
            }
            LineKind::Removed => {
                old += 1;
                (Some(old - 1), None)
            }
            _ => {
                old += 1;
                new += 1;
                (Some(old - 1), Some(new - 1))
            }
        };
        lines.push(Line {
            kind,
            old: o,
            new: n,
            text: text.to_owned(),
        });
    }
    lines
}

fn marker(kind: LineKind) -> &'static str {
    match kind {
        LineKind::Added => "+",
        LineKind::Removed => "−",
        LineKind::Hunk => "",
        LineKind::Context => " ",
    }
}

fn class(kind: LineKind) -> &'static str {
    match kind {
        LineKind::Added => "diff-line added",
        LineKind::Removed => "diff-line removed",
        LineKind::Hunk => "diff-line hunk",
        LineKind::Context => "diff-line",
    }
}

fn number(n: Option<u32>) -> String {
    n.map(|n| n.to_string()).unwrap_or_default()
}

#[component]
pub fn CodeDiff(patch: String, filename: Option<String>) -> impl IntoView {
    let lines = parse(&patch);
    let split = RwSignal::new(false);
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
                <div class="segmented" role="group" aria-label="Diff layout">
                    <button type="button" class="button small" aria-pressed=move || (!split.get()).to_string()
                        on:click=move |_| split.set(false)>"Unified"</button>
                    <button type="button" class="button small" aria-pressed=move || split.get().to_string()
                        on:click=move |_| split.set(true)>"Split"</button>
                </div>
            </figcaption>
            <div class="diff-scroll">
                <table class="diff" hidden=move || split.get()>
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
