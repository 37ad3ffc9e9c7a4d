//! The engine of one process: a scheduler that claims due jobs into a bounded pool of
//! workers, and one heartbeat that renews every lease the process holds and reaches a
//! cancelled job. Both sleep until the store wakes them, the next job is due, or the
//! backstop poll comes round; nothing sleeps per job.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::model::jobs::Job;
use serde_json::Value;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::backoff;
use super::kind::{JobError, JobKind, Work};
use crate::clock::now_ms;
use crate::store::jobs::{Claimed, Finish, Lease};
use crate::store::{Store, StoreError};

/// How the engine paces itself; shortened in tests by configuration, never replaced.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Jobs this process runs at once.
    pub workers: usize,
    /// How long a claim holds without a heartbeat; a third of it between heartbeats.
    pub lease: Duration,
    /// The longest the scheduler sleeps without being woken (moved by up to a fifth).
    pub poll: Duration,
    /// How long a cancelled job's handler has to stop before it is dropped.
    pub cancel_grace: Duration,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            workers: 8,
            lease: Duration::from_secs(60),
            poll: Duration::from_secs(5),
            cancel_grace: Duration::from_secs(10),
        }
    }
}

struct Running {
    attempt: u32,
    /// Tripped when an operator cancels the job.
    cancel: CancellationToken,
    /// Tripped when this worker no longer holds the job (its lease was taken over).
    lost: CancellationToken,
}

/// Something that makes jobs on a clock (schedules): ticked by the scheduler before each
/// claim, and asked when it is next due so the scheduler wakes for it.
#[async_trait::async_trait]
pub trait Source: Send + Sync + 'static {
    /// Adds the jobs due at `now_ms`.
    async fn tick(&self, now_ms: i64);
    /// When it next has something due.
    async fn next_due(&self) -> Option<i64>;
}

pub struct Engine {
    store: Arc<dyn Store>,
    kinds: HashMap<&'static str, Arc<dyn JobKind>>,
    sources: Mutex<Vec<Arc<dyn Source>>>,
    worker: String,
    config: EngineConfig,
    /// Rung when jobs may have become due (an enqueue, a retry, a finished worker).
    wake: Notify,
    /// Rung when a lease should be checked now (a cancel).
    beat: Notify,
    running: Mutex<HashMap<String, Running>>,
    stop: CancellationToken,
    /// Told the tenant whose jobs changed, so its open pages follow.
    observer: Mutex<Option<Observer>>,
}

/// What the engine tells when a tenant's background work changed (the tenant's live
/// stream, in the server).
pub type Observer = Arc<dyn Fn(&str) + Send + Sync>;

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Engine {
    pub fn new(store: Arc<dyn Store>, kinds: Vec<Arc<dyn JobKind>>, config: EngineConfig) -> Self {
        let worker = format!(
            "{}:{}:{}",
            hostname(),
            std::process::id(),
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        Self {
            store,
            kinds: kinds.into_iter().map(|kind| (kind.kind(), kind)).collect(),
            sources: Mutex::new(Vec::new()),
            worker,
            config,
            wake: Notify::new(),
            beat: Notify::new(),
            running: Mutex::new(HashMap::new()),
            stop: CancellationToken::new(),
            observer: Mutex::new(None),
        }
    }

    /// Sets who is told when a tenant's jobs or schedules change.
    pub fn observe(&self, observer: Observer) {
        *lock(&self.observer) = Some(observer);
    }

    /// Tells the observer that a tenant's background work changed (after the commit).
    pub fn changed(&self, tenant_id: &str) {
        let observer = lock(&self.observer).clone();
        if let Some(observer) = observer {
            observer(tenant_id);
        }
    }

    /// Adds a source of jobs the scheduler ticks (before [`Engine::start`]).
    pub fn add_source(&self, source: Arc<dyn Source>) {
        lock(&self.sources).push(source);
    }

    fn sources(&self) -> Vec<Arc<dyn Source>> {
        lock(&self.sources).clone()
    }

    /// This process's worker name, as leases and attempts record it.
    pub fn worker(&self) -> &str {
        &self.worker
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Says jobs may have become due (after a commit that added or retried some).
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// Says a running job may have been cancelled: the heartbeat looks now.
    pub fn check_leases(&self) {
        self.beat.notify_one();
    }

    /// How many jobs this process is running.
    pub fn busy(&self) -> usize {
        lock(&self.running).len()
    }

    /// Starts the scheduler and the heartbeat; they stop with [`Engine::shutdown`].
    pub fn start(self: &Arc<Self>) {
        let scheduler = self.clone();
        tokio::spawn(async move { scheduler.schedule().await });
        let heartbeat = self.clone();
        tokio::spawn(async move { heartbeat.heartbeat().await });
    }

    /// Resolves once the engine is shut down.
    pub async fn stopped(&self) {
        self.stop.cancelled().await;
    }

    /// Stops claiming and drops the running handlers without finishing them: their leases
    /// run out and any process takes the jobs again.
    pub fn shutdown(&self) {
        self.stop.cancel();
    }

    async fn schedule(self: Arc<Self>) {
        loop {
            if self.stop.is_cancelled() {
                return;
            }
            for source in self.sources() {
                source.tick(now_ms()).await;
            }
            let free = self.config.workers.saturating_sub(self.busy());
            let mut full = false;
            if free > 0 {
                match self.claim(free).await {
                    Ok(claimed) => {
                        full = claimed == free;
                    }
                    Err(error) => tracing::warn!(%error, "the job scheduler could not claim"),
                }
            }
            // With every worker busy, more may be due: claim again once one is free (a
            // finishing worker wakes the scheduler), and keep ticking the sources meanwhile.
            let pause = if full {
                self.config.poll
            } else {
                self.pause().await
            };
            tokio::select! {
                () = self.wake.notified() => {}
                () = tokio::time::sleep(pause) => {}
                () = self.stop.cancelled() => return,
            }
        }
    }

    /// Until the next job is due or a lease runs out, at most the poll (jittered).
    async fn pause(&self) -> Duration {
        let poll = self.config.poll.mul_f64(0.8 + fastrand::f64() * 0.4);
        let mut due = match self.store.next_job_due().await {
            Ok(due) => due,
            Err(error) => {
                tracing::warn!(%error, "the job scheduler could not read the next due job");
                None
            }
        };
        for source in self.sources() {
            if let Some(next) = source.next_due().await {
                due = Some(due.map_or(next, |due| due.min(next)));
            }
        }
        match due {
            Some(due) => {
                let wait = u64::try_from(due.saturating_sub(now_ms())).unwrap_or(0);
                poll.min(Duration::from_millis(wait.saturating_add(1)))
            }
            None => poll,
        }
    }

    async fn claim(self: &Arc<Self>, free: usize) -> Result<usize, StoreError> {
        let lease = i64::try_from(self.config.lease.as_millis()).unwrap_or(i64::MAX);
        let claimed = self
            .store
            .claim_jobs(
                &self.worker,
                now_ms(),
                lease,
                u32::try_from(free).unwrap_or(u32::MAX),
            )
            .await?;
        let count = claimed.len();
        let mut tenants: Vec<&str> = claimed.iter().map(|job| job.tenant_id.as_str()).collect();
        tenants.sort_unstable();
        tenants.dedup();
        for tenant_id in tenants {
            self.changed(tenant_id);
        }
        for claimed in claimed {
            self.clone().launch(claimed);
        }
        Ok(count)
    }

    fn launch(self: Arc<Self>, Claimed { tenant_id, job }: Claimed) {
        let cancel = CancellationToken::new();
        let lost = CancellationToken::new();
        lock(&self.running).insert(
            job.id.clone(),
            Running {
                attempt: job.attempts,
                cancel: cancel.clone(),
                lost: lost.clone(),
            },
        );
        if job.cancel_requested_at_ms.is_some() {
            cancel.cancel();
        }
        tokio::spawn(async move {
            let work = Work {
                engine: self.clone(),
                tenant_id: tenant_id.clone(),
                job_id: job.id.clone(),
                attempt: job.attempts,
                cancel,
                progressed: Mutex::new(None),
            };
            let outcome = tokio::select! {
                outcome = self.attempt(&tenant_id, &job, &work) => Some(outcome),
                () = lost.cancelled() => None,
                () = self.stop.cancelled() => None,
            };
            if let Some(outcome) = outcome {
                self.finish(&job, outcome).await;
                self.changed(&tenant_id);
            } else {
                tracing::info!(job = %job.id, "a job was left to be taken again");
            }
            lock(&self.running).remove(&job.id);
            self.wake.notify_one();
        });
    }

    /// Runs one attempt in a task of its own (a panic fails the attempt, not the
    /// engine), giving a cancelled handler its grace to stop.
    async fn attempt(&self, tenant_id: &str, job: &Job, work: &Work) -> Result<Value, JobError> {
        let Some(kind) = self.kinds.get(job.kind.as_str()).cloned() else {
            return Err(JobError::Retry(format!(
                "no worker of this process knows jobs of kind {:?}",
                job.kind
            )));
        };
        let cancel = work.cancel.clone();
        let mut handle = {
            let (tenant_id, job) = (tenant_id.to_owned(), job.clone());
            let work = Work {
                engine: work.engine.clone(),
                tenant_id: work.tenant_id.clone(),
                job_id: work.job_id.clone(),
                attempt: work.attempt,
                cancel: work.cancel.clone(),
                progressed: Mutex::new(None),
            };
            AbortOnDrop(tokio::spawn(async move {
                kind.run(&tenant_id, &job, &work).await
            }))
        };
        let joined = tokio::select! {
            joined = &mut handle.0 => joined,
            // The handler saw the token too: it has its grace to stop on its own.
            () = cancel.cancelled() => {
                match tokio::time::timeout(self.config.cancel_grace, &mut handle.0).await {
                    Ok(joined) => joined,
                    Err(_) => return Err(JobError::Cancelled),
                }
            }
        };
        match joined {
            Ok(outcome) => outcome,
            Err(error) if error.is_panic() => {
                Err(JobError::Retry("the job's handler panicked".to_owned()))
            }
            Err(_) => Err(JobError::Cancelled),
        }
    }

    async fn finish(&self, job: &Job, outcome: Result<Value, JobError>) {
        let now = now_ms();
        let finish = match outcome {
            Ok(result) => Finish::Completed(result),
            Err(JobError::Cancelled) => Finish::Cancelled("cancelled while it ran".to_owned()),
            Err(JobError::Retry(error)) => Finish::Failed {
                error,
                retry_at_ms: Some(
                    now.saturating_add(
                        i64::try_from(backoff::random_after(job.attempts).as_millis())
                            .unwrap_or(i64::MAX),
                    ),
                ),
            },
            Err(JobError::Fatal(error)) => Finish::Failed {
                error,
                retry_at_ms: None,
            },
        };
        let lease = Lease {
            job_id: &job.id,
            worker: &self.worker,
            attempt: job.attempts,
        };
        match self.store.finish_job(lease, &finish, now).await {
            Ok(true) => {}
            Ok(false) => {
                tracing::warn!(job = %job.id, "a job finished after its lease was taken over")
            }
            Err(error) => tracing::error!(%error, job = %job.id, "a job's end was not recorded"),
        }
    }

    async fn heartbeat(self: Arc<Self>) {
        let every = self.config.lease / 3;
        loop {
            tokio::select! {
                () = tokio::time::sleep(every) => {}
                () = self.beat.notified() => {}
                () = self.stop.cancelled() => return,
            }
            if lock(&self.running).is_empty() {
                continue;
            }
            let lease = i64::try_from(self.config.lease.as_millis()).unwrap_or(i64::MAX);
            let held = match self.store.renew_leases(&self.worker, now_ms(), lease).await {
                Ok(held) => held,
                Err(error) => {
                    tracing::warn!(%error, "the job heartbeat could not renew its leases");
                    continue;
                }
            };
            let held: HashMap<String, (u32, bool)> = held
                .into_iter()
                .map(|held| (held.job_id, (held.attempt, held.cancel_requested)))
                .collect();
            for (id, running) in lock(&self.running).iter() {
                match held.get(id) {
                    Some(&(attempt, cancel)) if attempt == running.attempt => {
                        if cancel {
                            running.cancel.cancel();
                        }
                    }
                    _ => running.lost.cancel(),
                }
            }
        }
    }
}

/// A handler's task, stopped when the attempt is dropped (its lease lost, the process
/// stopping) or given up on.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "host".to_owned())
}
