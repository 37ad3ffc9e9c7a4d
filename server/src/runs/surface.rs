//! Operators' actions on agents' A2UI surfaces: checked against the surface as the thread's
//! stored events describe it, then carried to the agent as a run of their own.

use std::sync::Arc;

use app::a2ui::action::{ActionRequest, validate};
use app::error::ApiError;

use super::Runs;
use crate::clock::now_ms;
use crate::connectors::{RunOptions, Turn};
use crate::store::RunRecord;

impl Runs {
    /// Starts a run carrying `request`, once it fits a surface showing in the thread.
    pub async fn send_surface_action(
        self: &Arc<Self>,
        tenant_id: &str,
        thread_id: &str,
        request: &ActionRequest,
    ) -> Result<RunRecord, ApiError> {
        let agent = self.thread_agent(tenant_id, thread_id).await?;
        let _starting = self.claim_thread(tenant_id, thread_id).await?;
        self.refuse_if_waiting(tenant_id, thread_id).await?;
        let views = self.host.thread_views(tenant_id, thread_id).await?;
        let surfaces = app::a2ui::of_artifacts(views.iter().flat_map(|view| &view.artifacts));
        let action =
            validate(&surfaces, request, app::when::rfc3339(now_ms())).map_err(|refused| {
                ApiError::BadRequest(format!("the action does not fit its surface — {refused}"))
            })?;
        let run_id = uuid::Uuid::new_v4().to_string();
        let turn = Turn {
            tenant_id: tenant_id.to_owned(),
            thread_id: thread_id.to_owned(),
            message_id: format!("action-{run_id}"),
            context: self.given_context(tenant_id, thread_id).await?,
            run_id,
            text: String::new(),
        };
        let mut prepared = agent
            .prepare_surface_action(&self.host, &turn, &action)
            .await?;
        prepared.first.extend(turn.context.event());
        self.start(
            &agent,
            tenant_id,
            thread_id,
            &turn.run_id,
            prepared,
            RunOptions::default(),
        )
        .await
    }
}
