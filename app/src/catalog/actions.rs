//! `responseActions`: the buttons under a surface, given as a list or as
//! `{items, align?, confirmTimeout?}`.

use serde::Serialize;
use serde_json::Value;

use super::{Fields, Invalid, unique};

choice! {
    /// How an action button looks.
    Variant {
        Default = "default",
        Destructive = "destructive",
        Secondary = "secondary",
        Ghost = "ghost",
        Outline = "outline",
    }
}

choice! {
    /// Where the buttons sit.
    Align { Left = "left", Center = "center", Right = "right" }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Action {
    pub id: String,
    pub label: String,
    /// What the assistant may say once the action is taken.
    pub sentence: Option<String>,
    /// Present: the first click arms the button and shows this label, the second acts.
    pub confirm_label: Option<String>,
    pub variant: Variant,
    pub loading: bool,
    pub disabled: bool,
    pub shortcut: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseActions {
    pub items: Vec<Action>,
    pub align: Option<Align>,
    /// How long an armed confirm waits for its second click.
    pub confirm_timeout_ms: f64,
}

/// More buttons than this is a kitchen-sink surface; the guidelines ask for 5–7.
const MAX_ACTIONS: usize = 20;
const CONFIRM_TIMEOUT_MS: f64 = 3000.0;
/// Ids that mean "back out", which tool-ui draws as ghost buttons unless told otherwise.
const QUIET_IDS: &[&str] = &[
    "cancel",
    "dismiss",
    "skip",
    "no",
    "reset",
    "close",
    "decline",
    "reject",
    "back",
    "later",
    "not-now",
    "maybe-later",
];

/// A `responseActions` value on its own; an empty list reads as no actions.
pub fn parse(value: &Value) -> Result<Option<ResponseActions>, Invalid> {
    let wrapper = serde_json::json!({ "responseActions": value });
    let fields = Fields::of(&wrapper, "")?;
    read(&fields, "responseActions")
}

/// `key` of `fields` as response actions, if present.
pub(crate) fn read(fields: &Fields<'_>, key: &str) -> Result<Option<ResponseActions>, Invalid> {
    let Some(value) = fields.get(key) else {
        return Ok(None);
    };
    let (items, align, timeout, list_path) = if value.is_array() {
        (
            fields.opt_list(key, MAX_ACTIONS)?,
            None,
            None,
            fields.path_of(key),
        )
    } else if value.is_object() {
        let config = fields.object(key)?;
        (
            config.list("items", 1, MAX_ACTIONS)?,
            config.opt_one_of("align")?,
            config.opt_positive("confirmTimeout")?,
            config.path_of("items"),
        )
    } else {
        let reason = "must be a list of actions or {items, align?, confirmTimeout?}";
        return Err(fields.invalid(key, reason));
    };
    let items = items.iter().map(action).collect::<Result<Vec<_>, _>>()?;
    unique(&list_path, "id", items.iter().map(|a| a.id.as_str()))?;
    Ok((!items.is_empty()).then(|| ResponseActions {
        items,
        align,
        confirm_timeout_ms: timeout.unwrap_or(CONFIRM_TIMEOUT_MS),
    }))
}

/// How an action with `id` looks unless the payload says otherwise.
fn default_variant(id: &str) -> Variant {
    if QUIET_IDS.contains(&id) {
        Variant::Ghost
    } else {
        Variant::Default
    }
}

impl ResponseActions {
    /// The actions a component offers when its payload names none: `(id, label)` each,
    /// drawn as tool-ui draws them.
    pub fn defaults(items: &[(&str, &str)]) -> ResponseActions {
        ResponseActions {
            items: items
                .iter()
                .map(|(id, label)| Action {
                    id: (*id).to_owned(),
                    label: (*label).to_owned(),
                    sentence: None,
                    confirm_label: None,
                    variant: default_variant(id),
                    loading: false,
                    disabled: false,
                    shortcut: None,
                })
                .collect(),
            align: None,
            confirm_timeout_ms: CONFIRM_TIMEOUT_MS,
        }
    }
}

fn action(fields: &Fields<'_>) -> Result<Action, Invalid> {
    let id = fields.text("id")?;
    let fallback = default_variant(&id);
    Ok(Action {
        label: fields.text("label")?,
        sentence: fields.opt_text("sentence")?,
        confirm_label: fields.opt_nonblank("confirmLabel")?,
        variant: fields.one_of("variant", Some(fallback))?,
        loading: fields.bool_or("loading", false)?,
        disabled: fields.bool_or("disabled", false)?,
        shortcut: fields.opt_nonblank("shortcut")?,
        id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_a_component_offers_are_drawn_like_the_payloads() {
        let defaults = ResponseActions::defaults(&[("cancel", "Cancel"), ("apply", "Apply")]);
        assert_eq!(defaults.items[0].variant, Variant::Ghost);
        assert_eq!(defaults.items[1].variant, Variant::Default);
    }
    use crate::catalog::refusal;
    use serde_json::json;

    #[test]
    fn a_list_of_actions_reads_with_quiet_ids_drawn_as_ghosts() {
        let actions = parse(
            &json!([{"id": "export", "label": "Export"}, {"id": "cancel", "label": "Cancel"}]),
        )
        .expect("valid")
        .expect("two actions");
        assert_eq!(
            actions.items.first().map(|a| a.variant),
            Some(Variant::Default)
        );
        assert_eq!(
            actions.items.get(1).map(|a| a.variant),
            Some(Variant::Ghost)
        );
        assert_eq!(actions.confirm_timeout_ms, 3000.0);
    }

    #[test]
    fn an_empty_action_list_reads_as_no_footer() {
        assert_eq!(parse(&json!([])), Ok(None));
    }

    #[test]
    fn a_config_object_keeps_align_and_timeout() {
        let actions = parse(
            &json!({"items": [{"id": "go", "label": "Go", "variant": "destructive"}],
            "align": "left", "confirmTimeout": 5000}),
        )
        .expect("valid")
        .expect("one action");
        assert_eq!(
            (actions.align, actions.confirm_timeout_ms),
            (Some(Align::Left), 5000.0)
        );
    }

    #[test]
    fn a_config_object_without_items_is_refused() {
        assert_eq!(
            refusal(parse(&json!({"items": []}))),
            "responseActions.items: must have at least 1 item (got 0)"
        );
    }

    #[test]
    fn an_action_without_a_label_names_its_index() {
        assert_eq!(
            refusal(parse(&json!([{"id": "a", "label": "A"}, {"id": "b"}]))),
            "responseActions[1].label: required, a non-empty string"
        );
    }

    #[test]
    fn two_actions_with_one_id_are_refused() {
        let refused = refusal(parse(
            &json!([{"id": "a", "label": "A"}, {"id": "a", "label": "B"}]),
        ));
        assert_eq!(
            refused,
            "responseActions[1].id: repeats responseActions[0].id (\"a\")"
        );
    }

    #[test]
    fn a_zero_confirm_timeout_is_refused() {
        let refused = refusal(parse(
            &json!({"items": [{"id": "a", "label": "A"}], "confirmTimeout": 0}),
        ));
        assert_eq!(
            refused,
            "responseActions.confirmTimeout: must be greater than 0 (got 0)"
        );
    }
}
