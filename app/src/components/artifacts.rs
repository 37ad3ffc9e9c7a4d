//! The artifact/preview pane: an artifact of a catalog component (terminal, code, table,
//! chart, image, …) drawn by the catalog; anything else as readable JSON.

use leptos::prelude::*;
use serde_json::Value;

use crate::projection::{ArtifactView, EditView};

use super::catalog::{CatalogView, is_catalog_component};
use super::code_diff::CodeDiff;

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key)?.as_str().map(str::to_owned)
}

/// The catalog component an artifact kind names (older short names included).
fn catalog_name(kind: &str) -> Option<&str> {
    let name = match kind {
        "table" => "data_table",
        "code" => "code_block",
        other => other,
    };
    is_catalog_component(name).then_some(name)
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
    let body = match catalog_name(&artifact.kind) {
        Some(component) => {
            // tool-ui's fallback id: the surface's own, else the artifact's.
            let mut data = artifact.data.clone();
            if let Some(fields) = data.as_object_mut() {
                fields
                    .entry("id")
                    .or_insert_with(|| Value::String(artifact.artifact_id.clone()));
            }
            view! { <CatalogView component=component.to_owned() data /> }.into_any()
        }
        None => view! { <JsonBlock value=artifact.data.clone() /> }.into_any(),
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
