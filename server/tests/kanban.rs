//! Boards over the API a client uses: a board made, its cards made (once per key),
//! changed, moved between lanes and within one, commented on, each step in the card's log;
//! bad boards and cards refused naming the field; and in the store, on SQLite and
//! PostgreSQL, a claim written all or nothing.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;

use app::kanban::{Lane, Limits};
use app::model::kanban::{Attempt, Board, Card, CardLinks};
use app::model::schedules::AskPolicy;
use common::api::Api;
use common::kanban::card;
use serde_json::{Value, json};
use server::store::jobs::NewJob;
use server::store::kanban::{Claim, NewEvent};

async fn send(api: &Api, method: reqwest::Method, path: &str, body: Value) -> (u16, Value) {
    let response = api
        .client
        .request(method, api.url(path))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn board(api: &Api) -> String {
    let board = common::kanban::board(api, json!({"name": "Release"})).await;
    assert_eq!(board["limits"]["wip"], 3, "{board}");
    board["id"].as_str().unwrap().to_owned()
}

/// The titles of the board's cards in `lane`, top first.
async fn lane(api: &Api, board: &str, lane: &str) -> Vec<String> {
    let (_, view) = api.get(&format!("/api/v1/boards/{board}")).await;
    let mut cards: Vec<&Value> = view["cards"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|card| card["lane"] == lane)
        .collect();
    cards.sort_by(|a, b| {
        a["position"]
            .as_f64()
            .unwrap()
            .total_cmp(&b["position"].as_f64().unwrap())
    });
    cards
        .iter()
        .map(|card| card["title"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn cards_are_made_once_per_key_changed_moved_and_commented_with_each_step_logged() {
    let api = Api::start(&[]).await;
    let board = board(&api).await;
    let first = card(
        &api,
        &board,
        json!({"title": "Draft notes", "agent": "demo", "priority": 2, "labels": ["docs", "docs", "q4"], "idempotency_key": "k1"}),
    )
    .await;
    assert_eq!(first["lane"], "todo");
    assert_eq!(first["labels"], json!(["docs", "q4"]));
    let (status, again) = api
        .post(
            &format!("/api/v1/boards/{board}/cards"),
            json!({"title": "Draft notes", "idempotency_key": "k1"}),
        )
        .await;
    assert_eq!((status, &again["id"]), (200, &first["id"]));
    let id = first["id"].as_str().unwrap();
    let second = card(&api, &board, json!({"title": "Ship", "depends_on": [id]})).await;
    assert_eq!(second["depends_on"], json!([id]));
    card(&api, &board, json!({"title": "Announce"})).await;
    assert_eq!(
        lane(&api, &board, "todo").await,
        ["Draft notes", "Ship", "Announce"]
    );

    // Moved to the top of its lane, then to review.
    let announce = lane(&api, &board, "todo").await;
    assert_eq!(announce.len(), 3);
    let (_, view) = api.get(&format!("/api/v1/boards/{board}")).await;
    let announce_id = view["cards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|card| card["title"] == "Announce")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, moved) = api
        .post(
            &format!("/api/v1/cards/{announce_id}/move"),
            json!({"lane": "todo", "index": 0}),
        )
        .await;
    assert_eq!(status, 200, "{moved}");
    assert_eq!(
        lane(&api, &board, "todo").await,
        ["Announce", "Draft notes", "Ship"]
    );
    let (status, blocked) = api
        .post(
            &format!("/api/v1/cards/{id}/move"),
            json!({"lane": "blocked", "reason": "Waiting for legal"}),
        )
        .await;
    assert_eq!(status, 200, "{blocked}");
    assert_eq!(blocked["blocked_reason"], "Waiting for legal");
    let (status, edited) = send(
        &api,
        reqwest::Method::PATCH,
        &format!("/api/v1/cards/{id}"),
        json!({"body": "Two pages", "agent": ""}),
    )
    .await;
    assert_eq!(status, 200, "{edited}");
    assert_eq!(edited["body"], "Two pages");
    assert!(edited.get("agent").is_none(), "{edited}");
    let (status, comment) = api
        .post(
            &format!("/api/v1/cards/{id}/comments"),
            json!({"body": "Legal said Friday"}),
        )
        .await;
    assert_eq!(status, 201, "{comment}");

    let (status, detail) = api.get(&format!("/api/v1/cards/{id}")).await;
    assert_eq!(status, 200);
    let kinds = common::kanban::event_kinds(&detail);
    assert_eq!(kinds, ["commented", "edited", "moved", "created"]);
    assert_eq!(detail["events"][2]["detail"]["to"], "blocked");
    assert_eq!(detail["comments"][0]["body"], "Legal said Friday");
    assert_eq!(detail["attempts"], json!([]));
}

#[tokio::test]
async fn bad_boards_and_cards_are_refused_naming_the_field() {
    let api = Api::start(&[]).await;
    let (status, refused) = api
        .post(
            "/api/v1/boards",
            json!({"name": "Zero", "limits": {"wip": 0, "stale_s": 600, "failure_limit": 2}}),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("limits.wip"),
        "{refused}"
    );
    let board = board(&api).await;
    let parent = card(&api, &board, json!({"title": "Parent"})).await;
    let parent = parent["id"].as_str().unwrap().to_owned();
    let child = card(
        &api,
        &board,
        json!({"title": "Child", "depends_on": [parent]}),
    )
    .await;
    let child = child["id"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/boards/{board}/cards");
    for (body, field) in [
        (json!({"title": "  "}), "title"),
        (json!({"title": "x", "priority": 9}), "priority"),
        (json!({"title": "x", "agent": "nobody"}), "agent"),
        (json!({"title": "x", "lane": "running"}), "lane"),
        (
            json!({"title": "x", "depends_on": ["crd-none"]}),
            "depends_on[0]",
        ),
        (
            json!({"title": "x", "links": {"threads": ["nope"]}}),
            "links.threads[0]",
        ),
        (json!({"title": "x", "labels": [""]}), "labels[0]"),
    ] {
        let (status, refused) = api.post(&path, body).await;
        assert_eq!(status, 400, "{field}: {refused}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.starts_with(field), "{field}: {message}");
    }
    // The parent may not wait on its own child: a loop.
    let (status, refused) = send(
        &api,
        reqwest::Method::PATCH,
        &format!("/api/v1/cards/{parent}"),
        json!({"depends_on": [child]}),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("loop"),
        "{refused}"
    );
    let (status, _) = api.get("/api/v1/boards/brd-none").await;
    assert_eq!(status, 404);
    let (status, _) = api.get("/api/v1/cards/crd-none").await;
    assert_eq!(status, 404);
    let (status, refused) = api
        .post(
            &format!("/api/v1/cards/{child}/move"),
            json!({"lane": "running"}),
        )
        .await;
    assert_eq!(status, 400, "{refused}");
}

fn new_board(id: &str) -> Board {
    Board {
        id: id.into(),
        name: "Store board".into(),
        project_id: None,
        limits: Limits::default(),
        asks: AskPolicy::Wait,
        created_by: "ada".into(),
        created_at_ms: 1,
        updated_at_ms: 1,
    }
}

fn new_card(id: &str, board: &str) -> Card {
    Card {
        id: id.into(),
        board_id: board.into(),
        title: id.into(),
        body: String::new(),
        agent: Some("demo".into()),
        priority: 0,
        labels: Vec::new(),
        lane: Lane::Ready,
        position: 1.0,
        blocked_reason: None,
        last_block: None,
        failures: 0,
        attempt_id: None,
        summary: None,
        depends_on: Vec::new(),
        links: CardLinks::default(),
        needs_you: None,
        created_by: "ada".into(),
        created_at_ms: 1,
        updated_at_ms: 1,
    }
}

fn claim_of(card: &Card, expected: i64, n: u32) -> Claim {
    let attempt = Attempt {
        id: format!("att-{}-{n}", card.id),
        card_id: card.id.clone(),
        number: n,
        agent: "demo".into(),
        job_id: format!("job-{}-{n}", card.id),
        thread_id: None,
        run_id: None,
        state: "running".into(),
        started_at_ms: 5,
        ended_at_ms: None,
        last_sign_ms: 5,
        note: None,
    };
    let mut running = card.clone();
    running.lane = Lane::Running;
    running.attempt_id = Some(attempt.id.clone());
    running.updated_at_ms = 5;
    Claim {
        card: running,
        expected_updated_at_ms: expected,
        job: NewJob {
            id: attempt.job_id.clone(),
            tenant_id: "default".into(),
            kind: "test.card".into(),
            payload: json!({"card_id": card.id}),
            run_at_ms: 5,
            max_attempts: 1,
            idempotency_key: Some(format!("card:{}:{n}", card.id)),
            created_by: "the dispatcher".into(),
            created_at_ms: 5,
            agent: Some("demo".into()),
            project_id: None,
        },
        attempt,
    }
}

#[tokio::test]
async fn a_claim_writes_the_card_its_attempt_its_event_and_its_job_all_or_none() {
    for backend in backends::all().await {
        let name = backend.name;
        let store = backend.store.clone();
        store
            .create_board("default", &new_board("brd-1"))
            .await
            .unwrap();
        for id in ["crd-a", "crd-b"] {
            store
                .create_card("default", &new_card(id, "brd-1"), None)
                .await
                .unwrap();
        }
        let a = new_card("crd-a", "brd-1");
        let b = new_card("crd-b", "brd-1");
        // b changed since it was read: neither claim is written.
        let mut moved = b.clone();
        moved.updated_at_ms = 2;
        assert!(
            store
                .write_card(
                    "default",
                    &moved,
                    1,
                    &NewEvent::new("edited", "ada", json!({}))
                )
                .await
                .unwrap()
        );
        let stale = [claim_of(&a, 1, 1), claim_of(&b, 1, 1)];
        assert!(
            !store
                .claim_cards("default", "brd-1", 0, &stale, 5)
                .await
                .unwrap(),
            "{name}"
        );
        assert_eq!(
            store.card("default", "crd-a").await.unwrap().unwrap().lane,
            Lane::Ready,
            "{name}"
        );
        assert!(store.attempts("default", "crd-a").await.unwrap().is_empty());
        assert!(
            store
                .job_detail("default", "job-crd-a-1")
                .await
                .unwrap()
                .is_none()
        );

        // Nor when another dispatcher started a card on the board meanwhile.
        let fresh = [claim_of(&a, 1, 1), claim_of(&moved, 2, 1)];
        assert!(
            !store
                .claim_cards("default", "brd-1", 1, &fresh, 5)
                .await
                .unwrap(),
            "{name}"
        );
        assert!(
            store
                .claim_cards("default", "brd-1", 0, &fresh, 5)
                .await
                .unwrap(),
            "{name}"
        );
        for id in ["crd-a", "crd-b"] {
            let card = store.card("default", id).await.unwrap().unwrap();
            assert_eq!(card.lane, Lane::Running, "{name}");
            assert_eq!(card.attempt_id, Some(format!("att-{id}-1")), "{name}");
            let attempts = store.attempts("default", id).await.unwrap();
            assert_eq!(attempts.len(), 1, "{name}");
            let events = store.card_events("default", id).await.unwrap();
            assert_eq!(events[0].kind, "claimed", "{name}");
            assert_eq!(events[0].attempt_id, Some(format!("att-{id}-1")));
            assert!(
                store
                    .job_detail("default", &format!("job-{id}-1"))
                    .await
                    .unwrap()
                    .is_some(),
                "{name}"
            );
        }
        // Another tenant sees none of it.
        store.create_tenant("other", 1).await.unwrap();
        assert!(store.boards("other").await.unwrap().is_empty());
        assert!(store.card("other", "crd-a").await.unwrap().is_none());
        assert!(store.delete_board("default", "brd-1").await.unwrap());
        assert!(store.card("default", "crd-a").await.unwrap().is_none());
    }
}
