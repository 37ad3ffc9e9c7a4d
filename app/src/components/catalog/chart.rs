//! `chart`: bar, line, area and pie as inline SVG, with every value again in a data table.
//! The geometry is pure functions here; colours come from a palette of classes, and a
//! payload's colour reaches the markup only as a checked `#hex`.

use std::f64::consts::TAU;

use leptos::prelude::*;

use super::format::{colour_style, full_number, grouped, short_number};
use crate::catalog::chart::{Chart, ChartType, XValue};

const WIDTH: f64 = 480.0;
const HEIGHT: f64 = 240.0;
const LEFT: f64 = 52.0;
const RIGHT: f64 = 8.0;
const TOP: f64 = 10.0;
const BOTTOM: f64 = 26.0;
/// The palette's size: `series-0` … `series-5` in the stylesheet.
const PALETTE: usize = 6;
/// Past this many points markers would merge into the line itself.
const MOST_MARKERS: usize = 60;
/// More x labels than this would overlap at the chart's width.
const MOST_X_LABELS: usize = 8;

fn x_text(x: &XValue) -> String {
    match x {
        XValue::Text(text) => text.clone(),
        XValue::Number(n) => full_number(*n),
    }
}

/// The pie's slices as `(start, end)` angles from twelve o'clock, proportional to the
/// values (a missing or non-positive one is an empty slice); together they close the circle.
pub fn pie_slices(values: &[Option<f64>]) -> Vec<(f64, f64)> {
    let clean: Vec<f64> = values
        .iter()
        .map(|v| v.filter(|v| v.is_finite() && *v > 0.0).unwrap_or(0.0))
        .collect();
    // Scaled by the largest first, so values near f64::MAX cannot overflow the sum.
    let largest = clean.iter().copied().fold(0.0, f64::max);
    let total: f64 = clean
        .iter()
        .map(|v| if largest > 0.0 { v / largest } else { 0.0 })
        .sum();
    let mut at = 0.0;
    let mut slices: Vec<(f64, f64)> = clean
        .iter()
        .map(|v| {
            let start = at;
            at += if total > 0.0 {
                v / largest / total * TAU
            } else {
                0.0
            };
            (start, at)
        })
        .collect();
    // Rounding must not leave a hairline gap at twelve o'clock.
    if let Some(last) = slices.iter_mut().rev().find(|(s, e)| e > s) {
        last.1 = TAU;
    }
    slices
}

fn arc_path((start, end): (f64, f64), cx: f64, cy: f64, r: f64) -> String {
    if end - start >= TAU - 1e-9 {
        // One slice is the whole circle, which a single arc cannot draw.
        return format!(
            "M {} {cy} a {r} {r} 0 1 0 {} 0 a {r} {r} 0 1 0 {} 0 Z",
            cx - r,
            2.0 * r,
            -2.0 * r
        );
    }
    let point = |angle: f64| (cx + r * angle.sin(), cy - r * angle.cos());
    let ((x0, y0), (x1, y1)) = (point(start), point(end));
    let large = u8::from(end - start > TAU / 2.0);
    format!("M {cx} {cy} L {x0:.2} {y0:.2} A {r} {r} 0 {large} 1 {x1:.2} {y1:.2} Z")
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let base = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * base)
        .find(|s| *s >= raw);
    step.filter(|s| s.is_finite()).unwrap_or(base)
}

/// Where a bar, line or area chart's values land: `band` wide columns per point and a y
/// scale from `low` to `high` (always holding zero).
#[derive(Clone, Copy)]
struct Frame {
    low: f64,
    high: f64,
    band: f64,
}

impl Frame {
    /// The frame for `points` columns over `values`; the bounds widen to round steps when
    /// that stays finite, and `step` is about a quarter of the span between them.
    fn new(points: usize, values: impl Iterator<Item = f64>) -> (Self, f64) {
        let (mut low, mut high) = values.fold((0.0_f64, 0.0_f64), |(l, h), v| (l.min(v), h.max(v)));
        if low == high {
            high = 1.0;
        }
        // Spans are taken by halves throughout, so one between ±f64::MAX stays finite.
        let step = Some(nice_step(high / 2.0 - low / 2.0) / 2.0)
            .filter(|s| s.is_normal())
            .unwrap_or(1.0);
        let (l, h) = ((low / step).floor() * step, (high / step).ceil() * step);
        if l.is_finite() && h.is_finite() {
            (low, high) = (l, h);
        }
        let band = (WIDTH - LEFT - RIGHT) / points.max(1) as f64;
        (Self { low, high, band }, step)
    }

    fn x(self, i: usize) -> f64 {
        LEFT + self.band * (i as f64 + 0.5)
    }

    fn y(self, v: f64) -> f64 {
        let share = (v / 2.0 - self.low / 2.0) / (self.high / 2.0 - self.low / 2.0);
        TOP + (HEIGHT - TOP - BOTTOM) * (1.0 - share)
    }
}

/// A coordinate as the SVG gets it.
fn at(v: f64) -> String {
    format!("{v:.2}")
}

/// Series `s`'s bars: each point's bar from the zero line, side by side with the others'.
fn bars(frame: Frame, values: &[Option<f64>], s: usize, count: usize) -> AnyView {
    let width = frame.band * 0.8 / count.max(1) as f64;
    let zero = frame.y(0.0);
    let drawn = values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| Some((i, (*v)?)));
    drawn
        .filter(|(_, v)| *v != 0.0)
        .map(|(i, v)| {
            let x = LEFT + frame.band * (i as f64 + 0.1) + width * s as f64;
            let (top, bottom) = (frame.y(v).min(zero), frame.y(v).max(zero));
            let height = at((bottom - top).max(0.5));
            view! { <rect x=at(x) y=at(top) width=at(width) height=height></rect> }
        })
        .collect_view()
        .into_any()
}

/// A series as a line (and, for an area chart, the area down to zero): a gap (null) ends
/// one stretch and the next value starts another; a lone value shows as its marker.
fn lines(frame: Frame, values: &[Option<f64>], area: bool) -> AnyView {
    let markers = values.len() <= MOST_MARKERS;
    let zero = at(frame.y(0.0));
    let mut start = 0;
    let mut stretches = Vec::new();
    for run in values.split(Option::is_none) {
        let xy: Vec<(String, String)> = run
            .iter()
            .flatten()
            .enumerate()
            .map(|(k, v)| (at(frame.x(start + k)), at(frame.y(*v))))
            .collect();
        start += run.len() + 1;
        if !xy.is_empty() {
            stretches.push(xy);
        }
    }
    let stretch = move |xy: Vec<(String, String)>| {
        let line = xy
            .iter()
            .map(|(x, y)| format!("{x},{y}"))
            .collect::<Vec<_>>()
            .join(" ");
        let (first, last) = (
            xy.first().map(|p| p.0.clone()),
            xy.last().map(|p| p.0.clone()),
        );
        let fill = area.then(|| {
            let (first, last) = (first.unwrap_or_default(), last.unwrap_or_default());
            view! { <polygon class="area" points=format!("{first},{zero} {line} {last},{zero}")></polygon> }
        });
        let dots = (markers || xy.len() == 1).then(|| {
            xy.into_iter()
                .map(|(cx, cy)| view! { <circle cx=cx cy=cy r="3"></circle> })
                .collect_view()
        });
        view! { {fill} <polyline class="line" points=line.clone()></polyline> {dots} }
    };
    stretches.into_iter().map(stretch).collect_view().into_any()
}

fn plot(chart: &Chart) -> AnyView {
    let values: Vec<Vec<Option<f64>>> = (0..chart.series.len())
        .map(|s| {
            chart
                .data
                .iter()
                .map(|p| p.values.get(s).copied().flatten())
                .collect()
        })
        .collect();
    let finite = values
        .iter()
        .flatten()
        .flatten()
        .copied()
        .filter(|v| v.is_finite());
    let (frame, step) = Frame::new(chart.data.len(), finite);
    let ticks = (0..12)
        .map(|k| frame.low + step * f64::from(k))
        .take_while(|t| *t <= frame.high + step / 1e6);
    let grid = chart.show_grid != Some(false);
    let tick_marks = ticks
        .map(|t| {
            let y = frame.y(t);
            view! {
                {grid.then(|| view! { <line class="grid" x1=LEFT x2=WIDTH - RIGHT y1=at(y) y2=at(y)></line> })}
                <text class="axis-label" x=LEFT - 6.0 y=at(y + 3.5) text-anchor="end">{short_number(t)}</text>
            }
        })
        .collect_view();
    let every = chart.data.len().div_ceil(MOST_X_LABELS).max(1);
    let x_labels = chart.data.iter().enumerate().step_by(every).map(|(i, p)| {
        let mut label = x_text(&p.x);
        if label.chars().count() > 10 {
            label = label.chars().take(9).chain(['…']).collect();
        }
        view! { <text class="axis-label" x=at(frame.x(i)) y=HEIGHT - 8.0 text-anchor="middle">{label}</text> }
    });
    let marks = values.iter().enumerate().map(|(s, values)| {
        let body = match chart.chart_type {
            ChartType::Bar => bars(frame, values, s, chart.series.len()),
            kind => lines(frame, values, kind == ChartType::Area),
        };
        let class = format!("series series-{}", s % PALETTE);
        view! { <g class=class style=colour_of(chart, s)>{body}</g> }
    });
    let zero = at(frame.y(0.0));
    view! {
        {tick_marks}
        <line class="axis" x1=LEFT x2=WIDTH - RIGHT y1=zero.clone() y2=zero></line>
        {marks.collect_view()}
        {x_labels.collect_view()}
    }
    .into_any()
}

/// Entry `i` of the payload's palette, if it gave one.
fn palette(chart: &Chart, i: usize) -> Option<&str> {
    let colours = chart.colors.as_deref().unwrap_or_default();
    colours.get(i % colours.len().max(1)).map(String::as_str)
}

/// Series `s`'s own colour, else the payload palette's, when either is a plain hex colour.
fn colour_of(chart: &Chart, s: usize) -> Option<String> {
    let named = chart
        .series
        .get(s)
        .and_then(|series| series.color.as_deref());
    named.or_else(|| palette(chart, s)).and_then(colour_style)
}

/// The slices in palette order (a pie's one series colour would make them all alike).
fn pie(chart: &Chart, slices: &[(f64, f64)]) -> AnyView {
    let (cx, cy, r) = (WIDTH / 2.0, HEIGHT / 2.0, HEIGHT / 2.0 - TOP);
    let drawn = slices
        .iter()
        .enumerate()
        .filter(|(_, (start, end))| end > start);
    drawn
        .map(|(i, slice)| {
            let class = format!("slice series-{}", i % PALETTE);
            let colour = palette(chart, i).and_then(colour_style);
            view! { <path class=class style=colour d=arc_path(*slice, cx, cy, r)></path> }
        })
        .collect_view()
        .into_any()
}

/// The key: each series, or for a pie each slice with its share.
fn legend(chart: &Chart, slices: &[(f64, f64)]) -> impl IntoView + use<> {
    let items: Vec<(String, Option<String>)> = if chart.chart_type == ChartType::Pie {
        let share = |(start, end): &(f64, f64)| grouped((end - start) / TAU * 100.0, 1);
        let items = chart.data.iter().zip(slices).enumerate();
        items
            .map(|(i, (p, slice))| {
                let colour = palette(chart, i).and_then(colour_style);
                (format!("{} ({}%)", x_text(&p.x), share(slice)), colour)
            })
            .collect()
    } else {
        let items = chart.series.iter().enumerate();
        items
            .map(|(s, series)| (series.label.clone(), colour_of(chart, s)))
            .collect()
    };
    let items = items.into_iter().enumerate().map(|(i, (text, colour))| {
        let class = format!("swatch series-{}", i % PALETTE);
        view! { <li><span class=class style=colour aria-hidden="true"></span>{text}</li> }
    });
    view! { <ul class="chart-legend">{items.collect_view()}</ul> }
}

fn cell(value: &Option<f64>) -> AnyView {
    let Some(value) = value else {
        return view! {
            <td class="num empty"><span aria-hidden="true">"—"</span><span class="visually-hidden">"no value"</span></td>
        }
        .into_any();
    };
    view! { <td class="num">{full_number(*value)}</td> }.into_any()
}

/// Every point again as a table row: the chart's text alternative.
fn data_table(chart: &Chart, caption: String) -> impl IntoView + use<> {
    let head = chart.series.iter().map(|s| s.label.clone());
    let rows = chart.data.iter().map(|p| {
        let cells = p.values.iter().map(cell).collect_view();
        view! { <tr><th scope="row">{x_text(&p.x)}</th>{cells}</tr> }
    });
    view! {
        <details class="chart-table">
            <summary>"Data table"</summary>
            <div class="chart-table-scroll">
                <table>
                    <caption class="visually-hidden">{caption}</caption>
                    <thead><tr>
                        <th scope="col">{chart.x_key.clone()}</th>
                        {head.map(|label| view! { <th scope="col" class="num">{label}</th> }).collect_view()}
                    </tr></thead>
                    <tbody>{rows.collect_view()}</tbody>
                </table>
            </div>
        </details>
    }
}

#[component]
pub fn ChartView(payload: Chart) -> impl IntoView {
    let kind = payload.chart_type;
    let title = payload.title.clone().unwrap_or_else(|| {
        let name = match kind {
            ChartType::Bar => "Bar chart",
            ChartType::Line => "Line chart",
            ChartType::Area => "Area chart",
            ChartType::Pie => "Pie chart",
        };
        name.to_owned()
    });
    let slices = if kind == ChartType::Pie {
        let first: Vec<Option<f64>> = payload
            .data
            .iter()
            .map(|p| p.values.first().copied().flatten())
            .collect();
        pie_slices(&first)
    } else {
        Vec::new()
    };
    let drawing = if kind == ChartType::Pie {
        pie(&payload, &slices)
    } else {
        plot(&payload)
    };
    let points = match payload.data.len() {
        1 => "1 point".to_owned(),
        n => format!("{n} points"),
    };
    let label = match &payload.title {
        Some(given) => format!("{given}: {} chart of {points}", kind.as_str()),
        None => format!("{title} of {points}"),
    };
    let keyed =
        payload.show_legend != Some(false) && (kind == ChartType::Pie || payload.series.len() > 1);
    view! {
        <figure class="catalog-chart" data-slot="chart" data-tool-ui-id=payload.base.id.clone()
            data-type=kind.as_str()>
            <figcaption>
                <strong class="chart-title">{title.clone()}</strong>
                {payload.description.clone().map(|d| view! { <span class="muted">{d}</span> })}
            </figcaption>
            <svg class="chart-svg" viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img"
                aria-label=format!("{label}; the data table lists every value")>
                {drawing}
            </svg>
            {keyed.then(|| legend(&payload, &slices))}
            {data_table(&payload, title)}
        </figure>
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use serde_json::json;

    fn chart(value: serde_json::Value) -> Chart {
        crate::catalog::chart::parse(&value).expect("a valid chart")
    }

    fn html(payload: Chart) -> String {
        Owner::new().with(|| view! { <ChartView payload /> }.to_html())
    }

    #[test]
    fn a_pies_slices_close_the_circle_whatever_the_numbers() {
        for values in [
            vec![Some(48.0), Some(37.0), Some(15.0)],
            vec![Some(1e308), Some(1e308), Some(f64::MAX)],
            vec![Some(5.0), None, Some(0.0), Some(5.0)],
            vec![Some(3.0)],
        ] {
            let slices = pie_slices(&values);
            let swept: f64 = slices.iter().map(|(s, e)| e - s).sum();
            assert!((swept - TAU).abs() < 1e-9, "{values:?}: {swept}");
            assert!(
                slices.windows(2).all(|w| w[0].1 == w[1].0),
                "{values:?}: not contiguous"
            );
        }
        assert!(pie_slices(&[None, Some(0.0)]).iter().all(|(s, e)| s == e));
    }

    #[test]
    fn the_data_table_lists_every_point_gaps_negatives_and_huge_numbers() {
        let page = html(chart(
            json!({"id": "chart-t", "type": "line", "title": "Load", "xKey": "day",
            "series": [{"key": "a", "label": "A"}, {"key": "b", "label": "B"}],
            "data": [{"day": "Mon", "a": 1_250_000, "b": null}, {"day": "Tue", "a": -3.5, "b": 1e300},
                {"day": "Wed", "a": null, "b": 0}]}),
        ));
        let table = page.split("<tbody>").nth(1).expect("a table body");
        for text in [
            "Mon",
            "Tue",
            "Wed",
            "1,250,000",
            "-3.5",
            "1.0e300",
            ">0<",
            "no value",
        ] {
            assert!(table.contains(text), "{text} missing from {table}");
        }
        assert_eq!(table.matches("<tr>").count(), 3);
        assert!(page.contains("role=\"img\"") && page.contains("aria-label=\"Load: line chart"));
        assert!(!page.contains("NaN") && !page.contains("inf"), "{page}");
    }

    #[test]
    fn a_payload_colour_reaches_the_markup_only_as_hex() {
        for kind in ["bar", "pie", "area"] {
            let mut payload = chart(json!({"id": "chart-c", "type": kind, "xKey": "x",
                "series": [{"key": "y", "label": "Y"}], "data": [{"x": "only", "y": 4}]}));
            payload.colors = Some(vec!["red;background:url(x)".to_owned()]);
            let hostile = html(payload.clone());
            assert!(
                !hostile.contains("url(") && !hostile.contains("red;"),
                "{hostile}"
            );
            payload.colors = Some(vec!["#22c55e".to_owned()]);
            let safe = html(payload);
            assert!(safe.contains("style=\"--series: #22c55e"), "{safe}");
        }
    }
}
