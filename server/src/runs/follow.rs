//! Following a run to its end from background work (a schedule's fire, a card's attempt):
//! through any asks it waits on and the runs that carry their answers, woken by the
//! tenant's live signal, stopping the run when the job is cancelled — and, where asks are
//! denied, refusing each ask as it opens with the ask's own way to say no.

use std::sync::Arc;
use std::time::Duration;

use app::model::Role;
use app::protocol::receipts::{Receipt, ReceiptEnvelope, ReceiptTime};
use app::protocol::status::RunStatus;
use serde_json::json;

use crate::clock::now_ms;
use crate::jobs::{JobError, Work};
use crate::runs::{Answerer, Runs};
use crate::store::Store;

/// The longest a follower waits for word of its run before it looks anyway: the tenant's
/// live signal wakes it on every change of the run's status or asks.
const FOLLOW_BACKSTOP: Duration = Duration::from_secs(5);

pub struct RunFollower {
    store: Arc<dyn Store>,
    runs: Arc<Runs>,
}

impl RunFollower {
    pub fn new(store: Arc<dyn Store>, runs: Arc<Runs>) -> Self {
        Self { store, runs }
    }

    /// Follows the thread from `run_id` on until its latest run has ended (a run paused
    /// on asks is followed into the run that carries the answers); a cancel stops it.
    /// With `refuse_as`, every ask of those runs is refused in that name as it opens.
    pub async fn follow(
        &self,
        tenant_id: &str,
        thread_id: &str,
        run_id: &str,
        refuse_as: Option<&str>,
        work: &Work,
    ) -> Result<RunStatus, JobError> {
        let live = self.runs.live();
        let mut heard = live.subscribe_tenant(tenant_id);
        let followed = self
            .follow_heard(tenant_id, (thread_id, run_id), refuse_as, work, &mut heard)
            .await;
        drop(heard);
        live.release_tenant(tenant_id);
        followed
    }

    async fn follow_heard(
        &self,
        tenant_id: &str,
        (thread_id, run_id): (&str, &str),
        refuse_as: Option<&str>,
        work: &Work,
        heard: &mut tokio::sync::broadcast::Receiver<crate::live::TenantSignal>,
    ) -> Result<RunStatus, JobError> {
        loop {
            let runs = self
                .store
                .list_runs(tenant_id, thread_id)
                .await
                .map_err(JobError::retry)?;
            let from = runs.iter().position(|run| run.id == run_id);
            if let (Some(name), Some(at)) = (refuse_as, from) {
                let followed: Vec<&str> = runs[at..].iter().map(|run| run.id.as_str()).collect();
                self.refuse_asks(tenant_id, &followed, name, work).await?;
            }
            let latest = from
                .and_then(|at| runs[at..].last())
                .map(|run| (run.id.clone(), run.status));
            match latest {
                None => return Err(JobError::Fatal(format!("run {run_id} is gone"))),
                Some((_, status)) if status.is_terminal() && status != RunStatus::Interrupted => {
                    return Ok(status);
                }
                Some((latest, _)) => {
                    tokio::select! {
                        _ = heard.recv() => {}
                        () = tokio::time::sleep(FOLLOW_BACKSTOP) => {}
                        () = work.cancelled().cancelled() => {
                            if let Err(error) = self.runs.cancel(tenant_id, &latest).await {
                                work.log("warn", &format!("the run was not stopped: {error}")).await;
                            }
                            return Err(JobError::Cancelled);
                        }
                    }
                }
            }
        }
    }

    /// Refuses every pending ask of `runs` in `name`, with the ask's own
    /// action that says no; an ask with none waits in the inbox, and the log says why.
    async fn refuse_asks(
        &self,
        tenant_id: &str,
        runs: &[&str],
        name: &str,
        work: &Work,
    ) -> Result<(), JobError> {
        let pending = self
            .store
            .list_asks(tenant_id, Some("pending"))
            .await
            .map_err(JobError::retry)?;
        for record in pending
            .iter()
            .filter(|record| runs.contains(&record.run_id.as_str()))
        {
            let Some(action) = record.ask.refusal() else {
                work.log(
                    "warn",
                    &format!(
                        "ask {:?} has no way to say no: it waits in the inbox",
                        record.ask.title
                    ),
                )
                .await;
                continue;
            };
            let envelope = ReceiptEnvelope {
                channel: "tool-result".to_owned(),
                receipt: Receipt {
                    tool_call_id: record.ask.id.clone(),
                    component: record.ask.component.as_str().to_owned(),
                    action: action.to_owned(),
                    data: json!({}),
                    ts: Some(ReceiptTime(now_ms())),
                },
            };
            let by = Answerer {
                name: name.to_owned(),
                role: Role::Operator,
            };
            match self
                .runs
                .answer(tenant_id, &record.key, &by, &envelope)
                .await
            {
                Ok(_) => {
                    work.log(
                        "info",
                        &format!(
                            "refused ask {:?} ({action}): asks are denied here",
                            record.ask.title
                        ),
                    )
                    .await;
                }
                Err(error) => {
                    work.log(
                        "warn",
                        &format!("ask {:?} was not refused: {error}", record.ask.title),
                    )
                    .await;
                }
            }
        }
        Ok(())
    }
}
