//! The dispatcher against a real server and its demo agent on loopback: ready cards handed
//! out within the board's limits as real runs, a card whose run waits on an ask says it
//! needs a person, a card whose dependencies are done becomes ready, attempts that end
//! without the agent's word count as failures until the card blocks, and a card whose run
//! goes quiet is taken back.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::api::Api;
use serde_json::{Value, json};

async fn board(api: &Api, limits: Value) -> String {
    let board = common::kanban::board(api, json!({"name": "Dispatch", "limits": limits})).await;
    board["id"].as_str().unwrap().to_owned()
}

async fn card(api: &Api, board: &str, body: Value) -> String {
    let card = common::kanban::card(api, board, body).await;
    card["id"].as_str().unwrap().to_owned()
}

/// The board's cards once `enough` holds of them (or after 40 s).
async fn cards_when(api: &Api, board: &str, enough: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let mut cards = Vec::new();
    for _ in 0..400 {
        let (_, view) = api.get(&format!("/api/v1/boards/{board}")).await;
        cards = view["cards"].as_array().unwrap().clone();
        if enough(&cards) {
            return cards;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the board never got there: {cards:#?}");
}

fn in_lane<'a>(cards: &'a [Value], lane: &str) -> Vec<&'a Value> {
    cards.iter().filter(|card| card["lane"] == lane).collect()
}

#[tokio::test]
async fn ready_cards_are_handed_out_within_the_wip_limit_and_a_waiting_run_needs_you() {
    let api = Api::start(&[]).await;
    let board = board(
        &api,
        json!({"wip": 1, "agent_wip": null, "stale_s": 600, "failure_limit": 2}),
    )
    .await;
    for _ in 0..3 {
        card(
            &api,
            &board,
            json!({"title": "busy", "agent": "demo", "lane": "ready"}),
        )
        .await;
    }
    let cards = cards_when(&api, &board, |cards| {
        in_lane(cards, "running")
            .first()
            .is_some_and(|card| card["needs_you"].is_string())
    })
    .await;
    assert_eq!(in_lane(&cards, "running").len(), 1, "{cards:#?}");
    assert_eq!(in_lane(&cards, "ready").len(), 2, "{cards:#?}");
    let running = in_lane(&cards, "running")[0].clone();
    let id = running["id"].as_str().unwrap();
    let (_, detail) = api.get(&format!("/api/v1/cards/{id}")).await;
    let attempt = &detail["attempts"][0];
    assert_eq!(attempt["number"], 1);
    assert_eq!(attempt["state"], "running");
    let thread = attempt["thread_id"].as_str().unwrap();
    // The run is a real run in a real thread, given the card as context.
    let (_, page) = api.get(&format!("/api/v1/threads/{thread}")).await;
    assert!(
        page["thread"]["title"]
            .as_str()
            .unwrap()
            .starts_with("busy · attempt 1"),
        "{page}"
    );
    let run = attempt["run_id"].as_str().unwrap();
    let (_, view) = api.get(&format!("/api/v1/runs/{run}")).await;
    let given = &view["view"]["given"][0];
    assert_eq!(
        (&given["kind"], &given["id"]),
        (&json!("card"), &json!(id)),
        "{view}"
    );
    assert_eq!(given["title"], "busy · attempt 1");
    let key = running["needs_you"].as_str().unwrap();
    let (status, ask) = api.get(&format!("/api/v1/asks/{key}")).await;
    assert_eq!(status, 200, "{ask}");
    assert_eq!(ask["ask"]["thread_id"], thread);
    // Still one at a time, a few looks later.
    tokio::time::sleep(Duration::from_secs(6)).await;
    let (_, view) = api.get(&format!("/api/v1/boards/{board}")).await;
    let cards = view["cards"].as_array().unwrap().clone();
    assert_eq!(in_lane(&cards, "running").len(), 1, "{cards:#?}");
}

#[tokio::test]
async fn a_card_becomes_ready_when_every_card_it_depends_on_is_done() {
    let api = Api::start(&[]).await;
    let board = board(
        &api,
        json!({"wip": 3, "agent_wip": 1, "stale_s": 600, "failure_limit": 2}),
    )
    .await;
    let first = card(&api, &board, json!({"title": "First"})).await;
    let second = card(&api, &board, json!({"title": "Second"})).await;
    let last = card(
        &api,
        &board,
        json!({"title": "Last", "depends_on": [first, second]}),
    )
    .await;
    let (status, _) = api
        .post(
            &format!("/api/v1/cards/{first}/move"),
            json!({"lane": "done"}),
        )
        .await;
    assert_eq!(status, 200);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_, detail) = api.get(&format!("/api/v1/cards/{last}")).await;
    assert_eq!(detail["card"]["lane"], "todo", "one of two is done");
    let (status, _) = api
        .post(
            &format!("/api/v1/cards/{second}/move"),
            json!({"lane": "done"}),
        )
        .await;
    assert_eq!(status, 200);
    let cards = cards_when(&api, &board, |cards| {
        cards
            .iter()
            .any(|card| card["id"] == last.as_str() && card["lane"] == "ready")
    })
    .await;
    assert_eq!(in_lane(&cards, "ready").len(), 1);
    let (_, detail) = api.get(&format!("/api/v1/cards/{last}")).await;
    assert_eq!(detail["events"][0]["kind"], "promoted", "{detail}");
    assert_eq!(detail["events"][0]["actor"], "the dispatcher");
}

#[tokio::test]
async fn attempts_that_end_without_the_agents_word_fail_until_the_card_blocks() {
    let api = Api::start(&[]).await;
    let board = board(
        &api,
        json!({"wip": 3, "agent_wip": 1, "stale_s": 600, "failure_limit": 2}),
    )
    .await;
    let id = card(
        &api,
        &board,
        json!({"title": "hello", "agent": "demo", "lane": "ready"}),
    )
    .await;
    let cards = cards_when(&api, &board, |cards| !in_lane(cards, "blocked").is_empty()).await;
    let blocked = in_lane(&cards, "blocked")[0];
    assert_eq!(blocked["failures"], 2, "{blocked}");
    assert!(
        blocked["blocked_reason"]
            .as_str()
            .unwrap()
            .contains("2 attempts failed"),
        "{blocked}"
    );
    let (_, detail) = api.get(&format!("/api/v1/cards/{id}")).await;
    let attempts: Vec<(u64, &str)> = detail["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|attempt| {
            (
                attempt["number"].as_u64().unwrap(),
                attempt["state"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(attempts, [(2, "failed"), (1, "failed")]);
    let kinds = common::kanban::event_kinds(&detail);
    assert_eq!(kinds, ["failed", "claimed", "failed", "claimed", "created"]);
    // Each attempt ran in a thread of its own, which links back to its attempt.
    let threads: Vec<&str> = detail["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|attempt| attempt["thread_id"].as_str().unwrap())
        .collect();
    assert_ne!(threads[0], threads[1]);
}

#[tokio::test]
async fn a_card_whose_run_goes_quiet_is_taken_back_after_the_stale_time() {
    let api = Api::start(&[]).await;
    let board = board(
        &api,
        json!({"wip": 3, "agent_wip": 1, "stale_s": 5, "failure_limit": 1}),
    )
    .await;
    let id = card(
        &api,
        &board,
        json!({"title": "slow", "agent": "demo", "lane": "ready"}),
    )
    .await;
    let cards = cards_when(&api, &board, |cards| !in_lane(cards, "blocked").is_empty()).await;
    assert_eq!(in_lane(&cards, "blocked").len(), 1, "{cards:#?}");
    let (_, detail) = api.get(&format!("/api/v1/cards/{id}")).await;
    let attempt = &detail["attempts"][0];
    assert_eq!(attempt["state"], "reclaimed", "{detail}");
    assert!(
        attempt["note"]
            .as_str()
            .unwrap()
            .starts_with("no sign of life for"),
        "{attempt}"
    );
    assert_eq!(detail["events"][0]["kind"], "reclaimed");
    // Its run was stopped.
    let run = attempt["run_id"].as_str().unwrap();
    for _ in 0..100 {
        let (_, read) = api.get(&format!("/api/v1/runs/{run}")).await;
        if read["run"]["status"] != "running" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the quiet run was not stopped");
}

#[tokio::test]
async fn a_card_taken_back_by_hand_stops_its_run_and_the_next_card_runs() {
    let api = Api::start(&[]).await;
    let board = board(
        &api,
        json!({"wip": 1, "agent_wip": null, "stale_s": 600, "failure_limit": 2}),
    )
    .await;
    for _ in 0..2 {
        card(
            &api,
            &board,
            json!({"title": "slow", "agent": "demo", "lane": "ready"}),
        )
        .await;
    }
    let cards = cards_when(&api, &board, |cards| {
        in_lane(cards, "running")
            .first()
            .is_some_and(|card| card["attempt_id"].is_string())
    })
    .await;
    let id = in_lane(&cards, "running")[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let run = loop {
        let (_, detail) = api.get(&format!("/api/v1/cards/{id}")).await;
        if let Some(run) = detail["attempts"][0]["run_id"].as_str() {
            break run.to_owned();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let (status, moved) = api
        .post(&format!("/api/v1/cards/{id}/move"), json!({"lane": "todo"}))
        .await;
    assert_eq!(status, 200, "{moved}");
    assert!(moved.get("attempt_id").is_none(), "{moved}");
    let (_, detail) = api.get(&format!("/api/v1/cards/{id}")).await;
    assert_eq!(detail["attempts"][0]["state"], "reclaimed", "{detail}");
    assert!(
        detail["attempts"][0]["note"]
            .as_str()
            .unwrap()
            .starts_with("taken back by"),
        "{detail}"
    );
    for _ in 0..100 {
        let (_, read) = api.get(&format!("/api/v1/runs/{run}")).await;
        if read["run"]["status"] == "cancelled" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_, read) = api.get(&format!("/api/v1/runs/{run}")).await;
    assert_eq!(read["run"]["status"], "cancelled", "{read}");
    cards_when(&api, &board, |cards| {
        cards
            .iter()
            .any(|card| card["lane"] == "running" && card["id"] != id.as_str())
    })
    .await;
    // The card taken back stays where it was put, its failures untouched.
    let (_, detail) = api.get(&format!("/api/v1/cards/{id}")).await;
    assert_eq!(
        (&detail["card"]["lane"], &detail["card"]["failures"]),
        (&json!("todo"), &json!(0))
    );
}
