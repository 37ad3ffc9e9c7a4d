//! What an ask is about, laid out for reading: the tool call as its name and each
//! argument, and the agent's metadata behind a "Details" disclosure — never one line of
//! JSON.

use leptos::prelude::*;
use serde_json::Value;

use crate::protocol::ask::ToolPreview;

/// A value as the operator reads it: text as it is, anything structured laid out.
fn readable(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Object(_) | Value::Array(_) => {
            serde_json::to_string_pretty(value).unwrap_or_default()
        }
        other => other.to_string(),
    }
}

/// A value in a `<dd>`: one line as text, several in a block that keeps its lines.
fn value_view(text: String) -> AnyView {
    if text.contains('\n') {
        view! { <pre class="ask-value"><code>{text}</code></pre> }.into_any()
    } else {
        view! { <code class="ask-value">{text}</code> }.into_any()
    }
}

/// The tool an ask would run and its arguments, one per row.
#[component]
pub(super) fn ToolCallBlock(tool: ToolPreview) -> impl IntoView {
    let arguments = match tool.arguments {
        Value::Object(fields) if !fields.is_empty() => view! {
            <dl class="tool-arguments">
                {fields
                    .into_iter()
                    .map(|(name, value)| view! { <dt>{name}</dt><dd>{value_view(readable(&value))}</dd> })
                    .collect_view()}
            </dl>
        }
        .into_any(),
        Value::Object(_) | Value::Null => {
            view! { <p class="muted">"No arguments"</p> }.into_any()
        }
        other => value_view(readable(&other)),
    };
    view! {
        <section class="tool-call-preview" aria-label=format!("Tool call: {}", tool.name)>
            <p class="tool-call-name"><span class="muted">"Tool "</span><code>{tool.name.clone()}</code></p>
            {arguments}
        </section>
    }
}

/// The agent's other context for the ask, folded away until asked for.
#[component]
pub(super) fn Metadata(pairs: Vec<(String, String)>) -> impl IntoView {
    (!pairs.is_empty()).then(|| {
        view! {
            <details class="ask-details">
                <summary>"Details"</summary>
                <dl class="metadata">
                    {pairs
                        .into_iter()
                        .map(|(key, value)| view! { <dt>{key}</dt><dd>{value_view(value)}</dd> })
                        .collect_view()}
                </dl>
            </details>
        }
    })
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;
    use serde_json::json;

    fn html(view: impl FnOnce() -> AnyView) -> String {
        Owner::new().with(|| view().to_html()).replace("<!>", "")
    }

    #[test]
    fn a_tool_call_reads_as_its_name_and_one_row_per_argument() {
        let tool = ToolPreview {
            name: "delete_file".into(),
            arguments: json!({"path": "/tmp/demo.txt", "options": {"force": true, "depth": 2}}),
        };
        let out = html(|| view! { <ToolCallBlock tool /> }.into_any());
        assert!(out.contains("<code>delete_file</code>"), "{out}");
        assert!(
            out.contains("<dt>path</dt><dd><code class=\"ask-value\">/tmp/demo.txt</code></dd>"),
            "{out}"
        );
        // A structured argument is laid out over lines, not one line of JSON.
        assert!(out.contains("<pre class=\"ask-value\"><code>{\n  \"depth\": 2,\n  \"force\": true\n}</code></pre>"), "{out}");
        assert!(!out.contains("delete_file({"), "{out}");
    }

    #[test]
    fn metadata_waits_behind_details() {
        let pairs = vec![("graph".to_owned(), "{\n  \"node\": \"tools\"\n}".to_owned())];
        let out = html(|| view! { <Metadata pairs /> }.into_any());
        assert!(
            out.starts_with("<details class=\"ask-details\"><summary>Details</summary>"),
            "{out}"
        );
        assert!(!out.contains("<details open"), "{out}");
    }
}
