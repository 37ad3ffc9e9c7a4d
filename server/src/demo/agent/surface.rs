//! The A2UI scenario: `surface` sends a booking form as an A2UI surface (text, inputs
//! bound to its data model, a template list, tabs, a button that declares an action);
//! a run carrying the operator's action (`forwardedProps.a2uiAction`, with the form's data
//! model in `a2uiClientDataModel`, which the surface asks for) answers it and updates the
//! surface's data model.

use serde_json::{Value, json};

use super::{Run, Step, ev, say};

const CATALOG: &str = app::a2ui::BASIC_CATALOG;

/// The surface's id, and the activity message every operation on it arrives in.
const SURFACE: &str = "booking";

fn operations(run: &Run<'_>, operations: Value) -> Step {
    ev(
        "ACTIVITY_SNAPSHOT",
        json!({"messageId": format!("a2ui-surface-{SURFACE}-{}", run.run_id), "activityType": "a2ui-surface",
               "content": {"a2ui_operations": operations}, "replace": true}),
    )
}

fn op(kind: &str, body: Value) -> Value {
    json!({ "version": "v0.9", kind: body })
}

pub(super) fn booking(steps: &mut Vec<Step>, run: &Run<'_>) {
    say(
        steps,
        &format!("m-{}", run.run_id),
        "Here is the booking form.",
    );
    let components = json!([
        {"id": "root", "component": "Card", "child": "form"},
        {"id": "form", "component": "Column", "children": ["title", "tabs", "status", "book"]},
        {"id": "title", "component": "Text", "variant": "h2",
         "text": {"call": "formatString", "args": {"value": "Book a room for ${/name}"}}},
        {"id": "tabs", "component": "Tabs", "tabs": [
            {"title": "Details", "child": "details"},
            {"title": "Rooms", "child": "rooms-list"}]},
        {"id": "details", "component": "Column", "children": ["name", "room", "size", "projector", "when"]},
        {"id": "name", "component": "TextField", "label": "Booked by", "value": {"path": "/name"}},
        {"id": "room", "component": "ChoicePicker", "label": "Room", "variant": "mutuallyExclusive",
         "options": [{"label": "Blue room", "value": "blue"}, {"label": "Green room", "value": "green"}],
         "value": {"path": "/room"}},
        {"id": "size", "component": "Slider", "label": "People", "min": 2, "max": 12, "value": {"path": "/size"}},
        {"id": "projector", "component": "CheckBox", "label": "Projector", "value": {"path": "/projector"}},
        {"id": "when", "component": "DateTimeInput", "label": "When", "enableDate": true, "enableTime": true,
         "value": {"path": "/when"}},
        {"id": "rooms-list", "component": "List", "children": {"componentId": "room-line", "path": "/rooms"}},
        {"id": "room-line", "component": "Text",
         "text": {"call": "formatString", "args": {"value": "${name}: ${seats} seats"}}},
        {"id": "status", "component": "Text", "variant": "caption", "text": {"path": "/status"}},
        {"id": "book", "component": "Button", "variant": "primary", "child": "book-label",
         "checks": [{"condition": {"call": "required", "args": {"value": {"path": "/name"}}},
                     "message": "Say who the booking is for."}],
         "action": {"event": {"name": "book", "context": {
            "name": {"path": "/name"}, "room": {"path": "/room"}, "size": {"path": "/size"},
            "projector": {"path": "/projector"}, "when": {"path": "/when"}, "form": "booking"}}}},
        {"id": "book-label", "component": "Text", "text": "Book"}
    ]);
    let data = json!({
        "name": "Ada", "room": ["blue"], "size": 4, "projector": false, "when": "2026-12-07T10:00",
        "status": "Not booked yet.",
        "rooms": [{"name": "Blue room", "seats": 6}, {"name": "Green room", "seats": 12}]
    });
    steps.push(operations(
        run,
        json!([
            op(
                "createSurface",
                json!({"surfaceId": SURFACE, "catalogId": CATALOG, "sendDataModel": true})
            ),
            op(
                "updateComponents",
                json!({"surfaceId": SURFACE, "components": components})
            ),
            op(
                "updateDataModel",
                json!({"surfaceId": SURFACE, "path": "/", "value": data})
            ),
        ]),
    ));
    steps.push(run.finished());
}

/// The operator's action, if this run carries one.
pub(super) fn action_of(input: &Value) -> Option<&Value> {
    input
        .get("forwardedProps")?
        .get("a2uiAction")?
        .get("userAction")
}

/// A run carrying an action: said back (with whose name the form's data model holds),
/// and the surface's status updated.
pub(super) fn answer(action: &Value, input: &Value, run: &Run<'_>) -> Vec<Step> {
    let mut steps = vec![run.started()];
    let context = &action["context"];
    let text = |key: &str| match &context[key] {
        Value::String(text) => text.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(", "),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let status = format!(
        "Booked the {} room for {} ({} people) at {}.",
        text("room"),
        text("name"),
        text("size"),
        text("when")
    );
    let model = &input["forwardedProps"]["a2uiClientDataModel"]["surfaces"][SURFACE];
    let model_said = match model["name"].as_str() {
        Some(name) => format!(" The form's data model says {name}."),
        None => " The form's data model did not come.".to_owned(),
    };
    say(
        &mut steps,
        &format!("m-{}", run.run_id),
        &format!(
            "Action {:?} from {}: {status}{model_said}",
            action["name"].as_str().unwrap_or_default(),
            action["sourceComponentId"].as_str().unwrap_or_default()
        ),
    );
    steps.push(operations(
        run,
        json!([op(
            "updateDataModel",
            json!({"surfaceId": SURFACE, "path": "/status", "value": status})
        )]),
    ));
    steps.push(run.finished());
    steps
}
