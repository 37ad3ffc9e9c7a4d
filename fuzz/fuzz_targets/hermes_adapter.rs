//! Arbitrary bytes as Hermes JSON-RPC lines through the adapter and the projection.

#![no_main]

use app::projection::{RunView, ViewPolicy};
use app::protocol::hermes::HermesNormalizer;
use app::protocol::recorded::place_all;
use app::protocol::channel::RunRef;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut normalizer = HermesNormalizer::new();
    let mut drafts = Vec::new();
    for line in text.lines() {
        normalizer.push_line(line, &mut drafts);
    }
    normalizer.finish(&mut drafts);
    let events = place_all(RunRef::new("t", "t", "r"), drafts, 0);
    let view = RunView::from_events(ViewPolicy::default(), &events);
    let _ = view.timeline_lines();
});
