use serde_json::{Value, json};

use super::action::{ActionRequest, MOST_DATA_MODEL_BYTES, request_for, validate};
use super::bind::Scope;
use super::tree::walk;
use super::*;

fn op(kind: &str, body: Value) -> Value {
    json!({ "version": "v0.9", kind: body })
}

fn board() -> Vec<Value> {
    vec![
        op(
            "createSurface",
            json!({"surfaceId": "board", "catalogId": BASIC_CATALOG}),
        ),
        op(
            "updateComponents",
            json!({"surfaceId": "board", "components": [
                {"id": "root", "component": "Column", "children": ["heading", "list", "book"]},
                {"id": "heading", "component": "Text", "text": {"path": "/title"}, "variant": "h2"},
                {"id": "list", "component": "List", "children": {"componentId": "row", "path": "/tasks"}},
                {"id": "row", "component": "Text", "text": {"path": "line"}},
                {"id": "book", "component": "Button", "child": "book-label",
                 "action": {"event": {"name": "book", "context": {"room": {"path": "/room"}, "size": 4}}}},
                {"id": "book-label", "component": "Text", "text": "Book"}
            ]}),
        ),
        op(
            "updateDataModel",
            json!({"surfaceId": "board", "path": "/", "value": {
                "title": "Watched board", "room": "Blue",
                "tasks": [{"line": "draft the agenda"}, {"line": "book the room"}]}}),
        ),
    ]
}

#[test]
fn operations_build_a_surface_and_its_data() {
    let surfaces = Surfaces::fold(&board());
    assert!(surfaces.problems.is_empty(), "{:?}", surfaces.problems);
    let surface = surfaces.get("board").unwrap();
    assert!(surface.ready());
    assert!(surface.uses_basic_catalog());
    assert_eq!(surface.components.len(), 6);
    assert_eq!(surface.data["room"], "Blue");
}

#[test]
fn the_walk_instantiates_a_template_per_item() {
    let surfaces = Surfaces::fold(&board());
    let walk = walk(surfaces.get("board").unwrap());
    let ids: Vec<_> = walk.placed.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "root",
            "heading",
            "list",
            "row",
            "row",
            "book",
            "book-label"
        ]
    );
    assert_eq!(walk.placed[4].scope, Scope::item("/tasks", 1));
    assert!(walk.skipped.is_empty());
}

#[test]
fn a_data_model_update_upserts_and_deletes() {
    let mut ops = board();
    ops.push(op(
        "updateDataModel",
        json!({"surfaceId": "board", "path": "/tasks/2", "value": {"line": "third"}}),
    ));
    ops.push(op(
        "updateDataModel",
        json!({"surfaceId": "board", "path": "/room"}),
    ));
    let surfaces = Surfaces::fold(&ops);
    let data = &surfaces.get("board").unwrap().data;
    assert_eq!(data["tasks"].as_array().unwrap().len(), 3);
    assert!(data.get("room").is_none());
    assert_eq!(walk(surfaces.get("board").unwrap()).placed.len(), 8);
}

#[test]
fn updates_before_root_are_kept_and_drawing_waits_for_it() {
    let ops = vec![
        op(
            "createSurface",
            json!({"surfaceId": "s", "catalogId": BASIC_CATALOG}),
        ),
        op(
            "updateComponents",
            json!({"surfaceId": "s", "components": [{"id": "a", "component": "Text", "text": "later"}]}),
        ),
    ];
    let surfaces = Surfaces::fold(&ops);
    assert!(!surfaces.get("s").unwrap().ready());
    let mut ops = ops;
    ops.push(op("updateComponents", json!({"surfaceId": "s", "components": [{"id": "root", "component": "Card", "child": "a"}]})));
    let surfaces = Surfaces::fold(&ops);
    assert_eq!(walk(surfaces.get("s").unwrap()).placed.len(), 2);
}

#[test]
fn delete_surface_removes_it() {
    let mut ops = board();
    ops.push(op("deleteSurface", json!({"surfaceId": "board"})));
    assert!(Surfaces::fold(&ops).get("board").is_none());
}

#[test]
fn bad_operations_are_reported_and_change_nothing() {
    let mut ops = board();
    ops.push(op(
        "createSurface",
        json!({"surfaceId": "board", "catalogId": BASIC_CATALOG}),
    ));
    ops.push(op(
        "updateComponents",
        json!({"surfaceId": "ghost", "components": []}),
    ));
    ops.push(op(
        "updateComponents",
        json!({"surfaceId": "board", "components": [{"component": "Text"}, {"id": "x"}]}),
    ));
    ops.push(json!({"version": "v0.8", "createSurface": {"surfaceId": "old"}}));
    ops.push(op("launchMissiles", json!({"surfaceId": "board"})));
    ops.push(op(
        "updateDataModel",
        json!({"surfaceId": "board", "path": "/title/deeper", "value": 1}),
    ));
    let surfaces = Surfaces::fold(&ops);
    let described: Vec<String> = surfaces.problems.iter().map(ToString::to_string).collect();
    assert_eq!(described.len(), 7, "{described:#?}");
    assert!(described[0].contains("already exists"));
    assert!(described[1].contains("createSurface must come first"));
    assert!(described[2].contains("components[0].id"));
    assert!(described[3].contains("components[1].component"));
    assert!(described[4].contains("v0.8"));
    assert!(described[5].contains("launchMissiles"));
    assert!(described[6].contains("updateDataModel.path"));
    assert_eq!(Surfaces::fold(&board()).get("board"), surfaces.get("board"));
}

#[test]
fn hostile_trees_end_cycles_depth_and_floods() {
    let mut components = vec![
        json!({"id": "root", "component": "Column", "children": ["root", "deep0", "ghost", "many"]}),
    ];
    for depth in 0..40 {
        components.push(json!({"id": format!("deep{depth}"), "component": "Card", "child": format!("deep{}", depth + 1)}));
    }
    components.push(json!({"id": "many", "component": "List", "children": {"componentId": "item", "path": "/items"}}));
    components.push(json!({"id": "item", "component": "Text", "text": {"path": "."}}));
    let ops = vec![
        op(
            "createSurface",
            json!({"surfaceId": "h", "catalogId": BASIC_CATALOG}),
        ),
        op(
            "updateComponents",
            json!({"surfaceId": "h", "components": components}),
        ),
        op(
            "updateDataModel",
            json!({"surfaceId": "h", "path": "/items", "value": vec![1; 5_000]}),
        ),
    ];
    let surfaces = Surfaces::fold(&ops);
    let walk = walk(surfaces.get("h").unwrap());
    assert!(walk.placed.len() <= tree::MOST_NODES);
    assert!(walk.skipped.iter().any(|s| s.contains("contains itself")));
    assert!(walk.skipped.iter().any(|s| s.contains("deeper than")));
    assert!(walk.skipped.iter().any(|s| s.contains("no such component")));
    assert!(walk.skipped.iter().any(|s| s.contains("more than")));
}

#[test]
fn a_component_flood_is_capped() {
    let components: Vec<Value> = (0..MOST_COMPONENTS + 10)
        .map(|n| json!({"id": format!("c{n}"), "component": "Text", "text": "x"}))
        .collect();
    let ops = vec![
        op(
            "createSurface",
            json!({"surfaceId": "f", "catalogId": BASIC_CATALOG}),
        ),
        op(
            "updateComponents",
            json!({"surfaceId": "f", "components": components}),
        ),
    ];
    let surfaces = Surfaces::fold(&ops);
    assert_eq!(surfaces.get("f").unwrap().components.len(), MOST_COMPONENTS);
    assert!(surfaces.problems[0].message.contains("10 components"));
}

fn book_request(context: Value) -> ActionRequest {
    ActionRequest {
        surface_id: "board".into(),
        source_component_id: "book".into(),
        name: "book".into(),
        context: context.as_object().unwrap().clone(),
        data_model: None,
    }
}

#[test]
fn an_action_is_built_from_the_component_and_the_data_the_operator_left() {
    let surfaces = Surfaces::fold(&board());
    let surface = surfaces.get("board").unwrap();
    let mut data = surface.data.clone();
    data["room"] = json!("Green");
    let request = request_for(
        "board",
        "book",
        &surface.components["book"],
        &data,
        &Scope::default(),
        surface.send_data_model,
    )
    .unwrap();
    assert_eq!(request, book_request(json!({"room": "Green", "size": 4})));
    let action = validate(&surfaces, &request, "2026-12-05T00:00:00Z".into()).unwrap();
    assert_eq!(
        action.forwarded_props(),
        json!({"a2uiAction": {"userAction": {
            "name": "book", "surfaceId": "board", "sourceComponentId": "book",
            "timestamp": "2026-12-05T00:00:00Z", "context": {"room": "Green", "size": 4}}}})
    );
}

#[test]
fn a_surface_that_asks_for_its_data_model_gets_it_with_every_action_and_no_other_does() {
    let mut ops = board();
    ops[0] = op(
        "createSurface",
        json!({"surfaceId": "board", "catalogId": BASIC_CATALOG, "sendDataModel": true}),
    );
    let asking = Surfaces::fold(&ops);
    let surface = asking.get("board").unwrap();
    assert!(surface.send_data_model);
    let mut data = surface.data.clone();
    data["room"] = json!("Green");
    let request = request_for(
        "board",
        "book",
        &surface.components["book"],
        &data,
        &Scope::default(),
        true,
    )
    .unwrap();
    assert_eq!(request.data_model.as_ref(), Some(&data));
    let action = validate(&asking, &request, "t".into()).unwrap();
    let props = action.forwarded_props();
    assert_eq!(
        props["a2uiClientDataModel"]["surfaces"]["board"]["room"],
        "Green"
    );
    assert!(
        props["a2uiAction"]["userAction"].get("dataModel").is_none(),
        "the user action keeps A2UI's own fields"
    );
    // A client that sends none gives the model as the agent left it.
    let bare = book_request(json!({"room": "Blue", "size": 4}));
    let action = validate(&asking, &bare, "t".into()).unwrap();
    assert_eq!(action.data_model.unwrap()["room"], "Blue");
    // Too large a model is refused, naming the field.
    let mut huge = request.clone();
    huge.data_model = Some(json!({"blob": "x".repeat(MOST_DATA_MODEL_BYTES)}));
    assert_eq!(
        validate(&asking, &huge, "t".into()).unwrap_err().field,
        "dataModel"
    );

    // A surface that did not ask neither sends nor accepts one.
    let quiet = Surfaces::fold(&board());
    let surface = quiet.get("board").unwrap();
    let request = request_for(
        "board",
        "book",
        &surface.components["book"],
        &data,
        &Scope::default(),
        false,
    )
    .unwrap();
    assert_eq!(request.data_model, None);
    assert!(
        validate(&quiet, &request, "t".into())
            .unwrap()
            .forwarded_props()
            .get("a2uiClientDataModel")
            .is_none()
    );
    let mut pushed = request;
    pushed.data_model = Some(data);
    assert_eq!(
        validate(&quiet, &pushed, "t".into()).unwrap_err().field,
        "dataModel"
    );
}

#[test]
fn an_action_the_surface_does_not_declare_is_refused() {
    let surfaces = Surfaces::fold(&board());
    let check = |request: ActionRequest| {
        validate(&surfaces, &request, String::new())
            .unwrap_err()
            .to_string()
    };
    let mut wrong_surface = book_request(json!({}));
    wrong_surface.surface_id = "other".into();
    assert!(check(wrong_surface).starts_with("surfaceId:"));
    let mut wrong_component = book_request(json!({}));
    wrong_component.source_component_id = "heading".into();
    assert!(check(wrong_component).starts_with("name:"));
    let mut ghost = book_request(json!({}));
    ghost.source_component_id = "ghost".into();
    assert!(check(ghost).starts_with("sourceComponentId:"));
    let mut renamed = book_request(json!({}));
    renamed.name = "delete_everything".into();
    assert!(check(renamed).starts_with("name:"));
    assert!(check(book_request(json!({"extra": 1}))).contains("\"extra\" is not part"));
    assert!(check(book_request(json!({"size": 400}))).contains("value the agent set"));
    let huge = "x".repeat(action::MOST_CONTEXT_BYTES);
    assert!(check(book_request(json!({"room": huge}))).contains("bytes"));
}

#[test]
fn surface_ids_and_operations_are_read_from_an_artifact() {
    let data = json!({"a2ui_operations": board()});
    assert_eq!(operations(&data).len(), 3);
    assert_eq!(surface_ids(&data), ["board"]);
    assert!(operations(&json!({"other": 1})).is_empty());
}

#[test]
fn the_operators_edits_outlive_agent_updates_to_other_values() {
    let agent = json!({"name": "Ada", "status": "open", "size": 4});
    let mut edits = LocalEdits::default();
    edits.record(&agent, "/name", json!("Grace"));
    edits.record(&agent, "/size", json!(5));
    edits.record(&agent, "/size", json!(6));
    let updated = json!({"name": "Ada", "status": "booked", "size": 8});
    assert_eq!(
        edits.overlay(&updated),
        json!({"name": "Grace", "status": "booked", "size": 8}),
        "the agent changed size after the edit: its word wins; the name edit stays"
    );
    assert_eq!(edits.overlay(&json!({"name": "Bea"}))["name"], "Bea");
}
