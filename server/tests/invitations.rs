//! Invitations over HTTP against a real `agent-os serve`, on both stores: a user invited
//! into a tenant joins only by answering from a signed-in browser (never with a token),
//! the answer is kept in the inviting tenant's audit trail and nowhere else, and
//! someone who takes an invited name later does not get the invitation.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;

use common::api::Api;
use common::{call_server_fn, call_server_fn_as, client_with};
use serde_json::Value;

/// A client with `cookie` that does not follow redirects.
fn browser(cookie: &str) -> reqwest::Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("cookie", cookie.parse().unwrap());
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .default_headers(headers)
        .build()
        .unwrap()
}

/// Posts the invitation form; the status and where it sends the browser.
async fn answer(client: &reqwest::Client, api: &Api, tenant: &str, answer: &str) -> (u16, String) {
    let response = client
        .post(api.url("/auth/invitation"))
        .form(&[("tenant", tenant), ("answer", answer)])
        .send()
        .await
        .unwrap();
    let location = response
        .headers()
        .get("location")
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (response.status().as_u16(), location)
}

async fn actions(client: &reqwest::Client, api: &Api) -> Vec<(String, String)> {
    let response = client.get(api.url("/api/v1/audit")).send().await.unwrap();
    let trail: Value = response.json().await.unwrap();
    trail["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["action"].as_str().unwrap().to_owned(),
                entry["target"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

async fn tenants_of(client: &reqwest::Client, api: &Api) -> Vec<String> {
    let response = client.get(api.url("/api/v1/me")).send().await.unwrap();
    let me: Value = response.json().await.unwrap();
    me["memberships"]
        .as_array()
        .unwrap()
        .iter()
        .map(|membership| membership["tenant"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn an_invitation_is_answered_from_a_browser_only_and_kept_in_the_inviting_trail() {
    for backend in backends::all().await {
        let api = Api::start(&["--db", &backend.url]).await;
        let name = backend.name;
        // Gus works in "elsewhere"; its owner Olga reads its trail.
        let olga = client_with(&api.server.user_with_token("olga", "elsewhere", "owner"));
        let gus_token = api.server.user_with_token("gus", "elsewhere", "operator");
        let (status, added) = call_server_fn(
            &api.server,
            "add_member",
            &[("user", "gus"), ("role", "viewer"), ("password", "")],
        )
        .await;
        assert_eq!(status, 200, "{name}: {added}");
        assert_eq!(added, "Invited", "{name}");

        // A token belongs to one tenant: it neither reads nor answers invitations.
        let token = client_with(&gus_token);
        let (status, me) = call_server_fn_as(&token, &api.server, "me", &[]).await;
        assert_eq!(status, 200, "{name}: {me}");
        assert_eq!(me["invitations"], serde_json::json!([]), "{name}");
        let refused = token
            .post(api.url("/auth/invitation"))
            .form(&[("tenant", "default"), ("answer", "accept")])
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 400, "{name}");
        assert_eq!(tenants_of(&token, &api).await, ["elsewhere"], "{name}");

        // From the browser: seen, accepted, joined, the session moved there.
        let gus = browser(&common::session_cookie(&api.server, "gus").await);
        let (_, me) = call_server_fn_as(&gus, &api.server, "me", &[]).await;
        assert_eq!(me["invitations"][0]["tenant"], "default", "{name}: {me}");
        assert_eq!(me["invitations"][0]["role"], "viewer", "{name}: {me}");
        assert_eq!(
            answer(&gus, &api, "default", "accept").await,
            (303, "/".into())
        );
        let (_, me) = call_server_fn_as(&gus, &api.server, "me", &[]).await;
        assert_eq!(
            (me["tenant"].as_str(), me["role"].as_str()),
            (Some("default"), Some("viewer")),
            "{name}: {me}"
        );
        assert_eq!(me["invitations"], serde_json::json!([]), "{name}");
        // Spent: accepting again is sent back saying so.
        assert_eq!(
            answer(&gus, &api, "default", "accept").await,
            (303, "/?invitation-error=gone".into())
        );

        // The inviting tenant's trail has the answer; the one gus was in has nothing of it.
        let inviting = actions(&api.client, &api).await;
        assert!(
            inviting.contains(&("invitation.accept".into(), "user=gus".into())),
            "{name}: {inviting:?}"
        );
        let elsewhere = actions(&olga, &api).await;
        assert!(
            elsewhere
                .iter()
                .all(|(action, target)| !action.starts_with("invitation")
                    && !target.contains("default")),
            "{name}: {elsewhere:?}"
        );
    }
}

#[tokio::test]
async fn a_declined_invitation_is_gone_and_a_name_taken_later_gets_none() {
    let api = Api::start(&[]).await;
    api.server.user_with_token("dora", "elsewhere", "operator");
    for user in ["dora", "latecomer"] {
        let (status, body) = call_server_fn(
            &api.server,
            "add_member",
            &[("user", user), ("role", "owner"), ("password", "")],
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }
    let dora = browser(&common::session_cookie(&api.server, "dora").await);
    assert_eq!(
        answer(&dora, &api, "default", "decline").await,
        (303, "/".into())
    );
    assert_eq!(tenants_of(&dora, &api).await, ["elsewhere"]);
    let trail = actions(&api.client, &api).await;
    assert!(
        trail.contains(&("invitation.decline".into(), "user=dora".into())),
        "{trail:?}"
    );
    let (_, listed) = call_server_fn(&api.server, "invitations", &[]).await;
    let users: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|invitation| invitation["user"].as_str().unwrap())
        .collect();
    assert_eq!(users, ["latecomer"]);

    // Someone who takes the invited name afterwards sees nothing and cannot accept it.
    api.server
        .user_with_token("latecomer", "elsewhere", "viewer");
    let latecomer = browser(&common::session_cookie(&api.server, "latecomer").await);
    let (_, me) = call_server_fn_as(&latecomer, &api.server, "me", &[]).await;
    assert_eq!(me["invitations"], serde_json::json!([]), "{me}");
    assert_eq!(
        answer(&latecomer, &api, "default", "accept").await,
        (303, "/?invitation-error=gone".into())
    );
    assert_eq!(tenants_of(&latecomer, &api).await, ["elsewhere"]);
}
