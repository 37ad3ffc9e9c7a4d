//! `ToolUIReceipt`: the durable summary of an outcome a surface may carry.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::{Fields, Invalid};

choice! {
    /// How the action the receipt records ended.
    Outcome { Success = "success", Partial = "partial", Failed = "failed", Cancelled = "cancelled" }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Receipt {
    pub outcome: Outcome,
    pub summary: String,
    /// Ids of what the action touched (a ticket, a commit), shown for reference.
    pub identifiers: Option<BTreeMap<String, String>>,
    /// ISO 8601 date-time.
    pub at: String,
}

/// The most identifiers a receipt lists.
const MAX_IDENTIFIERS: usize = 50;

pub fn parse(value: &Value) -> Result<Receipt, Invalid> {
    read(&Fields::of(value, "")?)
}

pub(crate) fn read(fields: &Fields<'_>) -> Result<Receipt, Invalid> {
    Ok(Receipt {
        outcome: fields.one_of("outcome", None)?,
        summary: fields.text("summary")?,
        identifiers: super::string_record(fields, "identifiers", MAX_IDENTIFIERS)?,
        at: fields.datetime("at")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::refusal;
    use serde_json::json;

    #[test]
    fn a_receipt_with_identifiers_is_read() {
        let receipt = parse(&json!({
            "outcome": "success", "summary": "Backed up", "identifiers": {"backup": "b-7"},
            "at": "2026-02-04T10:00:00Z"
        }))
        .expect("valid");
        assert_eq!(receipt.outcome, Outcome::Success);
        assert_eq!(
            receipt
                .identifiers
                .and_then(|ids| ids.get("backup").cloned()),
            Some("b-7".into())
        );
    }

    #[test]
    fn a_receipt_outcome_outside_the_four_is_refused() {
        let refused = refusal(parse(
            &json!({"outcome": "ok", "summary": "s", "at": "2026-02-04T10:00:00Z"}),
        ));
        assert_eq!(
            refused,
            "outcome: must be one of success, partial, failed, cancelled (got \"ok\")"
        );
    }

    #[test]
    fn a_receipt_time_that_is_not_iso_8601_is_refused() {
        let refused = refusal(parse(
            &json!({"outcome": "failed", "summary": "s", "at": "yesterday"}),
        ));
        assert!(
            refused.starts_with("at: must be an ISO 8601 date-time"),
            "{refused}"
        );
    }

    #[test]
    fn a_nested_identifier_is_refused() {
        let refused = refusal(parse(&json!({
            "outcome": "partial", "summary": "s", "at": "2026-02-04T10:00:00Z",
            "identifiers": {"run": {"id": 1}}
        })));
        assert_eq!(refused, "identifiers.run: must be a string (got an object)");
    }

    #[test]
    fn a_receipt_nested_in_a_surface_names_its_path() {
        let plan = json!({"id": "p", "title": "T", "todos": [{"id": "a", "label": "A",
            "status": "pending"}],
            "receipt": {"outcome": "success", "summary": " ", "at": "2026-02-04T10:00:00Z"}});
        assert_eq!(
            refusal(crate::catalog::plan::parse(&plan)),
            "receipt.summary: required, a non-empty string"
        );
    }
}
