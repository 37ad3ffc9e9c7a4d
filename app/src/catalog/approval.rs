//! `approval_card`: a yes/no decision with its context, and the decision once made.

use serde::Serialize;
use serde_json::Value;

use super::{Base, Fields, Invalid};

choice! {
    /// How loudly the card asks.
    ApprovalVariant { Default = "default", Destructive = "destructive" }
}

choice! {
    /// What was decided.
    Decision { Approved = "approved", Denied = "denied" }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetadataItem {
    pub key: String,
    pub value: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalCard {
    #[serde(flatten)]
    pub base: Base,
    pub title: String,
    pub description: Option<String>,
    /// A lucide icon name in kebab-case.
    pub icon: Option<String>,
    pub metadata: Vec<MetadataItem>,
    pub variant: ApprovalVariant,
    pub confirm_label: String,
    pub cancel_label: String,
    /// Set once decided: the card is then a read-only receipt.
    pub choice: Option<Decision>,
}

const MAX_METADATA: usize = 50;

pub fn parse(value: &Value) -> Result<ApprovalCard, Invalid> {
    let fields = Fields::of(value, "")?;
    let base = Base::identity(&fields)?;
    let title = fields.text("title")?;
    let description = fields.opt_text("description")?;
    let icon = fields.opt_text("icon")?;
    if let Some(name) = &icon {
        let kebab = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
        if name.is_empty() || name.len() > 64 || !name.chars().all(kebab) {
            return Err(fields.invalid(
                "icon",
                "must be a lucide icon name in kebab-case, e.g. database-backup",
            ));
        }
    }
    let metadata = fields
        .opt_list("metadata", MAX_METADATA)?
        .iter()
        .map(|item| {
            Ok(MetadataItem {
                key: item.text("key")?,
                value: item.string("value")?,
            })
        })
        .collect::<Result<Vec<_>, Invalid>>()?;
    Ok(ApprovalCard {
        base,
        title,
        description,
        icon,
        metadata,
        variant: fields.one_of("variant", Some(ApprovalVariant::Default))?,
        confirm_label: fields
            .opt_nonblank("confirmLabel")?
            .unwrap_or_else(|| "Approve".into()),
        cancel_label: fields
            .opt_nonblank("cancelLabel")?
            .unwrap_or_else(|| "Deny".into()),
        choice: fields.opt_one_of("choice")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::refusal;
    use serde_json::json;

    #[test]
    fn an_approval_card_reads_with_approve_and_deny_by_default() {
        let card = parse(
            &json!({"id": "approval-backup", "title": "Back up database", "icon": "database-backup",
            "metadata": [{"key": "Size", "value": "2 GB"}], "variant": "destructive"}),
        )
        .expect("valid");
        assert_eq!(
            (card.confirm_label.as_str(), card.cancel_label.as_str()),
            ("Approve", "Deny")
        );
        assert_eq!(card.variant, ApprovalVariant::Destructive);
        assert_eq!(card.choice, None);
    }

    #[test]
    fn a_decided_card_keeps_its_decision() {
        let card = parse(&json!({"id": "a", "title": "T", "choice": "denied"})).expect("valid");
        assert_eq!(card.choice, Some(Decision::Denied));
    }

    #[test]
    fn a_decision_other_than_approved_or_denied_is_refused() {
        let refused = refusal(parse(&json!({"id": "a", "title": "T", "choice": "maybe"})));
        assert_eq!(
            refused,
            "choice: must be one of approved, denied (got \"maybe\")"
        );
    }

    #[test]
    fn an_approval_card_without_a_title_is_refused() {
        assert_eq!(
            refusal(parse(&json!({"id": "a"}))),
            "title: required, a non-empty string"
        );
    }

    #[test]
    fn a_metadata_row_without_a_key_names_its_index() {
        let refused = refusal(parse(
            &json!({"id": "a", "title": "T", "metadata": [{"value": "v"}]}),
        ));
        assert_eq!(refused, "metadata[0].key: required, a non-empty string");
    }

    #[test]
    fn an_icon_that_is_not_a_lucide_name_is_refused() {
        let refused = refusal(parse(
            &json!({"id": "a", "title": "T", "icon": "<svg onload=x>"}),
        ));
        assert!(
            refused.starts_with("icon: must be a lucide icon name"),
            "{refused}"
        );
    }
}
