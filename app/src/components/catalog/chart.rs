//! Charts drawn as SVG — bar, line, area and pie — each with its data as a table under
//! "Data table" (the accessible alternative), and headline figures with a sparkline.
//! Colours come from a fixed palette by series; no payload text reaches a style.

use std::f64::consts::TAU;

use leptos::prelude::*;

use super::table::grouped;
use crate::catalog::chart::{Chart, ChartType, Point, XValue};
use crate::catalog::stats::{StatFormatKind, StatValue, StatsDisplay};

const WIDTH: f64 = 480.0;
const HEIGHT: f64 = 240.0;
const LEFT: f64 = 56.0;
const BOTTOM: f64 = 28.0;
const TOP: f64 = 12.0;

/// `1234567` as "1.2M": short enough for an axis, for any size of number.
pub fn short_number(value: f64) -> String {
    if !value.is_finite() {
        return "—".to_owned();
    }
    let magnitude = value.abs();
    let (scaled, suffix) = match magnitude {
        m if m >= 1e15 => return format!("{value:.1e}"),
        m if m >= 1e12 => (value / 1e12, "T"),
        m if m >= 1e9 => (value / 1e9, "B"),
        m if m >= 1e6 => (value / 1e6, "M"),
        m if m >= 1e4 => (value / 1e3, "k"),
        _ => (value, ""),
    };
    if suffix.is_empty() && scaled.fract() == 0.0 {
        format!("{scaled:.0}")
    } else if suffix.is_empty() {
        format!("{scaled:.2}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_owned()
    } else {
        format!("{scaled:.1}{suffix}")
    }
}

fn x_text(x: &XValue) -> String {
    match x {
        XValue::Text(text) => text.clone(),
        XValue::Number(n) => short_number(*n),
    }
}

/// The pie's slices as `(start, end)` angles in radians, proportional to the values
/// (negative and missing values count as nothing); they cover the circle exactly.
pub fn pie_angles(values: &[Option<f64>]) -> Vec<(f64, f64)> {
    let clean: Vec<f64> = values
        .iter()
        .map(|v| v.filter(|v| v.is_finite() && *v > 0.0).unwrap_or(0.0))
        .collect();
    // Scaled first, so numbers near f64::MAX cannot overflow the sum.
    let largest = clean.iter().copied().fold(0.0_f64, f64::max);
    let scaled: Vec<f64> = clean
        .iter()
        .map(|v| if largest > 0.0 { v / largest } else { 0.0 })
        .collect();
    let total: f64 = scaled.iter().sum();
    let mut at = 0.0;
    scaled
        .iter()
        .map(|v| {
            let start = at;
            at += if total > 0.0 { v / total * TAU } else { 0.0 };
            (start, at)
        })
        .collect()
}

fn arc_path(start: f64, end: f64, cx: f64, cy: f64, r: f64) -> String {
    if end - start >= TAU - 1e-9 {
        return format!(
            "M {} {cy} a {r} {r} 0 1 0 {} 0 a {r} {r} 0 1 0 {} 0",
            cx - r,
            2.0 * r,
            -2.0 * r
        );
    }
    let point = |angle: f64| (cx + r * angle.sin(), cy - r * angle.cos());
    let (x0, y0) = point(start);
    let (x1, y1) = point(end);
    let large = i32::from(end - start > TAU / 2.0);
    format!("M {cx} {cy} L {x0:.2} {y0:.2} A {r} {r} 0 {large} 1 {x1:.2} {y1:.2} Z")
}

/// The y range of every finite value, always including zero.
fn y_range(points: &[Point]) -> (f64, f64) {
    let values = points
        .iter()
        .flat_map(|p| p.values.iter().flatten().copied())
        .filter(|v| v.is_finite());
    let (low, high) = values.fold((0.0_f64, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if high - low <= 0.0 || !(high - low).is_finite() {
        (low.min(0.0) / 2.0, (high / 2.0).max(1.0))
    } else {
        (low, high)
    }
}

fn plot(chart: &Chart) -> AnyView {
    let n = chart.data.len().max(1) as f64;
    let (low, high) = y_range(&chart.data);
    // Halved so that spans near f64::MAX stay finite.
    let span = high / 2.0 - low / 2.0;
    let y_of = |v: f64| TOP + (HEIGHT - TOP - BOTTOM) * (1.0 - (v / 2.0 - low / 2.0) / span);
    let band = (WIDTH - LEFT) / n;
    let x_of = |i: usize| LEFT + band * (i as f64 + 0.5);
    let series_count = chart.series.len().max(1);
    let zero = y_of(0.0_f64.clamp(low, high));
    let marks = chart.series.iter().enumerate().map(|(s, _)| {
        let class = format!("series series-{}", s % 6);
        let values: Vec<Option<f64>> = chart.data.iter().map(|p| p.values.get(s).copied().flatten().filter(|v| v.is_finite())).collect();
        match chart.chart_type {
            ChartType::Bar | ChartType::Pie => {
                let width = band * 0.8 / series_count as f64;
                values.iter().enumerate().filter_map(|(i, v)| v.map(|v| (i, v))).map(|(i, v)| {
                    let x = LEFT + band * i as f64 + band * 0.1 + width * s as f64;
                    let (y, h) = if y_of(v) < zero { (y_of(v), zero - y_of(v)) } else { (zero, y_of(v) - zero) };
                    view! { <rect class=class.clone() x=format!("{x:.2}") y=format!("{y:.2}") width=format!("{width:.2}") height=format!("{:.2}", h.max(0.5))></rect> }
                }).collect_view().into_any()
            }
            ChartType::Line | ChartType::Area => {
                // A gap (null) starts a new stretch of the line.
                let mut stretches: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
                for (i, v) in values.iter().enumerate() {
                    match v {
                        Some(v) => stretches.last_mut().map(|s| s.push((x_of(i), y_of(*v)))).unwrap_or(()),
                        None => stretches.push(Vec::new()),
                    }
                }
                stretches.into_iter().filter(|s| !s.is_empty()).map(|stretch| {
                    let line = stretch.iter().map(|(x, y)| format!("{x:.2},{y:.2}")).collect::<Vec<_>>().join(" ");
                    let area = (chart.chart_type == ChartType::Area).then(|| {
                        let (first, last) = (stretch[0].0, stretch[stretch.len() - 1].0);
                        format!("{first:.2},{zero:.2} {line} {last:.2},{zero:.2}")
                    });
                    view! {
                        {area.map(|points| view! { <polygon class=format!("{class} area") points=points></polygon> })}
                        <polyline class=format!("{class} line") points=line fill="none"></polyline>
                        {stretch.iter().map(|(x, y)| view! { <circle class=class.clone() cx=format!("{x:.2}") cy=format!("{y:.2}") r="3"></circle> }).collect_view()}
                    }
                }).collect_view().into_any()
            }
        }
    }).collect_view();
    let x_labels = chart.data.iter().enumerate().map(|(i, p)| {
        let mut label = x_text(&p.x);
        if label.chars().count() > 12 {
            label = label.chars().take(11).collect::<String>() + "…";
        }
        view! { <text class="axis-label" x=format!("{:.2}", x_of(i)) y=format!("{}", HEIGHT - 8.0) text-anchor="middle">{label}</text> }
    }).collect_view();
    view! {
        <line class="axis" x1=LEFT.to_string() x2=WIDTH.to_string() y1=format!("{zero:.2}") y2=format!("{zero:.2}")></line>
        <text class="axis-label" x=format!("{}", LEFT - 6.0) y=format!("{:.2}", TOP + 4.0) text-anchor="end">{short_number(high)}</text>
        <text class="axis-label" x=format!("{}", LEFT - 6.0) y=format!("{:.2}", HEIGHT - BOTTOM) text-anchor="end">{short_number(low)}</text>
        {marks}
        {x_labels}
    }
    .into_any()
}

fn pie(chart: &Chart) -> AnyView {
    let values: Vec<Option<f64>> = chart
        .data
        .iter()
        .map(|p| p.values.first().copied().flatten())
        .collect();
    let (cx, cy, r) = (WIDTH / 2.0, HEIGHT / 2.0, HEIGHT / 2.0 - TOP);
    pie_angles(&values)
        .into_iter()
        .enumerate()
        .filter(|(_, (start, end))| end > start)
        .map(|(i, (start, end))| view! { <path class=format!("series series-{}", i % 6) d=arc_path(start, end, cx, cy, r)></path> })
        .collect_view()
        .into_any()
}

#[component]
pub fn ChartView(payload: Chart) -> impl IntoView {
    let title = payload.title.clone().unwrap_or_else(|| "Chart".to_owned());
    let drawing = if payload.chart_type == ChartType::Pie {
        pie(&payload)
    } else {
        plot(&payload)
    };
    let legend = payload.series.iter().enumerate().map(|(s, series)| view! {
        <li><span class=format!("swatch series-{}", s % 6) aria-hidden="true"></span>{series.label.clone()}</li>
    }).collect_view();
    let pie_legend = (payload.chart_type == ChartType::Pie).then(|| payload.data.iter().enumerate().map(|(i, p)| view! {
        <li><span class=format!("swatch series-{}", i % 6) aria-hidden="true"></span>{x_text(&p.x)}</li>
    }).collect_view());
    let head = payload
        .series
        .iter()
        .map(|s| view! { <th scope="col" class="num">{s.label.clone()}</th> })
        .collect_view();
    let rows = payload.data.iter().map(|p| view! {
        <tr>
            <th scope="row">{x_text(&p.x)}</th>
            {p.values.iter().map(|v| view! { <td class="num">{v.map_or_else(|| "—".to_owned(), |v| grouped(v, if v.fract() == 0.0 { 0 } else { 2 }))}</td> }).collect_view()}
        </tr>
    }).collect_view();
    view! {
        <figure class="catalog chart" data-slot="chart" data-tool-ui-id=payload.base.id.clone() data-type=payload.chart_type.as_str()>
            <figcaption><strong>{title.clone()}</strong>{payload.description.clone().map(|d| view! { <span class="muted">" "{d}</span> })}</figcaption>
            <svg class="chart-svg" viewBox=format!("0 0 {WIDTH} {HEIGHT}") role="img" aria-label=title.clone()>{drawing}</svg>
            <ul class="chart-legend">{pie_legend.map_or_else(|| legend.into_any(), |l| l.into_any())}</ul>
            <details class="chart-data">
                <summary>"Data table"</summary>
                <table class="data-table">
                    <thead><tr><th scope="col">{payload.x_key.clone()}</th>{head}</tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </details>
        </figure>
    }
}

fn stat_text(value: &StatValue, kind: Option<StatFormatKind>, currency: Option<&str>) -> String {
    match (value, kind) {
        (StatValue::Text(text), _) => text.clone(),
        (StatValue::Number(n), Some(StatFormatKind::Currency)) => {
            format!("{} {}", grouped(*n, 2), currency.unwrap_or_default())
                .trim()
                .to_owned()
        }
        (StatValue::Number(n), Some(StatFormatKind::Percent)) => format!("{}%", grouped(*n, 1)),
        (StatValue::Number(n), _) if n.abs() >= 1e15 => short_number(*n),
        (StatValue::Number(n), _) => grouped(*n, if n.fract() == 0.0 { 0 } else { 2 }),
    }
}

fn sparkline_points(data: &[f64]) -> String {
    let finite: Vec<f64> = data.iter().copied().filter(|v| v.is_finite()).collect();
    let (lo, hi) = finite
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let span = (hi / 2.0 - lo / 2.0).max(f64::MIN_POSITIVE);
    let step = 100.0 / (finite.len().max(2) - 1) as f64;
    finite
        .iter()
        .enumerate()
        .map(|(i, v)| {
            format!(
                "{:.2},{:.2}",
                i as f64 * step,
                28.0 - 26.0 * (v / 2.0 - lo / 2.0) / span
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[component]
pub fn StatsDisplayView(payload: StatsDisplay) -> impl IntoView {
    view! {
        <section class="catalog stats-display" data-slot="stats_display" data-tool-ui-id=payload.base.id.clone()
            aria-label=payload.title.clone().unwrap_or_else(|| "Figures".to_owned())>
            {payload.title.clone().map(|t| view! { <h4>{t}</h4> })}
            <ul class="stats">
                {payload.stats.iter().map(|stat| {
                    let format = stat.format.as_ref();
                    let value = stat_text(&stat.value, format.map(|f| f.kind), format.and_then(|f| f.currency.as_deref()));
                    let diff = stat.diff.as_ref().map(|diff| {
                        let up = diff.value >= 0.0;
                        let good = up == diff.up_is_positive.unwrap_or(true);
                        let decimals = diff.decimals.and_then(|d| usize::try_from(d.clamp(0, 6)).ok()).unwrap_or(1);
                        let text = format!("{} {}%", if up { "↑" } else { "↓" }, grouped(diff.value.abs(), decimals));
                        let spoken = format!("{} {} percent", if up { "up" } else { "down" }, grouped(diff.value.abs(), decimals));
                        (text, spoken, if good { "diff good" } else { "diff bad" })
                    });
                    let spoken = match &diff {
                        Some((_, said, _)) => format!("{}: {value}, {said}", stat.label),
                        None => format!("{}: {value}", stat.label),
                    };
                    view! {
                        <li class="stat" aria-label=spoken>
                            <span class="stat-label">{stat.label.clone()}</span>
                            <span class="stat-value">{value}</span>
                            {diff.map(|(text, _, class)| view! { <span class=class>{text}</span> })}
                            {stat.sparkline.as_ref().map(|line| view! {
                                <svg class="sparkline" viewBox="0 0 100 30" aria-hidden="true" preserveAspectRatio="none">
                                    <polyline points=sparkline_points(&line.data) fill="none"></polyline>
                                </svg>
                            })}
                        </li>
                    }
                }).collect_view()}
            </ul>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pies_slices_cover_the_circle_whatever_the_numbers() {
        for values in [
            vec![Some(48.0), Some(37.0), Some(15.0)],
            vec![Some(1e308), Some(1e308)],
            vec![Some(5.0), None, Some(-3.0), Some(5.0)],
        ] {
            let angles = pie_angles(&values);
            let last = angles.last().map_or(0.0, |a| a.1);
            assert!((last - TAU).abs() < 1e-9, "{values:?}: {last}");
        }
        assert!(pie_angles(&[None, Some(0.0)]).iter().all(|(s, e)| s == e));
    }

    #[test]
    fn numbers_shorten_for_axes() {
        assert_eq!(short_number(1_234_567.0), "1.2M");
        assert_eq!(short_number(12.5), "12.5");
        assert_eq!(short_number(1e308), "1.0e308");
        assert_eq!(short_number(f64::NAN), "—");
    }
}
