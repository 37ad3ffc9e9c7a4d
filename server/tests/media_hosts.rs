//! The hosts an operator always loads remote media from, against a real `agent-os serve`
//! on SQLite and PostgreSQL: kept with the account (another sign-in, another browser,
//! sees them), only ever the caller's own (a viewer keeps a list too; another user's is
//! apart), a host that is not a plain name refused in words, and a page on another
//! origin cannot change it.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;

use common::api::Api;
use common::session_client;
use serde_json::{Value, json};

/// Calls a server function as `client`; its status and JSON answer.
async fn call(
    api: &Api,
    client: &reqwest::Client,
    name: &str,
    form: &[(&str, &str)],
) -> (u16, Value) {
    let (status, answer) = common::call_server_fn_as(client, &api.server, name, form).await;
    (status.as_u16(), answer)
}

#[tokio::test]
async fn allowed_media_hosts_follow_the_operator_and_stay_theirs() {
    for backend in backends::all().await {
        let api = Api::start(&["--db", &backend.url]).await;
        common::add_user(
            &api.server.data_dir,
            &api.server.args,
            "vic",
            "default",
            "viewer",
        );
        common::add_user(
            &api.server.data_dir,
            &api.server.args,
            "otto",
            "default",
            "operator",
        );
        let vic_here = session_client(&api.server, "vic").await;
        let vic_elsewhere = session_client(&api.server, "vic").await;
        let otto = session_client(&api.server, "otto").await;

        assert_eq!(
            call(&api, &vic_here, "media_hosts", &[]).await,
            (200, json!([]))
        );
        // A viewer keeps a list: it changes nothing of the tenant's.
        let (status, kept) = call(
            &api,
            &vic_here,
            "set_media_hosts",
            &[("hosts", "Example.org\ncdn.example.net\n\nexample.org")],
        )
        .await;
        assert_eq!(
            (status, kept),
            (200, json!(["example.org", "cdn.example.net"]))
        );
        assert_eq!(
            call(&api, &vic_elsewhere, "media_hosts", &[]).await,
            (200, json!(["example.org", "cdn.example.net"])),
            "another browser of the same operator sees the list"
        );
        assert_eq!(
            call(&api, &otto, "media_hosts", &[]).await,
            (200, json!([])),
            "another operator's list is apart"
        );

        // Anything but a plain host is refused and changes nothing.
        let (status, error) = call(
            &api,
            &vic_here,
            "set_media_hosts",
            &[("hosts", "example.org\nevil.example/pixel.gif")],
        )
        .await;
        assert_eq!(status, 400, "{error}");
        assert!(
            error.to_string().contains("is not a host name or address"),
            "{error}"
        );
        assert_eq!(
            call(&api, &vic_elsewhere, "media_hosts", &[]).await.1,
            json!(["example.org", "cdn.example.net"])
        );

        // Forgetting one is setting the rest.
        call(
            &api,
            &vic_elsewhere,
            "set_media_hosts",
            &[("hosts", "cdn.example.net")],
        )
        .await;
        assert_eq!(
            call(&api, &vic_here, "media_hosts", &[]).await.1,
            json!(["cdn.example.net"])
        );

        // A page on another origin cannot add a host to the list.
        let response = vic_here
            .post(api.url("/fn/set_media_hosts"))
            .header(reqwest::header::ORIGIN, "https://evil.example")
            .form(&[("hosts", "evil.example")])
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403);
        assert_eq!(
            call(&api, &vic_here, "media_hosts", &[]).await.1,
            json!(["cdn.example.net"])
        );

        // Signed out, nothing is read.
        let nobody = reqwest::Client::new()
            .post(api.url("/fn/media_hosts"))
            .send()
            .await
            .unwrap();
        assert_eq!(nobody.status(), 401);
    }
}
