//! The artifact/preview pane's renderers: terminal output, code blocks, tables, charts,
//! images; anything else as readable JSON.

use leptos::prelude::*;
use serde_json::Value;

use crate::projection::{ArtifactView, EditView};

use super::code_diff::CodeDiff;

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key)?.as_str().map(str::to_owned)
}

#[component]
pub fn Terminal(data: Value) -> impl IntoView {
    let exit = data.get("exitCode").and_then(Value::as_i64);
    view! {
        <figure class="terminal" data-slot="terminal">
            <figcaption>
                <code>{text(&data, "command").map(|c| format!("$ {c}"))}</code>
                {exit.map(|code| view! {
                    <span class=if code == 0 { "exit ok" } else { "exit failed" }>
                        {if code == 0 { "exit 0 ✓".to_owned() } else { format!("exit {code} ✗") }}
                    </span>
                })}
            </figcaption>
            <pre class="terminal-output">{text(&data, "stdout")}{text(&data, "stderr")}</pre>
        </figure>
    }
}

#[component]
pub fn CodeBlock(data: Value) -> impl IntoView {
    let code = text(&data, "code").unwrap_or_default();
    let lines: Vec<String> = code.lines().map(str::to_owned).collect();
    view! {
        <figure class="code-block" data-slot="code_block">
            <figcaption>
                <span class="filename">{text(&data, "filename")}</span>
                <span class="muted">{text(&data, "language").unwrap_or_else(|| "text".into())}</span>
            </figcaption>
            <pre><code>
                {lines.into_iter().enumerate().map(|(n, line)| view! {
                    <span class="code-line"><span class="ln" aria-hidden="true">{n + 1}</span>{line}"\n"</span>
                }).collect_view()}
            </code></pre>
        </figure>
    }
}

#[component]
fn Table(data: Value) -> impl IntoView {
    let columns: Vec<(String, String)> = data
        .get("columns")
        .and_then(Value::as_array)
        .map(|columns| {
            columns
                .iter()
                .filter_map(|c| Some((text(c, "key")?, text(c, "label").unwrap_or_default())))
                .collect()
        })
        .unwrap_or_default();
    let rows = data
        .get("data")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    view! {
        <table class="data-table" data-slot="data_table">
            <thead><tr>{columns.iter().map(|(_, label)| view! { <th scope="col">{label.clone()}</th> }).collect_view()}</tr></thead>
            <tbody>
                {rows.into_iter().map(|row| {
                    let cells = columns.iter().map(|(key, _)| {
                        let value = match row.get(key) { Some(Value::String(s)) => s.clone(), Some(v) => v.to_string(), None => String::new() };
                        view! { <td>{value}</td> }
                    }).collect_view();
                    view! { <tr>{cells}</tr> }
                }).collect_view()}
            </tbody>
        </table>
    }
}

/// A bar chart drawn as labelled bars (values also in text: never colour alone).
#[component]
fn Chart(data: Value) -> impl IntoView {
    let x_key = text(&data, "xKey").unwrap_or_default();
    let series = data
        .get("series")
        .and_then(Value::as_array)
        .and_then(|s| s.first())
        .and_then(|s| text(s, "key"))
        .unwrap_or_default();
    let points: Vec<(String, f64)> = data
        .get("data")
        .and_then(Value::as_array)
        .map(|points| {
            points
                .iter()
                .map(|p| {
                    let label = match p.get(&x_key) {
                        Some(Value::String(s)) => s.clone(),
                        Some(v) => v.to_string(),
                        None => String::new(),
                    };
                    (label, p.get(&series).and_then(Value::as_f64).unwrap_or(0.0))
                })
                .collect()
        })
        .unwrap_or_default();
    let max = points
        .iter()
        .map(|(_, v)| *v)
        .fold(0.0_f64, f64::max)
        .max(1.0);
    view! {
        <figure class="chart" data-slot="chart" role="img" aria-label=text(&data, "title").unwrap_or_else(|| "Chart".into())>
            {points.into_iter().map(|(label, value)| view! {
                <div class="bar-row">
                    <span class="bar-label">{label}</span>
                    <span class="bar" style=format!("width: {:.0}%", value / max * 100.0)></span>
                    <span class="bar-value">{value.to_string()}</span>
                </div>
            }).collect_view()}
        </figure>
    }
}

#[component]
fn Image(data: Value) -> impl IntoView {
    let src = text(&data, "src").unwrap_or_default();
    // Only data: and http(s): images; anything else is shown as text, not loaded.
    let safe =
        src.starts_with("data:image/") || src.starts_with("https://") || src.starts_with("http://");
    let alt = text(&data, "alt").unwrap_or_else(|| "Image from the agent".into());
    if safe {
        view! { <img class="artifact-image" src=src alt=alt /> }.into_any()
    } else {
        view! { <p class="muted">"Image not shown (unsafe source): " {alt}</p> }.into_any()
    }
}

#[component]
pub fn JsonBlock(value: Value) -> impl IntoView {
    let pretty = serde_json::to_string_pretty(&value).unwrap_or_default();
    view! { <pre class="json"><code>{pretty}</code></pre> }
}

#[component]
pub fn ArtifactPreview(artifact: ArtifactView) -> impl IntoView {
    let title = artifact
        .title
        .clone()
        .or_else(|| text(&artifact.data, "title"))
        .unwrap_or_else(|| artifact.kind.replace('_', " "));
    let body = match artifact.kind.as_str() {
        "terminal" => view! { <Terminal data=artifact.data.clone() /> }.into_any(),
        "code" => view! { <CodeBlock data=artifact.data.clone() /> }.into_any(),
        "table" => view! { <Table data=artifact.data.clone() /> }.into_any(),
        "chart" => view! { <Chart data=artifact.data.clone() /> }.into_any(),
        "image" => view! { <Image data=artifact.data.clone() /> }.into_any(),
        _ => view! { <JsonBlock value=artifact.data.clone() /> }.into_any(),
    };
    let label = format!("Artifact: {title}");
    view! {
        <section class="preview" aria-label=label>
            <h3>{title}</h3>
            {body}
        </section>
    }
}

#[component]
pub fn EditPreview(edit: EditView) -> impl IntoView {
    view! {
        <section class="preview" aria-label="Edit preview">
            <CodeDiff patch=edit.patch filename=Some(edit.filename.unwrap_or_else(|| edit.edit_id.clone())) />
        </section>
    }
}
