//! `option_list`: pick one or several of a list of options, and the pick once confirmed.

use serde::Serialize;
use serde_json::Value;

use super::actions::{self, ResponseActions};
use super::values::shown;
use super::{Base, Fields, Invalid, unique};

choice! {
    /// Whether one option or several may be picked.
    SelectionMode { Multi = "multi", Single = "single" }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OptionItem {
    pub id: String,
    pub label: String,
    pub description: Option<String>,
    pub disabled: bool,
}

/// Picked option ids: one id (single mode) or a list (multi mode).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Selection {
    One(String),
    Many(Vec<String>),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OptionList {
    #[serde(flatten)]
    pub base: Base,
    pub options: Vec<OptionItem>,
    pub selection_mode: SelectionMode,
    pub default_value: Option<Selection>,
    /// The confirmed pick: once set, the list is a read-only receipt.
    pub choice: Option<Selection>,
    pub min_selections: i64,
    pub max_selections: Option<i64>,
    pub response_actions: Option<ResponseActions>,
}

/// Far past the 5–7 the guidelines ask for, but a list of files or branches may be long.
pub(crate) const MAX_OPTIONS: usize = 100;

pub fn parse(value: &Value) -> Result<OptionList, Invalid> {
    let fields = Fields::of(value, "")?;
    let base = Base::surface(&fields)?;
    let options = read_options(&fields, "options")?;
    let mode = fields.one_of("selectionMode", Some(SelectionMode::Multi))?;
    let min_selections = fields.opt_int("minSelections", 0)?.unwrap_or(1);
    let max_selections = fields.opt_int("maxSelections", 1)?;
    let count = i64::try_from(options.len()).unwrap_or(i64::MAX);
    if min_selections > count {
        let reason =
            format!("must not exceed the number of options, {count} (got {min_selections})");
        return Err(fields.invalid("minSelections", reason));
    }
    if let Some(max) = max_selections.filter(|max| *max < min_selections) {
        let reason = format!("must not be below minSelections, {min_selections} (got {max})");
        return Err(fields.invalid("maxSelections", reason));
    }
    let ids: Vec<&str> = options.iter().map(|o| o.id.as_str()).collect();
    Ok(OptionList {
        base,
        default_value: selection(&fields, "defaultValue", &ids, mode)?,
        choice: selection(&fields, "choice", &ids, mode)?,
        options,
        selection_mode: mode,
        min_selections,
        max_selections,
        response_actions: actions::read(&fields, "responseActions")?,
    })
}

/// The `options` of an option list or a question step: at least one, ids unique.
pub(crate) fn read_options(fields: &Fields<'_>, key: &str) -> Result<Vec<OptionItem>, Invalid> {
    let options = fields
        .list(key, 1, MAX_OPTIONS)?
        .iter()
        .map(|option| {
            Ok(OptionItem {
                id: option.text("id")?,
                label: option.text("label")?,
                description: option.opt_text("description")?,
                disabled: option.bool_or("disabled", false)?,
            })
        })
        .collect::<Result<Vec<_>, Invalid>>()?;
    unique(
        &fields.path_of(key),
        "id",
        options.iter().map(|o| o.id.as_str()),
    )?;
    Ok(options)
}

fn selection(
    fields: &Fields<'_>,
    key: &str,
    ids: &[&str],
    mode: SelectionMode,
) -> Result<Option<Selection>, Invalid> {
    let path = fields.path_of(key);
    let named = |id: &str, at: String| {
        if ids.contains(&id) {
            return Ok(());
        }
        let reason = format!("must name an option (got {})", shown(&Value::from(id)));
        Err(Invalid::new(at, reason))
    };
    match fields.get(key) {
        None => Ok(None),
        Some(Value::String(id)) => {
            named(id, path)?;
            Ok(Some(Selection::One(id.clone())))
        }
        Some(Value::Array(items)) => {
            if mode == SelectionMode::Single && items.len() > 1 {
                let reason = format!(
                    "single selection mode takes one option (got {})",
                    items.len()
                );
                return Err(Invalid::new(path, reason));
            }
            let picked = fields.opt_strings(key, ids.len())?.unwrap_or_default();
            for (i, id) in picked.iter().enumerate() {
                named(id, format!("{path}[{i}]"))?;
            }
            unique(&path, "", picked.iter().map(String::as_str))?;
            Ok(Some(Selection::Many(picked)))
        }
        Some(other) => Err(Invalid::new(
            path,
            format!(
                "must be an option id or a list of them (got {})",
                shown(other)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::refusal;
    use serde_json::json;

    fn list(extra: Value) -> Value {
        let mut value = json!({"id": "option-list-target", "options": [
            {"id": "prod", "label": "Production"}, {"id": "staging", "label": "Staging",
                "disabled": true}
        ]});
        if let (Some(map), Value::Object(more)) = (value.as_object_mut(), extra) {
            map.extend(more);
        }
        value
    }

    #[test]
    fn an_option_list_is_multi_select_needing_one_pick_by_default() {
        let list = parse(&list(json!({}))).expect("valid");
        assert_eq!(
            (list.selection_mode, list.min_selections),
            (SelectionMode::Multi, 1)
        );
        assert!(list.options.get(1).is_some_and(|o| o.disabled));
    }

    #[test]
    fn a_confirmed_pick_is_kept_as_sent() {
        let list = parse(&list(
            json!({"selectionMode": "single", "choice": "prod", "defaultValue": null}),
        ))
        .expect("valid");
        assert_eq!(list.choice, Some(Selection::One("prod".into())));
        assert_eq!(list.default_value, None);
    }

    #[test]
    fn an_option_list_without_options_is_refused() {
        assert_eq!(
            refusal(parse(&json!({"id": "o", "options": []}))),
            "options: must have at least 1 item (got 0)"
        );
    }

    #[test]
    fn a_pick_naming_no_option_is_refused() {
        let refused = refusal(parse(&list(json!({"defaultValue": ["prod", "dev"]}))));
        assert_eq!(
            refused,
            "defaultValue[1]: must name an option (got \"dev\")"
        );
    }

    #[test]
    fn two_picks_in_single_mode_are_refused() {
        let refused = refusal(parse(&list(
            json!({"selectionMode": "single", "choice": ["prod", "staging"]}),
        )));
        assert_eq!(
            refused,
            "choice: single selection mode takes one option (got 2)"
        );
    }

    #[test]
    fn a_pick_listing_one_option_twice_is_refused() {
        let refused = refusal(parse(&list(json!({"choice": ["prod", "prod"]}))));
        assert_eq!(refused, "choice[1]: repeats choice[0] (\"prod\")");
    }

    #[test]
    fn a_maximum_below_the_minimum_is_refused() {
        let refused = refusal(parse(&list(
            json!({"minSelections": 2, "maxSelections": 1}),
        )));
        assert_eq!(
            refused,
            "maxSelections: must not be below minSelections, 2 (got 1)"
        );
    }

    #[test]
    fn more_than_a_hundred_options_are_refused() {
        let options: Vec<Value> = (0..101)
            .map(|i| json!({"id": format!("o{i}"), "label": "L"}))
            .collect();
        let refused = refusal(parse(&json!({"id": "o", "options": options})));
        assert_eq!(refused, "options: must have at most 100 items (got 101)");
    }
}
