//! Throughput of the whole client pipeline (SSE decoding, AG-UI adapter, verifier,
//! projection) next to plain `serde_json` parsing of the same events, at 10,000 and
//! 100,000 events. The projection's time ends when the view is built; freeing it, which
//! the console does only when it leaves the run, is not timed (`iter_with_large_drop`).
//! Run with `cargo bench -p app --bench projection`.

mod common;

use std::hint::black_box;

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
            |b| b.iter_with_large_drop(|| project(black_box(&body))),
        );
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_function(BenchmarkId::new("serde_json_parse_only", "bytes"), |b| {
            b.iter(|| black_box(parse_only(black_box(&texts))))
        });
        group.bench_function(
            BenchmarkId::new("decode_adapt_verify_project", "bytes"),
            |b| b.iter_with_large_drop(|| project(black_box(&body))),
        );
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
