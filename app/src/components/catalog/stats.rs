//! `stats_display`: headline figures with their change (good or bad as the payload says
//! up means) and a sparkline, each spoken as one sentence.

use leptos::prelude::*;

use super::format::{colour_style, full_number, grouped, short_number};
use crate::catalog::stats::{
    Diff, PercentBasis, Stat, StatFormat, StatFormatKind, StatValue, StatsDisplay,
};

/// A stat's value as shown and as spoken, in its format's way (tool-ui's defaults:
/// numbers 0 places, currency 2, percent 2 of a fraction).
fn stat_value(value: &StatValue, format: Option<&StatFormat>) -> (String, String) {
    let (n, format) = match (value, format) {
        (StatValue::Text(text), _) => return (text.clone(), text.clone()),
        (StatValue::Number(n), None) => return (full_number(*n), full_number(*n)),
        (StatValue::Number(n), Some(format)) => (*n, format),
    };
    let places = |default| {
        format
            .decimals
            .and_then(|d| usize::try_from(d).ok())
            .unwrap_or(default)
    };
    let compact = |places| {
        if format.compact == Some(true) {
            short_number(n)
        } else {
            grouped(n, places)
        }
    };
    match format.kind {
        StatFormatKind::Text => (full_number(n), full_number(n)),
        StatFormatKind::Number => (compact(places(0)), grouped(n, places(0))),
        StatFormatKind::Currency => {
            let code = format.currency.as_deref().unwrap_or_default();
            (
                format!("{code} {}", compact(places(2))),
                format!("{} {code}", grouped(n, places(2))),
            )
        }
        StatFormatKind::Percent => {
            let unit = format.basis == Some(PercentBasis::Unit);
            let shown = grouped(if unit { n } else { n * 100.0 }, places(2));
            (format!("{shown}%"), format!("{shown} percent"))
        }
    }
}

/// A change as shown ("↑ 12.5%"), as spoken ("up 12.5 percent") and whether it is good
/// news, bad news or none.
fn diff_parts(diff: &Diff) -> (String, String, &'static str) {
    let places = diff
        .decimals
        .and_then(|d| usize::try_from(d).ok())
        .unwrap_or(1);
    let amount = grouped(diff.value.abs(), places);
    let up_is_good = diff.up_is_positive.unwrap_or(true);
    let (arrow, word, tone) = match diff.value.partial_cmp(&0.0) {
        Some(std::cmp::Ordering::Greater) => ("↑", "up", if up_is_good { "good" } else { "bad" }),
        Some(std::cmp::Ordering::Less) => ("↓", "down", if up_is_good { "bad" } else { "good" }),
        _ => ("→", "unchanged at", "neutral"),
    };
    let label = diff
        .label
        .as_ref()
        .map(|l| format!(" {l}"))
        .unwrap_or_default();
    (
        format!("{arrow} {amount}%{label}"),
        format!("{word} {amount} percent{label}"),
        tone,
    )
}

/// The sparkline's points in a 100 × 28 box (finite values only; halved so any span fits).
fn sparkline_points(data: &[f64]) -> String {
    let finite: Vec<f64> = data.iter().copied().filter(|v| v.is_finite()).collect();
    let (low, high) = finite
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(*v), h.max(*v)));
    let span = high / 2.0 - low / 2.0;
    let step = 100.0 / (finite.len().max(2) - 1) as f64;
    let y = |v: f64| {
        if span > 0.0 {
            26.0 - 24.0 * (v / 2.0 - low / 2.0) / span
        } else {
            14.0
        }
    };
    finite
        .iter()
        .enumerate()
        .map(|(i, v)| format!("{:.2},{:.2}", i as f64 * step, y(*v)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One figure: label, value, change and sparkline, spoken as one sentence.
fn stat_card(stat: &Stat) -> impl IntoView + use<> {
    let (shown, said) = stat_value(&stat.value, stat.format.as_ref());
    let diff = stat.diff.as_ref().map(diff_parts);
    let spoken = match &diff {
        Some((_, change, _)) => format!("{}: {said}, {change}", stat.label),
        None => format!("{}: {said}", stat.label),
    };
    let diff = diff.map(|(text, change, tone)| {
        view! {
            <span class=format!("stat-diff {tone}")>
                <span aria-hidden="true">{text}</span>
                <span class="visually-hidden">{change}</span>
            </span>
        }
    });
    let sparkline = stat.sparkline.as_ref().map(|line| {
        let colour = line.color.as_deref().and_then(colour_style);
        view! {
            <svg class="sparkline" viewBox="0 0 100 28" preserveAspectRatio="none"
                aria-hidden="true" style=colour>
                <polyline points=sparkline_points(&line.data)
                    vector-effect="non-scaling-stroke"></polyline>
            </svg>
        }
    });
    view! {
        <li class="stat" role="group" aria-label=spoken>
            <span class="stat-label">{stat.label.clone()}</span>
            <span class="stat-value">{shown}</span>
            {diff}
            {sparkline}
        </li>
    }
}

#[component]
pub fn StatsDisplayView(payload: StatsDisplay) -> impl IntoView {
    let cards = payload.stats.iter().map(stat_card).collect_view();
    let name = payload
        .title
        .clone()
        .unwrap_or_else(|| "Figures".to_owned());
    let heading = payload
        .title
        .map(|t| view! { <h4 class="stats-title">{t}</h4> });
    let text = payload
        .description
        .map(|d| view! { <p class="muted">{d}</p> });
    view! {
        <section class="catalog-stats" data-slot="stats_display" data-tool-ui-id=payload.base.id
            aria-label=name>
            {heading}
            {text}
            <ul class="stats-grid">{cards}</ul>
        </section>
    }
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_stat_is_spoken_with_its_change() {
        let stats = crate::catalog::stats::parse(
            &json!({"id": "s", "stats": [{"key": "runs", "label": "Runs",
            "value": 1284, "format": {"kind": "number"}, "diff": {"value": 12.5}},
            {"key": "p95", "label": "p95", "value": 0.25, "format": {"kind": "percent"},
             "diff": {"value": 3, "upIsPositive": false}}]}),
        )
        .expect("valid");
        let page = Owner::new().with(|| view! { <StatsDisplayView payload=stats /> }.to_html());
        assert!(
            page.contains("aria-label=\"Runs: 1,284, up 12.5 percent\""),
            "{page}"
        );
        assert!(
            page.contains("25.00%") && page.contains("stat-diff bad"),
            "{page}"
        );
    }
}
