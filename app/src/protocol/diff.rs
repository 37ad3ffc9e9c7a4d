//! Unified diffs as agents send them in edit previews: whole `git diff` output, one file's
//! hunks, or bare `+`/`-` lines with no header at all — read into numbered lines.
//!
//! Hunk bodies are read by the counts their header announces, so a removed line that reads
//! `-- x` or an added `++ y` is content, not a file header. Whatever does not fit (no header,
//! a miscounted hunk) is still shown, read by its first character, never dropped. The
//! maintained diff parsers on crates.io require file headers and refuse miscounted hunks,
//! which previews often have; hence this reader.

/// What a line of a diff is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffLineKind {
    Context,
    Added,
    Removed,
    /// An `@@ … @@` line.
    Hunk,
    /// `\ No newline at end of file` and the like: about the line before it.
    Note,
}

/// One displayed line with its number in the old and the new file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffLine {
    pub kind: DiffLineKind,
    pub old: Option<u32>,
    pub new: Option<u32>,
    /// The line without its one-character marker (the whole line for hunks and notes).
    pub text: String,
}

/// `@@ -old_start[,old_count] +new_start[,new_count] @@ section`; an absent count is 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HunkHeader {
    pub old_start: u32,
    pub old_count: u32,
    pub new_start: u32,
    pub new_count: u32,
    /// The text after the closing `@@` (often the enclosing function), trimmed.
    pub section: String,
}

/// Reads a hunk header; `None` when the line is not one.
pub fn parse_hunk_header(line: &str) -> Option<HunkHeader> {
    let rest = line.strip_prefix("@@ ")?;
    let (ranges, section) = rest.split_once(" @@")?;
    let (old, new) = ranges.trim().split_once(' ')?;
    let (old_start, old_count) = range(old.strip_prefix('-')?)?;
    let (new_start, new_count) = range(new.trim().strip_prefix('+')?)?;
    Some(HunkHeader {
        old_start,
        old_count,
        new_start,
        new_count,
        section: section.trim().to_owned(),
    })
}

fn range(text: &str) -> Option<(u32, u32)> {
    let number = |digits: &str| {
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse::<u32>().ok())
            .flatten()
    };
    match text.split_once(',') {
        Some((start, count)) => Some((number(start)?, number(count)?)),
        None => Some((number(text)?, 1)),
    }
}

/// File headers outside a hunk: shown elsewhere (the preview names its file).
fn is_file_header(line: &str) -> bool {
    const HEADERS: [&str; 12] = [
        "diff ",
        "index ",
        "--- ",
        "+++ ",
        "new file mode",
        "deleted file mode",
        "old mode",
        "new mode",
        "similarity index",
        "rename from",
        "rename to",
        "Binary files",
    ];
    HEADERS.iter().any(|header| line.starts_with(header))
}

/// Lines still owed by the current hunk's header.
#[derive(Default)]
struct Owed {
    old: u32,
    new: u32,
}

/// Reads a unified diff into numbered lines, file headers left out.
pub fn diff_lines(patch: &str) -> Vec<DiffLine> {
    let (mut old, mut new) = (1u32, 1u32);
    let mut owed = Owed::default();
    let mut lines = Vec::new();
    for raw in patch.lines() {
        let in_hunk = owed.old > 0 || owed.new > 0;
        let marker = raw.chars().next();
        let counted = in_hunk
            && match marker {
                Some('+') => owed.new > 0,
                Some('-') => owed.old > 0,
                Some(' ') | None => owed.old > 0 && owed.new > 0,
                Some('\\') => true,
                _ => false,
            };
        if !counted {
            owed = Owed::default();
            if let Some(header) = parse_hunk_header(raw) {
                old = header.old_start;
                new = header.new_start;
                owed = Owed {
                    old: header.old_count,
                    new: header.new_count,
                };
                lines.push(DiffLine {
                    kind: DiffLineKind::Hunk,
                    old: None,
                    new: None,
                    text: raw.to_owned(),
                });
                continue;
            }
            if is_file_header(raw) {
                continue;
            }
        }
        let (kind, text) = match marker {
            Some('+') => (DiffLineKind::Added, &raw[1..]),
            Some('-') => (DiffLineKind::Removed, &raw[1..]),
            Some(' ') => (DiffLineKind::Context, &raw[1..]),
            Some('\\') => (DiffLineKind::Note, raw),
            Some('@') if raw.starts_with("@@") => (DiffLineKind::Hunk, raw),
            _ => (DiffLineKind::Context, raw),
        };
        let (old_number, new_number) = match kind {
            DiffLineKind::Added => {
                owed.new = owed.new.saturating_sub(1);
                new = new.saturating_add(1);
                (None, Some(new - 1))
            }
            DiffLineKind::Removed => {
                owed.old = owed.old.saturating_sub(1);
                old = old.saturating_add(1);
                (Some(old - 1), None)
            }
            DiffLineKind::Context => {
                owed.old = owed.old.saturating_sub(1);
                owed.new = owed.new.saturating_sub(1);
                old = old.saturating_add(1);
                new = new.saturating_add(1);
                (Some(old - 1), Some(new - 1))
            }
            DiffLineKind::Hunk | DiffLineKind::Note => (None, None),
        };
        lines.push(DiffLine {
            kind,
            old: old_number,
            new: new_number,
            text: text.to_owned(),
        });
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(line: &str) -> Option<(u32, u32, u32, u32)> {
        parse_hunk_header(line).map(|h| (h.old_start, h.old_count, h.new_start, h.new_count))
    }

    #[test]
    fn every_hunk_header_form_reads_its_starts_and_counts() {
        assert_eq!(header("@@ -5 +7,2 @@"), Some((5, 1, 7, 2)));
        assert_eq!(header("@@ -5,3 +7 @@"), Some((5, 3, 7, 1)));
        assert_eq!(header("@@ -5 +7 @@"), Some((5, 1, 7, 1)));
        assert_eq!(header("@@ -5,3 +7,4 @@"), Some((5, 3, 7, 4)));
        assert_eq!(header("@@ -0,0 +1,3 @@"), Some((0, 0, 1, 3)));
        assert_eq!(header("@@ -1,2 +0,0 @@"), Some((1, 2, 0, 0)));
        let with_section = parse_hunk_header("@@ -10,6 +12,8 @@ fn main() {").unwrap();
        assert_eq!(with_section.section, "fn main() {");
        assert_eq!((with_section.old_start, with_section.new_count), (10, 8));
    }

    #[test]
    fn a_line_that_only_looks_like_a_hunk_header_is_not_one() {
        for line in [
            "@@ -5 +7,2",
            "@@ 5 +7 @@",
            "@@ -5 7 @@",
            "@@ -a +7 @@",
            "@@ -5, +7 @@",
            "@@ -5,3,1 +7 @@",
            "@@ -99999999999 +1 @@",
            "@@@ -1,2 -1,2 +1,3 @@@",
            "@@",
        ] {
            assert_eq!(parse_hunk_header(line), None, "{line}");
        }
    }

    #[test]
    fn a_header_without_a_count_numbers_the_new_side_from_its_start() {
        let lines = diff_lines("@@ -5 +7,2 @@\n-old\n+new\n+more\n");
        let numbers: Vec<_> = lines.iter().map(|l| (l.kind, l.old, l.new)).collect();
        assert_eq!(
            numbers,
            [
                (DiffLineKind::Hunk, None, None),
                (DiffLineKind::Removed, Some(5), None),
                (DiffLineKind::Added, None, Some(7)),
                (DiffLineKind::Added, None, Some(8)),
            ]
        );
    }

    #[test]
    fn hunk_bodies_are_read_by_their_counts_so_dashed_content_stays_content() {
        let patch =
            "--- a/notes.md\n+++ b/notes.md\n@@ -1,2 +1,2 @@\n--- a rule\n+++ a plus\n same\n";
        let lines = diff_lines(patch);
        let kinds: Vec<_> = lines.iter().map(|l| (l.kind, l.text.as_str())).collect();
        assert_eq!(
            kinds,
            [
                (DiffLineKind::Hunk, "@@ -1,2 +1,2 @@"),
                (DiffLineKind::Removed, "-- a rule"),
                (DiffLineKind::Added, "++ a plus"),
                (DiffLineKind::Context, "same"),
            ]
        );
    }

    #[test]
    fn git_headers_are_left_out_and_each_hunk_restarts_the_numbers() {
        let patch = "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n@@ -40,2 +41,2 @@ section\n c\n-d\n+e\n";
        let lines = diff_lines(patch);
        let shown: Vec<_> = lines.iter().map(|l| (l.kind, l.old, l.new)).collect();
        assert_eq!(
            shown,
            [
                (DiffLineKind::Hunk, None, None),
                (DiffLineKind::Removed, Some(1), None),
                (DiffLineKind::Added, None, Some(1)),
                (DiffLineKind::Note, None, None),
                (DiffLineKind::Hunk, None, None),
                (DiffLineKind::Context, Some(40), Some(41)),
                (DiffLineKind::Removed, Some(41), None),
                (DiffLineKind::Added, None, Some(42)),
            ]
        );
    }

    #[test]
    fn lines_with_no_header_or_past_a_miscounted_hunk_are_still_shown() {
        let bare = diff_lines("-old\n+new\n same");
        assert_eq!(bare.len(), 3);
        assert_eq!((bare[2].old, bare[2].new), (Some(2), Some(2)));
        let miscounted = diff_lines("@@ -1 +1 @@\n-a\n+b\n+c\n");
        assert_eq!(miscounted.len(), 4);
        assert_eq!(miscounted[3].new, Some(2));
    }
}

/// Longest files compared line by line; longer ones show as wholly replaced.
const MOST_LINES_COMPARED: usize = 4000;

/// A unified diff (one hunk, three lines of context around each change) from two whole
/// texts, for agents that send old and new code instead of a patch.
pub fn unified_between(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut ops: Vec<(char, &str)> = Vec::with_capacity(a.len() + b.len());
    if a.len() * b.len() <= MOST_LINES_COMPARED * MOST_LINES_COMPARED / 4 {
        // Longest common subsequence, walked from the front.
        let mut table = vec![0u32; (a.len() + 1) * (b.len() + 1)];
        let width = b.len() + 1;
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                table[i * width + j] = if a[i] == b[j] {
                    table[(i + 1) * width + j + 1] + 1
                } else {
                    table[(i + 1) * width + j].max(table[i * width + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i] == b[j] {
                ops.push((' ', a[i]));
                i += 1;
                j += 1;
            } else if table[(i + 1) * width + j] >= table[i * width + j + 1] {
                ops.push(('-', a[i]));
                i += 1;
            } else {
                ops.push(('+', b[j]));
                j += 1;
            }
        }
        ops.extend(a[i..].iter().map(|line| ('-', *line)));
        ops.extend(b[j..].iter().map(|line| ('+', *line)));
    } else {
        ops.extend(a.iter().map(|line| ('-', *line)));
        ops.extend(b.iter().map(|line| ('+', *line)));
    }
    let mut out = format!("--- a\n+++ b\n@@ -1,{} +1,{} @@\n", a.len(), b.len());
    for (mark, line) in ops {
        out.push(mark);
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod between_tests {
    use super::*;

    #[test]
    fn two_texts_become_a_patch_of_their_changed_lines() {
        let patch = unified_between("a\nb\nc\n", "a\nB\nc\nd\n");
        assert_eq!(patch, "--- a\n+++ b\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n");
        let lines = diff_lines(&patch);
        assert_eq!(
            lines
                .iter()
                .filter(|l| l.kind == DiffLineKind::Added)
                .count(),
            2
        );
    }
}
