//! Waking the engine from the store: on PostgreSQL every process listens on the jobs
//! channel, so a job added by any process wakes them all (a hint only: a notification
//! missed while the connection was down is made up by the scheduler's poll).

use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::PgListener;

use super::engine::Engine;
use crate::store::jobs::JOBS_CHANNEL;

/// Listens on `url`'s jobs channel until the engine stops, reconnecting after a pause.
pub fn listen_postgres(engine: Arc<Engine>, url: String) {
    tokio::spawn(async move {
        loop {
            match PgListener::connect(&url).await {
                Ok(mut listener) => match listener.listen(JOBS_CHANNEL).await {
                    Ok(()) => loop {
                        tokio::select! {
                            received = listener.recv() => match received {
                                Ok(_) => engine.wake(),
                                Err(error) => {
                                    tracing::warn!(%error, "the jobs listener lost its connection");
                                    break;
                                }
                            },
                            () = engine.stopped() => return,
                        }
                    },
                    Err(error) => tracing::warn!(%error, "the jobs listener could not listen"),
                },
                Err(error) => tracing::warn!(%error, "the jobs listener could not connect"),
            }
            tokio::select! {
                () = tokio::time::sleep(Duration::from_secs(5)) => {}
                () = engine.stopped() => return,
            }
            // Whatever was announced meanwhile is due now or soon.
            engine.wake();
        }
    });
}
