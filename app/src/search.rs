//! Full-text search's words and snippets: what both stores' indexes are asked for, and the
//! stretch of a body shown around a match. Pure, so the fuzz targets reach it too.

/// The most words one search looks for.
pub const TERMS_MOST: usize = 12;

/// The words of a text as both databases' indexes take them: runs of letters and
/// digits, lower case. Whatever else is a separator, so no input is query syntax to
/// either database.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
}

/// The words of a search: its [`words`], each once, each at most 64 characters, at most
/// [`TERMS_MOST`] of them.
pub fn search_terms(query: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for word in words(query) {
        let word: String = word.chars().take(64).collect();
        if !terms.contains(&word) {
            terms.push(word);
        }
        if terms.len() == TERMS_MOST {
            break;
        }
    }
    terms
}

/// About this many characters of a body around the first word searched for.
pub const SNIPPET_CHARS: usize = 180;

/// A stretch of `body` around the first place any of `terms` occurs, on one line; the
/// body's start when none does.
pub fn snippet(body: &str, terms: &[String]) -> String {
    let found = first_match(body, terms).unwrap_or(0);
    let start = body[..found]
        .char_indices()
        .rev()
        .nth(SNIPPET_CHARS / 3)
        .map_or(0, |(index, _)| index);
    let mut text: String = body[start..]
        .chars()
        .take(SNIPPET_CHARS)
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if start > 0 {
        text.insert(0, '…');
    }
    if body[start..].chars().count() > SNIPPET_CHARS {
        text.push('…');
    }
    text
}

/// The byte offset in `body` of the character where the earliest of `terms` begins,
/// compared in lower case. Lower-casing changes byte lengths (`İ` becomes three bytes,
/// `K` one), so the lower-case copy carries, for each of its characters, the offset of
/// the body's character it came from: a position found in the copy is always a
/// character boundary of the body.
fn first_match(body: &str, terms: &[String]) -> Option<usize> {
    let mut lower = String::with_capacity(body.len());
    let mut origin: Vec<usize> = Vec::with_capacity(body.len());
    for (offset, character) in body.char_indices() {
        for folded in character.to_lowercase() {
            for _ in 0..folded.len_utf8() {
                origin.push(offset);
            }
            lower.push(folded);
        }
    }
    terms
        .iter()
        .filter(|term| !term.is_empty())
        .filter_map(|term| lower.find(term.as_str()))
        .min()
        .and_then(|at| origin.get(at).copied())
}

/// Whether `text` holds every word of `query` (anywhere in a word, any case): how the
/// command palette narrows its list as the operator types. An empty query holds.
pub fn holds_every(text: &str, query: &str) -> bool {
    let text = text.to_lowercase();
    words(query).all(|word| text.contains(&word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_words_carry_no_query_syntax() {
        assert_eq!(
            search_terms(r#"deploy" OR title:x* (NEAR) -- 'ü'"#),
            vec!["deploy", "or", "title", "x", "near", "ü"]
        );
        assert!(search_terms(r#""*:()-"#).is_empty());
        assert_eq!(search_terms("a a A").len(), 1);
        assert_eq!(search_terms(&"w ".repeat(40)).len(), 1);
        let many: String = (0..40).map(|n| format!("w{n} ")).collect();
        assert_eq!(search_terms(&many).len(), TERMS_MOST);
    }

    #[test]
    fn a_snippet_shows_where_the_word_was_found() {
        let body = format!(
            "{}The deploy key rotates monthly.\n\nMore.",
            "filler ".repeat(100)
        );
        let text = snippet(&body, &["deploy".into()]);
        assert!(text.starts_with('…'), "{text}");
        assert!(
            text.contains("The deploy key rotates monthly. More."),
            "{text}"
        );
        assert_eq!(snippet("short body", &["zzz".into()]), "short body");
    }

    #[test]
    fn a_body_whose_lower_case_changes_length_finds_its_word_without_panicking() {
        // `İ` grows by a byte when lower-cased and `€` stays, so the copy's offsets
        // drift from the body's: the word must still be found where it is.
        let body = format!("{}İ€ deploy €İ tail", "İ€ ".repeat(120));
        let text = snippet(&body, &["deploy".into()]);
        assert!(text.contains("deploy"), "{text}");
        assert!(text.starts_with('…'), "{text}");
        // The Kelvin sign shrinks from three bytes to one.
        let body = format!("{}K key", "K".repeat(300));
        assert!(snippet(&body, &["key".into()]).contains("key"));
        // A term that only matches inside a folded character's expansion.
        let _ = snippet("İİİ", &["\u{307}".into()]);
    }

    #[test]
    fn the_palette_narrows_to_titles_holding_every_word() {
        assert!(holds_every("Draft the offsite agenda", ""));
        assert!(holds_every("Draft the offsite agenda", "off AGE"));
        assert!(!holds_every("Draft the offsite agenda", "offsite venue"));
        assert!(holds_every("Notes", "no"));
    }
}
