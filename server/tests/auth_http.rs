//! Signing in over HTTP against a real `agent-os serve`: the session cookie and what it
//! opens, bearer tokens, sign-out here and everywhere, throttled guessing, and the first
//! owner made with the setup token.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;

use common::TestServer;
use reqwest::StatusCode;
use serde_json::{Value, json};

const PASSWORD: &str = common::TEST_PASSWORD;

fn token(data: &Path, user: &str, tenant: &str) -> String {
    common::new_token(data, &[], user, tenant, None)
}

async fn start() -> (tempfile::TempDir, TestServer) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    common::add_user(&data, &[], "ada", "acme", "owner");
    common::grant(&data, &[], "ada", "labs", "viewer");
    let server = TestServer::start(&data).await;
    (dir, server)
}

async fn login(server: &TestServer, body: Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(server.url("/api/v1/auth/login"))
        .json(&body)
        .send()
        .await
        .unwrap()
}

fn session_of(response: &reqwest::Response) -> (String, String) {
    let set = response
        .headers()
        .get("set-cookie")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let value = set.split(';').next().unwrap().trim().to_owned();
    (value, set)
}

async fn me(server: &TestServer, auth: (&str, &str)) -> (StatusCode, Value) {
    let response = reqwest::Client::new()
        .get(server.url("/api/v1/me"))
        .header(auth.0, auth.1)
        .send()
        .await
        .unwrap();
    (
        response.status(),
        response.json().await.unwrap_or(Value::Null),
    )
}

#[tokio::test]
async fn signing_in_sets_an_http_only_cookie_that_opens_me_until_sign_out() {
    let (dir, server) = start().await;
    // A wrong password and an unknown name are refused alike.
    for body in [
        json!({"username": "ada", "password": "wrong password"}),
        json!({"username": "nobody", "password": PASSWORD}),
    ] {
        let refused = login(&server, body).await;
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
        assert!(refused.headers().get("set-cookie").is_none());
        let body: Value = refused.json().await.unwrap();
        assert_eq!(
            body["error"]["message"],
            "the user name or password is wrong"
        );
    }
    let signed = login(&server, json!({"username": "ada", "password": PASSWORD})).await;
    assert_eq!(signed.status(), StatusCode::OK);
    let (cookie, set) = session_of(&signed);
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Lax") && set.contains("Path=/"),
        "{set}"
    );
    let body: Value = signed.json().await.unwrap();
    assert_eq!(
        (&body["user"], &body["tenant"], &body["role"]),
        (&json!("ada"), &json!("acme"), &json!("owner"))
    );
    assert_eq!(body["memberships"].as_array().unwrap().len(), 2);

    assert!(!set.contains("Secure"), "plain HTTP: {set}");
    let (status, seen) = me(&server, ("cookie", &cookie)).await;
    assert_eq!(status, StatusCode::OK, "{seen}");
    assert_eq!(seen["user"], "ada");
    // Behind a proxy that terminates TLS the cookie is Secure.
    let proxied = reqwest::Client::new()
        .post(server.url("/api/v1/auth/login"))
        .header("x-forwarded-proto", "https")
        .json(&json!({"username": "ada", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert!(session_of(&proxied).1.contains("; Secure"));
    // Into a tenant of the user's own choosing, with the role held there.
    let labs = login(
        &server,
        json!({"username": "ada", "password": PASSWORD, "tenant": "labs"}),
    )
    .await;
    assert_eq!(labs.json::<Value>().await.unwrap()["role"], "viewer");
    let elsewhere = login(
        &server,
        json!({"username": "ada", "password": PASSWORD, "tenant": "other"}),
    )
    .await;
    assert_eq!(elsewhere.status(), StatusCode::FORBIDDEN);

    // A bearer token made on the command line works as its user.
    let token = token(&dir.path().join("data"), "ada", "acme");
    let (status, seen) = me(&server, ("authorization", &format!("Bearer {token}"))).await;
    assert_eq!(status, StatusCode::OK, "{seen}");
    assert!(seen["token"].is_string());
    // Nothing, or anything made up, is no one.
    for auth in [
        ("x-nothing", "1"),
        ("cookie", "agent_os_session=0000"),
        ("authorization", "Bearer aos_0000000000000000_00"),
    ] {
        let (status, body) = me(&server, auth).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{auth:?}");
        assert_eq!(body["error"]["kind"], "unauthorized");
    }

    let out = reqwest::Client::new()
        .post(server.url("/api/v1/auth/logout"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), StatusCode::NO_CONTENT);
    assert!(session_of(&out).1.contains("Max-Age=0"));
    assert_eq!(
        me(&server, ("cookie", &cookie)).await.0,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn signing_out_everywhere_ends_every_session_of_the_user() {
    let (_dir, server) = start().await;
    let first =
        session_of(&login(&server, json!({"username": "ada", "password": PASSWORD})).await).0;
    let second =
        session_of(&login(&server, json!({"username": "ada", "password": PASSWORD})).await).0;
    assert_ne!(first, second);
    let ended: Value = reqwest::Client::new()
        .post(server.url("/api/v1/auth/logout-everywhere"))
        .header("cookie", &first)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(ended["ended"], 2);
    for cookie in [first, second] {
        assert_eq!(
            me(&server, ("cookie", &cookie)).await.0,
            StatusCode::UNAUTHORIZED
        );
    }
}

#[tokio::test]
async fn guessing_a_password_is_throttled_per_account() {
    let (_dir, server) = start().await;
    for _ in 0..5 {
        let refused = login(&server, json!({"username": "ada", "password": "guess"})).await;
        assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    }
    // Even the right password waits now, and says how long.
    let held = login(&server, json!({"username": "ada", "password": PASSWORD})).await;
    assert_eq!(held.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = held.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(wait > 0 && wait <= 15 * 60, "{wait}");
    // Another account is not held back by ada's failures.
    let other = login(&server, json!({"username": "bob", "password": PASSWORD})).await;
    assert_eq!(other.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_first_run_prints_a_setup_link_that_makes_the_first_owner_once() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("serve.log");
    let server = TestServer::start_without_users(&dir.path().join("data"), &log).await;
    let printed = std::fs::read_to_string(&log).unwrap();
    let link = printed
        .split_whitespace()
        .find(|word| word.contains("/setup?token="))
        .unwrap_or_else(|| panic!("no setup link in {printed:?}"));
    assert!(link.starts_with(&server.base_url), "{link}");
    let token = link.split("token=").nth(1).unwrap().to_owned();
    // Nothing but signing in and setting up is open before the first owner exists.
    let anonymous = reqwest::Client::new()
        .get(server.url("/api/v1/threads"))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    let setup = |token: String, name: &str| {
        let server = &server;
        let name = name.to_owned();
        async move {
            reqwest::Client::new()
                .post(server.url("/api/v1/auth/setup"))
                .json(&json!({"token": token, "username": name, "password": PASSWORD, "tenant": "acme"}))
                .send()
                .await
                .unwrap()
        }
    };
    let made = setup(token.clone(), "ada").await;
    assert_eq!(made.status(), StatusCode::OK);
    let cookie = session_of(&made).0;
    assert_eq!(me(&server, ("cookie", &cookie)).await.1["role"], "owner");
    let again = setup(token, "eve").await;
    assert_eq!(again.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn no_password_session_or_token_reaches_the_log_or_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let log = dir.path().join("serve.log");
    common::add_user(&data, &[], "ada", "acme", "owner");
    let token = token(&data, "ada", "acme");
    let server = TestServer::start_logging(&data, &[], &[], &log).await;
    let near_miss = format!("{PASSWORD}-almost");
    let refused = login(&server, json!({"username": "ada", "password": near_miss})).await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let signed = login(&server, json!({"username": "ada", "password": PASSWORD})).await;
    let cookie = session_of(&signed).0;
    let form = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(server.url("/auth/login"))
        .form(&[("username", "ada"), ("password", PASSWORD)])
        .send()
        .await
        .unwrap();
    assert_eq!(form.status(), StatusCode::SEE_OTHER);
    assert_eq!(me(&server, ("cookie", &cookie)).await.0, StatusCode::OK);
    let bearer = format!("Bearer {token}");
    assert_eq!(
        me(&server, ("authorization", &bearer)).await.0,
        StatusCode::OK
    );
    let page = reqwest::Client::new()
        .get(server.url("/"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let session_id = cookie.split('=').nth(1).unwrap().to_owned();
    let token_secret = token.rsplit('_').next().unwrap().to_owned();
    drop(server);
    for secret in [
        PASSWORD,
        near_miss.as_str(),
        session_id.as_str(),
        token_secret.as_str(),
    ] {
        assert_eq!(
            common::files_holding(&log, secret),
            Vec::<String>::new(),
            "the log holds {secret:?}"
        );
        assert_eq!(
            common::files_holding(&data, secret),
            Vec::<String>::new(),
            "the store holds {secret:?}"
        );
    }
    // The log is not empty: it was written at debug level.
    assert!(std::fs::metadata(&log).unwrap().len() > 0);
}
