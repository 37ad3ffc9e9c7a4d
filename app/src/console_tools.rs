//! Tools the console runs itself when an agent calls them (AG-UI frontend tools): which
//! ones it implements, their arguments checked, and what it reports back to the agent.

use serde_json::{Value, json};

/// A call to a tool the console implements, its arguments already checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConsoleTool {
    /// Sets the console's main area background.
    ChangeBackground { color: String },
}

impl ConsoleTool {
    /// The console's own tool for this call: `None` when the console does not implement
    /// `name` (the operator then gives the result), `Err` when its arguments are wrong.
    pub fn from_call(name: &str, arguments: &str) -> Option<Result<Self, String>> {
        match name {
            "change_background" => Some(change_background(arguments)),
            _ => None,
        }
    }

    /// What running it does, in words.
    pub fn describe(&self) -> String {
        match self {
            ConsoleTool::ChangeBackground { color } => {
                format!("Set the console background to {color}")
            }
        }
    }

    /// The result reported when it ran.
    pub fn result(&self) -> Value {
        match self {
            ConsoleTool::ChangeBackground { color } => json!({ "applied": color }),
        }
    }
}

/// The result reported when a call could not run.
pub fn failure(problem: &str) -> Value {
    json!({ "error": problem })
}

fn change_background(arguments: &str) -> Result<ConsoleTool, String> {
    let arguments: Value = crate::codec::from_json(arguments)
        .map_err(|error| format!("change_background: arguments are not JSON: {error}"))?;
    let color = arguments
        .get("color")
        .and_then(Value::as_str)
        .ok_or("change_background: `color` (a CSS colour) is missing")?
        .trim();
    if !looks_like_css_colour(color) {
        return Err(format!("change_background: {color:?} is not a CSS colour"));
    }
    Ok(ConsoleTool::ChangeBackground {
        color: color.to_owned(),
    })
}

/// A hex colour, a colour name, or a colour function of plain numbers
/// (`rgb(11 114 133 / 50%)`); nothing that could reach past one CSS value.
fn looks_like_css_colour(text: &str) -> bool {
    if text.is_empty() || text.len() > 64 {
        return false;
    }
    if let Some(hex) = text.strip_prefix('#') {
        return matches!(hex.len(), 3 | 4 | 6 | 8) && hex.chars().all(|c| c.is_ascii_hexdigit());
    }
    if text.chars().all(|c| c.is_ascii_alphabetic()) {
        return true;
    }
    let Some((function, rest)) = text.split_once('(') else {
        return false;
    };
    matches!(
        function,
        "rgb" | "rgba" | "hsl" | "hsla" | "hwb" | "lab" | "lch" | "oklab" | "oklch"
    ) && rest.ends_with(')')
        && rest[..rest.len() - 1]
            .chars()
            .all(|c| c.is_ascii_digit() || " ,./%-deg".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_tool_with_good_arguments_runs_and_reports_what_it_applied() {
        let tool = ConsoleTool::from_call("change_background", r##"{"color": "#0b7285"}"##)
            .unwrap()
            .unwrap();
        assert_eq!(tool.describe(), "Set the console background to #0b7285");
        assert_eq!(tool.result(), json!({"applied": "#0b7285"}));
        for color in [
            "teal",
            "#abc",
            "rgb(11 114 133 / 50%)",
            "hsl(190deg, 80%, 25%)",
        ] {
            let arguments = json!({ "color": color }).to_string();
            assert!(
                matches!(
                    ConsoleTool::from_call("change_background", &arguments),
                    Some(Ok(_))
                ),
                "{color}"
            );
        }
    }

    #[test]
    fn bad_arguments_are_a_clear_error_and_an_unknown_tool_is_left_to_the_operator() {
        for (arguments, expected) in [
            ("not json", "arguments are not JSON"),
            ("{}", "`color` (a CSS colour) is missing"),
            (
                r#"{"color": "red; background: url(x)"}"#,
                "is not a CSS colour",
            ),
            (r#"{"color": "rgb(1,2,3)) url(x"}"#, "is not a CSS colour"),
            (r##"{"color": "#12345"}"##, "is not a CSS colour"),
        ] {
            let error = ConsoleTool::from_call("change_background", arguments)
                .unwrap()
                .unwrap_err();
            assert!(error.contains(expected), "{arguments}: {error}");
        }
        assert!(ConsoleTool::from_call("add_task", "{}").is_none());
    }
}
