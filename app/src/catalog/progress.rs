//! `progress_tracker`: the steps of a running workflow and, once done, its final status.

use serde::Serialize;
use serde_json::Value;

use super::actions::{self, ResponseActions};
use super::receipt::{self, Receipt};
use super::{Base, Fields, Invalid, unique};

choice! {
    /// Where a step stands (hyphenated, unlike the plan's todos).
    StepStatus {
        Pending = "pending",
        InProgress = "in-progress",
        Completed = "completed",
        Failed = "failed",
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub id: String,
    pub label: String,
    pub description: Option<String>,
    pub status: StepStatus,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressTracker {
    #[serde(flatten)]
    pub base: Base,
    pub steps: Vec<Step>,
    /// Milliseconds since the workflow started.
    pub elapsed_time: Option<f64>,
    /// The workflow's final status; once set, the tracker is a read-only receipt.
    pub choice: Option<Receipt>,
    pub response_actions: Option<ResponseActions>,
}

const MAX_STEPS: usize = 100;

pub fn parse(value: &Value) -> Result<ProgressTracker, Invalid> {
    let fields = Fields::of(value, "")?;
    let base = Base::surface(&fields)?;
    let steps = fields
        .list("steps", 1, MAX_STEPS)?
        .iter()
        .map(|step| {
            Ok(Step {
                id: step.text("id")?,
                label: step.text("label")?,
                description: step.opt_text("description")?,
                status: step.one_of("status", None)?,
            })
        })
        .collect::<Result<Vec<_>, Invalid>>()?;
    unique(
        &fields.path_of("steps"),
        "id",
        steps.iter().map(|s| s.id.as_str()),
    )?;
    Ok(ProgressTracker {
        base,
        steps,
        elapsed_time: fields.opt_non_negative("elapsedTime")?,
        choice: fields
            .opt_object("choice")?
            .map(|c| receipt::read(&c))
            .transpose()?,
        response_actions: actions::read(&fields, "responseActions")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::receipt::Outcome;
    use crate::catalog::refusal;
    use serde_json::json;

    #[test]
    fn a_tracker_reads_its_steps_and_final_status() {
        let tracker = parse(&json!({
            "id": "progress-deploy",
            "steps": [{"id": "build", "label": "Build", "status": "completed"},
                      {"id": "ship", "label": "Ship", "status": "in-progress"}],
            "elapsedTime": 4200,
            "choice": {"outcome": "partial", "summary": "Shipped one region",
                "at": "2026-02-04T10:00:00Z"}
        }))
        .expect("valid");
        assert_eq!(
            tracker.steps.get(1).map(|s| s.status),
            Some(StepStatus::InProgress)
        );
        assert_eq!(tracker.choice.map(|c| c.outcome), Some(Outcome::Partial));
    }

    #[test]
    fn an_underscored_step_status_is_the_plans_not_the_trackers() {
        let refused = refusal(parse(
            &json!({"id": "p", "steps": [{"id": "a", "label": "A", "status": "in_progress"}]}),
        ));
        assert_eq!(
            refused,
            "steps[0].status: must be one of pending, in-progress, completed, failed (got \"in_progress\")"
        );
    }

    #[test]
    fn a_tracker_with_no_steps_is_refused() {
        assert_eq!(
            refusal(parse(&json!({"id": "p", "steps": []}))),
            "steps: must have at least 1 item (got 0)"
        );
    }

    #[test]
    fn a_final_status_without_a_summary_is_refused() {
        let refused = refusal(parse(
            &json!({"id": "p", "steps": [{"id": "a", "label": "A", "status": "failed"}],
            "choice": {"outcome": "failed", "at": "2026-02-04T10:00:00Z"}}),
        ));
        assert_eq!(refused, "choice.summary: required, a non-empty string");
    }

    #[test]
    fn a_negative_elapsed_time_is_refused() {
        let refused = refusal(parse(
            &json!({"id": "p", "steps": [{"id": "a", "label": "A", "status": "pending"}],
            "elapsedTime": -1}),
        ));
        assert_eq!(refused, "elapsedTime: must be 0 or more (got -1)");
    }
}
