//! A message's body: its text laid out in blocks that stay put as it streams (Markdown
//! for agents, plain for the operator), and Copy under it once it is finished.

use leptos::prelude::*;

use crate::components::copy::copy_from_button;
use crate::components::markdown::MarkdownBlock;
use crate::markdown::blocks::{Block, block_text, blocks};
use crate::markdown::footnote_labels;
use crate::projection::{ItemBody, RunView};

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

fn text_of(view: &RunView, index: usize) -> (&str, bool) {
    match view.items.get(index).map(|item| &item.body) {
        Some(ItemBody::Message {
            text, streaming, ..
        }) => (text, *streaming),
        _ => ("", false),
    }
}

/// A message's text, updated in place as it streams: an agent's as Markdown, cut into
/// blocks so a delta re-renders only the last one; the operator's as written.
#[component]
pub fn MessageText(view: RwSignal<RunView>, index: usize, markdown: bool) -> impl IntoView {
    if !markdown {
        return plain_text(view, index).into_any();
    }
    let scope = view.with_untracked(|view| match view.items.get(index).map(|item| &item.body) {
        Some(ItemBody::Message { message_id, .. }) => crate::components::id_fragment(message_id),
        _ => String::new(),
    });
    // While a message streams its text only grows, so the settled blocks carry over;
    // a finished message (whose text may have been replaced whole) is cut afresh.
    let cut = Memo::new(move |previous: Option<&Vec<Block>>| {
        view.with(|view| {
            let (text, streaming) = text_of(view, index);
            let previous = previous
                .filter(|_| streaming)
                .map_or(&[][..], Vec::as_slice);
            blocks(text, previous)
        })
    });
    // Footnotes defined anywhere in the message, for the blocks that refer to one.
    let labels = Memo::new(move |_| view.with(|view| footnote_labels(text_of(view, index).0)));
    view! {
        <div class="message-text markdown">
            <For each=move || cut.get() key=|block| *block let:block>
                <MarkdownBlock
                    text=view.with_untracked(|view| block_text(text_of(view, index).0, &block).into_owned())
                    scope=scope.clone()
                    labels=labels
                />
            </For>
        </div>
    }
    .into_any()
}

/// The operator's own words, in blocks of plain text.
fn plain_text(view: RwSignal<RunView>, index: usize) -> impl IntoView {
    let cut =
        Memo::new(move |_| view.with(|view| text_blocks(text_of(view, index).0, TEXT_BLOCK_BYTES)));
    view! {
        <div class="message-text">
            <For each=move || cut.get() key=|block| *block let:block>
                <div class="text-block">
                    {view.with_untracked(|view| text_of(view, index).0.get(block.0..block.1).unwrap_or_default().to_owned())}
                </div>
            </For>
        </div>
    }
}

/// Under a finished message: Copy, its text as written. One plain button per message and
/// no reactive state (the feedback is written into the button itself), since a long
/// thread hydrates dozens of them.
#[component]
pub fn MessageCopy(view: RwSignal<RunView>, index: usize) -> impl IntoView {
    let copy = move |event: leptos::ev::MouseEvent| {
        let text = view.with_untracked(|view| match view.items.get(index).map(|item| &item.body) {
            Some(ItemBody::Message { text, .. }) => text.clone(),
            _ => String::new(),
        });
        copy_from_button(&event, text, "Copy");
    };
    view! {
        <button type="button" class="button small ghost message-copy" on:click=copy>"Copy"</button>
    }
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
