//! Hostile and broken input: always a clear error item, never a panic, nothing lost.

#![allow(clippy::unwrap_used)]

mod common;

use app::projection::{ErrorKind, ItemBody};
use app::protocol::agui::AgUiConfig;
use common::*;

fn error_kinds(view: &app::projection::RunView) -> Vec<ErrorKind> {
    view.items
        .iter()
        .filter_map(|item| match &item.body {
            ItemBody::Error { kind, .. } => Some(*kind),
            _ => None,
        })
        .collect()
}

#[test]
fn malformed_json_becomes_an_error_item_and_later_events_still_apply() {
    let body = b"data: {\"type\":\"RUN_STARTED\"}\n\ndata: {\"type\": oops}\n\ndata: {\"type\":\"RUN_FINISHED\"}\n\n";
    let view = project_bytes(body, AgUiConfig::default());
    assert_eq!(error_kinds(&view), [ErrorKind::Malformed]);
    assert!(error_lines(&view)[0].starts_with("[error] event is not valid JSON: expected value"));
    assert_eq!(view.status.label(), "succeeded");
}

#[test]
fn a_wrong_field_type_becomes_an_error_item_naming_the_event_and_the_problem() {
    let body = b"data: {\"type\":\"RUN_STARTED\"}\n\ndata: {\"type\":\"TOOL_CALL_START\",\"toolCallId\":[1],\"toolCallName\":\"x\"}\n\ndata: {\"type\":\"RUN_FINISHED\"}\n\n";
    let view = project_bytes(body, AgUiConfig::default());
    let line = &error_lines(&view)[0];
    assert!(
        line.starts_with(
            "[error] TOOL_CALL_START event is malformed: invalid type: sequence, expected a string"
        ),
        "{line}"
    );
}

#[test]
fn an_event_over_8_mib_is_refused_with_a_clear_error() {
    let big = format!(
        "{{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"{}\"}}\n",
        "a".repeat(8 * 1024 * 1024 + 1)
    );
    let jsonl = format!("{{\"type\":\"RUN_STARTED\"}}\n{big}{{\"type\":\"RUN_FINISHED\"}}\n");
    let view = project_bytes(jsonl.as_bytes(), AgUiConfig::default());
    assert_eq!(error_kinds(&view), [ErrorKind::Malformed]);
    assert!(error_lines(&view)[0].contains("exceeds the 8388608 byte limit"));
    let sse = format!(
        "data: {{\"type\":\"RUN_STARTED\"}}\n\ndata: {big}\ndata: {{\"type\":\"RUN_FINISHED\"}}\n\n"
    );
    let view = project_bytes(sse.as_bytes(), AgUiConfig::default());
    assert!(error_lines(&view)[0].contains("SSE frame exceeds the 8388608 byte limit"));
}

#[test]
fn json_nested_ten_thousand_deep_is_an_error_not_a_crash() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let agui = format!(
        "{{\"type\":\"RUN_STARTED\"}}\n{{\"type\":\"CUSTOM\",\"name\":\"x\",\"value\":{deep}}}\n{{\"type\":\"RUN_FINISHED\"}}\n"
    );
    let view = project_bytes(agui.as_bytes(), AgUiConfig::default());
    assert_eq!(error_kinds(&view), [ErrorKind::Malformed]);
    assert!(error_lines(&view)[0].contains("recursion limit exceeded"));
    let hermes = format!("{{\"jsonrpc\":\"2.0\",\"method\":\"event\",\"params\":{deep}}}\n");
    let view = project_bytes(hermes.as_bytes(), AgUiConfig::default());
    assert!(error_lines(&view)[0].contains("recursion limit exceeded"));
}

#[test]
fn invalid_utf8_in_one_frame_spares_the_others() {
    let mut body =
        b"data: {\"type\":\"RUN_STARTED\"}\n\ndata: {\"type\":\"CUSTOM\",\"name\":\"".to_vec();
    body.extend_from_slice(&[0xff, 0xfe]);
    body.extend_from_slice(b"\",\"value\":1}\n\ndata: {\"type\":\"RUN_FINISHED\"}\n\n");
    let view = project_bytes(&body, AgUiConfig::default());
    assert!(error_lines(&view)[0].contains("not valid UTF-8"));
    assert_eq!(view.status.label(), "succeeded");
}

#[test]
fn hermes_frames_that_are_not_objects_or_lack_method_and_id_are_errors() {
    let view = project_bytes(b"{\"jsonrpc\":\"2.0\"}\n[1,2]\n", AgUiConfig::default());
    let lines = error_lines(&view);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].contains("neither `method` nor `id`"));
}
