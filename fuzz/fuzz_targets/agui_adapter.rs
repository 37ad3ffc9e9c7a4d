//! Arbitrary bytes as an AG-UI SSE body, split at an arbitrary point, through the decoder,
//! the adapter and the projection. Any panic is a bug.

#![no_main]

use app::projection::{RunView, ViewPolicy};
use app::protocol::agui::{AgUiConfig, AgUiNormalizer};
use app::protocol::channel::{RunRef, Sequencer};
use app::protocol::sse::{SseDecoder, SseFrames};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&split, body)) = data.split_first() else {
        return;
    };
    let cut = (split as usize).min(body.len());
    for verify in [true, false] {
        let mut decoder = SseDecoder::new();
        let mut normalizer = AgUiNormalizer::new(AgUiConfig {
            verify,
            ..AgUiConfig::default()
        });
        let mut sequencer = Sequencer::new(RunRef::new("t", "t", "r"));
        let mut view = RunView::new(ViewPolicy::default());
        let mut frames = SseFrames::new();
        let mut drafts = Vec::new();
        decoder.feed(&body[..cut], &mut frames);
        decoder.feed(&body[cut..], &mut frames);
        decoder.finish(&mut frames);
        for frame in frames.iter() {
            normalizer.push_frame(frame, &mut drafts);
        }
        normalizer.finish(&mut drafts);
        for draft in drafts {
            let event = sequencer.place(draft, 0);
            // Every event must survive its own wire form.
            let wire = serde_json::to_string(&event).expect("events serialize");
            let back: app::protocol::channel::RunEvent =
                serde_json::from_str(&wire).expect("events deserialize");
            assert_eq!(back, event);
            view.apply(&event);
        }
        let _ = view.timeline_lines();
    }
});
