//! `chart`: series of numbers over an x axis, drawn as bars, lines, areas or a pie (area
//! and pie extend tool-ui's bar and line).

use serde::Serialize;
use serde_json::Value;

use super::values::shown;
use super::{Base, Fields, Invalid, unique};

choice! {
    ChartType { Bar = "bar", Line = "line", Area = "area", Pie = "pie" }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Chart {
    #[serde(flatten)]
    pub base: Base,
    #[serde(rename = "type")]
    pub chart_type: ChartType,
    pub title: Option<String>,
    pub description: Option<String>,
    pub x_key: String,
    pub series: Vec<Series>,
    /// One point per data row, in order.
    pub data: Vec<Point>,
    /// The palette series take in order when they name no colour.
    pub colors: Option<Vec<String>>,
    pub show_legend: Option<bool>,
    pub show_grid: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Series {
    pub key: String,
    pub label: String,
    pub color: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Point {
    pub x: XValue,
    /// One value per series, in series order; `None` is a gap.
    pub values: Vec<Option<f64>>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum XValue {
    Text(String),
    Number(f64),
}

const MAX_POINTS: usize = 5_000;
const MAX_SERIES: usize = 20;
const MAX_COLORS: usize = 50;

pub fn parse(value: &Value) -> Result<Chart, Invalid> {
    let fields = Fields::of(value, "")?;
    let base = Base::surface(&fields)?;
    let chart_type = fields.one_of("type", None)?;
    let x_key = fields.text("xKey")?;
    let series = fields
        .list("series", 1, MAX_SERIES)?
        .iter()
        .map(|s| {
            Ok(Series {
                key: s.text("key")?,
                label: s.text("label")?,
                color: s.opt_color("color")?,
            })
        })
        .collect::<Result<Vec<_>, Invalid>>()?;
    let series_path = fields.path_of("series");
    unique(&series_path, "key", series.iter().map(|s| s.key.as_str()))?;
    if let Some(i) = series.iter().position(|s| s.key == x_key) {
        return Err(Invalid::new(
            format!("{series_path}[{i}].key"),
            "must differ from xKey",
        ));
    }
    if chart_type == ChartType::Pie && series.len() != 1 {
        let reason = format!("a pie chart shows one series (got {})", series.len());
        return Err(Invalid::new(series_path, reason));
    }
    let data = fields
        .list("data", 1, MAX_POINTS)?
        .iter()
        .map(|row| point(row, &x_key, &series, chart_type))
        .collect::<Result<Vec<_>, _>>()?;
    let colors = fields.opt_colors("colors", MAX_COLORS)?;
    if colors.as_ref().is_some_and(Vec::is_empty) {
        return Err(fields.invalid("colors", "must have at least 1 item when given"));
    }
    Ok(Chart {
        base,
        chart_type,
        title: fields.opt_text("title")?,
        description: fields.opt_text("description")?,
        x_key,
        series,
        data,
        colors,
        show_legend: fields.opt_bool("showLegend")?,
        show_grid: fields.opt_bool("showGrid")?,
    })
}

fn point(
    row: &Fields<'_>,
    x_key: &str,
    series: &[Series],
    chart_type: ChartType,
) -> Result<Point, Invalid> {
    // Data keys are the agent's own names, read exactly as given.
    let at = |key: &str| format!("{}.{key}", row.path());
    let x = match row.map().get(x_key) {
        Some(Value::String(text)) => XValue::Text(text.clone()),
        Some(Value::Number(n)) => XValue::Number(n.as_f64().unwrap_or_default()),
        None => {
            return Err(Invalid::new(
                at(x_key),
                "required by xKey, a string or number",
            ));
        }
        Some(other) => {
            return Err(Invalid::new(
                at(x_key),
                format!("must be a string or number (got {})", shown(other)),
            ));
        }
    };
    let values = series
        .iter()
        .map(|s| match row.map().get(&s.key) {
            Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_f64().filter(|y| y.is_finite()) {
                Some(y) if chart_type == ChartType::Pie && y < 0.0 => Err(Invalid::new(
                    at(&s.key),
                    format!("a pie slice must be 0 or more (got {y})"),
                )),
                Some(y) => Ok(Some(y)),
                None => Err(Invalid::new(
                    at(&s.key),
                    format!("must be a finite number or null (got {n})"),
                )),
            },
            None => Err(Invalid::new(
                at(&s.key),
                "required by series, a number or null",
            )),
            Some(other) => Err(Invalid::new(
                at(&s.key),
                format!("must be a finite number or null (got {})", shown(other)),
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Point { x, values })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::refusal;
    use serde_json::json;

    fn chart(kind: &str, series: Value, data: Value) -> Value {
        json!({"id": "chart-revenue", "type": kind, "xKey": "month", "series": series,
            "data": data})
    }

    fn two_series() -> Value {
        json!([{"key": "revenue", "label": "Revenue", "color": "#3b82f6"}, {"key": "cost",
            "label": "Cost"}])
    }

    #[test]
    fn a_line_chart_reads_each_row_as_a_point_with_gaps() {
        let chart = parse(&chart(
            "line",
            two_series(),
            json!([
                {"month": "Jan", "revenue": 10, "cost": 4},
                {"month": "Feb", "revenue": 12.5, "cost": null}
            ]),
        ))
        .expect("valid");
        assert_eq!(
            chart.data.get(1),
            Some(&Point {
                x: XValue::Text("Feb".into()),
                values: vec![Some(12.5), None]
            })
        );
    }

    #[test]
    fn an_area_chart_with_numeric_x_values_is_read() {
        let chart = parse(&chart(
            "area",
            json!([{"key": "v", "label": "V"}]),
            json!([{"month": 1, "v": 2}]),
        ))
        .expect("valid");
        assert_eq!(chart.chart_type, ChartType::Area);
    }

    #[test]
    fn a_chart_with_duplicate_series_keys_is_refused() {
        let refused = refusal(parse(&chart(
            "bar",
            json!([{"key": "v", "label": "A"}, {"key": "v", "label": "B"}]),
            json!([{"month": "Jan", "v": 1}]),
        )));
        assert_eq!(refused, "series[1].key: repeats series[0].key (\"v\")");
    }

    #[test]
    fn a_row_without_an_x_value_is_refused() {
        let refused = refusal(parse(&chart(
            "bar",
            two_series(),
            json!([
                {"month": "Jan", "revenue": 1, "cost": 1}, {"revenue": 2, "cost": 2}
            ]),
        )));
        assert_eq!(
            refused,
            "data[1].month: required by xKey, a string or number"
        );
    }

    #[test]
    fn a_y_value_given_as_text_is_refused() {
        let refused = refusal(parse(&chart(
            "line",
            two_series(),
            json!([{"month": "Jan", "revenue": "10", "cost": 1}]),
        )));
        assert_eq!(
            refused,
            "data[0].revenue: must be a finite number or null (got \"10\")"
        );
    }

    #[test]
    fn a_pie_of_two_series_is_refused() {
        let refused = refusal(parse(&chart(
            "pie",
            two_series(),
            json!([{"month": "Jan", "revenue": 1, "cost": 1}]),
        )));
        assert_eq!(refused, "series: a pie chart shows one series (got 2)");
    }

    #[test]
    fn a_negative_pie_slice_is_refused() {
        let refused = refusal(parse(&chart(
            "pie",
            json!([{"key": "v", "label": "V"}]),
            json!([{"month": "Jan", "v": -1}]),
        )));
        assert_eq!(refused, "data[0].v: a pie slice must be 0 or more (got -1)");
    }

    #[test]
    fn a_chart_type_outside_the_four_is_refused() {
        let refused = refusal(parse(&chart("radar", two_series(), json!([]))));
        assert_eq!(
            refused,
            "type: must be one of bar, line, area, pie (got \"radar\")"
        );
    }

    #[test]
    fn a_colour_that_could_break_its_style_is_refused() {
        let mut value = chart(
            "bar",
            json!([{"key": "v", "label": "V"}]),
            json!([{"month": "Jan", "v": 1}]),
        );
        value["colors"] = json!(["#fff", "red;background:url(x)"]);
        assert!(refusal(parse(&value)).starts_with("colors[1]: must be a CSS colour"));
    }

    #[test]
    fn more_points_than_the_cap_are_refused() {
        let rows = vec![json!({"month": "Jan", "v": 1}); MAX_POINTS + 1];
        let refused = refusal(parse(&chart(
            "bar",
            json!([{"key": "v", "label": "V"}]),
            Value::Array(rows),
        )));
        assert_eq!(refused, "data: must have at most 5000 items (got 5001)");
    }
}
