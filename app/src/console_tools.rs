//! Tools the console runs itself when an agent calls them (AG-UI frontend tools): which
//! ones it implements, their arguments checked, and what it reports back to the agent.

use serde_json::{Value, json};

use crate::projection::RunView;
use crate::protocol::ask::{AskOrigin, AskState};

/// A call to a tool the console implements, its arguments already checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConsoleTool {
    /// Tints its thread's main area (kept readable: a tint, not a fill).
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
                format!("Set the thread's background to {color}")
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

/// The background a run's agent set with `change_background`: the colour of the latest
/// such call the console answered, read from the recorded answers (so it survives a reload
/// and stays with its thread; the thread shows its latest run's that has one). Checked
/// again: a recorded value is only shown if it is a plain colour.
pub fn background_set_in(view: &RunView) -> Option<String> {
    view.asks
        .iter()
        .rev()
        .filter(|ask| {
            matches!(
                &ask.origin,
                AskOrigin::AgUiFrontendTool { tool_name, .. } if tool_name == "change_background"
            )
        })
        .filter_map(|ask| match &ask.state {
            AskState::Resolved { answer } => answer
                .data
                .pointer("/result/applied")
                .and_then(Value::as_str)
                .filter(|colour| looks_like_css_colour(colour))
                .map(str::to_owned),
            _ => None,
        })
        .next()
}

/// The console's own tools as an agent is offered them.
pub fn definitions() -> Vec<Value> {
    vec![json!({
        "name": "change_background",
        "description": "Change the console's background colour; the console runs this tool itself.",
        "parameters": {
            "type": "object",
            "properties": { "color": { "type": "string", "description": "A CSS colour." } },
            "required": ["color"]
        }
    })]
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
    use crate::protocol::agui::asks::ask_for_frontend_tool;
    use crate::protocol::ask::RecordedAnswer;

    fn answered_background(applied: &str) -> crate::protocol::ask::Ask {
        let mut ask = ask_for_frontend_tool("call-1", "change_background", "{}");
        ask.state = AskState::Resolved {
            answer: RecordedAnswer {
                action: "submit".into(),
                data: json!({ "result": { "applied": applied } }),
                summary: "Tool result sent".into(),
                actor: None,
                at: None,
            },
        };
        ask
    }

    #[test]
    fn a_runs_background_is_the_latest_colour_its_answers_recorded_and_only_a_colour() {
        let mut view = RunView::default();
        assert_eq!(background_set_in(&view), None);
        view.asks.push(answered_background("#0b7285"));
        view.asks
            .push(answered_background("red; background: url(x)"));
        assert_eq!(background_set_in(&view).as_deref(), Some("#0b7285"));
        view.asks.push(answered_background("rebeccapurple"));
        assert_eq!(background_set_in(&view).as_deref(), Some("rebeccapurple"));
        let mut pending = ask_for_frontend_tool("call-2", "change_background", "{}");
        pending.state = AskState::Pending;
        view.asks.push(pending);
        assert_eq!(background_set_in(&view).as_deref(), Some("rebeccapurple"));
    }

    #[test]
    fn a_known_tool_with_good_arguments_runs_and_reports_what_it_applied() {
        let tool = ConsoleTool::from_call("change_background", r##"{"color": "#0b7285"}"##)
            .unwrap()
            .unwrap();
        assert_eq!(tool.describe(), "Set the thread's background to #0b7285");
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
