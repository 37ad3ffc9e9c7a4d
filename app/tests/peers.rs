//! Every recorded third-party transcript (`fixtures/peers/`) projects with no protocol
//! error and with the text, tool calls and asks it contains.

#![allow(clippy::unwrap_used)]

mod common;

use app::projection::{ItemBody, RunStatus, ToolStatus};
use app::protocol::ask::AskKind;
use common::*;

fn tool_calls(view: &app::projection::RunView) -> Vec<(String, ToolStatus)> {
    view.items
        .iter()
        .filter_map(|item| match &item.body {
            ItemBody::ToolCall { name, status, .. } => Some((name.clone(), *status)),
            _ => None,
        })
        .collect()
}

/// Transcripts of management calls rather than runs; `protocol::hermes::cron` reads them.
const NOT_RUNS: [&str; 1] = ["cron_manage.jsonl"];

#[test]
fn every_peer_transcript_projects_without_a_protocol_error() {
    let mut checked = 0;
    for dir in ["fixtures/peers/agui", "fixtures/peers/hermes"] {
        for entry in std::fs::read_dir(repo_path(dir)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !(name.ends_with(".sse") || name.ends_with(".jsonl"))
                || NOT_RUNS.contains(&name.as_str())
            {
                continue;
            }
            let view = project_file(&path);
            assert!(
                error_lines(&view).is_empty(),
                "{name}: {:?}",
                error_lines(&view)
            );
            assert!(
                view.status != RunStatus::Failed,
                "{name}: {:?}",
                view.status
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 18);
}

#[test]
fn pydantic_ai_transcripts_carry_their_text_calls_and_asks() {
    let peer = |name: &str| {
        project_file(&repo_path(&format!(
            "fixtures/peers/agui/pydantic-ai-{name}.sse"
        )))
    };
    assert_eq!(
        peer("text").final_answer.unwrap().text,
        "Hello from the pydantic-ai test agent. This reply is streamed in chunks."
    );
    let two = peer("two_tools");
    assert_eq!(
        tool_calls(&two),
        [
            ("get_weather".into(), ToolStatus::Done),
            ("get_time".into(), ToolStatus::Done)
        ]
    );
    let thinking = peer("thinking");
    assert!(thinking.items.iter().any(
        |i| matches!(&i.body, ItemBody::Reasoning { text, .. } if text.starts_with("Let me think."))
    ));
    assert_eq!(
        thinking.final_answer.unwrap().text,
        "After thinking: the answer is 42."
    );
    let frontend = peer("frontend_tool");
    assert_eq!(
        frontend.pending_asks().next().unwrap().kind,
        AskKind::FrontendTool
    );
    assert!(
        peer("frontend_tool-followup")
            .final_answer
            .unwrap()
            .text
            .contains("change_background")
    );
    let approval = peer("approval");
    let ask = approval.pending_asks().next().unwrap();
    assert_eq!(
        (ask.kind, ask.id.as_str()),
        (AskKind::Approval, "int-call_delete_1")
    );
    assert_eq!(ask.tool_call_id.as_deref(), Some("call_delete_1"));
    assert_eq!(
        tool_calls(&peer("approval-resume")),
        [("delete_file".into(), ToolStatus::Done)]
    );
}

#[test]
fn langgraph_transcripts_carry_their_steps_state_calls_and_interrupt() {
    let peer = |name: &str| {
        project_file(&repo_path(&format!(
            "fixtures/peers/agui/langgraph-{name}.sse"
        )))
    };
    let tool = peer("backend_tool");
    assert_eq!(
        tool_calls(&tool),
        [("get_weather".into(), ToolStatus::Done)]
    );
    assert!(tool.messages_snapshot.is_some());
    assert!(
        tool.items
            .iter()
            .any(|i| matches!(&i.body, ItemBody::Step { name, active: false } if name == "tools"))
    );
    let approval = peer("approval");
    assert_eq!(approval.pending_asks().count(), 1);
    assert!(
        approval.state.get("messages").is_some(),
        "STATE_SNAPSHOT per node"
    );
    assert!(
        peer("approval-resume")
            .final_answer
            .unwrap()
            .text
            .contains("deleted /tmp/demo.txt")
    );
}

#[test]
fn hermes_transcripts_carry_their_text_tools_and_answered_asks() {
    let peer =
        |name: &str| project_file(&repo_path(&format!("fixtures/peers/hermes/{name}.jsonl")));
    assert!(peer("text").final_answer.is_some());
    let clarify = peer("clarify");
    assert_eq!(clarify.asks[0].kind, AskKind::Clarify);
    assert_eq!(
        clarify.asks[0].questions[0].choices,
        ["red", "green", "blue"]
    );
    assert_eq!(clarify.asks[0].state.label(), "resolved");
    for (name, action) in [("approval_once", "once"), ("approval_deny", "deny")] {
        let view = peer(name);
        let app::protocol::ask::AskState::Resolved { answer } = &view.asks[0].state else {
            panic!("{name}: {:?}", view.asks[0].state)
        };
        assert_eq!(answer.action, action);
        assert_eq!(
            view.asks[0].command.as_deref(),
            Some("rm -rf /home/agent/work/sandbox/x")
        );
    }
    assert_eq!(peer("sudo").asks[0].kind, AskKind::Sudo);
    assert_eq!(peer("file_edit").edits.len(), 2);
    assert_eq!(tool_calls(&peer("file_edit")).len(), 2);
}
