//! A thread's title from its first message, until an operator renames it: the message's
//! first line without Markdown decoration, cut at a word near 60 characters. The same text
//! always gives the same title (no model is asked).

/// The longest title taken from a message, in characters (before the ellipsis).
pub const MOST_CHARS: usize = 60;

/// The title for a thread whose first message is `text`; `None` when the message has no
/// words to take (the thread keeps its "Thread N").
pub fn from_first_message(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty())?;
    let line = line.trim_start_matches(|c: char| {
        matches!(c, '#' | '>' | '-' | '*' | '+') || c.is_whitespace()
    });
    let line = strip_list_number(line);
    let words: Vec<String> = line
        .split_whitespace()
        .map(|word| {
            word.chars()
                .filter(|c| !c.is_control() && !matches!(c, '`' | '*'))
                .collect::<String>()
        })
        .filter(|word| !word.is_empty())
        .collect();
    if words.is_empty() {
        return None;
    }
    let mut title = String::new();
    for word in &words {
        let next = title.chars().count() + usize::from(!title.is_empty()) + word.chars().count();
        if next > MOST_CHARS {
            if title.is_empty() {
                title = word.chars().take(MOST_CHARS).collect();
            }
            title.push('…');
            return Some(title);
        }
        if !title.is_empty() {
            title.push(' ');
        }
        title.push_str(word);
    }
    Some(title)
}

/// `3. text` → `text`.
fn strip_list_number(line: &str) -> &str {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    match line[digits..].strip_prefix(['.', ')']) {
        Some(rest) if digits > 0 => rest.trim_start(),
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_line_is_the_title_without_its_decoration() {
        assert_eq!(
            from_first_message("Deploy the docs site").as_deref(),
            Some("Deploy the docs site")
        );
        assert_eq!(
            from_first_message("\n\n## Plan the **release**\nwith details").as_deref(),
            Some("Plan the release")
        );
        assert_eq!(
            from_first_message("> quoted `code` here").as_deref(),
            Some("quoted code here")
        );
        assert_eq!(
            from_first_message("2. second item").as_deref(),
            Some("second item")
        );
        assert_eq!(
            from_first_message("  spaced\tout   words ").as_deref(),
            Some("spaced out words")
        );
    }

    #[test]
    fn a_long_message_is_cut_at_a_word_and_nothing_is_none() {
        let long =
            "Summarise every open incident from last week and draft a status update for the team";
        let title = from_first_message(long).unwrap();
        assert_eq!(
            title,
            "Summarise every open incident from last week and draft a…"
        );
        assert!(title.chars().count() <= MOST_CHARS + 1);
        let word = "x".repeat(200);
        assert_eq!(
            from_first_message(&word).unwrap().chars().count(),
            MOST_CHARS + 1
        );
        assert_eq!(from_first_message("   \n ** \n"), None);
        assert_eq!(from_first_message(""), None);
        assert_eq!(from_first_message(long), from_first_message(long));
    }
}
