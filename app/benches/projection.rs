//! Throughput of the whole client pipeline (SSE decoding, AG-UI adapter, verifier,
//! projection) next to plain `serde_json` parsing of the same events, at 10,000 and
//! 100,000 events. The projection's time ends when the view is built; freeing it, which
//! the console does only when it leaves the run, happens after the clock stops, before
//! the next iteration (so each builds in the memory the last one freed, as a console
//! opening one run after another does). Run with `cargo bench -p app --bench projection`.

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use app::protocol::channel::Channel;
use common::{parse_only, project};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    for events in [10_000usize, 100_000] {
        let body = common::synthetic_run(events);
        let texts = common::event_texts(&body);
        assert_eq!(texts.len(), events);
        let check = project(&body);
        assert!(check.status.label() == "succeeded", "{:?}", check.status);
        assert!(
            check
                .items
                .iter()
                .all(|item| item.channel != Channel::Error),
            "the synthetic run must project without errors"
        );
        assert!(
            check.state["tasks"]
                .as_array()
                .is_some_and(|tasks| !tasks.is_empty())
        );

        let mut group = c.benchmark_group(format!("{events}_events"));
        group.sample_size(10);
        group.throughput(Throughput::Elements(events as u64));
        group.bench_function(BenchmarkId::new("serde_json_parse_only", "events"), |b| {
            b.iter(|| black_box(parse_only(black_box(&texts))))
        });
        group.bench_function(
            BenchmarkId::new("decode_adapt_verify_project", "events"),
            |b| b.iter_custom(|iterations| time_projections(&body, iterations)),
        );
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_function(BenchmarkId::new("serde_json_parse_only", "bytes"), |b| {
            b.iter(|| black_box(parse_only(black_box(&texts))))
        });
        group.bench_function(
            BenchmarkId::new("decode_adapt_verify_project", "bytes"),
            |b| b.iter_custom(|iterations| time_projections(&body, iterations)),
        );
        group.finish();
    }
}

/// Builds the view `iterations` times; only the building is timed.
fn time_projections(body: &str, iterations: u64) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iterations {
        let started = Instant::now();
        let view = black_box(project(black_box(body)));
        total += started.elapsed();
        drop(view);
    }
    total
}

criterion_group!(benches, bench);
criterion_main!(benches);
