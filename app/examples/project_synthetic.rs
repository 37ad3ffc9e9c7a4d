//! Projects the synthetic run and prints, for 10,000 and 100,000 events: the pipeline's
//! speed next to parsing alone, measured in alternation (so a noisy machine slows both
//! alike) and reported as medians, with warm and with cold caches; the 100k ÷ 10k time;
//! and the peak memory one projection adds. The pipeline's time ends when the view is
//! built: the console keeps the view, so freeing it is timed apart (it is not part of
//! projecting).
//! `cargo run --release -p app --example project_synthetic [rounds]`.

#[path = "../benches/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::time::Instant;

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn millis(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|arg| arg.parse().ok())
        .unwrap_or(31);
    // Memory first, on a fresh heap: what one projection of 100,000 events keeps.
    let body = common::synthetic_run(100_000);
    let before = peak_rss_kib().unwrap_or(0);
    let view = common::project(&body);
    let grown = peak_rss_kib().unwrap_or(0).saturating_sub(before);
    println!(
        "memory: 100000 events -> {} timeline items, {} arrivals; peak RSS grew {grown} KiB ({:.0} bytes an event)",
        view.items.len(),
        view.arrivals.len(),
        grown as f64 * 1024.0 / 100_000.0
    );
    drop(view);

    // Warm rounds start with the previous round's freed view still in the core's caches
    // (a 10,000-event view fits in a 2–4 MiB L2, a 100,000-event one does not);
    // cold rounds first walk a buffer larger than the caches, as a run projected after
    // other work would find them.
    let mut evictor = vec![0u8; 64 << 20];
    let (mut warm_medians, mut cold_medians) = (Vec::new(), Vec::new());
    for events in [10_000usize, 100_000] {
        let body = common::synthetic_run(events);
        let texts = common::event_texts(&body);
        let (mut parse, mut warm, mut cold, mut drops) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            let started = Instant::now();
            black_box(common::parse_only(black_box(&texts)));
            parse.push(millis(started));
            let started = Instant::now();
            let view = black_box(common::project(black_box(&body)));
            warm.push(millis(started));
            let started = Instant::now();
            drop(view);
            drops.push(millis(started));
            evict_caches(&mut evictor);
            let started = Instant::now();
            let view = black_box(common::project(black_box(&body)));
            cold.push(millis(started));
            drop(view);
        }
        let (parse, warm, cold, drops) = (median(parse), median(warm), median(cold), median(drops));
        println!(
            "{events} events ({:.2} MB): parse only {parse:.2} ms ({:.2} M events/s); pipeline warm {warm:.2} ms ({:.2} M events/s), {:.2} of parse speed; cold {cold:.2} ms, {:.2} of parse speed; freeing the view {drops:.2} ms",
            body.len() as f64 / 1e6,
            events as f64 / parse / 1000.0,
            events as f64 / warm / 1000.0,
            parse / warm,
            parse / cold,
        );
        warm_medians.push(warm);
        cold_medians.push(cold);
    }
    println!(
        "100000 events took {:.1}x the 10000-event time warm, {:.1}x cold",
        warm_medians[1] / warm_medians[0],
        cold_medians[1] / cold_medians[0]
    );
}

/// Writes one byte in every cache line of `buffer`, pushing everything else out.
fn evict_caches(buffer: &mut [u8]) {
    for line in buffer.chunks_mut(64) {
        line[0] = line[0].wrapping_add(1);
    }
    black_box(buffer);
}
