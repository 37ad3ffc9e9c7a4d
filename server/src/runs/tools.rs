//! Workspace tools an agent calls (`memory`, `notes_search`, `note_read`, `note_write`):
//! the calls the tenant lets run freely are answered by the console as soon as the run
//! pauses on them; the others wait for an operator to allow them. Either way the tool runs
//! here, on the server, once — whatever result a receipt carries is replaced by what
//! running it gave.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use app::error::ApiError;
use app::protocol::ask::{AskOrigin, AskState};
use app::protocol::receipts::{Receipt, ReceiptEnvelope, ReceiptTime, ValidatedAnswer};
use app::workspace_tools::{ToolPolicy, WorkspaceCall, failed, is_workspace_tool};
use futures_util::FutureExt;
use serde_json::json;

use super::Runs;
use super::receipts::Closing;
use crate::clock::now_ms;
use crate::fault::pause_point;
use crate::store::AskRecord;

/// Who answers a freely running tool's ask.
pub const CONSOLE: &str = "console";

/// The console as the answerer of the tool calls the tenant lets run freely (it never
/// sends a passvault value).
fn console() -> super::Answerer {
    super::Answerer {
        name: CONSOLE.to_owned(),
        role: app::model::Role::Operator,
    }
}

/// Who a workspace tool acts for: the agent, in its run, allowed by an operator or by
/// the tenant's policy.
#[derive(Clone, Debug)]
pub struct ToolCaller {
    pub agent: String,
    pub run_id: String,
    pub thread_id: String,
    /// The operator who allowed the call; `None` when the policy let it run.
    pub approved_by: Option<String>,
}

impl ToolCaller {
    /// The author a change made by the call is attributed to.
    pub fn author(&self) -> String {
        match &self.approved_by {
            Some(operator) => format!(
                "agent {} (run {}), approved by {operator}",
                self.agent, self.run_id
            ),
            None => format!("agent {} (run {})", self.agent, self.run_id),
        }
    }
}

/// What runs the workspace tools and knows each tenant's policy (the workspace, set by
/// the server at start).
#[async_trait::async_trait]
pub trait ToolRunner: Send + Sync {
    async fn policy(&self, tenant_id: &str, tool: &str) -> Result<ToolPolicy, ApiError>;
    /// Runs the call; what went wrong is the result (`{"error": …}`), for the agent.
    async fn run(
        &self,
        tenant_id: &str,
        call: WorkspaceCall,
        caller: &ToolCaller,
    ) -> serde_json::Value;
}

/// The workspace tool an ask is for, if it is one.
fn workspace_call(record: &AskRecord) -> Option<(String, Result<WorkspaceCall, String>)> {
    match &record.ask.origin {
        AskOrigin::AgUiFrontendTool {
            tool_name,
            arguments,
        } if is_workspace_tool(tool_name) => {
            WorkspaceCall::from_call(tool_name, arguments).map(|call| (tool_name.clone(), call))
        }
        _ => None,
    }
}

impl Runs {
    /// Runs the workspace tool an allowed ask is for and puts its result in the answer;
    /// any other answer passes unchanged. Called within the run's answering turn on an
    /// ask read pending in it, so the tool runs once, and never for an ask closed.
    pub(super) async fn run_workspace_tool(
        &self,
        tenant_id: &str,
        record: &AskRecord,
        mut answer: ValidatedAnswer,
        actor: &str,
    ) -> Result<ValidatedAnswer, ApiError> {
        let Some((tool, call)) = workspace_call(record) else {
            return Ok(answer);
        };
        if answer.action != "submit" {
            return Ok(answer);
        }
        pause_point("before-tool").await;
        let run = self.get_run(tenant_id, &record.run_id).await?;
        let caller = ToolCaller {
            agent: run.agent.clone(),
            run_id: run.id.clone(),
            thread_id: run.thread_id.clone(),
            approved_by: (actor != CONSOLE).then(|| actor.to_owned()),
        };
        let result = match (call, self.tools.get()) {
            (Ok(call), Some(tools)) => {
                // A tool that panics fails its call, not the run's answering turn (which
                // would leave the thread waiting on it).
                match AssertUnwindSafe(tools.run(tenant_id, call, &caller))
                    .catch_unwind()
                    .await
                {
                    Ok(result) => result,
                    Err(panic) => {
                        let incident = crate::incident::new_id();
                        let said = crate::incident::panic_text(&*panic);
                        tracing::error!(tool, panic = said, %incident, "a workspace tool panicked");
                        failed(&format!(
                            "the tool failed on the server (incident {incident} in its log)"
                        ))
                    }
                }
            }
            (Ok(_), None) => failed("the console's workspace tools are not available"),
            (Err(problem), _) => failed(&problem),
        };
        let summary = match (&caller.approved_by, result.get("error")) {
            (_, Some(_)) => format!("{tool} could not run"),
            (Some(_), None) => format!("Allowed; ran {tool}"),
            (None, None) => format!("Ran {tool}"),
        };
        answer.data = json!({ "result": result });
        answer.recorded.data = answer.data.clone();
        answer.recorded.summary = summary;
        Ok(answer)
    }

    /// Once a run's stream has ended: answers its pending workspace tool calls that the
    /// tenant lets run freely (the run then resumes as if an operator had answered).
    pub(super) async fn answer_free_tools(self: &Arc<Self>, tenant_id: &str, run_id: &str) {
        if let Err(error) = self.try_answer_free_tools(tenant_id, run_id).await {
            tracing::error!(%error, run_id, "could not run the workspace tools a run called");
        }
    }

    async fn try_answer_free_tools(
        self: &Arc<Self>,
        tenant_id: &str,
        run_id: &str,
    ) -> Result<(), ApiError> {
        pause_point("before-free-tools").await;
        for (key, envelope) in self.free_tool_receipts(tenant_id, run_id).await? {
            self.answer(tenant_id, &key, &console(), &envelope).await?;
        }
        Ok(())
    }

    /// Answers, in the run's answering turn, the pending workspace tool calls the tenant
    /// lets run freely, and holds their results for the follow-up: a message sent before
    /// the console got to them must not cancel them.
    pub(super) async fn answer_free_tools_in_turn(
        self: &Arc<Self>,
        tenant_id: &str,
        run_id: &str,
    ) -> Result<(), ApiError> {
        for (key, envelope) in self.free_tool_receipts(tenant_id, run_id).await? {
            if let Closing::Won { record, answer } = self
                .close_in_turn(tenant_id, &key, &console(), &envelope)
                .await?
                && let Ok(mut held) = self.held.lock()
            {
                held.insert(record.key.clone(), *answer);
            }
        }
        Ok(())
    }

    /// The console's receipt for each pending, unexpired workspace tool call of the run
    /// that the tenant lets run freely, or whose arguments are wrong (its result is what
    /// running it gives, or the error).
    async fn free_tool_receipts(
        &self,
        tenant_id: &str,
        run_id: &str,
    ) -> Result<Vec<(String, ReceiptEnvelope)>, ApiError> {
        let Some(tools) = self.tools.get() else {
            return Ok(Vec::new());
        };
        let mut receipts = Vec::new();
        for record in self.host.store.run_asks(tenant_id, run_id).await? {
            let unexpired = record.ask.expires_at_ms.is_none_or(|at| at > now_ms());
            if !matches!(record.ask.state, AskState::Pending) || !unexpired {
                continue;
            }
            let Some((tool, call)) = workspace_call(&record) else {
                continue;
            };
            // A call whose arguments are wrong has nothing to approve: the agent is told
            // at once, whatever the policy.
            if call.is_ok() && tools.policy(tenant_id, &tool).await? != ToolPolicy::Free {
                continue;
            }
            let envelope = ReceiptEnvelope {
                channel: "tool-result".into(),
                receipt: Receipt {
                    tool_call_id: record.ask.id.clone(),
                    component: record.ask.component.as_str().to_owned(),
                    action: "submit".into(),
                    data: json!({ "result": null }),
                    ts: Some(ReceiptTime(now_ms())),
                },
            };
            receipts.push((record.key, envelope));
        }
        Ok(receipts)
    }

    /// Sets what runs workspace tools; the first one set stays.
    pub fn set_tool_runner(&self, runner: Arc<dyn ToolRunner>) {
        let _ = self.tools.set(runner);
    }
}
