//! A synthetic AG-UI run for the benchmarks: streamed text, pairs of parallel tool calls
//! with interleaved arguments, and state deltas that grow the state, in that rhythm; and
//! the two ways the benchmarks read it (the whole pipeline, and parsing alone).

#![allow(dead_code)]

use std::fmt::Write;

use app::projection::{RunView, ViewPolicy};
use app::protocol::agui::{AgUiConfig, AgUiNormalizer};
use app::protocol::channel::{EventDraft, RunRef, Sequencer};
use app::protocol::sse::{SseDecoder, SseFrames};

/// The full path one event takes in the browser or the replay tool: SSE decoding,
/// AG-UI adapter, verifier, sequencer, projection. The body arrives in 16 KiB reads, the
/// way the network delivers it, and each read goes through the stages as a batch, as the
/// server's run reader does (decode the read, normalize its frames, then place and apply).
pub fn project(body: &str) -> RunView {
    let mut stages = Stages {
        normalizer: AgUiNormalizer::new(AgUiConfig::default()),
        sequencer: Sequencer::new(RunRef::new("t", "t", "r")),
        view: RunView::new(ViewPolicy::default()),
        frames: SseFrames::new(),
        drafts: Vec::new(),
    };
    let mut decoder = SseDecoder::new();
    for chunk in body.as_bytes().chunks(16 * 1024) {
        decoder.feed(chunk, &mut stages.frames);
        stages.run();
    }
    decoder.finish(&mut stages.frames);
    stages.run();
    stages.normalizer.finish(&mut stages.drafts);
    stages.run();
    stages.view
}

struct Stages {
    normalizer: AgUiNormalizer,
    sequencer: Sequencer,
    view: RunView,
    frames: SseFrames,
    drafts: Vec<EventDraft>,
}

impl Stages {
    /// Normalizes every decoded frame, then places and applies every draft.
    fn run(&mut self) {
        for frame in self.frames.iter() {
            self.normalizer.push_frame(frame, &mut self.drafts);
        }
        self.frames.clear();
        for draft in self.drafts.drain(..) {
            self.view.apply(&self.sequencer.place(draft, 0));
        }
    }
}

/// The baseline: `serde_json` parsing each event's JSON text into a `Value`, nothing more.
pub fn parse_only(texts: &[&str]) -> usize {
    texts
        .iter()
        .map(|text| serde_json::from_str::<serde_json::Value>(text).map_or(0, |_| 1))
        .sum()
}

/// An SSE body of exactly `events` AG-UI events (RUN_STARTED … RUN_FINISHED).
pub fn synthetic_run(events: usize) -> String {
    let mut body = String::with_capacity(events * 120);
    let mut count = 0;
    let push = |body: &mut String, json: String| {
        body.push_str("data: ");
        body.push_str(&json);
        body.push_str("\n\n");
    };
    push(
        &mut body,
        r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.into(),
    );
    count += 1;
    // The state the deltas grow.
    push(
        &mut body,
        r#"{"type":"STATE_SNAPSHOT","snapshot":{"tasks":[]}}"#.into(),
    );
    count += 1;
    let mut turn = 0usize;
    // Each turn is 21 events; stop early enough to close cleanly.
    while count + 21 < events {
        let m = format!("m{turn}");
        push(
            &mut body,
            format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"{m}","role":"assistant"}}"#),
        );
        for word in 0..6 {
            push(
                &mut body,
                format!(
                    r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{m}","delta":"word {word} of turn {turn}, "}}"#
                ),
            );
        }
        push(
            &mut body,
            format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"{m}"}}"#),
        );
        let (a, b) = (format!("a{turn}"), format!("b{turn}"));
        for id in [&a, &b] {
            push(
                &mut body,
                format!(
                    r#"{{"type":"TOOL_CALL_START","toolCallId":"{id}","toolCallName":"add_task"}}"#
                ),
            );
        }
        for piece in [r#"{\"title\":"#, r#"\"task "#, r#"number\"}"#] {
            for id in [&a, &b] {
                push(
                    &mut body,
                    format!(r#"{{"type":"TOOL_CALL_ARGS","toolCallId":"{id}","delta":"{piece}"}}"#),
                );
            }
        }
        for id in [&a, &b] {
            push(
                &mut body,
                format!(r#"{{"type":"TOOL_CALL_END","toolCallId":"{id}"}}"#),
            );
        }
        for id in [&a, &b] {
            push(
                &mut body,
                format!(
                    r#"{{"type":"TOOL_CALL_RESULT","messageId":"r{id}","toolCallId":"{id}","content":"{{\"ok\":true}}"}}"#
                ),
            );
        }
        let mut delta = String::new();
        let _ = write!(
            delta,
            r#"{{"type":"STATE_DELTA","delta":[{{"op":"add","path":"/tasks/-","value":{{"id":{turn},"title":"task {turn}"}}}}]}}"#
        );
        push(&mut body, delta);
        count += 21;
        turn += 1;
    }
    while count + 1 < events {
        push(
            &mut body,
            r#"{"type":"CUSTOM","name":"pad","value":1}"#.into(),
        );
        count += 1;
    }
    push(
        &mut body,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#.into(),
    );
    body
}

/// The JSON text of each event, for the parse-only baseline.
pub fn event_texts(body: &str) -> Vec<&str> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .collect()
}
