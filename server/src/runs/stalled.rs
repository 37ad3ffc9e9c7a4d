//! Paused runs whose answers are all in but whose follow-up never started — its start
//! failed for a moment (the store, the agent's setup) after the last answer was taken —
//! are tried again, waiting longer after each failure, so no run stays paused with
//! nothing left to answer until someone sends a message. Only for a while: answers older
//! than half an hour are not carried by surprise; the thread's next message carries them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use app::error::ApiError;
use app::protocol::ask::AskState;

use super::Runs;
use super::resume::MESSAGE_INSTEAD;
use crate::clock::now_ms;
use crate::connectors::AnswerRoute;

/// How often the store is asked for stalled runs.
const EVERY: Duration = Duration::from_secs(2);
/// A run first seen stalled is left this long to whoever may be resuming it.
const FIRST_TRY_AFTER_MS: i64 = 2_000;
/// The longest wait between two tries.
const LONGEST_WAIT_MS: i64 = 300_000;
/// Runs looked at in one round at most.
const ROUND: u32 = 50;
/// How long after its last answer a stalled run is still tried.
const WINDOW_MS: i64 = 30 * 60 * 1000;

/// When each stalled run is next tried, and how often it was.
#[derive(Default)]
pub(super) struct Retries(Mutex<HashMap<String, Retry>>);

#[derive(Clone, Copy)]
struct Retry {
    tries: u32,
    next_at_ms: i64,
}

impl Retry {
    fn after_failure(self, now_ms: i64) -> Retry {
        let wait = FIRST_TRY_AFTER_MS
            .saturating_mul(1_i64 << self.tries.min(20))
            .min(LONGEST_WAIT_MS);
        Retry {
            tries: self.tries + 1,
            next_at_ms: now_ms.saturating_add(wait),
        }
    }
}

impl Retries {
    /// Of the runs stalled now, those due for a try; forgets the runs no longer stalled.
    fn due(&self, stalled: &[String], now_ms: i64) -> Vec<String> {
        let Ok(mut retries) = self.0.lock() else {
            return Vec::new();
        };
        retries.retain(|run_id, _| stalled.contains(run_id));
        stalled
            .iter()
            .filter(|run_id| {
                let retry = retries.entry((*run_id).clone()).or_insert_with(|| Retry {
                    tries: 0,
                    next_at_ms: now_ms.saturating_add(FIRST_TRY_AFTER_MS),
                });
                retry.next_at_ms <= now_ms
            })
            .cloned()
            .collect()
    }

    fn tried(&self, run_id: &str, now_ms: i64) {
        if let Ok(mut retries) = self.0.lock()
            && let Some(retry) = retries.get_mut(run_id)
        {
            *retry = retry.after_failure(now_ms);
        }
    }

    /// Never tried again while it stays stalled.
    fn never(&self, run_id: &str) {
        if let Ok(mut retries) = self.0.lock()
            && let Some(retry) = retries.get_mut(run_id)
        {
            retry.next_at_ms = i64::MAX;
        }
    }
}

impl Runs {
    /// Tries to resume the stalled runs that are due; how many it tried.
    pub async fn retry_stalled_resumes(self: &Arc<Self>) -> Result<usize, ApiError> {
        let agents: Vec<String> = self
            .connectors
            .iter()
            .filter(|agent| agent.answer_route() == AnswerRoute::OneResumeRun)
            .map(|agent| agent.name().to_owned())
            .collect();
        let now = now_ms();
        let stalled = self
            .host
            .store
            .stalled_resumes(&agents, now - WINDOW_MS, ROUND)
            .await?;
        let ids: Vec<String> = stalled.iter().map(|run| run.id.clone()).collect();
        let due = self.stalled.due(&ids, now);
        let mut tried = 0;
        for run in stalled.iter().filter(|run| due.contains(&run.id)) {
            // Answers a message was sent in place of wait for that message, sent again.
            let asks = self.host.store.run_asks(&run.tenant_id, &run.id).await?;
            if asks.iter().any(|record| {
                matches!(&record.ask.state, AskState::Cancelled { reason } if reason == MESSAGE_INSTEAD)
            }) {
                self.stalled.never(&run.id);
                continue;
            }
            tried += 1;
            // Counted as a failure until the run leaves the stalled list.
            self.stalled.tried(&run.id, now_ms());
            let _turn = self.answering.take(&run.id).await;
            if let Err(error) = self.resume_when_answered(&run.tenant_id, &run.id).await {
                tracing::warn!(%error, run_id = %run.id, "a paused run whose answers are all in could not be resumed yet");
            }
        }
        Ok(tried)
    }

    /// Tries stalled resumes again, for as long as the server runs.
    pub fn retry_stalled_resumes_in_time(self: &Arc<Self>) {
        super::repeat(
            self,
            EVERY,
            "could not look for paused runs to resume",
            |runs| async move { runs.retry_stalled_resumes().await },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stalled_run_waits_longer_after_each_failed_try_up_to_five_minutes() {
        let retries = Retries::default();
        let stalled = vec!["r".to_owned()];
        assert!(
            retries.due(&stalled, 0).is_empty(),
            "left to its claimant first"
        );
        assert_eq!(retries.due(&stalled, 2_000), stalled);
        let mut at = 2_000;
        let mut waits = Vec::new();
        for _ in 0..10 {
            retries.tried("r", at);
            let next = (at..)
                .find(|now| !retries.due(&stalled, *now).is_empty())
                .unwrap();
            waits.push(next - at);
            at = next;
        }
        assert_eq!(
            waits,
            [
                2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000
            ]
        );
        // No longer stalled, forgotten; stalled again, it starts over.
        assert!(retries.due(&[], at).is_empty());
        assert!(retries.due(&stalled, at).is_empty());
        assert_eq!(retries.due(&stalled, at + 2_000), stalled);
        retries.never("r");
        assert!(retries.due(&stalled, i64::MAX - 1).is_empty());
    }
}
