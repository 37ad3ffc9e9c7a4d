//! The runtime end to end over real sockets: the JSON API, the bridge to the demo agent
//! over loopback HTTP, the SQLite store, the live SSE stream and exactly-once receipts.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use common::TestServer;
use common::api::{Api, errors, texts, tool_calls};
use serde_json::{Value, json};

#[tokio::test]
async fn chunked_text_rejoins_through_the_bridge_and_the_store() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "chunks").await;
    let body = api.settled(&run).await;
    assert_eq!(body["run"]["status"], "succeeded");
    assert_eq!(
        texts(&body["view"]),
        [
            "chunks",
            "Chunked text arrives in fragments, and the client rejoins them — emoji included: 👩\u{200d}💻."
        ]
    );
}

#[tokio::test]
async fn arguments_split_mid_escape_parse_and_parallel_calls_stay_apart() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let view = api.settled(&api.say(&thread, "call").await).await["view"].clone();
    let args: Value =
        serde_json::from_str(tool_calls(&view)[0]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args["note"], "line\nbreak");
    assert_eq!(args["depth"], 3);

    let view = api.settled(&api.say(&thread, "parallel").await).await["view"].clone();
    let calls = tool_calls(&view);
    let titles: Vec<Value> = calls
        .iter()
        .map(|call| {
            serde_json::from_str::<Value>(call["arguments"].as_str().unwrap()).unwrap()["title"]
                .clone()
        })
        .collect();
    assert_eq!(titles, [json!("write it down"), json!("read it back")]);
    assert!(calls.iter().all(|call| call["status"] == "done"));
}

#[tokio::test]
async fn two_pauses_are_answered_in_one_resume_and_a_mixed_answer_arrives_as_one_batch() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "approve").await;
    let paused = api.settled(&run).await;
    assert_eq!(paused["run"]["status"], "interrupted");
    let (status, pending) = api.get("/api/v1/asks?state=pending").await;
    assert_eq!(status, 200);
    assert_eq!(pending["asks"].as_array().unwrap().len(), 2);

    let (status, _) = api
        .receipt(&run, "approve-budget", "approval_card", "once", json!({}))
        .await;
    assert_eq!(status, 200);
    // One answer is not enough: AG-UI has no partial resume.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(api.runs(&thread).await.len(), 1);
    let (status, _) = api
        .receipt(&run, "confirm-date", "approval_card", "deny", json!({}))
        .await;
    assert_eq!(status, 200);
    let resumed = api.nth_run(&thread, 1).await;
    assert_eq!(resumed["run"]["status"], "succeeded");
    assert_eq!(
        texts(&resumed["view"]),
        ["Declined: confirm-date. Nothing booked."]
    );
    assert_eq!(api.runs(&thread).await.len(), 2, "exactly one resume run");

    let run = api.say(&thread, "approve again").await;
    api.settled(&run).await;
    api.receipt(
        &run,
        "approve-budget",
        "approval_card",
        "session",
        json!({}),
    )
    .await;
    api.receipt(&run, "confirm-date", "approval_card", "always", json!({}))
        .await;
    let resumed = api.nth_run(&thread, 3).await;
    assert_eq!(texts(&resumed["view"]), ["Both approved. Booked."]);
    // Approved for the session: the agent does not ask again in this thread.
    let run = api.say(&thread, "approve once more").await;
    let body = api.settled(&run).await;
    assert_eq!(body["run"]["status"], "succeeded");
    assert!(
        texts(&body["view"])
            .iter()
            .any(|t| t.contains("approved earlier for this session"))
    );
}

#[tokio::test]
async fn fifty_concurrent_receipts_for_one_ask_give_one_200_and_forty_nine_409s() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "busy").await;
    api.settled(&run).await;
    let mut attempts = Vec::new();
    for n in 0..50 {
        let client = api.client.clone();
        let url = api.url(&format!("/api/v1/asks/{run}:busy-third/receipt"));
        attempts.push(tokio::spawn(async move {
            let action = if n % 2 == 0 { "once" } else { "deny" };
            let response = client
                .post(url)
                .json(&json!({"channel": "tool-result", "receipt": {
                    "toolCallId": "busy-third", "component": "approval_card", "action": action,
                    "data": {}, "ts": "2026-12-02T20:00:00Z"}}))
                .send()
                .await
                .unwrap();
            (
                response.status().as_u16(),
                response.json::<Value>().await.unwrap(),
            )
        }));
    }
    let mut ok = 0;
    let mut conflicts = Vec::new();
    for attempt in attempts {
        let (status, body) = attempt.await.unwrap();
        match status {
            200 => ok += 1,
            409 => conflicts.push(body),
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert_eq!((ok, conflicts.len()), (1, 49));
    let (_, record) = api.get(&format!("/api/v1/asks/{run}:busy-third")).await;
    let winner = &record["ask"]["ask"]["state"];
    assert!(
        conflicts.iter().all(|body| &body["resolution"] == winner),
        "every 409 shows the recorded resolution"
    );
    // The agent received the answer once: one resume run.
    let resumed = api.nth_run(&thread, 1).await;
    assert_eq!(resumed["run"]["status"], "succeeded");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(api.runs(&thread).await.len(), 2);
}

#[tokio::test]
async fn messages_sent_at_once_to_one_thread_start_one_run() {
    let api = Api::start(&[]).await;
    for attempt in 0..5 {
        let thread = api.thread(None).await;
        let path = format!("/api/v1/threads/{thread}/messages");
        let send = || api.post(&path, json!({ "text": "slow" }));
        let ((a, _), (b, _), (c, _), (d, body)) = tokio::join!(send(), send(), send(), send());
        let mut statuses = [a, b, c, d];
        statuses.sort_unstable();
        assert_eq!(statuses, [202, 409, 409, 409], "#{attempt}: {body}");
        let runs = api.runs(&thread).await;
        assert_eq!(runs.len(), 1, "#{attempt}: {runs:?}");
        let run = runs[0]["id"].as_str().unwrap();
        let (status, _) = api
            .post(&format!("/api/v1/runs/{run}/cancel"), json!({}))
            .await;
        assert_eq!(status, 200, "#{attempt}");
    }
}

#[tokio::test]
async fn a_thread_takes_another_agent_until_its_first_run_and_keeps_it_after() {
    let api = Api::start(&[
        "--agent",
        "other=http://127.0.0.1:{port}/demo/agent,api_key_env=AGENT_OS_DEMO_KEY",
    ])
    .await;
    let thread = api.thread(None).await;
    let server = &api.server;
    let bind = |agent: &'static str| {
        let thread = thread.clone();
        async move {
            let form = [("thread_id", thread.as_str()), ("agent", agent)];
            common::call_server_fn(server, "bind_agent", &form).await
        }
    };
    let (status, _) = bind("other").await;
    assert_eq!(status, 200);
    let run = api.settled(&api.say(&thread, "hello").await).await;
    assert_eq!(run["run"]["agent"], "other", "{run}");
    let (status, refused) = bind("demo").await;
    assert_eq!(status, 409, "{refused}");
    assert!(refused.to_string().contains("keeps its agent"), "{refused}");
    let (_, page) = api.get(&format!("/api/v1/threads/{thread}")).await;
    assert_eq!(page["agent"], "other", "{page}");
}

#[tokio::test]
async fn cancelling_a_run_drops_the_stream_and_the_agent_sees_it() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "slow").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, body) = api
        .post(&format!("/api/v1/runs/{run}/cancel"), json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["run"]["status"], "cancelled");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, cancelled) = api.demo_get("/demo/cancellations").await;
        if cancelled
            .as_array()
            .unwrap()
            .iter()
            .any(|id| id == run.as_str())
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the agent never saw the cancellation"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, _) = api
        .post(&format!("/api/v1/runs/{run}/cancel"), json!({}))
        .await;
    assert_eq!(status, 409, "a finished run cannot be cancelled again");
    // The next run on the thread works.
    let next = api.settled(&api.say(&thread, "chunks").await).await;
    assert_eq!(next["run"]["status"], "succeeded");
}

#[tokio::test]
async fn a_malformed_stream_is_diagnosed_and_the_diagnosis_can_be_declined() {
    let api = Api::start(&[
        "--agent",
        "raw=http://127.0.0.1:{port}/demo/raw/unbracketed,api_key_env=AGENT_OS_DEMO_KEY",
    ])
    .await;
    let thread = api.thread(Some("raw")).await;
    let view = api.settled(&api.say(&thread, "anything").await).await["view"].clone();
    assert_eq!(
        errors(&view),
        ["protocol violation: TEXT_MESSAGE_CONTENT for message \"ghost\", which was never opened"]
    );
    let run = api
        .say_with(&thread, json!({"text": "again", "skip_verification": true}))
        .await;
    let view = api.settled(&run).await["view"].clone();
    assert!(errors(&view).is_empty());
    assert!(texts(&view).contains(&"text nobody opened".to_owned()));
}

#[tokio::test]
async fn a_truncated_stream_ends_the_run_instead_of_hanging() {
    let api = Api::start(&[
        "--agent",
        "cut=http://127.0.0.1:{port}/demo/raw/truncated,api_key_env=AGENT_OS_DEMO_KEY",
    ])
    .await;
    let thread = api.thread(Some("cut")).await;
    let body = api.settled(&api.say(&thread, "anything").await).await;
    assert_eq!(body["run"]["status"], "failed");
    assert_eq!(
        (&body["view"]["status"], &body["view"]["failure"]),
        (
            &json!("failed"),
            &json!("the stream ended before RUN_FINISHED or RUN_ERROR")
        )
    );
    assert!(texts(&body["view"]).contains(&"half a sen".to_owned()));
}

#[tokio::test]
async fn an_agent_offered_no_tools_says_so() {
    let api = Api::start(&[
        "--agent",
        "bare=http://127.0.0.1:{port}/demo/agent,api_key_env=AGENT_OS_DEMO_KEY",
    ])
    .await;
    let thread = api.thread(Some("bare")).await;
    let body = api.settled(&api.say(&thread, "call").await).await;
    assert_eq!(body["run"]["status"], "failed");
    assert_eq!(
        errors(&body["view"]),
        ["this scenario needs the add_task tool, and the client offered no such tool"]
    );
}

#[tokio::test]
async fn an_unreachable_agent_fails_the_run_readably_and_the_server_keeps_serving() {
    let dead_port = common::free_port();
    let agent = format!("gone=http://127.0.0.1:{dead_port}/agent");
    let api = Api::start(&["--agent", &agent]).await;
    let thread = api.thread(Some("gone")).await;
    let body = api.settled(&api.say(&thread, "hello").await).await;
    assert_eq!(body["run"]["status"], "failed");
    let message = &errors(&body["view"])[0];
    assert!(
        message.starts_with(&format!(
            "the agent at http://127.0.0.1:{dead_port}/agent is unreachable"
        )),
        "{message}"
    );
    assert_eq!(api.get("/healthz").await.0, 200);
}

#[tokio::test]
async fn sse_resumes_from_any_cut_without_gap_or_duplicate() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "parallel").await;
    api.settled(&run).await;
    let read = |after: Option<u64>, header: Option<u64>| {
        let client = api.client.clone();
        let mut url = api.url(&format!("/api/v1/runs/{run}/events"));
        if let Some(after) = after {
            url.push_str(&format!("?after={after}"));
        }
        async move {
            let mut request = client.get(url);
            if let Some(id) = header {
                request = request.header("last-event-id", id.to_string());
            }
            let body = tokio::time::timeout(Duration::from_secs(10), async {
                request.send().await.unwrap().text().await.unwrap()
            })
            .await
            .expect("the stream closes after the terminal event");
            body.lines()
                .filter_map(|line| line.strip_prefix("id: "))
                .map(|id| id.parse::<u64>().unwrap())
                .collect::<Vec<u64>>()
        }
    };
    let all = read(None, None).await;
    let last = *all.last().unwrap();
    assert_eq!(all, (1..=last).collect::<Vec<_>>());
    // The edges, and cuts drawn at random (the seed is printed on failure).
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let mut random = seed | 1;
    let mut cuts = vec![0, 1, last - 1, last];
    for _ in 0..6 {
        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        cuts.push(random % (last + 1));
    }
    for cut in cuts {
        let expected: Vec<u64> = (cut + 1..=last).collect();
        assert_eq!(read(Some(cut), None).await, expected, "after={cut}");
        assert_eq!(
            read(None, Some(cut)).await,
            expected,
            "Last-Event-ID: {cut}"
        );
    }
}

#[tokio::test]
async fn a_live_subscriber_sees_every_event_once_while_the_run_streams() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "approve").await;
    let stream = {
        let url = api.url(&format!("/api/v1/runs/{run}/events"));
        let client = api.client.clone();
        tokio::spawn(async move { client.get(url).send().await.unwrap().text().await.unwrap() })
    };
    api.settled(&run).await;
    api.receipt(&run, "approve-budget", "approval_card", "once", json!({}))
        .await;
    api.receipt(&run, "confirm-date", "approval_card", "once", json!({}))
        .await;
    let body = tokio::time::timeout(Duration::from_secs(10), stream)
        .await
        .unwrap()
        .unwrap();
    let ids: Vec<u64> = body
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .map(|i| i.parse().unwrap())
        .collect();
    assert_eq!(ids, (1..=*ids.last().unwrap()).collect::<Vec<_>>());
    assert_eq!(
        body.matches("\"kind\":\"ask_closed\"").count(),
        2,
        "the stream stays open until both asks close"
    );
}

#[tokio::test]
async fn bad_requests_get_clear_errors() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let run = api.say(&thread, "approve").await;
    api.settled(&run).await;

    let response = api
        .client
        .post(api.url(&format!("/api/v1/asks/{run}:approve-budget/receipt")))
        .header("content-type", "application/json")
        .body(r#"{"channel":"tool-result","receipt":{"toolCallId":"approve-budget","component":"approval_card","ts":1782487573184}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("missing field `action`"),
        "{body}"
    );

    let (status, body) = api
        .receipt(
            &run,
            "approve-budget",
            "approval_card",
            "approve_forever",
            json!({}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"],
        "receipt.action `approve_forever` is not allowed here; allowed: once, session, always, deny"
    );
    let (status, _) = api
        .receipt(&run, "no-such-ask", "approval_card", "once", json!({}))
        .await;
    assert_eq!(status, 404);
    let outsider = common::client_with(&api.server.user_with_token("eve", "someone-else", "owner"));
    let other_tenant = outsider
        .post(api.url(&format!("/api/v1/asks/{run}:approve-budget/receipt")))
        .json(
            &json!({"channel": "tool-result", "receipt": {"toolCallId": "approve-budget",
            "component": "approval_card", "action": "once", "data": {}, "ts": 1_782_487_573_184_i64}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(
        other_tenant.status(),
        404,
        "another tenant's ask does not exist for you"
    );
    let huge = format!("{{\"text\":\"{}\"}}", "x".repeat(2 * 1024 * 1024));
    assert_eq!(
        common::raw_post_status(
            &api.server,
            &format!("/api/v1/threads/{thread}/messages"),
            huge.as_bytes()
        ),
        413
    );
    let (status, body) = api
        .post(
            &format!("/api/v1/threads/{thread}/messages"),
            json!({"txt": "typo"}),
        )
        .await;
    assert_eq!(status, 400);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown field `txt`"),
        "{body}"
    );
    assert_eq!(api.get("/api/v1/runs/nope").await.0, 404);
    assert_eq!(api.get("/api/v1/threads/nope").await.0, 404);
    assert_eq!(api.get("/api/v1/asks?state=maybe").await.0, 400);
    let (status, _) = api
        .post("/api/v1/threads", json!({"agent": "nobody"}))
        .await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn a_secret_reaches_the_agent_but_no_store_row_log_or_response() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = TestServer::start(&data).await;
    let api = Api {
        client: server.client(),
        server,
        _dir: None,
    };
    let thread = api.thread(None).await;
    let run = api.say(&thread, "secret").await;
    api.settled(&run).await;
    let secret = "tok-7f3e-never-store-me";
    let (status, body) = api
        .receipt(
            &run,
            "secret-token",
            "secret_prompt",
            "save",
            json!({"value": secret}),
        )
        .await;
    assert_eq!(status, 200);
    assert!(!body.to_string().contains(secret));
    let resumed = api.nth_run(&thread, 1).await;
    assert_eq!(
        texts(&resumed["view"]),
        ["Saved DEMO_TOKEN."],
        "nothing made from the value is said in the thread"
    );
    // The agent got exactly the value: what it keeps for the demo key's holder says so.
    let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(secret.as_bytes()));
    let (_, resumes) = api.demo_get("/demo/resumes").await;
    assert!(
        resumes.to_string().contains(&digest),
        "the agent did not get the value: {resumes}"
    );
    let (_, asks) = api.get("/api/v1/asks").await;
    assert!(!asks.to_string().contains(secret));
    for run in api.runs(&thread).await {
        let (_, view) = api
            .get(&format!("/api/v1/runs/{}", run["id"].as_str().unwrap()))
            .await;
        assert!(!view.to_string().contains(secret));
    }
    // Every byte the store wrote: the database and its write-ahead log.
    assert_eq!(common::files_holding(&data, secret), Vec::<String>::new());
}

#[tokio::test]
async fn a_server_killed_mid_run_restarts_with_every_event_and_pending_ask() {
    let api = Api::start(&[]).await;
    let thread = api.thread(None).await;
    let paused = api.say(&thread, "approve").await;
    let before = api.settled(&paused).await;
    // In a thread of its own: a message in the paused thread would take the answers' place.
    let slow = api.say(&api.thread(None).await, "slow").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, slow_before) = api.get(&format!("/api/v1/runs/{slow}")).await;
    let api = api.restarted(TestServer::kill_and_restart).await;
    let after = api.settled(&paused).await;
    assert_eq!(
        after["view"], before["view"],
        "every acknowledged event is back"
    );
    let (_, pending) = api.get("/api/v1/asks?state=pending").await;
    assert_eq!(
        pending["asks"].as_array().unwrap().len(),
        2,
        "pending asks survive"
    );
    let slow_after = api.settled(&slow).await;
    assert_eq!(
        slow_after["run"]["status"], "failed",
        "a stream cut by the crash ends failed"
    );
    let kept = slow_before["view"]["items"].as_array().unwrap().len();
    assert!(slow_after["view"]["items"].as_array().unwrap().len() > kept);
    assert!(
        texts(&slow_after["view"]).contains(&"working on it, this will take a while".to_owned())
    );
    // And the asks are still answerable exactly once.
    assert_eq!(
        api.receipt(
            &paused,
            "approve-budget",
            "approval_card",
            "once",
            json!({})
        )
        .await
        .0,
        200
    );
    assert_eq!(
        api.receipt(
            &paused,
            "approve-budget",
            "approval_card",
            "once",
            json!({})
        )
        .await
        .0,
        409
    );
}

#[tokio::test]
async fn tenants_are_founded_by_name_and_scope_every_thread() {
    let api = Api::start(&[]).await;
    let (status, created) = api.post("/api/v1/tenants", json!({"name": "acme"})).await;
    assert_eq!((status, created["role"].clone()), (201, json!("owner")));
    let (status, again) = api.post("/api/v1/tenants", json!({"name": "acme"})).await;
    assert_eq!(status, 409, "{again}");
    let (status, bad) = api.post("/api/v1/tenants", json!({"name": "a b"})).await;
    assert_eq!(status, 400);
    assert!(
        bad["error"]["message"].as_str().unwrap().contains("' '"),
        "{bad}"
    );
    // A token names only the tenant it was made in, never the user's others.
    api.server.user_with_token("eve", "evil", "owner");
    let (_, tenants) = api.get("/api/v1/tenants").await;
    assert_eq!(
        tenants,
        json!({"current": "default", "tenants": [{"tenant": "default", "role": "owner"}]})
    );

    // A token acts in its own tenant alone: naming another of its user's is refused, and
    // a token made there acts there.
    let in_tenant = |tenant: &str, request: reqwest::RequestBuilder| {
        request.header("x-agent-os-tenant", tenant.to_owned())
    };
    let elsewhere = in_tenant("acme", api.client.post(api.url("/api/v1/threads")))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(elsewhere.status(), 403);
    let said: Value = elsewhere.json().await.unwrap();
    assert!(
        said["error"]["message"]
            .as_str()
            .unwrap()
            .contains("only in the tenant it was made in"),
        "{said}"
    );
    let acme = common::client_with(&common::new_token(
        &api.server.data_dir,
        &api.server.args,
        common::TEST_USER,
        "acme",
        None,
    ));
    let response = in_tenant("acme", acme.post(api.url("/api/v1/threads")))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    let listed: Value = acme
        .get(api.url("/api/v1/threads"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed["threads"].as_array().unwrap().len(), 1);
    let (_, default_threads) = api.get("/api/v1/threads").await;
    assert_eq!(default_threads["threads"], json!([]));

    // Never one the user is not in, whether it exists or not; a cookie naming a tenant
    // is not a credential.
    for tenant in ["evil", "nobody"] {
        let response = in_tenant(tenant, api.client.get(api.url("/api/v1/threads")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "{tenant}");
    }
    let by_cookie = reqwest::Client::new()
        .get(api.url("/api/v1/threads"))
        .header("cookie", "agent_os_tenant=acme")
        .send()
        .await
        .unwrap();
    assert_eq!(by_cookie.status(), 401);
}
