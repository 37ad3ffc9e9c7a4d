//! `stats_display`: headline numbers with their change and a sparkline.

use serde::Serialize;
use serde_json::Value;

use super::values::shown;
use super::{Base, Fields, Invalid, unique};

choice! {
    StatFormatKind { Text = "text", Number = "number", Currency = "currency", Percent = "percent" }
}

choice! {
    /// Whether a percentage is given as 0.25 (fraction) or 25 (unit).
    PercentBasis { Fraction = "fraction", Unit = "unit" }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatsDisplay {
    #[serde(flatten)]
    pub base: Base,
    pub title: Option<String>,
    pub description: Option<String>,
    pub stats: Vec<Stat>,
    pub locale: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stat {
    pub key: String,
    pub label: String,
    pub value: StatValue,
    pub format: Option<StatFormat>,
    pub diff: Option<Diff>,
    pub sparkline: Option<Sparkline>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum StatValue {
    Text(String),
    Number(f64),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatFormat {
    pub kind: StatFormatKind,
    pub decimals: Option<i64>,
    pub compact: Option<bool>,
    /// ISO 4217 code; required for `currency`.
    pub currency: Option<String>,
    pub basis: Option<PercentBasis>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diff {
    pub value: f64,
    pub decimals: Option<i64>,
    /// Whether a rise is good news (revenue) or bad (latency).
    pub up_is_positive: Option<bool>,
    pub label: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sparkline {
    pub data: Vec<f64>,
    pub color: Option<String>,
}

const MAX_STATS: usize = 50;
const MAX_SPARKLINE: usize = 1_000;

pub fn parse(value: &Value) -> Result<StatsDisplay, Invalid> {
    let fields = Fields::of(value, "")?;
    let base = Base::identity(&fields)?;
    let stats = fields
        .list("stats", 1, MAX_STATS)?
        .iter()
        .map(stat)
        .collect::<Result<Vec<_>, _>>()?;
    unique(
        &fields.path_of("stats"),
        "key",
        stats.iter().map(|s| s.key.as_str()),
    )?;
    Ok(StatsDisplay {
        base,
        title: fields.opt_text("title")?,
        description: fields.opt_text("description")?,
        stats,
        locale: fields.opt_nonblank("locale")?,
    })
}

fn stat(fields: &Fields<'_>) -> Result<Stat, Invalid> {
    let key = fields.text("key")?;
    let label = fields.text("label")?;
    let value = match fields.get("value") {
        Some(Value::String(text)) => StatValue::Text(text.clone()),
        Some(Value::Number(_)) => StatValue::Number(fields.number("value")?),
        None => return Err(fields.invalid("value", "required, a string or number")),
        Some(other) => {
            return Err(fields.invalid(
                "value",
                format!("must be a string or number (got {})", shown(other)),
            ));
        }
    };
    let diff = match fields.opt_object("diff")? {
        None => None,
        Some(diff) => Some(Diff {
            value: diff.number("value")?,
            decimals: diff.opt_decimals("decimals")?,
            up_is_positive: diff.opt_bool("upIsPositive")?,
            label: diff.opt_text("label")?,
        }),
    };
    let sparkline = match fields.opt_object("sparkline")? {
        None => None,
        Some(line) => {
            let data = line.opt_numbers("data", MAX_SPARKLINE)?;
            let data =
                data.ok_or_else(|| line.invalid("data", "required, a list of at least 2 numbers"))?;
            if data.len() < 2 {
                return Err(line.invalid(
                    "data",
                    format!("must have at least 2 items (got {})", data.len()),
                ));
            }
            Some(Sparkline {
                data,
                color: line.opt_color("color")?,
            })
        }
    };
    Ok(Stat {
        key,
        label,
        value,
        format: format(fields)?,
        diff,
        sparkline,
    })
}

fn format(fields: &Fields<'_>) -> Result<Option<StatFormat>, Invalid> {
    let Some(format) = fields.opt_object("format")? else {
        return Ok(None);
    };
    let kind = format.one_of("kind", None)?;
    let currency = format.opt_currency("currency")?;
    if kind == StatFormatKind::Currency && currency.is_none() {
        return Err(format.invalid(
            "currency",
            "required for a currency, a three-letter ISO 4217 code",
        ));
    }
    Ok(Some(StatFormat {
        kind,
        decimals: format.opt_decimals("decimals")?,
        compact: format.opt_bool("compact")?,
        currency,
        basis: format.opt_one_of("basis")?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::refusal;
    use serde_json::json;

    fn display(stat: Value) -> Value {
        json!({"id": "stats-display-q3", "stats": [stat]})
    }

    #[test]
    fn a_stat_reads_its_format_diff_and_sparkline() {
        let stats = parse(&display(
            json!({"key": "revenue", "label": "Revenue", "value": 1250000,
            "format": {"kind": "currency", "currency": "USD", "compact": true},
            "diff": {"value": 12.5, "decimals": 1},
            "sparkline": {"data": [1, 3, 2], "color": "#22c55e"}}),
        ))
        .expect("valid");
        let stat = stats.stats.first().expect("one stat");
        assert_eq!(stat.value, StatValue::Number(1_250_000.0));
        assert_eq!(stat.sparkline.as_ref().map(|s| s.data.len()), Some(3));
    }

    #[test]
    fn a_stat_value_may_be_text() {
        let stats = parse(&display(
            json!({"key": "status", "label": "Status", "value": "Healthy"}),
        ))
        .expect("valid");
        assert_eq!(
            stats.stats.first().map(|s| s.value.clone()),
            Some(StatValue::Text("Healthy".into()))
        );
    }

    #[test]
    fn a_stat_value_given_as_a_list_is_refused() {
        let refused = refusal(parse(&display(
            json!({"key": "k", "label": "L", "value": [1]}),
        )));
        assert_eq!(
            refused,
            "stats[0].value: must be a string or number (got a list)"
        );
    }

    #[test]
    fn a_sparkline_of_one_point_is_refused() {
        let refused = refusal(parse(&display(
            json!({"key": "k", "label": "L", "value": 1, "sparkline": {"data": [1]}}),
        )));
        assert_eq!(
            refused,
            "stats[0].sparkline.data: must have at least 2 items (got 1)"
        );
    }

    #[test]
    fn a_currency_stat_without_a_code_is_refused() {
        let refused = refusal(parse(&display(
            json!({"key": "k", "label": "L", "value": 1, "format": {"kind": "currency"}}),
        )));
        assert!(
            refused.starts_with("stats[0].format.currency: required"),
            "{refused}"
        );
    }

    #[test]
    fn a_display_without_stats_is_refused() {
        assert_eq!(
            refusal(parse(&json!({"id": "s"}))),
            "stats: required, a list of at least 1 item"
        );
    }
}
