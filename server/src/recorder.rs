//! Durable first, live second: every writer of run events goes through here. One writer
//! task commits whatever is queued in a single transaction (group commit), so many runs
//! streaming at once cost one commit per batch, not one per event.

use std::sync::Arc;

use app::protocol::channel::{EventDraft, RunEvent};
use tokio::sync::{mpsc, oneshot};

use crate::clock::now_ms;
use crate::live::Live;
use crate::store::{AppendRequest, Store, StoreError, UpstreamEvent};

/// The most appends one transaction takes.
const MAX_BATCH: usize = 256;

struct Job {
    /// None: a mark answered once every job queued before it is stored.
    request: Option<AppendRequest>,
    reply: oneshot::Sender<Result<(), StoreError>>,
}

#[derive(Clone)]
pub struct Recorder {
    jobs: mpsc::Sender<Job>,
}

impl Recorder {
    pub fn new(store: Arc<dyn Store>, live: Live) -> Self {
        let (jobs, queue) = mpsc::channel(4096);
        tokio::spawn(write_loop(store, live, queue));
        Self { jobs }
    }

    /// Stores drafts (and their raw upstream events) durably, then hands the committed
    /// events to the run's subscribers.
    pub async fn record(
        &self,
        tenant_id: &str,
        run_id: &str,
        upstream: &[UpstreamEvent],
        drafts: Vec<EventDraft>,
    ) -> Result<(), StoreError> {
        if drafts.is_empty() && upstream.is_empty() {
            return Ok(());
        }
        self.queue(Some(AppendRequest {
            tenant_id: tenant_id.to_owned(),
            run_id: run_id.to_owned(),
            upstream: upstream.to_vec(),
            drafts,
        }))
        .await
    }

    /// Returns once everything handed over before this call is stored (or failed).
    pub async fn flushed(&self) -> Result<(), StoreError> {
        self.queue(None).await
    }

    async fn queue(&self, request: Option<AppendRequest>) -> Result<(), StoreError> {
        let (reply, answer) = oneshot::channel();
        let closed = || StoreError::Corrupt("the event writer has stopped".into());
        self.jobs
            .send(Job { request, reply })
            .await
            .map_err(|_| closed())?;
        answer.await.map_err(|_| closed())?
    }
}

async fn write_loop(store: Arc<dyn Store>, live: Live, mut queue: mpsc::Receiver<Job>) {
    while let Some(first) = queue.recv().await {
        let mut jobs = vec![first];
        while jobs.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        // Marks are answered after the batch they came with, so after all before them.
        let (jobs, marks): (Vec<Job>, Vec<Job>) =
            jobs.into_iter().partition(|job| job.request.is_some());
        write(&store, &live, jobs).await;
        for mark in marks {
            let _ = mark.reply.send(Ok(()));
        }
    }
}

/// Stores the appends in one transaction, or one by one when that fails.
async fn write(store: &Arc<dyn Store>, live: &Live, jobs: Vec<Job>) {
    let jobs: Vec<(AppendRequest, oneshot::Sender<Result<(), StoreError>>)> = jobs
        .into_iter()
        .filter_map(|job| Some((job.request?, job.reply)))
        .collect();
    if jobs.len() > 1 {
        let batch = jobs.iter().map(|(request, _)| request.clone()).collect();
        if let Ok(stored) = store.append_batch(batch, now_ms()).await {
            for ((_, reply), events) in jobs.into_iter().zip(stored) {
                publish(live, &events);
                let _ = reply.send(Ok(()));
            }
            return;
        }
        // One bad append (an unknown run, say) must not sink the others.
    }
    for (request, reply) in jobs {
        let result = store
            .append(
                &request.tenant_id,
                &request.run_id,
                &request.upstream,
                request.drafts,
                now_ms(),
            )
            .await
            .map(|events| publish(live, &events));
        let _ = reply.send(result);
    }
}

fn publish(live: &Live, events: &[RunEvent]) {
    live.publish(events);
}
