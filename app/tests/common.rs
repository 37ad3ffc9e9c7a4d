//! Shared by the integration tests: project recorded files the way the replay tool does.

#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use app::projection::{ItemBody, RunView, ViewPolicy};
use app::protocol::agui::AgUiConfig;
use app::protocol::channel::{EventDraft, RunEvent, RunRef};
use app::protocol::recorded::{normalize_recorded, place_all};

pub fn repo_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
}

/// The run input recorded next to a stream (`x.request.json` beside `x.sse`), if any.
pub fn config_for(stream: &Path) -> AgUiConfig {
    let stem = stream.file_stem().unwrap().to_string_lossy();
    let request = stream.with_file_name(format!("{stem}.request.json"));
    match std::fs::read(&request) {
        Ok(bytes) => AgUiConfig::from_run_input(&serde_json::from_slice(&bytes).unwrap()),
        Err(_) => AgUiConfig::default(),
    }
}

pub fn run_ref() -> RunRef {
    RunRef::new("default", "thread", "run")
}

pub fn drafts_of_file(stream: &Path) -> Vec<EventDraft> {
    let bytes = std::fs::read(stream).unwrap();
    normalize_recorded(&bytes, config_for(stream))
}

pub fn events_of_file(stream: &Path) -> Vec<RunEvent> {
    place_all(run_ref(), drafts_of_file(stream), 0)
}

pub fn project_file(stream: &Path) -> RunView {
    RunView::from_events(ViewPolicy::default(), &events_of_file(stream))
}

/// The view of drafts a normalizer made.
pub fn project_drafts(drafts: Vec<EventDraft>) -> RunView {
    RunView::from_events(ViewPolicy::default(), &place_all(run_ref(), drafts, 0))
}

pub fn events_of_bytes(bytes: &[u8], config: AgUiConfig) -> Vec<RunEvent> {
    place_all(run_ref(), normalize_recorded(bytes, config), 0)
}

pub fn project_bytes(bytes: &[u8], config: AgUiConfig) -> RunView {
    RunView::from_events(ViewPolicy::default(), &events_of_bytes(bytes, config))
}

pub fn error_lines(view: &RunView) -> Vec<String> {
    view.items
        .iter()
        .filter(|item| matches!(item.body, ItemBody::Error { .. }))
        .map(|item| item.summary_line(&view.asks))
        .collect()
}

pub fn message_texts(view: &RunView) -> Vec<String> {
    view.items
        .iter()
        .filter_map(|item| match &item.body {
            ItemBody::Message { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// Each tool call of a view: its name, status and result content.
pub fn tool_calls(
    view: &RunView,
) -> Vec<(
    String,
    app::projection::ToolStatus,
    Option<serde_json::Value>,
)> {
    view.items
        .iter()
        .filter_map(|item| match &item.body {
            ItemBody::ToolCall {
                name,
                status,
                result,
                ..
            } => Some((
                name.clone(),
                *status,
                result.as_ref().map(|r| r.content.clone()),
            )),
            _ => None,
        })
        .collect()
}
