//! Every fixture under `fixtures/` projects to the expected view stored beside it.
//! `UPDATE_FIXTURES=1 cargo test -p app --test fixtures` rewrites the expectations; review
//! the diff before committing it.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};

use app::projection::RunView;
use common::project_file;
use serde_json::{Value, json};

fn fixtures_dir() -> PathBuf {
    common::repo_path("fixtures")
}

/// The parts of a view a fixture pins: no sequences, no times.
fn digest(view: &RunView) -> Value {
    json!({
        "status": view.status,
        "failure": view.failure,
        "timeline": view.timeline_lines(),
        "final": view.final_answer.as_ref().map(|f| &f.text),
        "pending_asks": view.pending_asks().map(|a| &a.id).collect::<Vec<_>>(),
        "asks": view.asks,
        "state": view.state,
        "plan": view.plan,
        "artifacts": view.artifacts,
        "edits": view.edits,
    })
}

fn streams_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.ends_with(".sse") || (name.ends_with(".jsonl"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn every_fixture_projects_to_its_expected_view() {
    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    let mut failures = Vec::new();
    let mut count = 0;
    for dir in ["agui", "hermes", "openai", "peers/ksadk"] {
        for stream in streams_in(&fixtures_dir().join(dir)) {
            // KsADK's `4x` recordings are its session records, read by replay, not streams.
            if dir == "peers/ksadk"
                && stream
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with('4')
            {
                continue;
            }
            count += 1;
            let actual = digest(&project_file(&stream));
            let expected_path = stream.with_extension("expected.json");
            if update {
                let text = serde_json::to_string_pretty(&actual).unwrap() + "\n";
                std::fs::write(&expected_path, text).unwrap();
                continue;
            }
            let expected: Value = match std::fs::read(&expected_path) {
                Ok(bytes) => serde_json::from_slice(&bytes).unwrap(),
                Err(_) => {
                    failures.push(format!("{} has no expected view", stream.display()));
                    continue;
                }
            };
            if actual != expected {
                failures.push(format!(
                    "{} projects differently:\n{}",
                    stream.display(),
                    serde_json::to_string_pretty(&actual).unwrap()
                ));
            }
        }
    }
    assert!(count >= 15, "only {count} fixtures found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_ksadk_session_record_projects_to_its_expected_runs() {
    use app::protocol::channel::RunRef;
    use app::protocol::ksadk_record::{read_page, runs_of};
    use app::protocol::recorded::place_all;

    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    let dir = fixtures_dir().join("peers/ksadk");
    let mut records: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.contains("_list_session_events") && name.ends_with(".response.json")
        })
        .collect();
    records.sort();
    assert!(records.len() >= 5, "only {} session records", records.len());
    let mut failures = Vec::new();
    for record in records {
        let page = read_page(&std::fs::read(&record).unwrap()).unwrap();
        let actual: Value = runs_of(&page.rows)
            .into_iter()
            .map(|run| {
                let events =
                    place_all(RunRef::new("t", "ksadk", &run.invocation_id), run.drafts, 0);
                json!({
                    "invocation": run.invocation_id,
                    "view": digest(&RunView::from_events(Default::default(), &events)),
                })
            })
            .collect();
        let expected_path = record.with_extension("expected.json");
        if update {
            let text = serde_json::to_string_pretty(&actual).unwrap() + "\n";
            std::fs::write(&expected_path, text).unwrap();
            continue;
        }
        match std::fs::read(&expected_path) {
            Ok(bytes) if serde_json::from_slice::<Value>(&bytes).unwrap() == actual => {}
            Ok(_) => failures.push(format!(
                "{} projects differently:\n{}",
                record.display(),
                serde_json::to_string_pretty(&actual).unwrap()
            )),
            Err(_) => failures.push(format!("{} has no expected runs", record.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
