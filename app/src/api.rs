//! Server functions: each one takes the request's context (tenant and actor), calls the
//! workspace service and maps its error to an HTTP status. No business logic lives here;
//! who may call which one is the server's route policy, checked before any of them runs.

use leptos::prelude::*;

use crate::error::ApiError;
use crate::model::{AnswerOutcome, RunSummary, ThreadPage, ThreadSummary};
use crate::projection::Arrival;

/// The server-side half: the service trait the server implements and provides by context.
#[cfg(feature = "ssr")]
pub mod background;
#[cfg(feature = "ssr")]
pub mod kanban;
#[cfg(feature = "ssr")]
pub mod service;

#[server(prefix = "/fn", endpoint = "list_threads")]
pub async fn list_threads() -> Result<Vec<ThreadSummary>, ApiError> {
    use service::*;
    with_status(workspace()?.list_threads(&tenant()?).await)
}

#[server(prefix = "/fn", endpoint = "get_thread")]
pub async fn get_thread(thread_id: String) -> Result<ThreadSummary, ApiError> {
    use service::*;
    with_status(workspace()?.get_thread(&tenant()?, &thread_id).await)
}

#[server(prefix = "/fn", endpoint = "rename_thread")]
pub async fn rename_thread(thread_id: String, title: String) -> Result<ThreadSummary, ApiError> {
    use service::*;
    with_status(
        workspace()?
            .rename_thread(&tenant()?, &thread_id, &title)
            .await,
    )
}

/// The page leaves each run's arrival list out (one entry an event); the arrival-order
/// view reads it with [`load_run_arrivals`] when first shown.
#[server(prefix = "/fn", endpoint = "thread_page")]
pub async fn load_thread_page(thread_id: String) -> Result<ThreadPage, ApiError> {
    use service::*;
    with_status(workspace()?.thread_page(&tenant()?, &thread_id).await)
}

#[server(prefix = "/fn", endpoint = "run_arrivals")]
pub async fn load_run_arrivals(run_id: String) -> Result<Vec<Arrival>, ApiError> {
    use service::*;
    with_status(workspace()?.run_arrivals(&tenant()?, &run_id).await)
}

#[server(prefix = "/fn", endpoint = "bind_agent")]
pub async fn bind_agent(thread_id: String, agent: String) -> Result<(), ApiError> {
    use service::*;
    with_status(
        workspace()?
            .bind_agent(&tenant()?, &thread_id, &agent)
            .await,
    )
}

#[server(prefix = "/fn", endpoint = "send_message")]
pub async fn send_message(thread_id: String, text: String) -> Result<RunSummary, ApiError> {
    use service::*;
    with_status(
        workspace()?
            .send_message(&tenant()?, &thread_id, &text)
            .await,
    )
}

/// Sends an operator's action on one of the agent's A2UI surfaces; the server checks it
/// against the surface before the agent sees it.
#[server(prefix = "/fn", endpoint = "send_surface_action")]
pub async fn send_surface_action(
    thread_id: String,
    request: crate::a2ui::action::ActionRequest,
) -> Result<RunSummary, ApiError> {
    use service::*;
    with_status(
        workspace()?
            .send_surface_action(&tenant()?, &thread_id, &request)
            .await,
    )
}

/// Sends the thread's last message again, as the same message, in place of the turn
/// `run_id` belongs to.
#[server(prefix = "/fn", endpoint = "retry_run")]
pub async fn retry_run(run_id: String) -> Result<RunSummary, ApiError> {
    use service::*;
    with_status(workspace()?.retry_run(&tenant()?, &run_id).await)
}

#[server(prefix = "/fn", endpoint = "cancel_run")]
pub async fn cancel_run(run_id: String) -> Result<RunSummary, ApiError> {
    use service::*;
    with_status(workspace()?.cancel_run(&tenant()?, &run_id).await)
}

/// Sends a receipt to the exact pending ask. The answer is never chat text.
#[server(prefix = "/fn", endpoint = "answer_ask")]
pub async fn answer_ask(
    run_id: String,
    ask_id: String,
    receipt: String,
) -> Result<AnswerOutcome, ApiError> {
    use service::*;
    let context = context()?;
    with_status(
        workspace()?
            .answer_ask(&context, &run_id, &ask_id, &receipt)
            .await,
    )
}
