//! Operators' actions on agents' A2UI surfaces, over real HTTP to the demo AG-UI agent: an
//! action the surface declares reaches the agent (in `forwardedProps`) and the agent's
//! update lands on the surface; anything else is refused before an agent sees it.

#![allow(clippy::unwrap_used)]

mod common;

use common::api::{Api, texts};
use common::client_with;
use serde_json::{Value, json};

fn booking(context: Value) -> Value {
    json!({"surfaceId": "booking", "sourceComponentId": "book", "name": "book", "context": context})
}

fn operator_context() -> Value {
    json!({"name": "Grace", "room": ["green"], "size": 6, "projector": true,
           "when": "2026-12-08T09:30", "form": "booking"})
}

async fn thread_with_the_form(api: &Api) -> String {
    let thread = api.thread(None).await;
    let run = api.say(&thread, "surface").await;
    let shown = api.settled(&run).await;
    assert_eq!(shown["run"]["status"], "succeeded", "{shown}");
    thread
}

#[tokio::test]
async fn an_action_the_surface_declares_reaches_the_agent_and_its_update_lands_on_the_surface() {
    let api = Api::start(&[]).await;
    let thread = thread_with_the_form(&api).await;
    let (status, started) = api
        .post(
            &format!("/api/v1/threads/{thread}/surface-actions"),
            booking(operator_context()),
        )
        .await;
    assert_eq!(status, 202, "{started}");
    let run = started["run"]["id"].as_str().unwrap();
    let answered = api.settled(run).await;
    let said = texts(&answered["view"]).join(" ");
    assert!(
        said.contains("Action \"book\" from book: Booked the green room for Grace (6 people) at 2026-12-08T09:30."),
        "{said}"
    );
    // The surface asks for its data model; a client that sends none gives the agent's own.
    assert!(said.contains("The form's data model says Ada."), "{said}");
    let items = answered["view"]["items"].as_array().unwrap();
    let action = items
        .iter()
        .find(|item| item["type"] == "surface_action")
        .unwrap();
    assert_eq!(action["action"]["context"]["name"], "Grace");
    assert!(
        action["action"]["timestamp"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    let update = answered["view"]["artifacts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|artifact| artifact["kind"] == "a2ui_surface")
        .unwrap();
    assert_eq!(
        update["data"]["a2ui_operations"][0]["updateDataModel"]["path"],
        "/status"
    );
}

#[tokio::test]
async fn the_data_model_the_operator_left_goes_with_the_action_when_the_surface_asks() {
    let api = Api::start(&[]).await;
    let thread = thread_with_the_form(&api).await;
    let mut action = booking(operator_context());
    action["dataModel"] = json!({"name": "Lin", "room": ["green"], "size": 6});
    let (status, started) = api
        .post(&format!("/api/v1/threads/{thread}/surface-actions"), action)
        .await;
    assert_eq!(status, 202, "{started}");
    let answered = api.settled(started["run"]["id"].as_str().unwrap()).await;
    let said = texts(&answered["view"]).join(" ");
    assert!(said.contains("The form's data model says Lin."), "{said}");

    // Too large a model is refused before any agent sees it, naming the field.
    let mut action = booking(operator_context());
    action["dataModel"] = json!({"blob": "x".repeat(300 * 1024)});
    let (status, refused) = api
        .post(&format!("/api/v1/threads/{thread}/surface-actions"), action)
        .await;
    assert_eq!(status, 400, "{refused}");
    assert!(refused.to_string().contains("dataModel"), "{refused}");
}

#[tokio::test]
async fn an_action_that_does_not_fit_the_surface_is_refused_and_starts_nothing() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let path = format!("/api/v1/threads/{thread}/surface-actions");
    let (status, refused) = api.post(&path, booking(operator_context())).await;
    assert_eq!(status, 400, "no surface yet: {refused}");
    assert!(refused.to_string().contains("surfaceId"), "{refused}");

    let thread = thread_with_the_form(&api).await;
    let path = format!("/api/v1/threads/{thread}/surface-actions");
    let mut renamed = booking(operator_context());
    renamed["name"] = json!("cancel_everything");
    let mut fixed_value_changed = operator_context();
    fixed_value_changed["form"] = json!("something else");
    let mut undeclared = operator_context();
    undeclared["admin"] = json!(true);
    let mut other_component = booking(operator_context());
    other_component["sourceComponentId"] = json!("title");
    for (body, field) in [
        (renamed, "name:"),
        (booking(fixed_value_changed), "context:"),
        (booking(undeclared), "context:"),
        (other_component, "name:"),
        (json!({"surfaceId": "booking"}), "sourceComponentId"),
        (
            json!({"surfaceId": "booking", "sourceComponentId": "book", "name": "book", "extra": 1}),
            "extra",
        ),
    ] {
        let (status, refused) = api.post(&path, body.clone()).await;
        assert_eq!(status, 400, "{body} -> {refused}");
        assert!(refused.to_string().contains(field), "{body} -> {refused}");
    }
    assert_eq!(
        api.runs(&thread).await.len(),
        1,
        "no refused action became a run"
    );

    let (status, _) = api
        .post(
            "/api/v1/threads/no-such-thread/surface-actions",
            booking(operator_context()),
        )
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_viewer_sees_the_surface_but_cannot_act_on_it() {
    let api = Api::start(&[]).await;
    let thread = thread_with_the_form(&api).await;
    let viewer = client_with(&api.server.user_with_token("vic", "default", "viewer"));
    let response = viewer
        .post(api.url(&format!("/api/v1/threads/{thread}/surface-actions")))
        .json(&booking(operator_context()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    assert_eq!(api.runs(&thread).await.len(), 1);
}
