//! Whole-catalog checks: one valid payload per component reads, serialises and reads back
//! the same; arbitrary JSON never panics a schema.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::{Payload, component_names, parse};

fn example(component: &str) -> Value {
    let todo = json!({"id": "a", "label": "A", "status": "pending"});
    let options = json!([{"id": "a", "label": "A"}, {"id": "b", "label": "B"}]);
    let receipt = json!({"outcome": "success", "summary": "Done", "at": "2026-02-04T10:00:00Z"});
    let image = json!({"id": "i", "src": "https://x.test/i.png", "alt": "An image", "width": 4,
        "height": 3});
    let zones: Vec<Value> = (0..5)
        .map(|i| json!({"value": format!("z{i}"), "label": "Z"}))
        .collect();
    match component {
        "plan" => json!({"id": "plan", "title": "Plan", "todos": [todo], "receipt": receipt,
            "responseActions": [{"id": "go", "label": "Go"}]}),
        "progress_tracker" => {
            json!({"id": "p", "steps": [{"id": "a", "label": "A", "status": "in-progress"}],
            "choice": receipt})
        }
        "approval_card" => {
            json!({"id": "a", "title": "Approve?", "metadata": [{"key": "k", "value": "v"}]})
        }
        "option_list" => {
            json!({"id": "o", "options": options, "defaultValue": ["a"], "maxSelections": 2})
        }
        "question_flow" => {
            json!({"id": "q", "steps": [{"id": "s", "title": "S", "options": options}]})
        }
        "preferences_panel" => json!({"id": "p", "sections": [{"items": [
            {"id": "on", "label": "On", "type": "switch"},
            {"id": "zone", "label": "Zone", "type": "select", "selectOptions": zones}]}],
            "choice": {"on": true, "zone": "z2"}}),
        "parameter_slider" => {
            json!({"id": "s", "sliders": [{"id": "a", "label": "A", "min": 0, "max": 1,
                "value": 0.5}]})
        }
        "terminal" => json!({"id": "t", "command": "true", "exitCode": 0}),
        "code_block" => json!({"id": "c", "code": "x", "highlightLines": [1]}),
        "code_diff" => json!({"id": "d", "oldCode": "a", "newCode": "b"}),
        "data_table" => {
            json!({"id": "t", "columns": [{"key": "a", "label": "A", "format": {"kind": "number"}}],
            "data": [{"a": 1, "tags": ["x", null]}], "defaultSort": {"by": "a"}})
        }
        "chart" => {
            json!({"id": "c", "type": "bar", "xKey": "x", "series": [{"key": "y", "label": "Y"}],
            "data": [{"x": "a", "y": 1}]})
        }
        "stats_display" => json!({"id": "s", "stats": [{"key": "k", "label": "K", "value": 1,
            "diff": {"value": -2}}]}),
        "image" => {
            json!({"id": "i", "assetId": "a", "src": "https://x.test/i.png", "alt": "An image",
            "source": {"label": "X"}})
        }
        "image_gallery" => json!({"id": "g", "images": [image]}),
        "audio" => json!({"id": "a", "assetId": "a", "src": "https://x.test/a.mp3"}),
        "video" => {
            json!({"id": "v", "assetId": "v", "src": "https://x.test/v.mp4", "ratio": "16:9"})
        }
        "link_preview" => json!({"id": "l", "href": "https://x.test"}),
        "citation" => json!({"id": "c", "href": "https://x.test", "title": "X"}),
        "citation_list" => {
            json!({"id": "cl", "citations": [{"id": "c", "href": "https://x.test", "title": "X"}]})
        }
        _ => Value::Null,
    }
}

#[test]
fn every_component_reads_back_what_it_writes() {
    for name in component_names() {
        let read = parse(name, &example(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let written = serde_json::to_value(&read).expect("serialises");
        assert_eq!(written.get("component"), Some(&json!(name)));
        // A chart writes its rows as points, which is not the shape it reads.
        if matches!(read, Payload::Chart(_)) {
            continue;
        }
        let payload = written.get("payload").cloned().unwrap_or_default();
        let again = parse(name, &payload).unwrap_or_else(|e| panic!("{name} again: {e}"));
        assert_eq!(again, read, "{name}");
    }
}

const KEYS: &[&str] = &[
    "id",
    "title",
    "todos",
    "status",
    "label",
    "options",
    "steps",
    "step",
    "choice",
    "src",
    "alt",
    "href",
    "data",
    "series",
    "xKey",
    "type",
    "columns",
    "key",
    "sliders",
    "min",
    "max",
    "value",
    "items",
    "sections",
    "images",
    "citations",
    "patch",
    "oldCode",
    "newCode",
    "exitCode",
    "command",
    "code",
    "stats",
    "receipt",
    "outcome",
    "summary",
    "at",
    "format",
    "kind",
    "responseActions",
    "defaultSort",
    "by",
    "rowIdKey",
    "x",
    "y",
    "width",
    "height",
    "selectOptions",
    "defaultValue",
    "assetId",
    "sparkline",
    "identifiers",
    "summary",
];

const WORDS: &[&str] = &[
    "pending",
    "in-progress",
    "bar",
    "pie",
    "switch",
    "toggle",
    "select",
    "https://a.test",
    "x",
    "y",
    "a",
    "currency",
    "success",
    "2026-02-04T10:00:00Z",
    "",
    "single",
    "javascript:x",
];

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("JSON numbers are finite", |n| n.is_finite())
            .prop_map(Value::from),
        prop::sample::select(WORDS).prop_map(Value::from),
        ".{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 96, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(KEYS), inner, 0..8).prop_map(|map| {
                Value::Object(map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

proptest! {
    #[test]
    fn no_payload_panics_any_schema(value in any_json()) {
        for name in component_names() {
            match parse(name, &value) {
                Ok(read) => prop_assert!(serde_json::to_value(&read).is_ok()),
                Err(invalid) => prop_assert!(!invalid.reason.is_empty()),
            }
        }
    }
}
