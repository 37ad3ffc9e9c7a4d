//! A tenant's inbox and runs in progress: read whole (with the feed position it stands
//! at), and followed as one Server-Sent Event stream per browser tab that resumes after
//! the last feed row it delivered (`Last-Event-ID`), however many runs are open.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use app::model::inbox::{ActiveRun, Activity, INBOX_LIMIT, Inbox, InboxAsk, InboxChange};
use app::protocol::status::RunStatus;
use axum::body::Bytes;
use tokio::sync::broadcast;
use tokio::time::Instant;

use super::sse::{CHUNK, HEARTBEAT, flush, serve};
use super::{Live, StreamPermit, TenantSignal};
use crate::clock::now_ms;
use crate::store::feed::{FeedEntry, FeedSubject};
use crate::store::{AskRecord, RunRecord, Store, StoreError};

/// Feed rows read at a time.
const PAGE: u32 = 500;
/// The least time between two activity lines of one stream.
const ACTIVITY_EVERY: Duration = Duration::from_secs(1);

/// Reads what the inbox shows; names threads, projects and agents once per read.
pub struct InboxReader<'a> {
    store: &'a dyn Store,
    live: &'a Live,
    tenant_id: &'a str,
    threads: HashMap<String, Option<(String, Option<String>)>>,
    projects: HashMap<String, Option<String>>,
    agents: HashMap<String, String>,
}

impl<'a> InboxReader<'a> {
    pub fn new(store: &'a dyn Store, live: &'a Live, tenant_id: &'a str) -> Self {
        Self {
            store,
            live,
            tenant_id,
            threads: HashMap::new(),
            projects: HashMap::new(),
            agents: HashMap::new(),
        }
    }

    /// The inbox as it stands, and the feed position it stands at.
    pub async fn snapshot(&mut self) -> Result<Inbox, StoreError> {
        // The position first: a change made while the rest is read is sent again by the
        // stream, never missed.
        let cursor = self.store.feed_head(self.tenant_id).await?;
        let pending = self
            .store
            .list_asks(self.tenant_id, Some("pending"))
            .await?;
        let total = pending.len() as u64;
        let mut asks = Vec::new();
        for record in pending.iter().rev().take(INBOX_LIMIT) {
            asks.push(self.ask(record).await?);
        }
        let mut running = Vec::new();
        for run in self.store.runs_in_progress(self.tenant_id).await? {
            running.push(self.run(&run).await?);
        }
        Ok(Inbox {
            cursor,
            now_ms: now_ms(),
            asks,
            pending: total,
            running,
        })
    }

    /// What one feed row changed, as the subject now stands.
    pub async fn change(&mut self, entry: &FeedEntry) -> Result<InboxChange, StoreError> {
        Ok(match entry.subject {
            FeedSubject::Ask => {
                let record = self.store.get_ask(self.tenant_id, &entry.key).await?;
                let ask = match record {
                    Some(record) if record.ask.state.is_pending() => {
                        Some(Box::new(self.ask(&record).await?))
                    }
                    _ => None,
                };
                InboxChange::Ask {
                    key: entry.key.clone(),
                    ask,
                    pending: Some(self.store.count_asks(self.tenant_id, "pending").await?),
                }
            }
            FeedSubject::Run => {
                let record = self.store.get_run(self.tenant_id, &entry.key).await?;
                let run = match record {
                    Some(record) if record.status == RunStatus::Running => {
                        Some(self.run(&record).await?)
                    }
                    _ => None,
                };
                InboxChange::Run {
                    run_id: entry.key.clone(),
                    run,
                }
            }
            FeedSubject::Thread => {
                let (title, project_id) = self.thread(&entry.key).await?;
                let project_name = match &project_id {
                    Some(id) => self.project(id).await?,
                    None => None,
                };
                InboxChange::Thread {
                    thread_id: entry.key.clone(),
                    title,
                    project_id,
                    project_name,
                }
            }
            FeedSubject::Project => InboxChange::Project {
                project_id: entry.key.clone(),
                name: self.project(&entry.key).await?.unwrap_or_default(),
            },
            FeedSubject::Job => InboxChange::Job {
                job_id: entry.key.clone(),
            },
            FeedSubject::Schedule => InboxChange::Schedule {
                schedule_id: entry.key.clone(),
            },
            FeedSubject::Board => InboxChange::Board {
                board_id: entry.key.clone(),
            },
        })
    }

    async fn ask(&mut self, record: &AskRecord) -> Result<InboxAsk, StoreError> {
        let (thread_title, project_id) = self.thread(&record.thread_id).await?;
        let project_name = match &project_id {
            Some(id) => self.project(id).await?,
            None => None,
        };
        Ok(InboxAsk {
            key: record.key.clone(),
            run_id: record.run_id.clone(),
            thread_id: record.thread_id.clone(),
            thread_title,
            agent: self.agent(&record.run_id).await?,
            project_id,
            project_name,
            opened_at_ms: record.created_at_ms,
            ask: record.ask.clone(),
        })
    }

    async fn run(&mut self, run: &RunRecord) -> Result<ActiveRun, StoreError> {
        let (thread_title, _) = self.thread(&run.thread_id).await?;
        Ok(ActiveRun {
            run_id: run.id.clone(),
            thread_id: run.thread_id.clone(),
            thread_title,
            agent: run.agent.clone(),
            started_at_ms: run.created_at_ms,
            activity: self.live.activity(&run.id),
        })
    }

    /// A thread's title and project (a thread that is gone reads as its id).
    async fn thread(&mut self, thread_id: &str) -> Result<(String, Option<String>), StoreError> {
        if !self.threads.contains_key(thread_id) {
            let found = self
                .store
                .get_thread(self.tenant_id, thread_id)
                .await?
                .map(|thread| (thread.title, thread.project_id));
            self.threads.insert(thread_id.to_owned(), found);
        }
        Ok(self.threads[thread_id]
            .clone()
            .unwrap_or_else(|| (thread_id.to_owned(), None)))
    }

    async fn project(&mut self, project_id: &str) -> Result<Option<String>, StoreError> {
        if !self.projects.contains_key(project_id) {
            let name = self
                .store
                .get_project(self.tenant_id, project_id)
                .await?
                .map(|project| project.name);
            self.projects.insert(project_id.to_owned(), name);
        }
        Ok(self.projects[project_id].clone())
    }

    async fn agent(&mut self, run_id: &str) -> Result<String, StoreError> {
        if !self.agents.contains_key(run_id) {
            let agent = self
                .store
                .get_run(self.tenant_id, run_id)
                .await?
                .map(|run| run.agent)
                .unwrap_or_default();
            self.agents.insert(run_id.to_owned(), agent);
        }
        Ok(self.agents[run_id].clone())
    }
}

/// Appends one SSE message: `id:` when it is a feed row (what a reconnect resumes after).
fn push_frame(out: &mut String, id: Option<u64>, change: &InboxChange) {
    use std::fmt::Write;
    if let Some(id) = id {
        let _ = writeln!(out, "id: {id}");
    }
    match serde_json::to_string(change) {
        Ok(data) => {
            let _ = write!(out, "data: {data}\n\n");
        }
        Err(error) => {
            let _ = write!(
                out,
                "event: error\ndata: a change could not be encoded: {error}\n\n"
            );
        }
    }
}

/// The SSE response for tenant `tenant_id`'s inbox changes after feed row `after`: the
/// stored changes, then live ones as they commit, activity lines at most once a second,
/// heartbeats; until the client goes, its access ends or the server stops.
pub fn inbox_stream(
    store: Arc<dyn Store>,
    live: Live,
    tenant_id: String,
    after: u64,
    access_ends: impl std::future::Future<Output = ()> + Send + 'static,
    permit: StreamPermit,
) -> axum::response::Response {
    let (subscribing, releasing, tenant) = (live.clone(), live.clone(), tenant_id.clone());
    serve(
        live,
        "inbox stream",
        &tenant_id.clone(),
        access_ends,
        permit,
        move |tx| async move {
            let mut receiver = subscribing.subscribe_tenant(&tenant_id);
            pump(&*store, &subscribing, &mut receiver, &tenant_id, after, &tx).await
        },
        move || releasing.release_tenant(&tenant),
    )
}

/// Sends every feed row after `*last`, each subject once per page as it now stands, in
/// chunks of about [`CHUNK`] bytes; false once the client is gone.
async fn send_changes(
    store: &dyn Store,
    live: &Live,
    tenant_id: &str,
    last: &mut u64,
    (out, tx): (&mut String, &tokio::sync::mpsc::Sender<Bytes>),
) -> Result<bool, StoreError> {
    loop {
        let page = store.feed_after(tenant_id, *last, PAGE).await?;
        let Some(final_entry) = page.last() else {
            return Ok(true);
        };
        *last = final_entry.id;
        let mut reader = InboxReader::new(store, live, tenant_id);
        for (index, entry) in page.iter().enumerate() {
            let repeated_later = page[index + 1..]
                .iter()
                .any(|later| later.subject == entry.subject && later.key == entry.key);
            if !repeated_later {
                push_frame(out, Some(entry.id), &reader.change(entry).await?);
                if out.len() >= CHUNK && !flush(out, tx).await {
                    return Ok(false);
                }
            }
        }
        if page.len() < PAGE as usize {
            return Ok(true);
        }
    }
}

async fn pump(
    store: &dyn Store,
    live: &Live,
    receiver: &mut broadcast::Receiver<TenantSignal>,
    tenant_id: &str,
    after: u64,
    tx: &tokio::sync::mpsc::Sender<Bytes>,
) -> Result<(), StoreError> {
    let mut out = String::new();
    let mut last = after;
    // A position beyond the feed (a store replaced under the page): the page reloads.
    let head = store.feed_head(tenant_id).await?;
    if after > head {
        out.push_str("event: reset\ndata: the inbox moved on; read it again\n\n");
        last = head;
    }
    if !send_changes(store, live, tenant_id, &mut last, (&mut out, tx)).await?
        || !flush(&mut out, tx).await
    {
        return Ok(());
    }
    let mut activity: HashMap<String, Activity> = HashMap::new();
    let mut next_activity = Instant::now();
    let mut heartbeat = Instant::now() + HEARTBEAT;
    loop {
        let wake = if activity.is_empty() {
            heartbeat
        } else {
            heartbeat.min(next_activity)
        };
        let signal = tokio::select! {
            signal = receiver.recv() => Some(signal),
            () = tokio::time::sleep_until(wake) => None,
        };
        match signal {
            Some(Ok(TenantSignal::Changed)) | Some(Err(broadcast::error::RecvError::Lagged(_))) => {
                let client_reads =
                    send_changes(store, live, tenant_id, &mut last, (&mut out, tx)).await?;
                if !client_reads {
                    return Ok(());
                }
            }
            Some(Ok(TenantSignal::Activity {
                run_id,
                activity: line,
            })) => {
                activity.insert(run_id, line);
            }
            Some(Err(broadcast::error::RecvError::Closed)) => return Ok(()),
            // Quiet for a heartbeat: read the feed anyway, for what another process
            // committed (its jobs, its fires) without telling this one.
            None => {
                if Instant::now() >= heartbeat
                    && !send_changes(store, live, tenant_id, &mut last, (&mut out, tx)).await?
                {
                    return Ok(());
                }
            }
        }
        let now = Instant::now();
        if !activity.is_empty() && now >= next_activity {
            for (run_id, line) in activity.drain() {
                push_frame(
                    &mut out,
                    None,
                    &InboxChange::Activity {
                        run_id,
                        activity: line,
                    },
                );
            }
            next_activity = now + ACTIVITY_EVERY;
        }
        if out.is_empty() && now >= heartbeat {
            out.push_str(": heartbeat\n\n");
        }
        if !out.is_empty() {
            heartbeat = now + HEARTBEAT;
        }
        if !flush(&mut out, tx).await {
            return Ok(());
        }
    }
}
