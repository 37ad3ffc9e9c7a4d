//! `question_flow`: a guided sequence of option questions, asked one at a time
//! (progressive), all laid out at once (upfront), or summed up once answered (receipt).

use serde::Serialize;
use serde_json::Value;

use super::options::{OptionItem, SelectionMode, read_options};
use super::{Base, Fields, Invalid, unique};

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestionFlow {
    #[serde(flatten)]
    pub base: Base,
    #[serde(flatten)]
    pub mode: FlowMode,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FlowMode {
    /// The question at `step`; the agent sends the next one after each answer.
    Progressive(Question),
    /// Every question up front; the answers come back together.
    Upfront { steps: Vec<Question> },
    /// What was answered.
    Receipt { choice: FlowChoice },
}

/// One question. In progressive mode `step` is its 1-based position and `id` is empty.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<i64>,
    pub title: String,
    pub description: Option<String>,
    pub options: Vec<OptionItem>,
    pub selection_mode: Option<SelectionMode>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlowChoice {
    pub title: String,
    pub summary: Vec<SummaryItem>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryItem {
    pub label: String,
    pub value: String,
}

const MAX_STEPS: usize = 20;
const MAX_SUMMARY: usize = 50;

pub fn parse(value: &Value) -> Result<QuestionFlow, Invalid> {
    let fields = Fields::of(value, "")?;
    let base = Base::identity(&fields)?;
    let present = |key: &str| fields.get(key).is_some();
    let modes = [
        ("step", present("step")),
        ("steps", present("steps")),
        ("choice", present("choice")),
    ];
    let mut given = modes.iter().filter(|(_, here)| *here).map(|(key, _)| *key);
    let mode = match (given.next(), given.next()) {
        (Some(first), Some(second)) => {
            let reason = format!(
                "not allowed with {first}: a flow is progressive (step), upfront (steps) \
                 or a receipt (choice)"
            );
            return Err(fields.invalid(second, reason));
        }
        (Some("step"), None) => FlowMode::Progressive(question(&fields, false)?),
        (Some("steps"), None) => {
            let steps = fields
                .list("steps", 1, MAX_STEPS)?
                .iter()
                .map(|step| question(step, true))
                .collect::<Result<Vec<_>, _>>()?;
            unique(
                &fields.path_of("steps"),
                "id",
                steps.iter().map(|s| s.id.as_str()),
            )?;
            FlowMode::Upfront { steps }
        }
        (Some(_), None) => FlowMode::Receipt {
            choice: flow_choice(&fields.object("choice")?)?,
        },
        (None, _) => {
            return Err(Invalid::new(
                "",
                "needs step (progressive mode), steps (upfront mode) or choice (receipt mode)",
            ));
        }
    };
    Ok(QuestionFlow { base, mode })
}

fn question(fields: &Fields<'_>, upfront: bool) -> Result<Question, Invalid> {
    let (id, step) = if upfront {
        (fields.text("id")?, None)
    } else {
        let step = fields.opt_int("step", 1)?;
        let step =
            step.ok_or_else(|| fields.invalid("step", "required, a whole number of at least 1"))?;
        (String::new(), Some(step))
    };
    Ok(Question {
        id,
        step,
        title: fields.text("title")?,
        description: fields.opt_text("description")?,
        options: read_options(fields, "options")?,
        selection_mode: fields.opt_one_of("selectionMode")?,
    })
}

fn flow_choice(fields: &Fields<'_>) -> Result<FlowChoice, Invalid> {
    let summary = fields
        .list("summary", 1, MAX_SUMMARY)?
        .iter()
        .map(|item| {
            Ok(SummaryItem {
                label: item.text("label")?,
                value: item.text("value")?,
            })
        })
        .collect::<Result<Vec<_>, Invalid>>()?;
    Ok(FlowChoice {
        title: fields.text("title")?,
        summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::refusal;
    use serde_json::json;

    fn options() -> Value {
        json!([{"id": "rust", "label": "Rust"}, {"id": "go", "label": "Go"}])
    }

    #[test]
    fn a_progressive_flow_reads_its_step() {
        let flow =
            parse(&json!({"id": "qf", "step": 2, "title": "Language?", "options": options()}))
                .expect("valid");
        let FlowMode::Progressive(question) = flow.mode else {
            panic!("progressive")
        };
        assert_eq!((question.step, question.options.len()), (Some(2), 2));
    }

    #[test]
    fn an_upfront_flow_reads_every_step() {
        let flow = parse(&json!({"id": "qf", "steps": [
            {"id": "lang", "title": "Language?", "options": options(), "selectionMode": "single"},
            {"id": "db", "title": "Database?", "options": [{"id": "pg", "label": "Postgres"}]}
        ]}))
        .expect("valid");
        assert!(matches!(flow.mode, FlowMode::Upfront { ref steps } if steps.len() == 2));
    }

    #[test]
    fn an_answered_flow_reads_as_a_receipt() {
        let flow = parse(&json!({"id": "qf", "choice": {"title": "Stack",
            "summary": [{"label": "Language", "value": "Rust"}]}}))
        .expect("valid");
        assert!(matches!(flow.mode, FlowMode::Receipt { .. }));
    }

    #[test]
    fn a_flow_in_no_mode_is_refused() {
        let refused = refusal(parse(
            &json!({"id": "qf", "title": "Language?", "options": options()}),
        ));
        assert!(
            refused.starts_with("needs step (progressive mode)"),
            "{refused}"
        );
    }

    #[test]
    fn a_flow_in_two_modes_is_refused() {
        let refused = refusal(parse(
            &json!({"id": "qf", "step": 1, "steps": [], "title": "T", "options": options()}),
        ));
        assert!(
            refused.starts_with("steps: not allowed with step"),
            "{refused}"
        );
    }

    #[test]
    fn a_step_number_of_zero_is_refused() {
        let refused = refusal(parse(
            &json!({"id": "qf", "step": 0, "title": "T", "options": options()}),
        ));
        assert_eq!(refused, "step: must be at least 1 (got 0)");
    }

    #[test]
    fn an_upfront_step_without_options_names_its_index() {
        let refused = refusal(parse(&json!({"id": "qf", "steps": [
            {"id": "lang", "title": "Language?", "options": options()},
            {"id": "db", "title": "Database?"}
        ]})));
        assert_eq!(
            refused,
            "steps[1].options: required, a list of at least 1 item"
        );
    }

    #[test]
    fn a_receipt_with_an_empty_summary_is_refused() {
        let refused = refusal(parse(
            &json!({"id": "qf", "choice": {"title": "Stack", "summary": []}}),
        ));
        assert_eq!(refused, "choice.summary: must have at least 1 item (got 0)");
    }
}
