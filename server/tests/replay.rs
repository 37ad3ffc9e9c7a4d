//! `agent-os replay`: read-only views of stored runs and recorded files, between
//! exclusive cursors.

#![allow(clippy::unwrap_used)]

mod common;
#[path = "common/ksadk.rs"]
mod ksadk;

use std::time::{Duration, Instant};

use common::{TestServer, run_to_end};
use serde_json::{Value, json};

fn replay(args: &[&str]) -> (bool, String, String) {
    let mut full = vec!["replay"];
    full.extend_from_slice(args);
    let output = run_to_end(&full);
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn fixture(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_recorded_file_replays_as_its_expected_timeline() {
    let (ok, text, _) = replay(&[
        "--file",
        &fixture("fixtures/agui/parallel_calls_interleaved.sse"),
    ]);
    assert!(ok);
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture(
            "fixtures/agui/parallel_calls_interleaved.expected.json",
        ))
        .unwrap(),
    )
    .unwrap();
    let lines: Vec<&str> = text.lines().skip(1).collect();
    let timeline: Vec<&str> = expected["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(lines, timeline);
}

#[test]
fn known_but_unprojected_events_stay_in_order_as_extras() {
    let (ok, text, _) = replay(&[
        "--file",
        &fixture("fixtures/peers/agui/pydantic-ai-thinking.sse"),
    ]);
    assert!(ok);
    let extras: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with("extra #"))
        .collect();
    assert_eq!(extras.len(), 2);
    assert!(extras[0].starts_with("extra #1: {\"type\":\"REASONING_START\""));
    assert!(extras[1].starts_with("extra #7: {\"type\":\"REASONING_END\""));
}

#[test]
fn a_hermes_transcript_replays_with_its_answers() {
    let (ok, text, _) = replay(&[
        "--file",
        &fixture("fixtures/peers/hermes/approval_once.jsonl"),
        "--format",
        "json",
    ]);
    assert!(ok);
    let json: Value = serde_json::from_str(&text).unwrap();
    let asks = &json["runs"][0]["view"]["asks"];
    assert_eq!(asks[0]["state"]["answer"]["action"], "once");
}

#[test]
fn openai_bodies_replay_with_their_calls_and_approval_asks() {
    let (ok, text, _) = replay(&[
        "--file",
        &fixture("fixtures/openai/responses_mcp_approval.sse"),
    ]);
    assert!(ok);
    assert!(
        text.contains("Ask question “What transport does it use?” on deepwiki? [once|deny]"),
        "{text}"
    );
    let (ok, text, _) = replay(&[
        "--file",
        &fixture("fixtures/openai/chat_reasoning_parallel_tools.sse"),
        "--format",
        "json",
    ]);
    assert!(ok);
    let json: Value = serde_json::from_str(&text).unwrap();
    // The model stopped for its two calls to be run: the replay shows them waiting.
    assert_eq!(json["runs"][0]["view"]["status"], "interrupted");
    assert_eq!(json["runs"][0]["view"]["asks"][1]["id"], "call_b");
}

#[test]
fn unknown_targets_and_missing_files_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let (ok, _, error) = replay(&["no-such-run", "--data-dir", data.to_str().unwrap()]);
    assert!(!ok);
    assert_eq!(
        error.trim(),
        "agent-os: no run or thread \"no-such-run\" in tenant \"default\""
    );
    let (ok, _, error) = replay(&["--file", "/nonexistent/stream.sse"]);
    assert!(!ok);
    assert!(
        error.starts_with("agent-os: cannot read /nonexistent/stream.sse"),
        "{error}"
    );
}

#[tokio::test]
async fn a_stored_run_replays_read_only_between_exclusive_cursors() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = TestServer::start(&data).await;
    let client = server.client();
    let created: Value = client
        .post(server.url("/api/v1/threads"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let thread = created["thread"]["id"].as_str().unwrap().to_owned();
    let started: Value = client
        .post(server.url(&format!("/api/v1/threads/{thread}/messages")))
        .json(&json!({"text": "approve"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let run = started["run"]["id"].as_str().unwrap().to_owned();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let body: Value = client
            .get(server.url(&format!("/api/v1/runs/{run}")))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if body["run"]["status"] != "running" {
            break;
        }
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    assert!(server.interrupt().success());
    let data_dir = data.to_str().unwrap();

    let (ok, text, _) = replay(&[&run, "--data-dir", data_dir, "--format", "json"]);
    assert!(ok);
    let all: Value = serde_json::from_str(&text).unwrap();
    let sequences: Vec<u64> = all["runs"][0]["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    let last = *sequences.last().unwrap();
    assert_eq!(sequences, (1..=last).collect::<Vec<_>>());

    let (ok, text, _) = replay(&[
        &run,
        "--data-dir",
        data_dir,
        "--format",
        "json",
        "--after-seq-id",
        "2",
        "--before-seq-id",
        "5",
    ]);
    assert!(ok);
    let window: Value = serde_json::from_str(&text).unwrap();
    let sequences: Vec<u64> = window["runs"][0]["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(sequences, [3, 4], "both cursors are exclusive");

    // By thread id: every run of the thread; and replaying changed nothing.
    let (ok, text, _) = replay(&[&thread, "--data-dir", data_dir]);
    assert!(ok);
    assert!(
        text.contains("pending ask approve-budget: Approve the budget?"),
        "{text}"
    );
    let (_, again, _) = replay(&[&thread, "--data-dir", data_dir]);
    assert_eq!(text, again);
    let server = TestServer::start(&data).await;
    let pending: Value = server
        .get("/api/v1/asks?state=pending")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        pending["asks"].as_array().unwrap().len(),
        2,
        "replay answered nothing"
    );
}

#[test]
fn a_saved_ksadk_session_record_replays_one_run_per_invocation_within_its_seq_ids() {
    let record = fixture("fixtures/peers/ksadk/40_list_session_events.response.json");
    let (ok, text, error) = replay(&["--file", &record]);
    assert!(ok, "{error}");
    assert!(text.contains("run run_becde4c0"), "{text}");
    assert!(text.contains("run run_3a6ce82e"), "{text}");
    assert!(
        text.contains("Delete file “/tmp/ksadk-accept/victim.txt”?"),
        "{text}"
    );
    assert!(
        !text.contains("pending ask"),
        "the answer row closed it: {text}"
    );

    // The cursors are the record's SeqIds, both exclusive, unlike KsADK's own replay.
    let (ok, text, _) = replay(&[
        "--file",
        &record,
        "--format",
        "json",
        "--after-seq-id",
        "3",
        "--before-seq-id",
        "13",
    ]);
    assert!(ok);
    let json: Value = serde_json::from_str(&text).unwrap();
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{text}");
    let cited: Vec<u64> = runs[0]["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["upstream"].as_u64())
        .collect();
    assert_eq!(cited.first(), Some(&4));
    assert_eq!(cited.last(), Some(&12));
    // The legacy status rows the canonical events repeat are listed, not lost.
    let extras: Vec<u64> = runs[0]["extras"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["position"].as_u64().unwrap())
        .collect();
    assert!(extras.is_empty(), "{extras:?}");
    assert_eq!(runs[0]["view"]["asks"][0]["state"]["state"], "pending");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_live_ksadk_session_is_read_page_by_page_and_replayed_read_only() {
    let runtime = ksadk::start(ksadk::Approval::First).await;
    let url = runtime.url.clone();
    let (ok, text, error) = tokio::task::spawn_blocking(move || {
        replay(&["sess-54cf248410f34cc4", "--ksadk", &url, "--format", "json"])
    })
    .await
    .unwrap();
    assert!(ok, "{error}");
    let json: Value = serde_json::from_str(&text).unwrap();
    let runs = json["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1]["view"]["status"], "succeeded");
    assert_eq!(runs[0]["view"]["asks"][0]["state"]["state"], "resolved");
    // 28 rows at the runtime's 10 a page: three pages, nothing else asked of it.
    let asked = runtime.requests_to("/agentengine/api/v1/ListSessionEvents");
    let offsets: Vec<u64> = asked
        .iter()
        .map(|r| r.body["Offset"].as_u64().unwrap())
        .collect();
    assert_eq!(offsets, [0, 10, 20]);
    assert_eq!(
        runtime.received.lock().unwrap().len(),
        3,
        "replay only reads"
    );

    // The cursors travel to the runtime, and hold even if it ignored them.
    let url = runtime.url.clone();
    let (ok, text, _) = tokio::task::spawn_blocking(move || {
        replay(&["agui-appr-fd23ae", "--ksadk", &url, "--after-seq-id", "11"])
    })
    .await
    .unwrap();
    assert!(ok);
    assert!(!text.contains("run run-a1"), "{text}");
    assert!(text.contains("Done. delete_file said"), "{text}");
    let last = runtime.requests_to("/agentengine/api/v1/ListSessionEvents");
    assert_eq!(last.last().unwrap().body["AfterSeqId"], 11);

    let url = runtime.url.clone();
    let (ok, _, error) =
        tokio::task::spawn_blocking(move || replay(&["sess-unknown", "--ksadk", &url]))
            .await
            .unwrap();
    assert!(!ok);
    assert_eq!(
        error.trim(),
        "agent-os: the KsADK runtime has no events for session \"sess-unknown\""
    );
    let (ok, _, error) =
        tokio::task::spawn_blocking(|| replay(&["sess-x", "--ksadk", "http://127.0.0.1:9/v1"]))
            .await
            .unwrap();
    assert!(!ok);
    assert!(
        error.contains("asking the KsADK runtime at http://127.0.0.1:9/"),
        "{error}"
    );
}
