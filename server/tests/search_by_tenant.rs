//! Full-text search partitioned by tenant, on both stores: a search finds its own
//! tenant's notes and threads alone, and every entry of either index carries its
//! tenant's code, so a search of one tenant reads none of another's (whose number of
//! matches it could otherwise time).

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;

use app::search::search_terms;
use server::store::notes::{NoteContent, NoteFilter};
use sqlx::Row;

/// Every word of both full-text indexes.
async fn indexed_words(url: &str, postgres: bool) -> Vec<String> {
    sqlx::any::install_default_drivers();
    // One connection: a temporary table is its connection's alone.
    let mut connection = <sqlx::AnyConnection as sqlx::Connection>::connect(url)
        .await
        .unwrap();
    let mut words = Vec::new();
    if postgres {
        for table in ["notes", "threads"] {
            let rows = sqlx::query(&format!(
                "SELECT word FROM ts_stat('SELECT search FROM {table}')"
            ))
            .fetch_all(&mut connection)
            .await
            .unwrap();
            words.extend(rows.iter().map(|row| row.get::<String, _>("word")));
        }
    } else {
        for table in ["notes_fts", "threads_fts"] {
            sqlx::query(&format!(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}_words USING fts5vocab(main, {table}, row)"
            ))
            .execute(&mut connection)
            .await
            .unwrap();
            let rows = sqlx::query(&format!("SELECT term FROM temp.{table}_words"))
                .fetch_all(&mut connection)
                .await
                .unwrap();
            words.extend(rows.iter().map(|row| row.get::<String, _>("term")));
        }
    }
    words
}

#[tokio::test]
async fn a_search_reads_only_its_own_tenants_entries_of_the_index() {
    for backend in backends::all().await {
        let name = backend.name;
        let store = &backend.store;
        for tenant in ["acme", "globex"] {
            store.create_tenant(tenant, 1).await.unwrap();
            let content = NoteContent {
                title: format!("{tenant} rollout plan"),
                body: "Deployments happen on Fridays.".into(),
                tags: vec!["ops".into()],
                project_id: None,
            };
            store
                .create_note(tenant, &format!("note-{tenant}"), &content, "ada", 2)
                .await
                .unwrap();
            let thread = store
                .create_thread(tenant, &format!("thread-{tenant}"), None, 3)
                .await
                .unwrap();
            store
                .add_thread_words(tenant, &thread.id, "ship the zeppelin release")
                .await
                .unwrap();
        }
        for tenant in ["acme", "globex"] {
            let found = store
                .list_notes(
                    tenant,
                    &NoteFilter {
                        terms: search_terms("deploy rollout"),
                        limit: 10,
                        ..NoteFilter::default()
                    },
                )
                .await
                .unwrap();
            let ids: Vec<&str> = found.notes.iter().map(|note| note.id.as_str()).collect();
            assert_eq!(ids, [format!("note-{tenant}")], "{name}");
            let threads = store
                .search_threads(tenant, &search_terms("zeppelin"), 10)
                .await
                .unwrap();
            let ids: Vec<&str> = threads.iter().map(|thread| thread.id.as_str()).collect();
            assert_eq!(ids, [format!("thread-{tenant}")], "{name}");
        }
        let words = indexed_words(&backend.url, name == "postgres").await;
        assert!(!words.is_empty(), "{name}");
        for bare in ["rollout", "deploy", "friday", "ops", "zeppelin", "ship"] {
            assert!(
                !words.iter().any(|word| word == bare),
                "{name}: {bare:?} is in the index without its tenant: {words:?}"
            );
        }
        for word in &words {
            let code = word.get(..10).unwrap_or_default();
            assert!(
                code.len() == 10 && code.bytes().all(|byte| (b'a'..=b'p').contains(&byte)),
                "{name}: {word:?} carries no tenant's code"
            );
        }
    }
}
