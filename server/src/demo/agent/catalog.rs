//! Scenarios for the component catalog: `markdown` streams a document of every Markdown
//! construct word by word, `catalog` sends one surface of every component, `hostile`
//! sends what a compromised agent might (`fixtures/catalog/hostile.json`) as messages,
//! tool results and surfaces.

use serde_json::{Value, json};

use super::{Run, Step, call, ev, say};

const GALLERY: &str = include_str!("../../../../fixtures/catalog/gallery.json");
const HOSTILE: &str = include_str!("../../../../fixtures/catalog/hostile.json");

/// A reply in Markdown: headings, lists, a table, code, a quote, footnotes.
pub(super) const MARKDOWN_REPLY: &str = "## Release notes\n\nThis release makes the console **faster** and *calmer*; see [the changelog](https://example.org/changelog).\n\n- Streaming replies render as Markdown\n- Code is highlighted\n  - on the server\n- [x] Tables\n- [ ] Diagrams\n\n| Area | Change | Time |\n|:-----|:------:|-----:|\n| Timeline | blocks | 12 ms |\n| Asks | details | 3 ms |\n\n```rust\nfn main() {\n    // Greets the operator.\n    println!(\"hello\");\n}\n```\n\n> Quoted from the design card.\n\nThat is all.[^1]\n\n[^1]: Measured on the demo agent.\n";

/// A whole message in one delta (a hostile one may be enormous: no pacing per word).
fn say_at_once(steps: &mut Vec<Step>, id: &str, text: &str) {
    for (kind, fields) in [
        (
            "TEXT_MESSAGE_START",
            json!({"messageId": id, "role": "assistant"}),
        ),
        (
            "TEXT_MESSAGE_CONTENT",
            json!({"messageId": id, "delta": text}),
        ),
        ("TEXT_MESSAGE_END", json!({"messageId": id})),
    ] {
        if let Step::Event(event) = ev(kind, fields) {
            steps.push(Step::Unpaced(event));
        }
    }
}

fn surface(run: &Run<'_>, n: usize, kind: &str, content: Value) -> Step {
    ev(
        "ACTIVITY_SNAPSHOT",
        json!({"messageId": format!("{kind}-{n}-{}", run.run_id), "activityType": kind, "content": content}),
    )
}

pub(super) fn markdown(steps: &mut Vec<Step>, run: &Run<'_>) {
    say(steps, &format!("m-{}", run.run_id), MARKDOWN_REPLY);
    steps.push(run.finished());
}

pub(super) fn catalog(steps: &mut Vec<Step>, run: &Run<'_>) {
    say(
        steps,
        &format!("m-{}", run.run_id),
        "Every component, once.",
    );
    let gallery: serde_json::Map<String, Value> = serde_json::from_str(GALLERY).unwrap_or_default();
    for (n, (component, examples)) in gallery.into_iter().enumerate() {
        if let Some(valid) = examples.get("valid") {
            steps.push(surface(run, n, &component, valid.clone()));
        }
    }
    steps.push(run.finished());
}

pub(super) fn hostile(steps: &mut Vec<Step>, run: &Run<'_>) {
    let corpus: Value = serde_json::from_str(HOSTILE).unwrap_or_default();
    let texts = |key: &str| -> Vec<String> {
        corpus[key]
            .as_array()
            .map(|list| {
                list.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    for (n, text) in texts("markdown").iter().enumerate() {
        say_at_once(steps, &format!("m{n}-{}", run.run_id), text);
    }
    for (n, result) in texts("tool_results").iter().enumerate() {
        call(
            steps,
            &format!("t{n}-{}", run.run_id),
            "fetch_page",
            "{\"url\":\"https://evil.example\"}",
            Some(result),
        );
    }
    if let Some(artifacts) = corpus["artifacts"].as_array() {
        for (n, artifact) in artifacts.iter().enumerate() {
            let kind = artifact["kind"].as_str().unwrap_or("unknown");
            if let Step::Event(event) = surface(run, n, kind, artifact["content"].clone()) {
                steps.push(Step::Unpaced(event));
            }
        }
    }
    if let Some(operations) = corpus.get("a2ui_operations")
        && let Step::Event(event) = surface(
            run,
            0,
            "a2ui-surface",
            json!({ "a2ui_operations": operations }),
        )
    {
        steps.push(Step::Unpaced(event));
    }
    steps.push(run.finished());
}
