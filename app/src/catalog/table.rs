//! `data_table`: rows of primitive cells under typed, sortable columns.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use super::actions::{self, ResponseActions};
use super::values::shown;
use super::{Base, Fields, Invalid, unique};

choice! {
    ColumnAlign { Left = "left", Right = "right", Center = "center" }
}

choice! {
    /// Which columns survive on a narrow screen.
    Priority { Primary = "primary", Secondary = "secondary", Tertiary = "tertiary" }
}

choice! {
    /// How a column's cells are written.
    FormatKind {
        Number = "number",
        Currency = "currency",
        Percent = "percent",
        Date = "date",
        Boolean = "boolean",
        Link = "link",
        Badge = "badge",
        Text = "text",
    }
}

choice! {
    SortDirection { Asc = "asc", Desc = "desc" }
}

choice! {
    Layout { Auto = "auto", Table = "table", Cards = "cards" }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DataTable {
    #[serde(flatten)]
    pub base: Base,
    pub columns: Vec<Column>,
    pub data: Vec<BTreeMap<String, Cell>>,
    pub row_id_key: Option<String>,
    pub default_sort: Option<Sort>,
    pub sort: Option<Sort>,
    pub empty_message: Option<String>,
    pub max_height: Option<String>,
    pub locale: Option<String>,
    pub layout: Option<Layout>,
    pub response_actions: Option<ResponseActions>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Column {
    pub key: String,
    pub label: String,
    pub abbr: Option<String>,
    pub sortable: bool,
    pub align: Option<ColumnAlign>,
    pub width: Option<String>,
    pub truncate: bool,
    pub priority: Option<Priority>,
    pub hide_on_mobile: bool,
    pub format: Option<Format>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Format {
    pub kind: FormatKind,
    pub decimals: Option<i64>,
    /// ISO 4217 code; required for `currency`.
    pub currency: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sort {
    pub by: String,
    pub direction: SortDirection,
}

/// One cell: a primitive, or a list of them (tags, a series of readings).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Cell {
    One(Scalar),
    List(Vec<Scalar>),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Scalar {
    Null,
    Bool(bool),
    Number(f64),
    Text(String),
}

const MAX_ROWS: usize = 10_000;
const MAX_COLUMNS: usize = 100;
const MAX_ROW_FIELDS: usize = 200;
const MAX_CELL_ITEMS: usize = 100;

pub fn parse(value: &Value) -> Result<DataTable, Invalid> {
    let fields = Fields::of(value, "")?;
    let base = Base::surface(&fields)?;
    let columns = fields
        .list("columns", 1, MAX_COLUMNS)?
        .iter()
        .map(column)
        .collect::<Result<Vec<_>, _>>()?;
    unique(
        &fields.path_of("columns"),
        "key",
        columns.iter().map(|c| c.key.as_str()),
    )?;
    let data_path = fields.path_of("data");
    let data = fields
        .list("data", 0, MAX_ROWS)?
        .iter()
        .map(row)
        .collect::<Result<Vec<_>, _>>()?;
    let row_id_key = fields.opt_nonblank("rowIdKey")?;
    if let Some(key) = &row_id_key {
        row_ids(&data_path, key, &data)?;
    }
    let sort_by = |key: &str| -> Result<Option<Sort>, Invalid> {
        let Some(sort) = fields.opt_object(key)? else {
            return Ok(None);
        };
        let by = sort.text("by")?;
        if !columns.iter().any(|c| c.key == by) {
            return Err(sort.invalid(
                "by",
                format!("must name a column (got {})", shown(&Value::from(by))),
            ));
        }
        Ok(Some(Sort {
            by,
            direction: sort.one_of("direction", Some(SortDirection::Asc))?,
        }))
    };
    Ok(DataTable {
        default_sort: sort_by("defaultSort")?,
        sort: sort_by("sort")?,
        base,
        data,
        row_id_key,
        empty_message: fields.opt_text("emptyMessage")?,
        max_height: fields.opt_css_length("maxHeight")?,
        locale: fields.opt_nonblank("locale")?,
        layout: fields.opt_one_of("layout")?,
        response_actions: actions::read(&fields, "responseActions")?,
        columns,
    })
}

fn column(fields: &Fields<'_>) -> Result<Column, Invalid> {
    Ok(Column {
        key: fields.text("key")?,
        label: fields.text("label")?,
        abbr: fields.opt_text("abbr")?,
        sortable: fields.bool_or("sortable", true)?,
        align: fields.opt_one_of("align")?,
        width: fields.opt_css_length("width")?,
        truncate: fields.bool_or("truncate", false)?,
        priority: fields.opt_one_of("priority")?,
        hide_on_mobile: fields.bool_or("hideOnMobile", false)?,
        format: format(fields)?,
    })
}

/// A column format: `"percent"`, or `{kind, decimals?, currency?}`.
fn format(fields: &Fields<'_>) -> Result<Option<Format>, Invalid> {
    let format = if fields.get("format").is_some_and(Value::is_string) {
        let kind = fields.one_of("format", None)?;
        Format {
            kind,
            decimals: None,
            currency: None,
        }
    } else if let Some(format) = fields.opt_object("format")? {
        Format {
            kind: format.one_of("kind", None)?,
            decimals: format.opt_decimals("decimals")?,
            currency: format.opt_currency("currency")?,
        }
    } else {
        return Ok(None);
    };
    if format.kind == FormatKind::Currency && format.currency.is_none() {
        let reason = "a currency column needs {kind: \"currency\", currency: \"USD\"}";
        return Err(fields.invalid("format", reason));
    }
    Ok(Some(format))
}

fn row(fields: &Fields<'_>) -> Result<BTreeMap<String, Cell>, Invalid> {
    let map: &Map<String, Value> = fields.map();
    if map.len() > MAX_ROW_FIELDS {
        return Err(Invalid::new(
            fields.path(),
            format!(
                "must have at most {MAX_ROW_FIELDS} fields (got {})",
                map.len()
            ),
        ));
    }
    map.iter()
        .map(|(key, value)| {
            let at = fields.path_of(key);
            let cell = match value {
                Value::Array(items) if items.len() > MAX_CELL_ITEMS => {
                    let reason = format!(
                        "must have at most {MAX_CELL_ITEMS} items (got {})",
                        items.len()
                    );
                    return Err(Invalid::new(at, reason));
                }
                Value::Array(items) => Cell::List(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, item)| {
                            scalar(item).ok_or_else(|| not_primitive(format!("{at}[{i}]"), item))
                        })
                        .collect::<Result<_, _>>()?,
                ),
                other => Cell::One(scalar(other).ok_or_else(|| not_primitive(at, other))?),
            };
            Ok((key.clone(), cell))
        })
        .collect()
}

fn scalar(value: &Value) -> Option<Scalar> {
    match value {
        Value::Null => Some(Scalar::Null),
        Value::Bool(b) => Some(Scalar::Bool(*b)),
        Value::Number(n) => n.as_f64().filter(|n| n.is_finite()).map(Scalar::Number),
        Value::String(t) => Some(Scalar::Text(t.clone())),
        Value::Array(_) | Value::Object(_) => None,
    }
}

fn not_primitive(at: String, value: &Value) -> Invalid {
    Invalid::new(
        at,
        format!(
            "must be a string, number, true, false or null (got {})",
            shown(value)
        ),
    )
}

/// Every row carries a distinct string or number under `key`: it keys the rendered rows.
fn row_ids(data_path: &str, key: &str, data: &[BTreeMap<String, Cell>]) -> Result<(), Invalid> {
    let ids = data
        .iter()
        .enumerate()
        .map(|(i, row)| match row.get(key) {
            Some(Cell::One(Scalar::Text(text))) => Ok(text.clone()),
            Some(Cell::One(Scalar::Number(n))) => Ok(n.to_string()),
            _ => Err(Invalid::new(
                format!("{data_path}[{i}].{key}"),
                "required by rowIdKey, a string or number",
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    unique(data_path, key, ids.iter().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::refusal;
    use serde_json::json;

    fn table(extra: Value) -> Value {
        let mut value = json!({"id": "data-table-expenses",
            "columns": [{"key": "name", "label": "Name"},
                        {"key": "price", "label": "Price", "align": "right",
                            "format": {"kind": "currency", "currency": "USD", "decimals": 2}},
                        {"key": "share", "label": "Share", "format": "percent"}],
            "data": [{"id": 1, "name": "Widget", "price": 29.99, "share": 0.4,
                      "tags": ["new", 3, null]},
                     {"id": 2, "name": "Gadget", "price": null, "share": 0.6}]});
        if let (Some(map), Value::Object(more)) = (value.as_object_mut(), extra) {
            map.extend(more);
        }
        value
    }

    #[test]
    fn a_table_reads_columns_formats_and_rows() {
        let table = parse(&table(
            json!({"rowIdKey": "id", "defaultSort": {"by": "price", "direction": "desc"}}),
        ))
        .expect("valid");
        assert_eq!(
            table
                .columns
                .get(2)
                .and_then(|c| c.format.as_ref())
                .map(|f| f.kind),
            Some(FormatKind::Percent)
        );
        assert!(table.columns.iter().all(|c| c.sortable));
        assert_eq!(
            table.data.first().and_then(|r| r.get("price")),
            Some(&Cell::One(Scalar::Number(29.99)))
        );
        assert_eq!(
            table.default_sort.map(|s| s.direction),
            Some(SortDirection::Desc)
        );
    }

    #[test]
    fn a_sort_by_no_column_is_refused() {
        let refused = refusal(parse(&table(json!({"defaultSort": {"by": "cost"}}))));
        assert_eq!(refused, "defaultSort.by: must name a column (got \"cost\")");
    }

    #[test]
    fn a_nested_object_in_a_cell_is_refused() {
        let refused = refusal(parse(&table(json!({"data": [{"name": {"first": "A"}}]}))));
        assert_eq!(
            refused,
            "data[0].name: must be a string, number, true, false or null (got an object)"
        );
    }

    #[test]
    fn a_list_inside_a_list_cell_is_refused() {
        let refused = refusal(parse(&table(
            json!({"data": [{"name": "A"}, {"tags": [["x"]]}]}),
        )));
        assert_eq!(
            refused,
            "data[1].tags[0]: must be a string, number, true, false or null (got a list)"
        );
    }

    #[test]
    fn a_format_of_an_unknown_kind_is_refused() {
        let refused = refusal(parse(
            &json!({"id": "t", "columns": [{"key": "a", "label": "A",
                "format": {"kind": "emoji"}}]}),
        ));
        assert!(
            refused.starts_with("columns[0].format.kind: must be one of number, currency"),
            "{refused}"
        );
    }

    #[test]
    fn a_currency_column_without_a_code_is_refused() {
        let refused = refusal(parse(
            &json!({"id": "t", "columns": [{"key": "a", "label": "A", "format": "currency"}]}),
        ));
        assert!(
            refused.starts_with("columns[0].format: a currency column needs"),
            "{refused}"
        );
    }

    #[test]
    fn two_rows_with_one_row_id_are_refused() {
        let refused = refusal(parse(&table(
            json!({"rowIdKey": "name", "data": [{"name": "A"}, {"name": "A"}]}),
        )));
        assert_eq!(refused, "data[1].name: repeats data[0].name (\"A\")");
    }

    #[test]
    fn a_column_width_that_could_break_its_style_is_refused() {
        let refused = refusal(parse(
            &json!({"id": "t", "columns": [{"key": "a", "label": "A",
                "width": "1px;background:red"}]}),
        ));
        assert!(
            refused.starts_with("columns[0].width: must be a CSS length"),
            "{refused}"
        );
    }

    #[test]
    fn more_rows_than_the_cap_are_refused() {
        let rows = vec![json!({"name": "A"}); MAX_ROWS + 1];
        let refused = refusal(parse(&table(json!({"data": rows}))));
        assert_eq!(refused, "data: must have at most 10000 items (got 10001)");
    }
}
