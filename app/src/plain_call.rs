//! A tool call said in words, as an approval asks it: `delete_file {"path": "/tmp/x"}`
//! becomes "Delete file “/tmp/x”?". Pure, so every adapter and the replay tool agree.

use serde_json::Value;

/// The longest argument quoted in a question, in characters.
const QUOTED_MOST: usize = 60;

/// Arguments that usually say what a call acts on, in the order they are looked for.
const NAMING_ARGUMENTS: [&str; 13] = [
    "path", "file", "filename", "title", "name", "page", "query", "question", "url", "command",
    "text", "id", "to",
];

/// The call as a yes/no question: its name in words, what it acts on, and where.
pub fn question(name: &str, arguments: &Value, server: Option<&str>) -> String {
    let mut said = words(name);
    if let Some(object) = object_of(arguments) {
        said.push_str(&format!(" “{object}”"));
    }
    if let Some(server) = server.filter(|server| !server.trim().is_empty()) {
        said.push_str(&format!(" on {server}"));
    }
    said.push('?');
    said
}

/// `delete_file`, `deleteFile`, `delete-file` → "Delete file".
fn words(name: &str) -> String {
    let mut spaced = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if matches!(c, '_' | '-' | '.' | '/' | ':' | ' ') {
            if !spaced.ends_with(' ') && !spaced.is_empty() {
                spaced.push(' ');
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            spaced.push(' ');
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        spaced.extend(c.to_lowercase());
    }
    let spaced = spaced.trim();
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "Run a tool".to_owned(),
    }
}

/// What the call acts on: a naming argument's text, else its only text argument; its
/// first line, cut to [`QUOTED_MOST`] characters.
fn object_of(arguments: &Value) -> Option<String> {
    let text = match arguments {
        Value::String(text) => Some(text.as_str()),
        Value::Object(fields) => NAMING_ARGUMENTS
            .iter()
            .find_map(|key| fields.get(*key).and_then(Value::as_str))
            .or_else(|| {
                let mut texts = fields.values().filter_map(Value::as_str);
                match (texts.next(), texts.next()) {
                    (Some(only), None) => Some(only),
                    _ => None,
                }
            }),
        _ => None,
    }?;
    let line = text.lines().next().unwrap_or_default().trim();
    if line.is_empty() {
        return None;
    }
    let mut cut: String = line.chars().take(QUOTED_MOST).collect();
    if cut.len() < line.len() {
        cut.push('…');
    }
    Some(cut)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_reads_as_its_name_in_words_and_what_it_acts_on() {
        assert_eq!(
            question(
                "delete_file",
                &json!({"path": "/tmp/old.txt", "force": true}),
                None
            ),
            "Delete file “/tmp/old.txt”?"
        );
        assert_eq!(
            question("add_task", &json!({"title": "unbracketed"}), None),
            "Add task “unbracketed”?"
        );
        assert_eq!(
            question(
                "read_wiki",
                &json!({"page": "Release checklist"}),
                Some("wiki")
            ),
            "Read wiki “Release checklist” on wiki?"
        );
        assert_eq!(question("sendEmail", &json!({}), None), "Send email?");
        assert_eq!(question("", &Value::Null, None), "Run a tool?");
    }

    #[test]
    fn only_one_short_line_of_an_argument_is_quoted() {
        let long = "x".repeat(100);
        let said = question(
            "write_note",
            &json!({"body": format!("{long}\nmore")}),
            None,
        );
        assert_eq!(said, format!("Write note “{}…”?", "x".repeat(60)));
        // Two texts and no naming one: nothing is guessed.
        assert_eq!(
            question("merge", &json!({"left": "a", "right": "b"}), None),
            "Merge?"
        );
    }
}
