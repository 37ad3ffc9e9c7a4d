//! data_table: sortable columns (none → ascending → descending), cells written in their
//! column's format, numbers right-aligned, and the table copied as CSV.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use leptos::prelude::*;

use super::format::grouped;
use crate::catalog::table::{
    Cell, Column, ColumnAlign, DataTable, Format, FormatKind, Scalar, Sort, SortDirection,
};
use crate::components::copy::copy_from_button;

fn scalar_text(value: &Scalar, format: Option<&Format>) -> String {
    let decimals = |default: usize| {
        format
            .and_then(|f| f.decimals)
            .and_then(|d| usize::try_from(d.clamp(0, 10)).ok())
            .unwrap_or(default)
    };
    match (value, format.map(|f| f.kind)) {
        (Scalar::Null, _) => "—".to_owned(),
        (Scalar::Bool(on), _) => if *on { "Yes" } else { "No" }.to_owned(),
        (Scalar::Number(n), Some(FormatKind::Percent)) => {
            format!("{}%", grouped(n * 100.0, decimals(0)))
        }
        (Scalar::Number(n), Some(FormatKind::Currency)) => {
            let code = format.and_then(|f| f.currency.clone()).unwrap_or_default();
            format!("{} {code}", grouped(*n, decimals(2)))
                .trim()
                .to_owned()
        }
        (Scalar::Number(n), _) if n.fract() == 0.0 && n.abs() < 1e15 => grouped(*n, decimals(0)),
        (Scalar::Number(n), _) => grouped(*n, decimals(2)),
        (Scalar::Text(text), _) => text.clone(),
    }
}

fn cell_text(cell: Option<&Cell>, format: Option<&Format>) -> String {
    match cell {
        None => String::new(),
        Some(Cell::One(value)) => scalar_text(value, format),
        Some(Cell::List(values)) => values
            .iter()
            .map(|v| scalar_text(v, format))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

fn is_numeric(column: &Column, rows: &[BTreeMap<String, Cell>]) -> bool {
    matches!(
        column.format.as_ref().map(|f| f.kind),
        Some(FormatKind::Number | FormatKind::Currency | FormatKind::Percent)
    ) || rows.iter().all(|row| {
        matches!(
            row.get(&column.key),
            Some(Cell::One(Scalar::Number(_) | Scalar::Null)) | None
        )
    })
}

fn compare(a: Option<&Cell>, b: Option<&Cell>) -> Ordering {
    let key = |cell: Option<&Cell>| match cell {
        Some(Cell::One(Scalar::Number(n))) => (0, *n, String::new()),
        Some(Cell::One(Scalar::Bool(on))) => (0, f64::from(u8::from(*on)), String::new()),
        Some(Cell::One(Scalar::Text(text))) => (1, 0.0, text.to_lowercase()),
        Some(Cell::List(list)) => (1, 0.0, format!("{list:?}")),
        Some(Cell::One(Scalar::Null)) | None => (2, 0.0, String::new()),
    };
    let (a, b) = (key(a), key(b));
    a.0.cmp(&b.0)
        .then(a.1.partial_cmp(&b.1).unwrap_or(Ordering::Equal))
        .then(a.2.cmp(&b.2))
}

/// A cell in its column's kind: a web address in a `link` column opens safely (anything
/// else stays text), a `badge` is a chip.
fn cell_view(text: String, kind: Option<FormatKind>) -> AnyView {
    match kind {
        Some(FormatKind::Link) => match crate::markdown::safe_media_src(&text) {
            Some(href) => view! {
                <a href=href rel="noopener noreferrer" target="_blank">{text}<span class="visually-hidden">" (opens in a new tab)"</span></a>
            }
            .into_any(),
            None => text.into_any(),
        },
        Some(FormatKind::Badge) if !text.is_empty() => view! { <span class="badge">{text}</span> }.into_any(),
        _ => text.into_any(),
    }
}

/// One CSV field, quoted when it must be; a leading formula character is neutralised so a
/// spreadsheet never runs an agent's cell.
fn csv_field(text: &str) -> String {
    let text = if text.starts_with(['=', '+', '-', '@']) && text.parse::<f64>().is_err() {
        format!("'{text}")
    } else {
        text.to_owned()
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// The table as CSV: raw values (not formatted), header first.
pub fn to_csv(columns: &[Column], rows: &[BTreeMap<String, Cell>]) -> String {
    let raw = |cell: Option<&Cell>| match cell {
        Some(Cell::One(Scalar::Number(n))) => n.to_string(),
        Some(Cell::One(Scalar::Text(t))) => t.clone(),
        Some(Cell::One(Scalar::Bool(b))) => b.to_string(),
        Some(Cell::List(list)) => list
            .iter()
            .map(|v| match v {
                Scalar::Text(t) => t.clone(),
                Scalar::Number(n) => n.to_string(),
                Scalar::Bool(b) => b.to_string(),
                Scalar::Null => String::new(),
            })
            .collect::<Vec<_>>()
            .join("; "),
        Some(Cell::One(Scalar::Null)) | None => String::new(),
    };
    let mut out = columns
        .iter()
        .map(|c| csv_field(&c.label))
        .collect::<Vec<_>>()
        .join(",");
    out.push_str("\r\n");
    for row in rows {
        out.push_str(
            &columns
                .iter()
                .map(|c| csv_field(&raw(row.get(&c.key))))
                .collect::<Vec<_>>()
                .join(","),
        );
        out.push_str("\r\n");
    }
    out
}

#[component]
pub fn DataTableView(table: DataTable) -> impl IntoView {
    let sort = RwSignal::new(table.sort.clone().or(table.default_sort.clone()));
    let columns = table.columns.clone();
    let rows = table.data.clone();
    let numeric: Vec<bool> = columns.iter().map(|c| is_numeric(c, &rows)).collect();
    let csv = to_csv(&columns, &rows);
    let order = {
        let rows = rows.clone();
        move || {
            let mut order: Vec<usize> = (0..rows.len()).collect();
            if let Some(Sort { by, direction }) = sort.get() {
                order.sort_by(|a, b| {
                    let ordering = compare(rows[*a].get(&by), rows[*b].get(&by));
                    if direction == SortDirection::Desc {
                        ordering.reverse()
                    } else {
                        ordering
                    }
                });
            }
            order
        }
    };
    let header = columns.iter().enumerate().map(|(n, column)| {
        let key = column.key.clone();
        let label = column.label.clone();
        let state = {
            let key = key.clone();
            move || sort.with(|s| s.as_ref().filter(|s| s.by == key).map(|s| s.direction))
        };
        let aria_sort = {
            let state = state.clone();
            move || match state() { Some(SortDirection::Asc) => "ascending", Some(SortDirection::Desc) => "descending", None => "none" }
        };
        let class = if numeric[n] || column.align == Some(ColumnAlign::Right) { "num" } else { "" };
        let next_label = {
            let (state, label) = (state.clone(), label.clone());
            move || match state() {
                None => format!("Sort by {label} (ascending)"),
                Some(SortDirection::Asc) => format!("Sort by {label} (descending)"),
                Some(SortDirection::Desc) => format!("Stop sorting by {label}"),
            }
        };
        let cycle_state = state.clone();
        let cycle = move |_| {
            let next = match cycle_state() {
                None => Some(Sort { by: key.clone(), direction: SortDirection::Asc }),
                Some(SortDirection::Asc) => Some(Sort { by: key.clone(), direction: SortDirection::Desc }),
                Some(SortDirection::Desc) => None,
            };
            sort.set(next);
        };
        let abbr = column.abbr.clone();
        if column.sortable {
            view! {
                <th scope="col" class=class aria-sort=aria_sort>
                    <button type="button" class="sort-button" aria-label=next_label on:click=cycle>
                        {abbr.map_or_else(|| label.clone().into_any(), |abbr| view! { <abbr title=label.clone()>{abbr}</abbr> }.into_any())}
                        <span aria-hidden="true" class="sort-mark">{move || match state() { Some(SortDirection::Asc) => "▲", Some(SortDirection::Desc) => "▼", None => "↕" }}</span>
                    </button>
                </th>
            }
            .into_any()
        } else {
            view! { <th scope="col" class=class>{label}</th> }.into_any()
        }
    }).collect_view();
    let body = {
        let (columns, rows, numeric) = (columns.clone(), rows.clone(), numeric.clone());
        move || {
            order().into_iter().map(|r| {
                let row = &rows[r];
                view! {
                    <tr>
                        {columns.iter().enumerate().map(|(n, column)| {
                            let text = cell_text(row.get(&column.key), column.format.as_ref());
                            let class = if numeric[n] || column.align == Some(ColumnAlign::Right) { "num" } else if column.align == Some(ColumnAlign::Center) { "center" } else { "" };
                            view! { <td class=class>{cell_view(text, column.format.as_ref().map(|f| f.kind))}</td> }
                        }).collect_view()}
                    </tr>
                }
            }).collect_view()
        }
    };
    let empty = rows.is_empty().then(|| {
        table
            .empty_message
            .clone()
            .unwrap_or_else(|| "No rows".to_owned())
    });
    view! {
        <section class="catalog data-table-surface" data-slot="data_table" data-tool-ui-id=table.base.id.clone() aria-label="Table">
            <div class="catalog-head">
                <span class="muted">{format!("{} rows", rows.len())}</span>
                <button type="button" class="button small ghost" aria-label="Copy as CSV"
                    on:click=move |event| copy_from_button(&event, csv.clone(), "Copy CSV")>"Copy CSV"</button>
            </div>
            <div class="table-scroll">
                <table class="data-table">
                    <thead><tr>{header}</tr></thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
            {empty.map(|text| view! { <p class="muted" role="status">{text}</p> })}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "ssr")]
    #[test]
    fn a_link_column_links_only_web_addresses() {
        let html = |text: &str| {
            Owner::new().with(|| cell_view(text.to_owned(), Some(FormatKind::Link)).to_html())
        };
        assert!(
            html("https://example.org/x")
                .starts_with("<a href=\"https://example.org/x\" rel=\"noopener noreferrer\"")
        );
        assert!(!html("javascript:alert(1)").contains("<a"));
        assert!(!html("mailto:ops@example.org").contains("<a"));
    }

    #[test]
    fn csv_quotes_what_it_must_and_disarms_formulas() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(csv_field("-5"), "-5");
    }
}
