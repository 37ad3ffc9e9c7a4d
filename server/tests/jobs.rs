//! The job engine on both stores: each job claimed once among racing workers, leases
//! that run out and are taken over (the late worker fenced off), retries that back off,
//! cancel reaching waiting and running jobs, idempotent adds, bulk retry by filter.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use app::model::jobs::{Job, JobFilter, JobState};
use serde_json::{Value, json};
use server::clock::now_ms;
use server::jobs::{Engine, EngineConfig, JobError, JobKind, Work};
use server::store::Store;
use server::store::jobs::{Finish, Lease, NewJob, Selection};

fn job(id: &str, kind: &str, run_at_ms: i64) -> NewJob {
    NewJob {
        id: id.to_owned(),
        tenant_id: "default".to_owned(),
        kind: kind.to_owned(),
        payload: json!({"n": id}),
        run_at_ms,
        max_attempts: 3,
        idempotency_key: None,
        created_by: "system".to_owned(),
        created_at_ms: run_at_ms,
        agent: None,
        project_id: None,
    }
}

async fn state(store: &dyn Store, id: &str) -> Job {
    store.job_detail("default", id).await.unwrap().unwrap().job
}

#[tokio::test]
async fn every_job_is_claimed_once_among_racing_workers() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        for n in 0..120 {
            store
                .enqueue_job(&job(&format!("j{n:03}"), "k", 1), 1)
                .await
                .unwrap();
        }
        let mut claimers = Vec::new();
        for worker in 0..6 {
            let store = store.clone();
            claimers.push(tokio::spawn(async move {
                let mut taken = Vec::new();
                loop {
                    let claimed = store
                        .claim_jobs(&format!("w{worker}"), 10, 60_000, 4)
                        .await
                        .unwrap();
                    if claimed.is_empty() {
                        return taken;
                    }
                    taken.extend(claimed.into_iter().map(|c| c.job.id));
                }
            }));
        }
        let mut all = Vec::new();
        for claimer in claimers {
            all.extend(claimer.await.unwrap());
        }
        let unique: HashSet<&String> = all.iter().collect();
        assert_eq!(all.len(), 120, "{}: {} claims", backend.name, all.len());
        assert_eq!(unique.len(), 120, "{}", backend.name);
    }
}

#[tokio::test]
async fn a_job_is_not_claimed_before_its_time() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        let added = store
            .enqueue_job(&job("later", "k", 5_000), 1_000)
            .await
            .unwrap();
        assert_eq!(added.job.state, JobState::Scheduled);
        assert!(
            store
                .claim_jobs("w", 4_999, 1_000, 10)
                .await
                .unwrap()
                .is_empty()
        );
        assert_eq!(store.next_job_due().await.unwrap(), Some(5_000));
        let claimed = store.claim_jobs("w", 5_000, 1_000, 10).await.unwrap();
        assert_eq!(claimed.len(), 1, "{}", backend.name);
        assert_eq!(claimed[0].job.attempts, 1);
        assert_eq!(claimed[0].tenant_id, "default");
    }
}

#[tokio::test]
async fn an_idempotency_key_adds_a_job_once_per_tenant() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        store.create_tenant("acme", 1).await.unwrap();
        let mut first = job("a", "k", 1);
        first.idempotency_key = Some("fire:s1:100".into());
        let mut again = job("b", "k", 1);
        again.idempotency_key = Some("fire:s1:100".into());
        let mut elsewhere = job("c", "k", 1);
        elsewhere.tenant_id = "acme".into();
        elsewhere.idempotency_key = Some("fire:s1:100".into());
        assert!(store.enqueue_job(&first, 1).await.unwrap().created);
        let repeated = store.enqueue_job(&again, 1).await.unwrap();
        assert!(!repeated.created, "{}", backend.name);
        assert_eq!(repeated.job.id, "a");
        assert!(store.enqueue_job(&elsewhere, 1).await.unwrap().created);
        let listed = store
            .list_jobs("default", &JobFilter::default(), 0, 50)
            .await
            .unwrap();
        assert_eq!(listed.jobs.len(), 1);
    }
}

#[tokio::test]
async fn a_lapsed_lease_is_taken_again_and_the_late_worker_cannot_finish() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        store.enqueue_job(&job("j", "k", 1), 1).await.unwrap();
        let first = store.claim_jobs("slow", 10, 1_000, 1).await.unwrap();
        assert_eq!(first[0].job.attempts, 1);
        // Within the lease nobody else takes it; a renewal holds it longer.
        assert!(
            store
                .claim_jobs("fast", 900, 1_000, 1)
                .await
                .unwrap()
                .is_empty()
        );
        let held = store.renew_leases("slow", 900, 1_000).await.unwrap();
        assert_eq!(held.len(), 1);
        assert!(
            store
                .claim_jobs("fast", 1_500, 1_000, 1)
                .await
                .unwrap()
                .is_empty()
        );
        // The slow worker goes quiet; the lease runs out and another worker takes it.
        let second = store.claim_jobs("fast", 2_000, 1_000, 1).await.unwrap();
        assert_eq!(second.len(), 1, "{}", backend.name);
        assert_eq!(second[0].job.attempts, 2);
        let late = Lease {
            job_id: "j",
            worker: "slow",
            attempt: 1,
        };
        assert!(
            !store
                .finish_job(late, &Finish::Completed(json!(1)), 2_100)
                .await
                .unwrap()
        );
        assert!(
            store
                .renew_leases("slow", 2_100, 1_000)
                .await
                .unwrap()
                .is_empty()
        );
        let now = Lease {
            job_id: "j",
            worker: "fast",
            attempt: 2,
        };
        assert!(
            store
                .finish_job(now, &Finish::Completed(json!("done")), 2_200)
                .await
                .unwrap()
        );
        let detail = store.job_detail("default", "j").await.unwrap().unwrap();
        assert_eq!(detail.job.state, JobState::Completed);
        assert_eq!(detail.job.result, Some(json!("done")));
        let outcomes: Vec<_> = detail.attempts.iter().map(|a| a.outcome.clone()).collect();
        assert_eq!(
            outcomes,
            [Some("lease_lost".into()), Some("completed".into())],
            "{}",
            backend.name
        );
    }
}

#[tokio::test]
async fn a_failed_attempt_waits_its_backoff_and_the_last_one_fails_for_good() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        let mut two = job("j", "k", 1);
        two.max_attempts = 2;
        store.enqueue_job(&two, 1).await.unwrap();
        store.claim_jobs("w", 10, 1_000, 1).await.unwrap();
        let lease = Lease {
            job_id: "j",
            worker: "w",
            attempt: 1,
        };
        let failed = Finish::Failed {
            error: "upstream 503".into(),
            retry_at_ms: Some(5_000),
        };
        assert!(store.finish_job(lease, &failed, 20).await.unwrap());
        let waiting = state(&*store, "j").await;
        assert_eq!(waiting.state, JobState::Retryable, "{}", backend.name);
        assert_eq!(waiting.run_at_ms, 5_000);
        assert!(
            store
                .claim_jobs("w", 4_999, 1_000, 1)
                .await
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            store.claim_jobs("w", 5_000, 1_000, 1).await.unwrap().len(),
            1
        );
        let lease = Lease {
            job_id: "j",
            worker: "w",
            attempt: 2,
        };
        assert!(store.finish_job(lease, &failed, 5_100).await.unwrap());
        let last = state(&*store, "j").await;
        assert_eq!(last.state, JobState::Failed);
        assert_eq!(last.error.as_deref(), Some("upstream 503"));
        assert_eq!(last.finished_at_ms, Some(5_100));
    }
}

#[tokio::test]
async fn a_job_that_used_every_attempt_and_lost_its_worker_fails_in_words() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        let mut once = job("j", "k", 1);
        once.max_attempts = 1;
        store.enqueue_job(&once, 1).await.unwrap();
        store.claim_jobs("gone", 10, 1_000, 1).await.unwrap();
        assert!(
            store
                .claim_jobs("w", 5_000, 1_000, 1)
                .await
                .unwrap()
                .is_empty()
        );
        let detail = store.job_detail("default", "j").await.unwrap().unwrap();
        assert_eq!(detail.job.state, JobState::Failed, "{}", backend.name);
        assert!(detail.job.error.unwrap().contains("stopped answering"));
        assert_eq!(detail.attempts[0].outcome.as_deref(), Some("lease_lost"));
    }
}

#[tokio::test]
async fn cancel_ends_waiting_jobs_and_asks_running_ones_to_stop() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        store
            .enqueue_job(&job("waiting", "k", 9_000), 1)
            .await
            .unwrap();
        store.enqueue_job(&job("running", "k", 1), 1).await.unwrap();
        store.claim_jobs("w", 10, 60_000, 5).await.unwrap();
        let all = Selection::Matching(JobFilter::default());
        assert_eq!(store.cancel_jobs("default", &all, 20).await.unwrap(), 2);
        assert_eq!(state(&*store, "waiting").await.state, JobState::Cancelled);
        let running = state(&*store, "running").await;
        assert_eq!(running.state, JobState::Running, "{}", backend.name);
        assert_eq!(running.cancel_requested_at_ms, Some(20));
        let held = store.renew_leases("w", 30, 60_000).await.unwrap();
        assert!(held[0].cancel_requested);
        // Another tenant's cancel reaches nothing here.
        store.create_tenant("acme", 1).await.unwrap();
        let one = Selection::One("running".into());
        assert_eq!(store.cancel_jobs("acme", &one, 40).await.unwrap(), 0);
    }
}

#[tokio::test]
async fn bulk_retry_makes_failed_jobs_matching_the_filter_available_again() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        for (id, kind, agent) in [
            ("a", "curator.pass", None),
            ("b", "curator.pass", Some("scout")),
            ("c", "schedule.fire", Some("demo")),
        ] {
            let mut once = job(id, kind, 1);
            once.max_attempts = 1;
            once.agent = agent.map(str::to_owned);
            once.project_id = agent.map(|_| "prj-ops".to_owned());
            store.enqueue_job(&once, 1).await.unwrap();
        }
        for claimed in store.claim_jobs("w", 10, 1_000, 5).await.unwrap() {
            let lease = Lease {
                job_id: &claimed.job.id,
                worker: "w",
                attempt: 1,
            };
            let failed = Finish::Failed {
                error: "model quota".into(),
                retry_at_ms: None,
            };
            store.finish_job(lease, &failed, 20).await.unwrap();
        }
        let filter = JobFilter {
            state: Some(JobState::Failed),
            kind: Some("curator.pass".into()),
            ..JobFilter::default()
        };
        let listed = store.list_jobs("default", &filter, 0, 50).await.unwrap();
        assert_eq!(listed.jobs.len(), 2, "{}", backend.name);
        assert_eq!(listed.counts.failed, 2);
        let retried = store
            .retry_jobs("default", &Selection::Matching(filter), 30)
            .await
            .unwrap();
        assert_eq!(retried, 2);
        let again = state(&*store, "a").await;
        assert_eq!(again.state, JobState::Available);
        assert_eq!(again.max_attempts, 2, "one more attempt than it had used");
        assert_eq!(state(&*store, "c").await.state, JobState::Failed);
        let words = JobFilter {
            text: Some("QUOTA schedule".into()),
            ..JobFilter::default()
        };
        let found = store.list_jobs("default", &words, 0, 50).await.unwrap();
        assert_eq!(
            found.jobs.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(),
            ["c"]
        );
        let by_agent = JobFilter {
            agent: Some("scout".into()),
            project_id: Some("prj-ops".into()),
            ..JobFilter::default()
        };
        let found = store.list_jobs("default", &by_agent, 0, 50).await.unwrap();
        assert_eq!(
            found.jobs.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(),
            ["b"]
        );
        assert_eq!(found.jobs[0].agent.as_deref(), Some("scout"));
    }
}

/// A kind that fails its first `fail_first` attempts, then completes with its attempt.
struct Flaky {
    fail_first: u32,
    calls: AtomicU32,
}

#[async_trait::async_trait]
impl JobKind for Flaky {
    fn kind(&self) -> &'static str {
        "test.flaky"
    }

    async fn run(&self, _tenant: &str, _job: &Job, work: &Work) -> Result<Value, JobError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        work.log("info", &format!("attempt {}", work.attempt()))
            .await;
        if work.attempt() <= self.fail_first {
            return Err(JobError::Retry("not yet".into()));
        }
        work.progress(1, Some(1), "done").await;
        Ok(json!({"attempt": work.attempt()}))
    }
}

/// A kind that works until it is cancelled.
struct Patient;

#[async_trait::async_trait]
impl JobKind for Patient {
    fn kind(&self) -> &'static str {
        "test.patient"
    }

    async fn run(&self, _tenant: &str, _job: &Job, work: &Work) -> Result<Value, JobError> {
        work.progress(0, None, "waiting to be cancelled").await;
        work.cancelled().cancelled().await;
        Err(JobError::Cancelled)
    }
}

fn quick() -> EngineConfig {
    EngineConfig {
        workers: 4,
        lease: Duration::from_millis(600),
        poll: Duration::from_millis(200),
        cancel_grace: Duration::from_secs(2),
    }
}

async fn until(store: &dyn Store, id: &str, wanted: JobState) -> Job {
    for _ in 0..400 {
        let job = state(store, id).await;
        if job.state == wanted {
            return job;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "job {id} never became {wanted:?}: {:?}",
        state(store, id).await
    );
}

#[tokio::test]
async fn the_engine_runs_a_job_retries_it_and_reaches_a_cancel() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        let flaky = Arc::new(Flaky {
            fail_first: 1,
            calls: AtomicU32::new(0),
        });
        let engine = Arc::new(Engine::new(
            store.clone(),
            vec![flaky.clone(), Arc::new(Patient)],
            quick(),
        ));
        engine.start();
        let mut flaky_job = job("flaky", "test.flaky", now_ms());
        flaky_job.max_attempts = 3;
        store.enqueue_job(&flaky_job, now_ms()).await.unwrap();
        engine.wake();
        let retrying = until(&*store, "flaky", JobState::Retryable).await;
        assert_eq!(retrying.error.as_deref(), Some("not yet"));
        // The first retry waits about five seconds.
        let wait = retrying.run_at_ms - now_ms();
        assert!(
            (2_000..7_000).contains(&wait),
            "{}: waits {wait} ms",
            backend.name
        );
        // An operator's retry reaches only failed and cancelled jobs: this one is left to
        // its backoff, after which the engine takes it again by itself.
        let retried = store
            .retry_jobs("default", &Selection::One("flaky".into()), now_ms())
            .await
            .unwrap();
        assert_eq!(retried, 0);
        let done = until(&*store, "flaky", JobState::Completed).await;
        assert_eq!(done.result, Some(json!({"attempt": 2})));
        let detail = store.job_detail("default", "flaky").await.unwrap().unwrap();
        assert_eq!(detail.log.len(), 2, "{}", backend.name);

        store
            .enqueue_job(&job("patient", "test.patient", now_ms()), now_ms())
            .await
            .unwrap();
        engine.wake();
        until(&*store, "patient", JobState::Running).await;
        store
            .cancel_jobs("default", &Selection::One("patient".into()), now_ms())
            .await
            .unwrap();
        engine.check_leases();
        let cancelled = until(&*store, "patient", JobState::Cancelled).await;
        assert_eq!(cancelled.error.as_deref(), Some("cancelled while it ran"));
        assert_eq!(engine.busy(), 0);
        engine.shutdown();
    }
}

#[tokio::test]
async fn a_job_left_by_a_stopped_engine_is_taken_by_another() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        let first = Arc::new(Engine::new(store.clone(), vec![Arc::new(Patient)], quick()));
        first.start();
        store
            .enqueue_job(&job("left", "test.patient", now_ms()), now_ms())
            .await
            .unwrap();
        first.wake();
        until(&*store, "left", JobState::Running).await;
        first.shutdown();
        let second = Arc::new(Engine::new(store.clone(), vec![Arc::new(Patient)], quick()));
        second.start();
        let mut taken = state(&*store, "left").await;
        for _ in 0..100 {
            if taken.attempts == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            taken = state(&*store, "left").await;
        }
        assert_eq!(taken.attempts, 2, "{}", backend.name);
        assert_eq!(taken.lease_owner.as_deref(), Some(second.worker()));
        let detail = store.job_detail("default", "left").await.unwrap().unwrap();
        assert_eq!(detail.attempts[0].outcome.as_deref(), Some("lease_lost"));
        assert_eq!(detail.attempts[0].worker, first.worker());
        second.shutdown();
    }
}
