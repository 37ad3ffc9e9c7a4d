//! Runs: the console's side of every run whatever the agent — start one for a message,
//! take receipts (the first valid one per ask wins), deliver answers, resume paused runs,
//! cancel, and recover after a restart. What differs per agent is its [`Connector`].

mod cancel;
mod claims;
pub mod context;
mod deadlines;
mod delivery;
pub mod follow;
mod receipts;
mod recovery;
mod resume;
mod stalled;
mod start;
mod surface;
pub mod tools;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use app::error::ApiError;
use app::protocol::ask::AskState;
use app::protocol::channel::{EventBody, EventDraft, Level};
use app::protocol::receipts::ValidatedAnswer;

pub use receipts::{Answerer, ReceiptOutcome};
pub use resume::resume_run_id;

use crate::clock::now_ms;
pub use crate::connectors::RunOptions;
use crate::connectors::{Connector, Connectors, Host};
use crate::live::Live;
use crate::store::{AskRecord, RunRecord, Store};
use crate::vault::Vault;

pub struct Runs {
    host: Arc<Host>,
    connectors: Connectors,
    /// Answers waiting for the rest of their run's asks before one resume carries them.
    /// Passwords and secrets exist only here (and in the request to the agent), never in
    /// the store.
    held: Mutex<HashMap<String, ValidatedAnswer>>,
    /// Where a password or secret answered "from the passvault" is opened.
    vault: Arc<Vault>,
    /// What runs the workspace tools agents call (the workspace, set at start).
    tools: OnceLock<Arc<dyn tools::ToolRunner>>,
    /// Threads whose next run is being started: a second start is refused until the
    /// first run exists (and then sees it running).
    starting: claims::Claims,
    /// Runs whose asks are being answered, one answer at a time per run: an answer is
    /// closed and held before another can close, so the resume the last one starts finds
    /// every answer (a password among them) still here.
    answering: claims::Turns,
    /// Paused runs with every answer in whose follow-up failed to start, and when each
    /// is tried again.
    stalled: stalled::Retries,
}

impl Runs {
    pub fn new(host: Arc<Host>, connectors: Connectors, vault: Arc<Vault>) -> Arc<Self> {
        host.use_vault(vault.clone());
        let runs = Arc::new(Self {
            host,
            connectors,
            held: Mutex::new(HashMap::new()),
            vault,
            tools: OnceLock::new(),
            starting: claims::Claims::default(),
            answering: claims::Turns::default(),
            stalled: stalled::Retries::default(),
        });
        // When a run's stream ends, the workspace tools it called that run freely run, and
        // what the agent said becomes something the thread is found by.
        let weak = Arc::downgrade(&runs);
        runs.host
            .on_stream_end(Arc::new(move |tenant_id: String, run_id: String| {
                let Some(runs) = weak.upgrade() else {
                    return;
                };
                tokio::spawn(async move {
                    runs.answer_free_tools(&tenant_id, &run_id).await;
                    runs.resume_answered_while_streaming(&tenant_id, &run_id)
                        .await;
                    runs.index_replies(&tenant_id, &run_id).await;
                });
            }));
        runs
    }

    /// Adds what the agent said in a run to what its thread is found by.
    async fn index_replies(&self, tenant_id: &str, run_id: &str) {
        let indexed = async {
            let Some(run) = self.host.store.get_run(tenant_id, run_id).await? else {
                return Ok(());
            };
            let events = self.host.store.events(tenant_id, run_id, 0, None).await?;
            let view = app::projection::RunView::from_events(Default::default(), &events);
            let said = app::projection::history::assistant_text(&view);
            if !said.is_empty() {
                self.host
                    .store
                    .add_thread_words(tenant_id, &run.thread_id, &said)
                    .await?;
            }
            Ok::<_, crate::store::StoreError>(())
        };
        if let Err(error) = indexed.await {
            tracing::warn!(%error, %run_id, "the agent's replies could not be indexed for search");
        }
    }

    /// What connectors are given to reach the store, the live channels and the clock.
    pub fn host(&self) -> &Arc<Host> {
        &self.host
    }

    pub fn vault(&self) -> &Arc<Vault> {
        &self.vault
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.host.store
    }

    pub fn live(&self) -> &Live {
        &self.host.live
    }

    pub fn agents(&self) -> &Connectors {
        &self.connectors
    }

    /// The connector of a run's agent.
    fn connector_of(&self, run: &RunRecord) -> Result<&Arc<dyn Connector>, ApiError> {
        self.connectors.get(&run.agent).ok_or_else(|| {
            ApiError::Conflict(format!(
                "run {:?} belongs to agent {:?}, which is not configured",
                run.id, run.agent
            ))
        })
    }

    async fn get_run(&self, tenant_id: &str, run_id: &str) -> Result<RunRecord, ApiError> {
        self.host
            .store
            .get_run(tenant_id, run_id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("run {run_id:?} does not exist")))
    }
}

/// The closing, as cancelled for `reason`, of each ask still open among `asks`.
fn cancel_open(asks: Vec<AskRecord>, reason: &str) -> Vec<EventDraft> {
    asks.into_iter()
        .filter(|record| record.ask.state.is_pending())
        .map(|record| {
            EventDraft::new(
                EventBody::AskClosed {
                    ask_id: record.ask.id,
                    ask_kind: record.ask.kind,
                    state: Box::new(AskState::Cancelled {
                        reason: reason.to_owned(),
                    }),
                },
                Some(now_ms()),
                None,
            )
        })
        .collect()
}

/// Runs `round` every `every` for as long as the server's runs exist, logging a round
/// that fails (`failing` says what could not be done) and going on.
fn repeat<Round, Done>(
    runs: &Arc<Runs>,
    every: std::time::Duration,
    failing: &'static str,
    round: Round,
) where
    Round: Fn(Arc<Runs>) -> Done + Send + 'static,
    Done: std::future::Future<Output = Result<usize, ApiError>> + Send,
{
    let runs = Arc::downgrade(runs);
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let Some(runs) = runs.upgrade() else {
                return;
            };
            if let Err(error) = round(runs).await {
                tracing::error!(%error, "{failing}");
            }
        }
    });
}

/// A notice in the run's timeline from the console itself.
fn notice(level: Level, text: String) -> EventDraft {
    EventDraft::new(
        EventBody::Notice {
            level,
            text,
            source: "console".into(),
        },
        Some(now_ms()),
        None,
    )
}
