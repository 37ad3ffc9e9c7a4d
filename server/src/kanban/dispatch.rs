//! The dispatcher: a source of the job engine that, for every board, makes ready the cards
//! whose dependencies are done, takes back running cards whose run showed no sign of life
//! for the board's stale time (unless the run waits on a person), and hands ready cards to
//! their agents within the board's limits — each hand-out a claim written with its attempt
//! and its `card.work` job. It looks when woken by a change and at least every few seconds.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use app::kanban::{CardState, Lane, dispatch, position_at, promotions};
use app::model::kanban::{Attempt, Board, Card};
use serde_json::json;

use super::work::{CARD_KIND, CardWorkKind};
use crate::clock::stamp_after;
use crate::jobs::{Engine, Source};
use crate::store::StoreError;
use crate::store::jobs::{NewJob, Selection};
use crate::store::kanban::{Claim, NewEvent};

const ACTOR: &str = "the dispatcher";

/// What one look did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Looked {
    pub promoted: usize,
    pub reclaimed: usize,
    pub claimed: usize,
}

pub struct Dispatcher {
    engine: OnceLock<Arc<Engine>>,
    every: Duration,
    next_look: Mutex<i64>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn state_of(card: &Card) -> CardState {
    CardState {
        id: card.id.clone(),
        lane: card.lane,
        agent: card.agent.clone(),
        priority: card.priority,
        position: card.position,
    }
}

impl Dispatcher {
    /// A dispatcher that looks at least `every`; it works once attached to an engine.
    pub fn new(every: Duration) -> Arc<Self> {
        Arc::new(Self {
            engine: OnceLock::new(),
            every,
            next_look: Mutex::new(0),
        })
    }

    pub fn attach(self: &Arc<Self>, engine: Arc<Engine>) {
        if self.engine.set(engine.clone()).is_ok() {
            engine.add_source(self.clone());
        }
    }

    /// Looks now: a card changed.
    pub fn wake(&self) {
        *lock(&self.next_look) = 0;
        if let Some(engine) = self.engine.get() {
            engine.wake();
        }
    }

    /// Stops the attempt a person took its card back from: its job is cancelled (which
    /// stops its run) and the attempt says who took it back.
    pub async fn take_back(
        &self,
        tenant: &str,
        attempt_id: &str,
        by: &str,
    ) -> Result<(), StoreError> {
        let Some(engine) = self.engine.get() else {
            return Ok(());
        };
        let store = engine.store();
        let Some(mut attempt) = store.attempt(tenant, attempt_id).await? else {
            return Ok(());
        };
        if attempt.state != "running" {
            return Ok(());
        }
        let now = crate::clock::now_ms();
        attempt.state = "reclaimed".into();
        attempt.ended_at_ms = Some(now);
        attempt.note = Some(format!("taken back by {by}"));
        store.write_attempt(tenant, &attempt).await?;
        store
            .cancel_jobs(tenant, &Selection::One(attempt.job_id.clone()), now)
            .await?;
        engine.check_leases();
        Ok(())
    }

    /// Looks at every board once.
    pub async fn look(&self, now_ms: i64) -> Looked {
        let mut looked = Looked::default();
        let Some(engine) = self.engine.get() else {
            return looked;
        };
        let boards = match engine.store().all_boards().await {
            Ok(boards) => boards,
            Err(error) => {
                tracing::warn!(%error, "the dispatcher could not read the boards");
                return looked;
            }
        };
        for (tenant, board) in boards {
            match self.board(engine, &tenant, &board, now_ms).await {
                Ok(done) => {
                    if done != Looked::default() {
                        engine.changed(&tenant);
                    }
                    looked.promoted += done.promoted;
                    looked.reclaimed += done.reclaimed;
                    looked.claimed += done.claimed;
                }
                Err(error) => {
                    tracing::warn!(%error, board = %board.id, "the dispatcher skipped a board")
                }
            }
        }
        if looked.claimed > 0 {
            engine.wake();
        }
        looked
    }

    async fn board(
        &self,
        engine: &Arc<Engine>,
        tenant: &str,
        board: &Board,
        now_ms: i64,
    ) -> Result<Looked, StoreError> {
        let store = engine.store().clone();
        let mut looked = Looked::default();
        let cards = store.cards(tenant, &board.id, false).await?;
        let states: Vec<CardState> = cards.iter().map(state_of).collect();
        let depends: Vec<(String, String)> = cards
            .iter()
            .flat_map(|card| {
                card.depends_on
                    .iter()
                    .map(|on| (card.id.clone(), on.clone()))
            })
            .collect();
        let ready: Vec<f64> = cards
            .iter()
            .filter(|card| card.lane == Lane::Ready)
            .map(|card| card.position)
            .collect();
        for (at, id) in promotions(&states, &depends).into_iter().enumerate() {
            let Some(card) = cards.iter().find(|card| card.id == id) else {
                continue;
            };
            let mut promoted = card.clone();
            promoted.lane = Lane::Ready;
            promoted.position = position_at(&ready, ready.len()) + at as f64;
            promoted.updated_at_ms = stamp_after(card.updated_at_ms);
            let event = NewEvent::new(
                "promoted",
                ACTOR,
                json!({"because": "every card it waited on is done"}),
            );
            if store
                .write_card(tenant, &promoted, card.updated_at_ms, &event)
                .await?
            {
                looked.promoted += 1;
            }
        }
        for card in cards.iter().filter(|card| card.lane == Lane::Running) {
            if self
                .reclaim_if_stale(engine, tenant, board, card, now_ms)
                .await?
            {
                looked.reclaimed += 1;
            }
        }
        // Read again: what was promoted or taken back counts now.
        let cards = if looked == Looked::default() {
            cards
        } else {
            store.cards(tenant, &board.id, false).await?
        };
        let states: Vec<CardState> = cards.iter().map(state_of).collect();
        let running = states
            .iter()
            .filter(|card| card.lane == Lane::Running)
            .count();
        let mut claims = Vec::new();
        for id in dispatch(&states, board.limits) {
            let Some(card) = cards.iter().find(|card| card.id == id) else {
                continue;
            };
            claims.push(self.claim(tenant, board, card, now_ms).await?);
        }
        if !claims.is_empty()
            && store
                .claim_cards(tenant, &board.id, running, &claims, now_ms)
                .await?
        {
            looked.claimed += claims.len();
        }
        Ok(looked)
    }

    async fn claim(
        &self,
        tenant: &str,
        board: &Board,
        card: &Card,
        now_ms: i64,
    ) -> Result<Claim, StoreError> {
        let store = self
            .engine
            .get()
            .map(|engine| engine.store().clone())
            .ok_or_else(|| StoreError::Corrupt("the dispatcher has no engine".into()))?;
        let number = store.attempts(tenant, &card.id).await?.len() as u32 + 1;
        let agent = card.agent.clone().unwrap_or_default();
        let attempt = Attempt {
            id: format!("att-{}", uuid::Uuid::new_v4().simple()),
            card_id: card.id.clone(),
            number,
            agent: agent.clone(),
            job_id: format!("job-{}", uuid::Uuid::new_v4().simple()),
            thread_id: None,
            run_id: None,
            state: "running".into(),
            started_at_ms: now_ms,
            ended_at_ms: None,
            last_sign_ms: now_ms,
            note: None,
        };
        let mut running = card.clone();
        running.lane = Lane::Running;
        running.attempt_id = Some(attempt.id.clone());
        running.blocked_reason = None;
        running.updated_at_ms = stamp_after(card.updated_at_ms);
        Ok(Claim {
            job: NewJob {
                id: attempt.job_id.clone(),
                tenant_id: tenant.to_owned(),
                kind: CARD_KIND.to_owned(),
                payload: json!({"card_id": card.id, "attempt_id": attempt.id}),
                run_at_ms: now_ms,
                max_attempts: 3,
                idempotency_key: Some(format!("card:{}:{number}", card.id)),
                created_by: ACTOR.to_owned(),
                created_at_ms: now_ms,
                agent: Some(agent),
                project_id: board.project_id.clone(),
            },
            expected_updated_at_ms: card.updated_at_ms,
            card: running,
            attempt,
        })
    }

    /// Takes back a running card whose run showed no sign of life for the board's stale
    /// time and waits on nobody: its job is cancelled and the attempt counts as failed.
    async fn reclaim_if_stale(
        &self,
        engine: &Arc<Engine>,
        tenant: &str,
        board: &Board,
        card: &Card,
        now_ms: i64,
    ) -> Result<bool, StoreError> {
        let store = engine.store();
        let Some(attempt_id) = &card.attempt_id else {
            return Ok(false);
        };
        let Some(mut attempt) = store.attempt(tenant, attempt_id).await? else {
            return Ok(false);
        };
        if card.needs_you.is_some() {
            return Ok(false);
        }
        let run_sign = match &attempt.thread_id {
            Some(thread) => store.last_sign(tenant, thread).await?,
            None => None,
        };
        let sign = run_sign.unwrap_or(0).max(attempt.last_sign_ms);
        let stale_ms = i64::try_from(board.limits.stale_s.saturating_mul(1000)).unwrap_or(i64::MAX);
        if now_ms.saturating_sub(sign) <= stale_ms {
            return Ok(false);
        }
        store
            .cancel_jobs(tenant, &Selection::One(attempt.job_id.clone()), now_ms)
            .await?;
        engine.check_leases();
        let quiet_s = (now_ms - sign) / 1000;
        CardWorkKind::fail(
            store.as_ref(),
            tenant,
            &mut attempt,
            ("reclaimed", format!("no sign of life for {quiet_s} s")),
        )
        .await?;
        Ok(true)
    }
}

#[async_trait::async_trait]
impl Source for Dispatcher {
    async fn tick(&self, now_ms: i64) {
        {
            let mut next = lock(&self.next_look);
            if now_ms < *next {
                return;
            }
            *next = now_ms + i64::try_from(self.every.as_millis()).unwrap_or(10_000);
        }
        self.look(now_ms).await;
    }

    async fn next_due(&self) -> Option<i64> {
        Some(*lock(&self.next_look))
    }
}
