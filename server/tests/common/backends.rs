//! The two store backends, for tests that must pass on both: a SQLite file in a temp
//! directory, and a fresh PostgreSQL database on the server `AGENT_OS_TEST_POSTGRES_URL`
//! names (created here, dropped afterwards).

// Tests that start a server on a backend use its URL only.
#![allow(dead_code)]

use std::sync::Arc;

use server::store::{self, Store};
use sqlx::Connection;

pub const POSTGRES_ENV: &str = "AGENT_OS_TEST_POSTGRES_URL";

pub struct Backend {
    pub name: &'static str,
    #[allow(dead_code)]
    pub url: String,
    pub store: Arc<dyn Store>,
    _temp: Option<tempfile::TempDir>,
    drop_db: Option<(String, String)>,
}

impl Drop for Backend {
    fn drop(&mut self) {
        if let Some((admin_url, db)) = self.drop_db.take() {
            // Dropping needs a runtime of its own: the test's runtime is going away.
            let _ = std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("runtime");
                runtime.block_on(async {
                    if let Ok(mut admin) = sqlx::PgConnection::connect(&admin_url).await {
                        let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
                            .execute(&mut admin)
                            .await;
                    }
                });
            })
            .join();
        }
    }
}

pub async fn sqlite() -> Backend {
    let temp = tempfile::tempdir().expect("temp dir");
    let url = format!("sqlite:{}", temp.path().join("store.sqlite3").display());
    Backend {
        name: "sqlite",
        store: store::open(&url).await.expect("sqlite store opens"),
        url,
        _temp: Some(temp),
        drop_db: None,
    }
}

/// A fresh PostgreSQL database, or None (said loudly) when no server is configured.
pub async fn postgres() -> Option<Backend> {
    let Ok(admin_url) = std::env::var(POSTGRES_ENV) else {
        eprintln!("SKIPPED: PostgreSQL store tests ({POSTGRES_ENV} is not set)");
        return None;
    };
    let db = format!("agent_os_test_{}", uuid::Uuid::new_v4().simple());
    let mut admin = sqlx::PgConnection::connect(&admin_url)
        .await
        .unwrap_or_else(|error| panic!("{POSTGRES_ENV}={admin_url} is unreachable: {error}"));
    sqlx::query(&format!("CREATE DATABASE {db}"))
        .execute(&mut admin)
        .await
        .expect("create test database");
    let url = match admin_url.rsplit_once('/') {
        Some((server, _)) if server.contains("://") && server.len() > "postgres://".len() => {
            format!("{server}/{db}")
        }
        _ => format!("{admin_url}/{db}"),
    };
    Some(Backend {
        name: "postgres",
        store: store::open(&url).await.expect("postgres store opens"),
        url,
        _temp: None,
        drop_db: Some((admin_url, db)),
    })
}

/// SQLite always, PostgreSQL when configured.
pub async fn all() -> Vec<Backend> {
    let mut backends = vec![sqlite().await];
    backends.extend(postgres().await);
    backends
}

/// A thread `th-{run_id}` in `tenant` and a demo run `run_id` in it, as the store keeps them.
pub async fn new_run(store: &dyn Store, tenant: &str, run_id: &str) {
    let thread = store
        .create_thread(tenant, &format!("th-{run_id}"), None, 1)
        .await
        .expect("the store writes");
    store
        .create_run(&server::store::NewRun {
            id: run_id.into(),
            tenant_id: tenant.into(),
            thread_id: thread.id,
            agent: "demo".into(),
            input: serde_json::json!({"messages": []}),
            created_at_ms: 1,
        })
        .await
        .expect("the store writes");
}

/// A run paused on the two asks of `pause_on_two_decisions.sse`; its stored events.
pub async fn paused_run(store: &dyn Store, run_id: &str) -> Vec<app::protocol::channel::RunEvent> {
    new_run(store, "default", run_id).await;
    let drafts = app::protocol::recorded::normalize_recorded(
        &std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/agui/pause_on_two_decisions.sse"
        ))
        .unwrap(),
        Default::default(),
    );
    store
        .append("default", run_id, &[], drafts, 9)
        .await
        .unwrap()
}

pub fn text(delta: &str) -> app::protocol::channel::EventDraft {
    app::protocol::channel::EventDraft::new(
        app::protocol::channel::EventBody::TextDelta {
            message_id: "m".into(),
            delta: delta.into(),
        },
        None,
        None,
    )
}

pub fn answered(action: &str) -> app::protocol::ask::AskState {
    app::protocol::ask::AskState::Resolved {
        answer: app::protocol::ask::RecordedAnswer {
            action: action.into(),
            data: serde_json::Value::Null,
            summary: format!("answered {action}"),
            actor: Some("operator".into()),
            at: None,
        },
    }
}

/// Runs `statements` on the store at `url` over a connection of its own.
pub async fn run_sql(url: &str, statements: &[&str]) {
    if url.starts_with("sqlite:") {
        let mut db = sqlx::SqliteConnection::connect(url).await.unwrap();
        for statement in statements {
            sqlx::query(statement).execute(&mut db).await.unwrap();
        }
    } else {
        let mut db = sqlx::PgConnection::connect(url).await.unwrap();
        for statement in statements {
            sqlx::query(statement).execute(&mut db).await.unwrap();
        }
    }
}
