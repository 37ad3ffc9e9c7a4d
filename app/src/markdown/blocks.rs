//! Where a streaming Markdown text may be cut into blocks that render on their own, so a
//! new delta re-renders only the last block and never the settled ones before it.
//!
//! A cut comes before a line that starts in the first column after a blank line, outside
//! a fenced code block. Everything that decides a cut lies before it (complete lines and
//! the first character of the next), so appending text never moves or removes a cut: a
//! block, once followed by another, is settled. Constructs that may span such a cut
//! (a loose list, a link reference defined further down) render as their parts would
//! alone — an ordered list keeps its numbering through its start number.

/// A fenced code block's opening: its character, length and info string (as a range).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fence {
    marker: u8,
    len: usize,
    info: (usize, usize),
}

/// A block: its byte range in the text, and the fence it continues when an oversized code
/// block was cut inside.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    pub start: usize,
    pub end: usize,
    pub continues: Option<Fence>,
}

/// Longest block kept whole: a longer one (an endless paragraph or code block) is cut at
/// the first line end past it, so a delta re-renders about this much at most.
pub const MAX_BLOCK_BYTES: usize = 16 * 1024;

/// The blocks of `text`. `previous` is what an earlier call returned for a prefix of
/// `text`; its settled blocks are kept and only its last one is scanned again.
pub fn blocks(text: &str, previous: &[Block]) -> Vec<Block> {
    let (mut out, mut fence, mut block_start) = match previous.split_last() {
        Some((last, settled)) if last.start <= text.len() => {
            (settled.to_vec(), last.continues, last.start)
        }
        _ => (Vec::new(), None, 0),
    };
    let mut continues = fence;
    let bytes = text.as_bytes();
    let mut at = block_start;
    while let Some(newline) = bytes.get(at..).and_then(|rest| memchr::memchr(b'\n', rest)) {
        let next = at + newline + 1;
        let blank = read_line(text, at, next, &mut fence);
        let starts_block = bytes.get(next).is_some_and(|b| !b.is_ascii_whitespace());
        let settled = blank && fence.is_none() && starts_block;
        let too_long = next - block_start >= MAX_BLOCK_BYTES && next < text.len();
        if settled || too_long {
            out.push(Block {
                start: block_start,
                end: next,
                continues,
            });
            block_start = next;
            continues = fence;
        }
        at = next;
    }
    if block_start < text.len() || out.is_empty() {
        out.push(Block {
            start: block_start,
            end: text.len(),
            continues,
        });
    }
    out
}

/// Reads the complete line `text[start..end]`, opening or closing a fence; true when the
/// line is blank.
fn read_line(text: &str, start: usize, end: usize, fence: &mut Option<Fence>) -> bool {
    let line = text[start..end].trim_end_matches(['\n', '\r']);
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    if indent <= 3
        && let Some(marker @ (b'`' | b'~')) = rest.bytes().next()
    {
        let run = rest.bytes().take_while(|b| *b == marker).count();
        let after = &rest[run..];
        match fence {
            Some(open) if open.marker == marker && run >= open.len && after.trim().is_empty() => {
                *fence = None;
                return false;
            }
            None if run >= 3 && !(marker == b'`' && after.contains('`')) => {
                let info_start = start + indent + run;
                *fence = Some(Fence {
                    marker,
                    len: run,
                    info: (info_start, info_start + after.len()),
                });
                return false;
            }
            _ => {}
        }
    }
    line.trim().is_empty()
}

/// The text a block renders: its own, behind its fence's opening line when it continues
/// an oversized code block (so the continuation still shows as code, in its language).
pub fn block_text<'a>(text: &'a str, block: &Block) -> std::borrow::Cow<'a, str> {
    let own = text.get(block.start..block.end).unwrap_or_default();
    match block.continues {
        Some(fence) => {
            let marker = char::from(fence.marker).to_string().repeat(fence.len);
            let info = text.get(fence.info.0..fence.info.1).unwrap_or_default();
            std::borrow::Cow::Owned(format!("{marker}{info}\n{own}"))
        }
        None => std::borrow::Cow::Borrowed(own),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<&str> {
        blocks(text, &[])
            .iter()
            .map(|b| &text[b.start..b.end])
            .collect()
    }

    #[test]
    fn paragraphs_headings_and_lists_are_blocks_of_their_own() {
        assert_eq!(
            texts("# Title\n\nOne para\nstill.\n\n- a\n- b\n\nEnd"),
            ["# Title\n\n", "One para\nstill.\n\n", "- a\n- b\n\n", "End"]
        );
    }

    #[test]
    fn a_blank_line_inside_a_code_fence_is_no_cut() {
        assert_eq!(
            texts("```rust\nfn a() {}\n\nfn b() {}\n```\n\nAfter"),
            ["```rust\nfn a() {}\n\nfn b() {}\n```\n\n", "After"]
        );
        assert_eq!(
            texts("~~~\n\n~~~x\nstill code\n"),
            ["~~~\n\n~~~x\nstill code\n"]
        );
    }

    #[test]
    fn an_indented_continuation_stays_with_its_item() {
        assert_eq!(
            texts("- item\n\n  more of it\n\nNext"),
            ["- item\n\n  more of it\n\n", "Next"]
        );
    }

    #[test]
    fn appending_never_moves_a_settled_cut() {
        let full = "Intro text.\n\n```py\nx = 1\n\ny = 2\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n1. one\n\n2. two\n\nDone.";
        let mut previous: Vec<Block> = Vec::new();
        for end in (0..=full.len()).filter(|end| full.is_char_boundary(*end)) {
            let now = blocks(&full[..end], &previous);
            assert_eq!(
                now,
                blocks(&full[..end], &[]),
                "resumed scan differs at {end}"
            );
            let settled = previous.len().saturating_sub(1);
            assert_eq!(
                now[..settled],
                previous[..settled],
                "a settled block moved at {end}"
            );
            previous = now;
        }
        assert_eq!(previous.len(), 6);
    }

    #[test]
    fn an_endless_code_block_is_cut_at_line_ends_and_stays_code() {
        let line = "let x = 1; // filler filler filler\n";
        let text = format!("```rust\n{}", line.repeat(2000));
        let cut = blocks(&text, &[]);
        assert!(cut.len() > 3, "{}", cut.len());
        assert!(
            cut.iter()
                .all(|b| b.end - b.start <= MAX_BLOCK_BYTES + line.len())
        );
        let second = block_text(&text, &cut[1]);
        assert!(second.starts_with("```rust\nlet x"), "{}", &second[..40]);
    }
}
