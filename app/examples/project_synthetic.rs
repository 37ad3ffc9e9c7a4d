//! Projects a synthetic run of N events and prints the time taken and the peak memory
//! of the process: `cargo run --release -p app --example project_synthetic -- 100000`.

#[path = "../benches/common/mod.rs"]
mod common;

use std::time::Instant;

use app::projection::{RunView, ViewPolicy};
use app::protocol::agui::{AgUiConfig, AgUiNormalizer};
use app::protocol::channel::{RunRef, Sequencer};
use app::protocol::sse::SseDecoder;

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
}

fn main() {
    let events: usize = std::env::args()
        .nth(1)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(100_000);
    let body = common::synthetic_run(events);
    let before = peak_rss_kib().unwrap_or(0);
    let started = Instant::now();
    let mut decoder = SseDecoder::new();
    let mut normalizer = AgUiNormalizer::new(AgUiConfig::default());
    let mut sequencer = Sequencer::new(RunRef::new("t", "t", "r"));
    let mut view = RunView::new(ViewPolicy::default());
    let mut frames = Vec::new();
    let mut drafts = Vec::new();
    for chunk in body.as_bytes().chunks(16 * 1024) {
        decoder.feed(chunk, &mut frames);
        for frame in frames.drain(..) {
            normalizer.push_frame(frame, &mut drafts);
            for draft in drafts.drain(..) {
                view.apply(&sequencer.place(draft, 0));
            }
        }
    }
    decoder.finish(&mut frames);
    for frame in frames.drain(..) {
        normalizer.push_frame(frame, &mut drafts);
    }
    normalizer.finish(&mut drafts);
    for draft in drafts.drain(..) {
        view.apply(&sequencer.place(draft, 0));
    }
    let elapsed = started.elapsed();
    let after = peak_rss_kib().unwrap_or(0);
    println!(
        "{events} events, {} bytes: {:.1} ms, {:.0} events/s; {} timeline items; peak RSS grew {} KiB ({} KiB with the input)",
        body.len(),
        elapsed.as_secs_f64() * 1000.0,
        events as f64 / elapsed.as_secs_f64(),
        view.items.len(),
        after.saturating_sub(before),
        after,
    );
}
