//! Drawing what an artifact holds: the catalog component its kind names, else readable
//! JSON, as a block or as a tree.

use leptos::prelude::*;
use serde_json::Value;

use super::catalog::is_catalog_component;

/// The catalog component an artifact kind names (older short names included).
pub fn catalog_name(kind: &str) -> Option<&str> {
    let name = match kind {
        "table" => "data_table",
        "code" => "code_block",
        other => other,
    };
    is_catalog_component(name).then_some(name)
}

/// An artifact's payload as its catalog component reads it: tool-ui's fallback id (the
/// payload's own, else the artifact's) filled in.
pub fn drawable(data: &Value, artifact_id: &str) -> Value {
    let mut data = data.clone();
    if let Some(fields) = data.as_object_mut() {
        fields
            .entry("id")
            .or_insert_with(|| Value::String(artifact_id.to_owned()));
    }
    data
}

#[component]
pub fn JsonBlock(value: Value) -> impl IntoView {
    let pretty = serde_json::to_string_pretty(&value).unwrap_or_default();
    view! { <pre class="json"><code>{pretty}</code></pre> }
}

/// Entries of one object or array a tree lists; the rest are counted.
const MOST_TREE_ENTRIES: usize = 200;
/// Levels a tree opens into; deeper values are shown as JSON text.
const DEEPEST_TREE_LEVEL: usize = 24;

/// A JSON value as a tree: objects and arrays fold, the first two levels open.
#[component]
pub fn JsonTree(value: Value) -> impl IntoView {
    view! { <div class="json-tree">{tree_node(None, value, 0)}</div> }
}

fn tree_node(key: Option<String>, value: Value, depth: usize) -> AnyView {
    let label = key.map(|key| view! { <span class="json-key">{key}</span>": " });
    let entries: Vec<(String, Value)> = match value {
        Value::Object(map) if !map.is_empty() && depth < DEEPEST_TREE_LEVEL => {
            map.into_iter().collect()
        }
        Value::Array(items) if !items.is_empty() && depth < DEEPEST_TREE_LEVEL => items
            .into_iter()
            .enumerate()
            .map(|(n, item)| (n.to_string(), item))
            .collect(),
        leaf => {
            let (class, shown) = match &leaf {
                Value::String(text) => ("json-string", format!("{text:?}")),
                Value::Number(number) => ("json-number", number.to_string()),
                Value::Bool(flag) => ("json-bool", flag.to_string()),
                Value::Null => ("json-null", "null".to_owned()),
                other => ("json-text", other.to_string()),
            };
            return view! { <div class="json-leaf">{label}<span class=class>{shown}</span></div> }
                .into_any();
        }
    };
    let total = entries.len();
    let summary = format!("{total} {}", if total == 1 { "entry" } else { "entries" });
    let more = total.saturating_sub(MOST_TREE_ENTRIES);
    view! {
        <details open=depth < 2>
            <summary>{label}<span class="muted">{summary}</span></summary>
            <ul>
                {entries
                    .into_iter()
                    .take(MOST_TREE_ENTRIES)
                    .map(|(key, value)| view! { <li>{tree_node(Some(key), value, depth + 1)}</li> })
                    .collect_view()}
                {(more > 0).then(|| view! { <li class="muted">{format!("… and {more} more")}</li> })}
            </ul>
        </details>
    }
    .into_any()
}
