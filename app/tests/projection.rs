//! The projection's compact forms: what is written for stored events and hydration, and
//! the lookups rebuilt after reading a view back.

#![allow(clippy::unwrap_used)]

mod common;

use app::projection::{ItemBody, RunView};
use app::protocol::agui::AgUiConfig;
use app::protocol::ask::AskState;
use app::protocol::channel::{EventBody, RunEvent};
use common::*;
use serde_json::{Value, json};

const RUN: &str = concat!(
    "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
    "data: {\"type\":\"STATE_SNAPSHOT\",\"snapshot\":{\"tasks\":[]}}\n\n",
    "data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m1\",\"role\":\"assistant\"}\n\n",
    "data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m1\",\"delta\":\"Hello\"}\n\n",
    "data: {\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"c1\",\"toolCallName\":\"add\"}\n\n",
    "data: {\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"c1\",\"delta\":\"{}\"}\n\n",
    "data: {\"type\":\"STATE_DELTA\",\"delta\":[{\"op\":\"add\",\"path\":\"/tasks/-\",\"value\":{\"id\":1}}]}\n\n",
    "data: {\"type\":\"SOME_FUTURE_EVENT\",\"x\":1}\n\n",
);

fn events() -> Vec<RunEvent> {
    events_of_bytes(RUN.as_bytes(), AgUiConfig::default())
}

#[test]
fn a_stored_event_names_its_tool_call_at_the_top_level_and_reads_back_equal() {
    let events = events();
    let args = events
        .iter()
        .find(|event| matches!(event.body, EventBody::ToolCallArgs { .. }))
        .unwrap();
    let json = serde_json::to_value(args).unwrap();
    assert_eq!(json["tool_call_id"], "c1");
    assert_eq!(json["kind"], "tool_call_args");
    assert_eq!(json["payload"]["tool_call_id"], "c1");
    let back: RunEvent = serde_json::from_value(json).unwrap();
    assert_eq!(&back, args);
    let text = events
        .iter()
        .find(|event| matches!(event.body, EventBody::TextDelta { .. }))
        .unwrap();
    assert!(
        serde_json::to_value(text)
            .unwrap()
            .get("tool_call_id")
            .is_none()
    );
}

#[test]
fn keys_and_tags_written_with_escapes_read_like_plain_ones() {
    let events = events();
    let text = serde_json::to_string(&events[2]).unwrap();
    // The key `kind`, the first letter of its value and the key `sequence` as escapes.
    let kind = events[2].kind();
    let escaped = text
        .replace(
            &format!("\"kind\":\"{kind}\""),
            &format!(
                "\"\\u006bind\":\"\\u{:04x}{}\"",
                kind.as_bytes()[0],
                &kind[1..]
            ),
        )
        .replace("\"sequence\"", "\"seq\\u0075ence\"");
    assert_ne!(escaped, text);
    assert!(escaped.contains("\\u006bind"), "{escaped}");
    let back: RunEvent = serde_json::from_str(&escaped).unwrap();
    assert_eq!(back, events[2]);

    let view = RunView::from_events(Default::default(), &events);
    let text = serde_json::to_string(&view.items[0]).unwrap();
    let escaped = text.replace("\"type\"", "\"\\u0074ype\"");
    assert_ne!(escaped, text);
    assert_eq!(
        serde_json::from_str::<app::projection::Item>(&escaped).unwrap(),
        view.items[0]
    );
}

#[test]
fn arrivals_are_written_as_tuples_and_read_back_with_their_kinds() {
    let view = RunView::from_events(Default::default(), &events());
    let json = serde_json::to_value(&view).unwrap();
    let arrivals = json["arrivals"].as_array().unwrap();
    assert_eq!(arrivals.len(), view.arrivals.len());
    assert_eq!(arrivals[0], json!([1, "run_started", "system"]));
    let delta = view
        .arrivals
        .iter()
        .position(|arrival| arrival.kind() == "text_delta")
        .unwrap();
    assert_eq!(
        arrivals[delta][3],
        Value::from(view.arrivals[delta].item().unwrap())
    );
    let back: RunView = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back, view);

    // A kind this build does not know reads back as `unknown`, not as an error.
    let mut altered = json;
    altered["arrivals"][0][1] = json!("kind_from_a_newer_server");
    let back: RunView = serde_json::from_value(altered).unwrap();
    assert_eq!(back.arrivals[0].kind(), "unknown");
}

#[test]
fn false_item_flags_are_left_out_of_the_json_and_read_back_as_false() {
    let mut view = RunView::from_events(Default::default(), &events());
    let message = view
        .items
        .iter()
        .position(|item| matches!(item.body, ItemBody::Message { .. }))
        .unwrap();
    let json = serde_json::to_value(&view).unwrap();
    let written = &json["items"][message];
    assert_eq!(written["type"], "message");
    assert!(written.get("streaming").is_none(), "{written}");
    assert!(written.get("is_final").is_none(), "{written}");
    assert_eq!(serde_json::from_value::<RunView>(json).unwrap(), view);

    if let ItemBody::Message { streaming, .. } = &mut view.items[message].body {
        *streaming = true;
    }
    let json = serde_json::to_value(&view).unwrap();
    assert_eq!(json["items"][message]["streaming"], true);
    assert_eq!(serde_json::from_value::<RunView>(json).unwrap(), view);
}

#[test]
fn a_view_read_back_finds_its_messages_and_calls_by_id() {
    let events = events();
    let view = RunView::from_events(Default::default(), &events);
    let mut back: RunView = serde_json::from_str(&serde_json::to_string(&view).unwrap()).unwrap();
    let more = concat!(
        "data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m1\",\"delta\":\", world\"}\n\n",
        "data: {\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"c1\",\"delta\":\" \"}\n\n",
    );
    let unverified = AgUiConfig {
        verify: false,
        ..AgUiConfig::default()
    };
    let next = events.last().unwrap().sequence;
    for event in events_of_bytes(more.as_bytes(), unverified) {
        let event = RunEvent {
            sequence: event.sequence + next,
            ..event
        };
        back.apply(&event);
    }
    assert_eq!(message_texts(&back), ["Hello, world"]);
    let arguments = back
        .items
        .iter()
        .find_map(|item| match &item.body {
            ItemBody::ToolCall { arguments, .. } => Some(arguments.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(arguments, "{} ");
    let keyed = |view: &RunView| {
        view.items
            .iter()
            .filter(|item| {
                matches!(
                    item.body,
                    ItemBody::Message { .. } | ItemBody::ToolCall { .. }
                )
            })
            .count()
    };
    assert_eq!(
        keyed(&back),
        keyed(&view),
        "no message or call was duplicated"
    );
}

#[test]
fn a_malformed_patch_operation_is_reported_and_the_state_is_kept() {
    let mut events = events();
    let state_before = RunView::from_events(Default::default(), &events).state;
    let last = events.last().unwrap().clone();
    for (offset, patch) in [
        json!([{"op": "add", "path": "/tasks/-"}]),
        json!([{"op": "shuffle", "path": "/tasks"}]),
        json!([{"op": "add", "path": "no-slash", "value": 1}]),
        json!({"op": "add"}),
        json!([{"op": "add", "path": "/tasks/-", "value": 2}, {"op": "remove", "path": "/nope"}]),
    ]
    .into_iter()
    .enumerate()
    {
        events.push(RunEvent {
            sequence: last.sequence + 1 + offset as u64,
            body: EventBody::StateDelta { patch },
            ..last.clone()
        });
    }
    let view = RunView::from_events(Default::default(), &events);
    let errors: Vec<String> = error_lines(&view)
        .into_iter()
        .filter(|line| line.contains("state patch"))
        .collect();
    assert_eq!(errors.len(), 5, "{errors:#?}");
    assert!(
        errors[0].contains("operation 0 has no `value`"),
        "{}",
        errors[0]
    );
    assert!(
        errors[1].contains("unknown op \"shuffle\""),
        "{}",
        errors[1]
    );
    assert!(errors[2].contains("operation 0:"), "{}", errors[2]);
    assert!(errors[3].contains("must be an array"), "{}", errors[3]);
    assert!(errors[4].contains("rolled back"), "{}", errors[4]);
    assert_eq!(
        view.state, state_before,
        "every failed patch left the state as it was"
    );
}

#[test]
fn omitted_arrivals_come_back_in_order_with_the_ones_applied_since() {
    let events = events();
    let (before, after) = events.split_at(4);
    let full = RunView::from_events(Default::default(), &events);

    // The page copy: projected up to the fourth event, arrivals left out, written, read.
    let mut page = RunView::from_events(Default::default(), before);
    page.omit_arrivals();
    assert!(!page.arrivals_complete());
    let json = serde_json::to_value(&page).unwrap();
    assert_eq!(json["arrivals"], json!([]));
    assert_eq!(json["arrivals_omitted_through"], 4);
    let mut page: RunView = serde_json::from_value(json).unwrap();

    // Live events keep recording theirs; the full list read later fills the rest.
    for event in after {
        page.apply(event);
    }
    assert_eq!(page.arrivals.len(), after.len());
    page.restore_arrivals(&full.arrivals);
    assert!(page.arrivals_complete());
    assert_eq!(page, full);

    // Restoring a complete list changes nothing, and a view never omitted says so.
    page.restore_arrivals(&full.arrivals[..1]);
    assert_eq!(page, full);
    assert!(
        serde_json::to_value(&full)
            .unwrap()
            .get("arrivals_omitted_through")
            .is_none()
    );
}

fn ask_events(closes: &[&str]) -> Vec<RunEvent> {
    let body = String::from(concat!(
        "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n",
        "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\",\"outcome\":{\"type\":\"interrupt\",",
        "\"interrupts\":[{\"id\":\"i1\",\"reason\":\"clarify\",\"message\":\"Name?\"}]}}\n\n",
    ));
    let mut events = events_of_bytes(body.as_bytes(), AgUiConfig::default());
    let opened = events
        .iter()
        .find(|event| matches!(event.body, EventBody::AskOpened { .. }))
        .unwrap()
        .clone();
    for close in closes {
        let mut next = opened.clone();
        next.sequence = events.len() as u64 + 1;
        next.body = match *close {
            "reopen" => {
                let EventBody::AskOpened { ask } = &opened.body else {
                    unreachable!()
                };
                let mut changed = ask.clone();
                changed.title = "Something else entirely".into();
                EventBody::AskOpened { ask: changed }
            }
            label => {
                let state = match label {
                    "answer" => app::protocol::ask::AskState::Resolved {
                        answer: app::protocol::ask::RecordedAnswer {
                            action: "answer".into(),
                            data: json!({"answers": {"answer": "Ada"}}),
                            summary: "Answered — Ada".into(),
                            actor: None,
                            at: None,
                        },
                    },
                    "lost" => app::protocol::ask::AskState::Pending,
                    _ => app::protocol::ask::AskState::Expired,
                };
                EventBody::AskClosed {
                    ask_id: "i1".into(),
                    ask_kind: app::protocol::ask::AskKind::Clarify,
                    state: Box::new(state),
                }
            }
        };
        events.push(next);
    }
    events
}

#[test]
fn a_repeated_ask_opened_for_an_answered_ask_does_not_reopen_it_or_change_it() {
    let view = RunView::from_events(Default::default(), &ask_events(&["answer", "reopen"]));
    assert_eq!(view.asks.len(), 1);
    assert_eq!(view.asks[0].state.label(), "resolved");
    assert_eq!(view.asks[0].title, "Name?");
    let ask_items = view
        .items
        .iter()
        .filter(|item| matches!(item.body, ItemBody::Ask { .. }))
        .count();
    assert_eq!(ask_items, 1);
}

#[test]
fn an_expiry_arriving_after_the_answer_does_not_relabel_it_expired() {
    let view = RunView::from_events(Default::default(), &ask_events(&["answer", "expire"]));
    assert_eq!(view.asks[0].state.label(), "resolved");
    let expired_first =
        RunView::from_events(Default::default(), &ask_events(&["expire", "answer"]));
    assert_eq!(expired_first.asks[0].state.label(), "expired");
}

#[test]
fn the_console_reopening_an_answered_ask_makes_it_pending_again() {
    let view = RunView::from_events(Default::default(), &ask_events(&["answer", "lost"]));
    assert!(view.asks[0].state.is_pending());
    assert_eq!(view.pending_asks().count(), 1);
    let answered_again = RunView::from_events(
        Default::default(),
        &ask_events(&["answer", "lost", "answer"]),
    );
    assert_eq!(answered_again.asks[0].state.label(), "resolved");
}

#[test]
fn an_ask_still_open_when_its_run_fails_closes_with_it_and_one_after_the_run_ended_does_not() {
    let paused = ask_events(&[]);
    let failure = |sequence: u64| {
        let mut failed = paused[0].clone();
        failed.sequence = sequence;
        failed.body = EventBody::RunFailed {
            message: "the agent's process died".into(),
            code: None,
        };
        failed
    };
    // The ask opened while the run was still going, then the run failed.
    let mut running: Vec<RunEvent> = paused
        .iter()
        .filter(|event| !matches!(event.body, EventBody::RunFinished { .. }))
        .cloned()
        .collect();
    running.push(failure(running.len() as u64 + 1));
    let view = RunView::from_events(Default::default(), &running);
    assert_eq!(view.status, app::protocol::status::RunStatus::Failed);
    assert_eq!(view.asks[0].state, AskState::closed_by_failed_run());
    assert_eq!(view.pending_asks().count(), 0);
    // A failure reported after the run paused moves nothing: its ask still waits.
    let mut late = paused.clone();
    late.push(failure(late.len() as u64 + 1));
    let view = RunView::from_events(Default::default(), &late);
    assert!(view.asks[0].state.is_pending());
}

#[test]
fn a_message_still_streaming_when_its_run_is_stopped_or_fails_is_streaming_no_more() {
    for end in [
        r#"{"type":"RUN_ERROR","message":"backend crashed"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"cancelled"}}"#,
    ] {
        let body = format!(
            concat!(
                "data: {{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}}\n\n",
                "data: {{\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m1\",\"role\":\"assistant\"}}\n\n",
                "data: {{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m1\",\"delta\":\"half\"}}\n\n",
                "data: {{\"type\":\"REASONING_START\",\"messageId\":\"r1\"}}\n\n",
                "data: {{\"type\":\"REASONING_MESSAGE_START\",\"messageId\":\"r1\",\"role\":\"reasoning\"}}\n\n",
                "data: {{\"type\":\"REASONING_MESSAGE_CONTENT\",\"messageId\":\"r1\",\"delta\":\"hm\"}}\n\n",
                "data: {}\n\n",
            ),
            end
        );
        let config = AgUiConfig {
            verify: false,
            ..AgUiConfig::default()
        };
        let view = RunView::from_events(
            app::projection::ViewPolicy {
                show_reasoning: true,
            },
            &events_of_bytes(body.as_bytes(), config),
        );
        let still: Vec<&ItemBody> = view
            .items
            .iter()
            .map(|item| &item.body)
            .filter(|body| {
                matches!(
                    body,
                    ItemBody::Message {
                        streaming: true,
                        ..
                    } | ItemBody::Reasoning {
                        streaming: true,
                        ..
                    }
                )
            })
            .collect();
        assert!(still.is_empty(), "{end}: {still:?}");
        assert!(
            view.items
                .iter()
                .any(|item| matches!(&item.body, ItemBody::Message { text, .. } if text == "half")),
            "{end}"
        );
    }
}

#[test]
fn a_frontend_tools_card_shows_the_answer_its_ask_was_given_in_place() {
    let stream = repo_path("fixtures/agui/frontend_tool_left_for_the_client.sse");
    let mut events = events_of_file(&stream);
    let view = RunView::from_events(Default::default(), &events);
    let ask = view.pending_asks().next().unwrap().clone();
    let call = ask.tool_call_id.clone().unwrap();
    let card = |view: &RunView| {
        view.items
            .iter()
            .find_map(|item| match &item.body {
                ItemBody::ToolCall {
                    tool_call_id,
                    status,
                    result,
                    ..
                } if *tool_call_id == call => Some((*status, result.clone())),
                _ => None,
            })
            .unwrap()
    };
    assert_eq!(card(&view).0, app::projection::ToolStatus::Running);
    let mut closed = events.last().unwrap().clone();
    closed.sequence += 1;
    closed.body = EventBody::AskClosed {
        ask_id: ask.id.clone(),
        ask_kind: ask.kind,
        state: Box::new(app::protocol::ask::AskState::Resolved {
            answer: app::protocol::ask::RecordedAnswer {
                action: "submit".into(),
                data: json!({"result": {"applied": "#0b7285"}}),
                summary: "Tool result sent".into(),
                actor: None,
                at: None,
            },
        }),
    };
    events.push(closed);
    let answered = RunView::from_events(Default::default(), &events);
    let (status, result) = card(&answered);
    assert_eq!(status, app::projection::ToolStatus::Done);
    assert_eq!(result.unwrap().content, json!({"applied": "#0b7285"}));
}

#[test]
fn a_view_read_back_from_json_finds_its_tool_calls_like_the_one_it_came_from() {
    let view = RunView::from_events(Default::default(), &events());
    let back: RunView = serde_json::from_str(&serde_json::to_string(&view).unwrap()).unwrap();
    assert!(view.tool_call("c1").is_some());
    assert_eq!(back.tool_call("c1"), view.tool_call("c1"));
    assert!(back.tool_call("nope").is_none());
}

fn placed(body: EventBody, sequence: u64, ts: i64) -> RunEvent {
    let mut sequencer = app::protocol::channel::Sequencer::new(run_ref());
    let mut event = sequencer.place(
        app::protocol::channel::EventDraft::new(body, Some(ts), None),
        ts,
    );
    event.sequence = sequence;
    event
}

fn result_duration(view: &RunView) -> Option<u64> {
    view.items.iter().find_map(|item| match &item.body {
        ItemBody::ToolCall { result, .. } => result.as_ref().and_then(|result| result.duration_ms),
        _ => None,
    })
}

#[test]
fn a_tool_call_lasts_from_its_call_to_its_result_waits_on_the_operator_included() {
    let started = placed(
        EventBody::ToolCallStarted {
            tool_call_id: "c1".into(),
            name: "sudo_apt".into(),
            parent_message_id: None,
            summary: None,
        },
        1,
        1_000,
    );
    // The agent reports its own 20 ms; the call waited 10 s for a password before it.
    let result = |ts| {
        placed(
            EventBody::ToolResult {
                tool_call_id: "c1".into(),
                tool_name: Some("sudo_apt".into()),
                content: json!("ok"),
                is_error: false,
                duration_ms: Some(20),
            },
            2,
            ts,
        )
    };
    let view = RunView::from_events(Default::default(), &[started, result(11_000)]);
    assert_eq!(result_duration(&view), Some(10_000));

    // A result whose call began in an earlier run knows no start here: it claims no
    // measured "0 ms", only what the agent reported.
    let resumed = RunView::from_events(Default::default(), &[result(11_000)]);
    assert_eq!(result_duration(&resumed), Some(20));
}

fn artifact(data: Value, sequence: u64) -> RunEvent {
    placed(
        EventBody::Artifact {
            artifact_id: "chart-1".into(),
            artifact_kind: "chart".into(),
            title: Some("Load".into()),
            data,
        },
        sequence,
        1_000 + sequence as i64,
    )
}

#[test]
fn an_artifact_sent_again_whole_keeps_its_earlier_versions_and_patches_change_the_current_one() {
    let first = artifact(json!({"points": [1]}), 1);
    let patch = placed(
        EventBody::ArtifactPatched {
            artifact_id: "chart-1".into(),
            patch: json!([{"op": "add", "path": "/points/-", "value": 2}]),
        },
        2,
        1_002,
    );
    let second = artifact(json!({"points": [1, 2, 3]}), 3);
    let same_again = artifact(json!({"points": [1, 2, 3]}), 4);
    let view = RunView::from_events(Default::default(), &[first, patch, second, same_again]);
    let chart = view.artifact("chart-1").unwrap();
    assert_eq!(chart.versions(), 2);
    assert_eq!(chart.version(1), Some(&json!({"points": [1, 2]})));
    assert_eq!(chart.version(2), Some(&json!({"points": [1, 2, 3]})));
    assert_eq!(chart.version(3), None);
    // One timeline entry, however often it is redrawn.
    let entries = view
        .items
        .iter()
        .filter(|item| matches!(item.body, ItemBody::Artifact { .. }))
        .count();
    assert_eq!(entries, 1);
    // Read back from JSON as the page ships it: the versions come too.
    let back: RunView = serde_json::from_value(serde_json::to_value(&view).unwrap()).unwrap();
    assert_eq!(back.artifact("chart-1").unwrap().versions(), 2);
}

#[test]
fn an_artifact_redrawn_without_end_keeps_a_bounded_number_of_versions() {
    let events: Vec<RunEvent> = (1..=100)
        .map(|n| artifact(json!({"points": [n]}), n))
        .collect();
    let view = RunView::from_events(Default::default(), &events);
    let chart = view.artifact("chart-1").unwrap();
    assert_eq!(chart.versions(), 100);
    assert_eq!(
        chart.earlier.len(),
        app::projection::ArtifactView::MOST_VERSIONS_KEPT
    );
    // The oldest are gone and say so; the newest are there.
    assert_eq!(chart.version(1), None);
    assert_eq!(chart.version(100), Some(&json!({"points": [100]})));
    assert_eq!(chart.version(99), Some(&json!({"points": [99]})));
    assert_eq!(chart.version(80), Some(&json!({"points": [80]})));
    assert_eq!(chart.version(79), None);
}
