//! Note search latency: fills a fresh store with N notes (10,000 by default) of generated
//! text, then times searches for any word of its vocabulary, for two, for a word common
//! enough to be in most notes, and a listing, through the notes service
//! the API and the console call, and prints p50 and p99 for each. SQLite always (a file in
//! a temp directory); PostgreSQL too when given a server (a fresh database is made and
//! dropped).
//!
//! cargo run --release -p server --example note_search -- [--notes N] [--postgres postgres://postgres@127.0.0.1:5432/postgres]

// A measuring tool: a failure ends the measurement.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use app::api::service::NotesService;
use app::model::notes::{NewNote, NoteQuery};
use app::model::{RequestContext, Role};
use server::workspace::notes::NotesServiceImpl;
use sqlx::Connection;

/// A small deterministic generator, so every run measures the same notes.
struct Words(u64);

impl Words {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A word of a 5,000-word vocabulary, common ones far more often (roughly Zipf).
    fn word(&mut self) -> String {
        let rank = (self.next() % 5000) as f64;
        spelled((rank * rank / 5000.0) as u64)
    }

    /// Any word of the vocabulary, each as likely: what a search usually looks for.
    fn any_word(&mut self) -> String {
        spelled(self.next() % 5000)
    }

    fn text(&mut self, words: usize) -> String {
        (0..words)
            .map(|_| self.word())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Word number `n`, spelled in syllables (word 0 is "lo", word 12 is "lolo"… ).
fn spelled(n: u64) -> String {
    let syllables = [
        "ka", "lo", "mi", "de", "ploy", "ru", "ta", "sen", "vo", "ix",
    ];
    let mut word = String::new();
    let mut n = n + 1;
    while n > 0 {
        word.push_str(syllables[(n % 10) as usize]);
        n /= 10;
    }
    word
}

/// What one kind of search looks for, drawn from the vocabulary.
type Query = fn(&mut Words) -> String;

fn context() -> RequestContext {
    RequestContext {
        tenant: "default".into(),
        role: Role::Operator,
        user_id: "bench".into(),
        actor: "bench".into(),
        token_id: None,
        memberships: Vec::new(),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at]
}

async fn measure(name: &str, url: &str, count: usize) {
    let store = server::store::open(url).await.unwrap();
    let notes: Arc<dyn NotesService> = Arc::new(NotesServiceImpl::new(store));
    let context = context();
    let mut words = Words(0x9E37_79B9_7F4A_7C15);
    let filling = Instant::now();
    for n in 0..count {
        let length = 150 + (words.next() % 300) as usize;
        let body = words.text(length);
        let note = NewNote {
            title: format!("{} {n}", words.text(4)),
            body,
            tags: vec![words.word()],
            project_id: None,
        };
        notes.create_note(&context, note).await.unwrap();
    }
    println!(
        "{name}: {count} notes written in {:.1} s",
        filling.elapsed().as_secs_f64()
    );
    if url.starts_with("postgres") {
        // What autovacuum does within a minute of a bulk load; searched before it, the
        // planner has no statistics for the new rows.
        let mut connection = sqlx::PgConnection::connect(url).await.unwrap();
        sqlx::query("ANALYZE notes")
            .execute(&mut connection)
            .await
            .unwrap();
    }
    let searches: [(&str, Query); 4] = [
        ("any word", |words| words.any_word()),
        ("two words", |words| {
            format!("{} {}", words.any_word(), words.any_word())
        }),
        ("a common word", |words| words.word()),
        ("list, no words", |_| String::new()),
    ];
    for (label, query) in searches {
        let mut times = Vec::new();
        let mut found = 0;
        for _ in 0..400 {
            let q = query(&mut words);
            let started = Instant::now();
            let page = notes
                .list_notes(
                    &context,
                    &NoteQuery {
                        q: Some(q),
                        limit: Some(50),
                        ..NoteQuery::default()
                    },
                )
                .await
                .unwrap();
            times.push(started.elapsed());
            found += page.notes.len();
        }
        times.sort();
        println!(
            "{name}: {label:>14}: p50 {:>7.2} ms  p99 {:>7.2} ms  (400 searches, {:.1} results each on average, first page of 50)",
            percentile(&times, 0.5).as_secs_f64() * 1000.0,
            percentile(&times, 0.99).as_secs_f64() * 1000.0,
            found as f64 / 400.0
        );
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        args.iter()
            .position(|arg| arg == name)
            .and_then(|at| args.get(at + 1))
            .cloned()
    };
    let count = value("--notes")
        .and_then(|count| count.parse().ok())
        .unwrap_or(10_000);
    let temp = tempfile::tempdir().unwrap();
    let sqlite = format!("sqlite:{}", temp.path().join("bench.sqlite3").display());
    measure("sqlite", &sqlite, count).await;
    if let Some(admin) = value("--postgres") {
        let database = format!("agent_os_bench_{}", std::process::id());
        let mut connection = sqlx::PgConnection::connect(&admin).await.unwrap();
        sqlx::query(&format!("CREATE DATABASE {database}"))
            .execute(&mut connection)
            .await
            .unwrap();
        let (base, _) = admin.rsplit_once('/').unwrap();
        measure("postgres", &format!("{base}/{database}"), count).await;
        sqlx::query(&format!("DROP DATABASE {database} WITH (FORCE)"))
            .execute(&mut connection)
            .await
            .unwrap();
    }
}
