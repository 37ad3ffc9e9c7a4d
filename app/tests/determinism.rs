//! The same upstream stream gives the same view however it was chunked, however its
//! bytes were split on the wire, and however parallel streams interleaved.

#![allow(clippy::unwrap_used)]

mod common;

use app::projection::RunView;
use app::protocol::agui::AgUiConfig;
use app::protocol::agui::AgUiNormalizer;
use app::protocol::recorded::place_all;
use app::protocol::sse::{SseDecoder, SseFrames};
use common::*;
use proptest::prelude::*;
use serde_json::{Value, json};

const AGUI_FIXTURES: [&str; 10] = [
    "fixtures/agui/chunked_text_split_zwj_emoji.sse",
    "fixtures/agui/arguments_split_mid_escape.sse",
    "fixtures/agui/parallel_calls_interleaved.sse",
    "fixtures/agui/mixed_chunk_streams_never_closed.sse",
    "fixtures/agui/work_then_pause.sse",
    "fixtures/agui/every_event_type.sse",
    "fixtures/agui/deprecated_thinking_events.sse",
    "fixtures/peers/agui/pydantic-ai-two_tools.sse",
    "fixtures/peers/agui/pydantic-ai-thinking.sse",
    "fixtures/peers/agui/langgraph-backend_tool.sse",
];

const HERMES_FIXTURES: [&str; 3] = [
    "fixtures/peers/hermes/text.jsonl",
    "fixtures/peers/hermes/approval_once.jsonl",
    "fixtures/hermes/asks_event_form.jsonl",
];

/// A small deterministic generator, seeded by proptest.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Everything a view shows, without sequences or times.
fn digest(view: &RunView) -> Value {
    json!({
        "status": view.status,
        "timeline": view.timeline_lines(),
        "final": view.final_answer.as_ref().map(|f| &f.text),
        "asks": view.asks,
        "state": view.state,
        "plan": view.plan,
        "artifacts": view.artifacts,
        "edits": view.edits,
    })
}

fn agui_events(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(repo_path(path)).unwrap();
    text.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect()
}

/// Cuts a string at random character boundaries into one to four pieces.
fn split_text(text: &str, dice: &mut Dice) -> Vec<String> {
    let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).skip(1).collect();
    let cuts = dice.below(4);
    let mut points: Vec<usize> = (0..cuts)
        .filter_map(|_| boundaries.get(dice.below(boundaries.len())).copied())
        .collect();
    points.sort_unstable();
    points.dedup();
    let mut pieces = Vec::new();
    let mut start = 0;
    for point in points {
        pieces.push(text[start..point].to_owned());
        start = point;
    }
    pieces.push(text[start..].to_owned());
    pieces
}

const DELTA_TYPES: [&str; 6] = [
    "TEXT_MESSAGE_CONTENT",
    "TOOL_CALL_ARGS",
    "REASONING_MESSAGE_CONTENT",
    "TEXT_MESSAGE_CHUNK",
    "TOOL_CALL_CHUNK",
    "REASONING_MESSAGE_CHUNK",
];

fn rechunk(events: &[Value], dice: &mut Dice) -> Vec<Value> {
    let mut out = Vec::new();
    for event in events {
        let kind = event["type"].as_str().unwrap_or_default();
        match event.get("delta").and_then(Value::as_str) {
            Some(delta) if DELTA_TYPES.contains(&kind) && !delta.is_empty() => {
                for (n, piece) in split_text(delta, dice).into_iter().enumerate() {
                    let mut copy = event.clone();
                    copy["delta"] = json!(piece);
                    if n > 0 && kind.ends_with("_CHUNK") {
                        // Continuations need no id; dropping it must change nothing.
                        if let Some(object) = copy.as_object_mut() {
                            if dice.below(2) == 0 {
                                object.remove("messageId");
                                object.remove("toolCallId");
                            }
                            object.remove("toolCallName");
                            object.remove("role");
                        }
                    }
                    out.push(copy);
                }
            }
            _ => out.push(event.clone()),
        }
    }
    out
}

fn stream_key(event: &Value) -> Option<(String, String)> {
    let kind = event["type"].as_str()?;
    if !matches!(
        kind,
        "TEXT_MESSAGE_CONTENT" | "TOOL_CALL_ARGS" | "REASONING_MESSAGE_CONTENT"
    ) {
        return None;
    }
    let id = event
        .get("messageId")
        .or_else(|| event.get("toolCallId"))?
        .as_str()?;
    Some((kind.to_owned(), id.to_owned()))
}

/// Re-interleaves consecutive content events of different streams, keeping each
/// stream's own order.
fn reinterleave(events: Vec<Value>, dice: &mut Dice) -> Vec<Value> {
    let mut out = Vec::new();
    let mut run: Vec<Value> = Vec::new();
    let flush = |run: &mut Vec<Value>, out: &mut Vec<Value>, dice: &mut Dice| {
        type Queue = (Option<(String, String)>, Vec<Value>);
        let mut queues: Vec<Queue> = Vec::new();
        for event in run.drain(..) {
            let key = stream_key(&event);
            match queues.iter_mut().find(|(k, _)| *k == key) {
                Some((_, queue)) => queue.push(event),
                None => queues.push((key, vec![event])),
            }
        }
        for (_, queue) in &mut queues {
            queue.reverse();
        }
        while queues.iter().any(|(_, q)| !q.is_empty()) {
            let live: Vec<usize> = (0..queues.len())
                .filter(|i| !queues[*i].1.is_empty())
                .collect();
            let pick = live[dice.below(live.len())];
            out.push(queues[pick].1.pop().unwrap());
        }
    };
    for event in events {
        if stream_key(&event).is_some() {
            run.push(event);
        } else {
            flush(&mut run, &mut out, dice);
            out.push(event);
        }
    }
    flush(&mut run, &mut out, dice);
    out
}

/// Feeds an SSE body to the decoder in random-sized pieces.
fn project_sse_in_pieces(body: &[u8], config: AgUiConfig, dice: &mut Dice) -> RunView {
    let mut normalizer = AgUiNormalizer::new(config);
    let mut decoder = SseDecoder::new();
    let mut drafts = Vec::new();
    let mut frames = SseFrames::new();
    let mut rest = body;
    while !rest.is_empty() {
        let take = 1 + dice.below(64.min(rest.len()));
        let (piece, tail) = rest.split_at(take.min(rest.len()));
        decoder.feed(piece, &mut frames);
        for frame in frames.iter() {
            normalizer.push_frame(frame, &mut drafts);
        }
        frames.clear();
        rest = tail;
    }
    decoder.finish(&mut frames);
    for frame in frames.iter() {
        normalizer.push_frame(frame, &mut drafts);
    }
    normalizer.finish(&mut drafts);
    RunView::from_events(Default::default(), &place_all(run_ref(), drafts, 0))
}

fn sse_body(events: &[Value]) -> Vec<u8> {
    events
        .iter()
        .map(|event| format!("data: {event}\r\n\r\n"))
        .collect::<String>()
        .into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn rechunked_and_reinterleaved_ag_ui_streams_project_identically(seed in 1u64..u64::MAX, which in 0usize..AGUI_FIXTURES.len()) {
        let path = AGUI_FIXTURES[which];
        let config = config_for(&repo_path(path));
        let original = agui_events(path);
        let expected = digest(&project_bytes(&sse_body(&original), config.clone()));
        let mut dice = Dice(seed);
        let changed = reinterleave(rechunk(&original, &mut dice), &mut dice);
        let view = project_sse_in_pieces(&sse_body(&changed), config, &mut dice);
        prop_assert_eq!(digest(&view), expected, "{}", path);
    }

    #[test]
    fn rechunked_hermes_deltas_project_identically(seed in 1u64..u64::MAX, which in 0usize..HERMES_FIXTURES.len()) {
        let path = HERMES_FIXTURES[which];
        let text = std::fs::read_to_string(repo_path(path)).unwrap();
        let expected = digest(&project_bytes(text.as_bytes(), AgUiConfig::default()));
        let mut dice = Dice(seed);
        let mut lines = Vec::new();
        for line in text.lines() {
            let record: Value = serde_json::from_str(line).unwrap();
            let kind = record.pointer("/msg/params/type").and_then(Value::as_str).unwrap_or_default();
            match record.pointer("/msg/params/payload/text").and_then(Value::as_str) {
                Some(delta) if matches!(kind, "message.delta" | "reasoning.delta") && !delta.is_empty() => {
                    for piece in split_text(delta, &mut dice) {
                        let mut copy = record.clone();
                        copy["msg"]["params"]["payload"]["text"] = json!(piece);
                        lines.push(copy.to_string());
                    }
                }
                _ => lines.push(line.to_owned()),
            }
        }
        let view = project_bytes((lines.join("\n") + "\n").as_bytes(), AgUiConfig::default());
        prop_assert_eq!(digest(&view), expected, "{}", path);
    }
}
