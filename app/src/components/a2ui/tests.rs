use serde_json::{Value, json};

use super::node::draw;
use crate::a2ui::Surfaces;
use crate::components::inert::assert_inert;
use leptos::prelude::*;

fn drawn(surface_id: &str, operations: &[Value]) -> String {
    let surfaces = Surfaces::fold(operations);
    let surface = surfaces
        .get(surface_id)
        .expect("the surface exists")
        .clone();
    Owner::new().with(|| draw(surface, StoredValue::new(Default::default()), None).to_html())
}

fn op(kind: &str, body: Value) -> Value {
    json!({ "version": "v0.9", kind: body })
}

#[test]
fn a_form_surface_draws_every_control_bound_to_its_data() {
    let operations = [
        op(
            "createSurface",
            json!({"surfaceId": "form", "catalogId": crate::a2ui::BASIC_CATALOG}),
        ),
        op(
            "updateComponents",
            json!({"surfaceId": "form", "components": [
                {"id": "root", "component": "Card", "child": "column"},
                {"id": "column", "component": "Column", "children": ["heading", "name", "agree", "size", "when", "rooms", "book"]},
                {"id": "heading", "component": "Text", "text": {"call": "formatString", "args": {"value": "Book for ${/name}"}}, "variant": "h2"},
                {"id": "name", "component": "TextField", "label": "Name", "value": {"path": "/name"}},
                {"id": "agree", "component": "CheckBox", "label": "Projector", "value": {"path": "/projector"}},
                {"id": "size", "component": "Slider", "label": "People", "min": 2, "max": 12, "value": {"path": "/size"}},
                {"id": "when", "component": "DateTimeInput", "label": "When", "value": {"path": "/when"}, "enableDate": true, "enableTime": true},
                {"id": "rooms", "component": "ChoicePicker", "label": "Room", "variant": "mutuallyExclusive",
                 "options": [{"label": "Blue", "value": "blue"}, {"label": "Green", "value": "green"}], "value": {"path": "/room"}},
                {"id": "book", "component": "Button", "child": "book-label", "variant": "primary",
                 "action": {"event": {"name": "book", "context": {"name": {"path": "/name"}}}}},
                {"id": "book-label", "component": "Text", "text": "Book"}
            ]}),
        ),
        op(
            "updateDataModel",
            json!({"surfaceId": "form", "value": {
            "name": "Ada", "projector": true, "size": 4, "when": "2026-12-05T10:00", "room": ["green"]}}),
        ),
    ];
    let html = drawn("form", &operations);
    assert!(html.contains("Book for Ada"), "{html}");
    assert!(html.contains("<h4 data-variant=\"h2\""), "{html}");
    assert!(html.contains("type=\"range\""));
    assert!(html.contains("type=\"datetime-local\""));
    assert!(html.contains("type=\"radio\""));
    assert!(html.contains("<legend>Room"));
    // Drawn without a place to send actions: the button says why it is disabled.
    assert!(html.contains("Read-only"), "{html}");
    assert!(html.contains("data-read-only=\"true\""));
}

#[test]
fn a_template_list_draws_one_item_per_entry() {
    let operations = [
        op(
            "createSurface",
            json!({"surfaceId": "board", "catalogId": crate::a2ui::BASIC_CATALOG}),
        ),
        op(
            "updateComponents",
            json!({"surfaceId": "board", "components": [
                {"id": "root", "component": "List", "children": {"componentId": "row", "path": "/tasks"}},
                {"id": "row", "component": "Text", "text": {"path": "line"}}
            ]}),
        ),
        op(
            "updateDataModel",
            json!({"surfaceId": "board", "path": "/tasks", "value": [{"line": "first"}, {"line": "second"}]}),
        ),
    ];
    let html = drawn("board", &operations);
    assert_eq!(html.matches("role=\"listitem\"").count(), 2, "{html}");
    assert!(html.contains("first") && html.contains("second"));
}

#[test]
fn the_hostile_surface_renders_inert_and_loads_nothing() {
    let corpus: Value =
        serde_json::from_str(include_str!("../../../../fixtures/catalog/hostile.json")).unwrap();
    let operations = corpus["a2ui_operations"].as_array().unwrap();
    let surfaces = Surfaces::fold(operations);
    assert!(surfaces.problems.len() >= 3, "{:?}", surfaces.problems);
    let html = drawn("hostile", operations);
    assert_inert("a2ui_surface", &html);
    assert!(html.contains("contains itself"), "cycles are named");
    assert!(html.contains("nested deeper than"), "depth is capped");
    assert!(html.contains("not a component of the basic catalog"));
    assert!(
        html.contains("Not all a&#x27;s.") || html.contains("Not all a's."),
        "a catastrophic pattern is still answered"
    );
    assert!(html.contains("This value is not in the form the agent expects."));
    assert!(
        html.contains(">0000002026<"),
        "an endless date pattern is bounded"
    );
    assert!(
        html.contains("looplooploop") && !html.contains(&"loop".repeat(12)),
        "a template that names itself stops expanding"
    );

    assert!(
        !html.contains("hunter2"),
        "an obscured field never shows its value"
    );
    assert!(html.contains("secret ask"));
    assert!(html.matches("role=\"listitem\"").count() < crate::a2ui::tree::MOST_NODES);
    assert!(
        !html.contains("evil.example/pixel.gif\""),
        "no image loads before consent"
    );
}

#[test]
fn the_gallery_surface_draws_every_basic_component_and_the_broken_one_names_its_faults() {
    let gallery: Value =
        serde_json::from_str(include_str!("../../../../fixtures/catalog/gallery.json")).unwrap();
    let entry = &gallery[crate::a2ui::ARTIFACT_KIND];
    let operations = crate::a2ui::operations(&entry["valid"]);
    assert!(Surfaces::fold(operations).problems.is_empty());
    let html = drawn("gallery", operations);
    for class in [
        "a2ui-text",
        "a2ui-icon",
        "a2ui-row",
        "a2ui-column",
        "a2ui-divider",
        "a2ui-image",
        "a2ui-card",
        "a2ui-list",
        "a2ui-tabs",
        "a2ui-modal",
        "a2ui-field",
        "a2ui-check-box",
        "a2ui-choices",
        "a2ui-slider",
        "a2ui-player",
    ] {
        assert!(html.contains(class), "{class} missing from {html}");
    }
    assert!(
        html.contains("0. Draft") && html.contains("2. Ship"),
        "{html}"
    );
    assert!(html.contains("Prepared for Ada"));
    assert!(
        html.contains("Sending on Monday, 7 December 2026"),
        "{html}"
    );
    assert!(
        !html.contains("Ten digits, please."),
        "ten digits pass the regex check"
    );
    assert!(
        html.contains(r#"href="https://example.org/docs/weekly-report" target="_blank" rel="noopener noreferrer""#),
        "{html}"
    );
    assert!(
        !html.contains("javascript:"),
        "an address that is not the web's is not linked"
    );
    let broken = Surfaces::fold(crate::a2ui::operations(&entry["invalid"]));
    assert_eq!(broken.problems.len(), 2, "{:?}", broken.problems);
    assert!(!broken.get("broken").unwrap().ready());
}

#[test]
fn an_enormous_text_is_cut_for_display() {
    let operations = [
        op(
            "createSurface",
            json!({"surfaceId": "s", "catalogId": crate::a2ui::BASIC_CATALOG}),
        ),
        op(
            "updateComponents",
            json!({"surfaceId": "s", "components": [
                {"id": "root", "component": "Row", "children": ["t"]},
                {"id": "t", "component": "Text", "text": {"path": "/huge"}}
            ]}),
        ),
        op(
            "updateDataModel",
            json!({"surfaceId": "s", "path": "/huge", "value": "A".repeat(10_000)}),
        ),
    ];
    let html = drawn("s", &operations);
    assert!(
        html.contains("… (6000 more characters)"),
        "{}",
        &html[..200]
    );
    assert!(!html.contains(&"A".repeat(4_001)));
}

/// The preview pane's part around a surface (its section and attribution), as the server
/// renders it.
fn previewed(operations: &[Value]) -> String {
    let surfaces = Surfaces::fold(operations);
    let data = json!({ "a2ui_operations": operations });
    Owner::new().with(|| {
        view! { <super::SurfacePreview data surfaces=Signal::stored(surfaces) on_action=None /> }
            .to_html()
    })
}

#[test]
fn a_surface_theme_tints_it_and_its_name_is_said_to_be_the_agents_claim() {
    let gallery: Value =
        serde_json::from_str(include_str!("../../../../fixtures/catalog/gallery.json")).unwrap();
    let html = previewed(crate::a2ui::operations(
        &gallery[crate::a2ui::ARTIFACT_KIND]["valid"],
    ));
    assert!(html.contains("--a2ui-primary:#1f883d"), "{html}");
    assert!(html.contains("From <strong>Report Bot"), "{html}");

    let corpus: Value =
        serde_json::from_str(include_str!("../../../../fixtures/catalog/hostile.json")).unwrap();
    let html = previewed(corpus["a2ui_operations"].as_array().unwrap());
    assert!(
        !html.contains("evil.example/theme"),
        "a theme colour is a hex code or nothing"
    );
    assert!(!html.contains("data-primary"), "{html}");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;Trusted Bank"),
        "a display name is text: {html}"
    );
    assert!(html.contains("as the agent names itself"));
    assert!(!html.contains("javascript:"));
}
