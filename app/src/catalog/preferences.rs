//! `preferences_panel`: sections of switches, toggles and selects, and the saved values.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::actions::{self, ResponseActions};
use super::values::shown;
use super::{Base, Fields, Invalid, unique};

choice! {
    /// The control an item is drawn as.
    ItemType { Switch = "switch", Toggle = "toggle", Select = "select" }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreferencesPanel {
    #[serde(flatten)]
    pub base: Base,
    pub title: Option<String>,
    pub sections: Vec<Section>,
    pub response_actions: Option<ResponseActions>,
    /// The saved values by item id: once set, the panel is a read-only receipt.
    pub choice: Option<BTreeMap<String, Saved>>,
    /// Why an item failed to save, by item id.
    pub error: Option<BTreeMap<String, String>>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Section {
    pub heading: Option<String>,
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Item {
    pub id: String,
    pub label: String,
    pub description: Option<String>,
    #[serde(flatten)]
    pub control: Control,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Control {
    Switch {
        #[serde(rename = "defaultChecked")]
        default_checked: Option<bool>,
    },
    /// A segmented control of two or more values.
    Toggle {
        options: Vec<ValueOption>,
        #[serde(rename = "defaultValue")]
        default_value: Option<String>,
    },
    /// A dropdown, for five or more values.
    Select {
        #[serde(rename = "selectOptions")]
        select_options: Vec<ValueOption>,
        #[serde(rename = "defaultSelected")]
        default_selected: Option<String>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValueOption {
    pub value: String,
    pub label: String,
}

/// A saved value: a switch's state, or a toggle's or select's value.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Saved {
    On(bool),
    Value(String),
}

const MAX_SECTIONS: usize = 20;
const MAX_ITEMS: usize = 50;
const MAX_TOGGLE: usize = 10;
const MAX_SELECT: usize = 200;

pub fn parse(value: &Value) -> Result<PreferencesPanel, Invalid> {
    let fields = Fields::of(value, "")?;
    let base = Base::surface(&fields)?;
    let title = fields.opt_nonblank("title")?;
    let sections = fields
        .list("sections", 1, MAX_SECTIONS)?
        .iter()
        .map(|section| {
            let items = section
                .list("items", 1, MAX_ITEMS)?
                .iter()
                .map(item)
                .collect::<Result<_, _>>()?;
            Ok(Section {
                heading: section.opt_nonblank("heading")?,
                items,
            })
        })
        .collect::<Result<Vec<_>, Invalid>>()?;
    // Values are keyed by item id across the whole panel, not per section.
    let mut seen = BTreeMap::new();
    for (s, section) in sections.iter().enumerate() {
        for (i, item) in section.items.iter().enumerate() {
            let at = format!("{}[{s}].items[{i}].id", fields.path_of("sections"));
            if let Some(first) = seen.insert(item.id.as_str(), at.clone()) {
                return Err(Invalid::new(
                    at,
                    format!(
                        "repeats {first} ({})",
                        shown(&Value::from(item.id.as_str()))
                    ),
                ));
            }
        }
    }
    let choice = saved(&fields, &sections)?;
    Ok(PreferencesPanel {
        base,
        title,
        response_actions: actions::read(&fields, "responseActions")?,
        choice,
        error: super::string_record(&fields, "error", MAX_SECTIONS * MAX_ITEMS)?,
        sections,
    })
}

fn item(fields: &Fields<'_>) -> Result<Item, Invalid> {
    let id = fields.text("id")?;
    let label = fields.text("label")?;
    let description = fields.opt_text("description")?;
    let control = match fields.one_of::<ItemType>("type", None)? {
        ItemType::Switch => Control::Switch {
            default_checked: fields.opt_bool("defaultChecked")?,
        },
        ItemType::Toggle => {
            let options = choices(fields, "options", 2, MAX_TOGGLE)?;
            let default_value = default_in(fields, "defaultValue", &options)?;
            Control::Toggle {
                options,
                default_value,
            }
        }
        ItemType::Select => {
            let select_options = choices(fields, "selectOptions", 5, MAX_SELECT)?;
            let default_selected = default_in(fields, "defaultSelected", &select_options)?;
            Control::Select {
                select_options,
                default_selected,
            }
        }
    };
    Ok(Item {
        id,
        label,
        description,
        control,
    })
}

fn choices(
    fields: &Fields<'_>,
    key: &str,
    min: usize,
    max: usize,
) -> Result<Vec<ValueOption>, Invalid> {
    let choices = fields
        .list(key, min, max)?
        .iter()
        .map(|c| {
            Ok(ValueOption {
                value: c.text("value")?,
                label: c.text("label")?,
            })
        })
        .collect::<Result<Vec<_>, Invalid>>()?;
    unique(
        &fields.path_of(key),
        "value",
        choices.iter().map(|c| c.value.as_str()),
    )?;
    Ok(choices)
}

fn default_in(
    fields: &Fields<'_>,
    key: &str,
    choices: &[ValueOption],
) -> Result<Option<String>, Invalid> {
    match fields.opt_text(key)? {
        Some(value) if !choices.iter().any(|c| c.value == value) => Err(fields.invalid(
            key,
            format!(
                "must be one of the item's values (got {})",
                shown(&Value::from(value))
            ),
        )),
        found => Ok(found),
    }
}

fn saved(
    fields: &Fields<'_>,
    sections: &[Section],
) -> Result<Option<BTreeMap<String, Saved>>, Invalid> {
    let Some(record) = fields.opt_object("choice")? else {
        return Ok(None);
    };
    let items: Vec<&Item> = sections.iter().flat_map(|s| &s.items).collect();
    let mut values = BTreeMap::new();
    for (id, value) in record.map() {
        let at = record.path_of(id);
        let Some(item) = items.iter().find(|item| &item.id == id) else {
            return Err(Invalid::new(at, "must name a preference item"));
        };
        let allowed = match &item.control {
            Control::Switch { .. } => None,
            Control::Toggle { options: c, .. }
            | Control::Select {
                select_options: c, ..
            } => Some(c),
        };
        let read = match (value, allowed) {
            (Value::Bool(on), None) => Saved::On(*on),
            (Value::String(v), Some(choices)) if choices.iter().any(|c| &c.value == v) => {
                Saved::Value(v.clone())
            }
            (other, None) => {
                return Err(Invalid::new(
                    at,
                    format!("must be true or false (got {})", shown(other)),
                ));
            }
            (other, Some(_)) => {
                return Err(Invalid::new(
                    at,
                    format!("must be one of the item's values (got {})", shown(other)),
                ));
            }
        };
        values.insert(id.clone(), read);
    }
    Ok(Some(values))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::refusal;
    use serde_json::json;

    fn panel(items: Value) -> Value {
        json!({"id": "preferences-notify", "sections": [{"heading": "Alerts", "items": items}]})
    }

    fn theme() -> Value {
        json!({"id": "theme", "label": "Theme", "type": "toggle", "defaultValue": "dark",
            "options": [{"value": "light", "label": "Light"}, {"value": "dark", "label": "Dark"}]})
    }

    #[test]
    fn a_panel_reads_switches_toggles_and_selects() {
        let zones: Vec<Value> = ["utc", "cet", "est", "pst", "jst"]
            .iter()
            .map(|z| json!({"value": z, "label": z}))
            .collect();
        let panel = parse(&panel(json!([
            {"id": "email", "label": "Email", "type": "switch", "defaultChecked": true},
            theme(),
            {"id": "zone", "label": "Zone", "type": "select", "selectOptions": zones,
                "defaultSelected": "cet"}
        ])))
        .expect("valid");
        let controls: Vec<&Control> = panel
            .sections
            .iter()
            .flat_map(|s| &s.items)
            .map(|i| &i.control)
            .collect();
        assert!(matches!(
            controls.as_slice(),
            [
                Control::Switch { .. },
                Control::Toggle { .. },
                Control::Select { .. }
            ]
        ));
    }

    #[test]
    fn saved_values_are_checked_against_their_items() {
        let mut value = panel(json!([theme()]));
        value["choice"] = json!({"theme": "light"});
        let panel = parse(&value).expect("valid");
        assert_eq!(
            panel.choice.and_then(|c| c.get("theme").cloned()),
            Some(Saved::Value("light".into()))
        );
        value["choice"] = json!({"theme": true});
        assert_eq!(
            refusal(parse(&value)),
            "choice.theme: must be one of the item's values (got true)"
        );
    }

    #[test]
    fn an_item_of_an_unknown_type_is_refused() {
        let refused = refusal(parse(&panel(
            json!([{"id": "x", "label": "X", "type": "slider"}]),
        )));
        assert_eq!(
            refused,
            "sections[0].items[0].type: must be one of switch, toggle, select (got \"slider\")"
        );
    }

    #[test]
    fn a_select_with_fewer_than_five_options_is_refused() {
        let refused = refusal(parse(&panel(
            json!([{"id": "z", "label": "Z", "type": "select",
            "selectOptions": [{"value": "a", "label": "A"}]}]),
        )));
        assert_eq!(
            refused,
            "sections[0].items[0].selectOptions: must have at least 5 items (got 1)"
        );
    }

    #[test]
    fn a_toggle_default_outside_its_options_is_refused() {
        let mut item = theme();
        item["defaultValue"] = json!("sepia");
        let refused = refusal(parse(&panel(json!([item]))));
        assert_eq!(
            refused,
            "sections[0].items[0].defaultValue: must be one of the item's values (got \"sepia\")"
        );
    }

    #[test]
    fn one_item_id_in_two_sections_is_refused() {
        let value = json!({"id": "p", "sections": [{"items": [theme()]}, {"items": [theme()]}]});
        assert_eq!(
            refusal(parse(&value)),
            "sections[1].items[0].id: repeats sections[0].items[0].id (\"theme\")"
        );
    }

    #[test]
    fn a_saved_value_for_no_item_is_refused() {
        let mut value = panel(json!([theme()]));
        value["choice"] = json!({"volume": "loud"});
        assert_eq!(
            refusal(parse(&value)),
            "choice.volume: must name a preference item"
        );
    }
}
