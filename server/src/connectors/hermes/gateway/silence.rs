//! Turns a gateway has gone silent on: a turn that hears nothing for the agents' idle
//! timeout, and waits on no open ask, fails saying so, and the gateway is told to stop
//! it. An agent that hangs never leaves a run running for good.

use std::sync::{Arc, Weak};
use std::time::Duration;

use serde_json::json;

use super::{HermesGateway, Route};

impl HermesGateway {
    /// Watches this gateway's turns for silence longer than `idle`, for as long as the
    /// gateway lives.
    pub fn fail_silent_turns_after(self: &Arc<Self>, idle: Duration) {
        let gateway: Weak<Self> = Arc::downgrade(self);
        let every = (idle / 4).clamp(Duration::from_millis(200), Duration::from_secs(5));
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(every);
            loop {
                ticker.tick().await;
                let Some(gateway) = gateway.upgrade() else {
                    return;
                };
                if !gateway.is_alive() {
                    return;
                }
                gateway.fail_silent_turns(idle).await;
            }
        });
    }

    async fn fail_silent_turns(self: &Arc<Self>, idle: Duration) {
        let silent: Vec<(String, Route)> = {
            let mut routes = self.routes.lock().await;
            let sessions: Vec<String> = routes
                .iter()
                .filter(|(_, route)| {
                    route.heard.elapsed() >= idle && route.normalizer.open_asks().is_empty()
                })
                .map(|(session, _)| session.clone())
                .collect();
            sessions
                .iter()
                .filter_map(|session| routes.remove_entry(session))
                .collect()
        };
        for (session, mut route) in silent {
            let mut drafts = Vec::new();
            route.normalizer.fail(
                &format!(
                    "the gateway sent nothing for {} s (the agents' idle timeout)",
                    idle.as_secs_f64()
                ),
                "idle_timeout",
                &mut drafts,
            );
            tracing::warn!(gateway = %self.name, run_id = %route.run_id, "a Hermes turn went silent and failed");
            self.end_route(route, drafts).await;
            // Best effort: should it wake, the turn stops, and the session's next turn
            // skips its frames until its end.
            let gateway = Arc::clone(self);
            tokio::spawn(async move {
                let _ = gateway
                    .request("session.interrupt", json!({ "session_id": session }))
                    .await;
            });
        }
    }
}
