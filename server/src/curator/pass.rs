//! One pass of the curator as a job: it reads the tenant's and projects' memory and the
//! notes, works out the findings (`app::curator`), and — unless it is a dry run — puts a
//! removal proposal for each memory finding into the review queue, skipping what an
//! earlier pass proposed and nobody has decided yet. The report is stored with the pass.

use std::sync::Arc;

use app::curator::{Entry, FindingKind, NoteText, memory_findings, orphan_notes};
use app::memory::{Action, Current, Operation, ScopeKind, plan};
use app::model::curator::{CuratorPass, PassFinding, PassReport};
use app::model::jobs::Job;
use app::model::memory::MemoryProposal;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::clock::now_ms;
use crate::jobs::{JobError, JobKind, Work};
use crate::store::Store;
use crate::store::curator::CuratedEntry;
use crate::store::memory::ScopeRef;

pub const CURATOR_KIND: &str = "curator.pass";
/// The most notes one pass reads (the most recently edited).
const NOTES_MOST: u32 = 5_000;

#[derive(Deserialize)]
struct Payload {
    #[serde(default)]
    dry_run: bool,
    trigger: String,
    requested_by: String,
}

pub struct CuratorPassKind {
    store: Arc<dyn Store>,
}

impl CuratorPassKind {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self { store }
    }
}

fn scope_of(entry: &CuratedEntry) -> ScopeRef {
    ScopeRef {
        kind: entry.entry.scope,
        id: entry.entry.project_id.clone().unwrap_or_default(),
    }
}

#[async_trait::async_trait]
impl JobKind for CuratorPassKind {
    fn kind(&self) -> &'static str {
        CURATOR_KIND
    }

    async fn run(&self, tenant_id: &str, job: &Job, work: &Work) -> Result<Value, JobError> {
        let payload: Payload = serde_json::from_value(job.payload.clone())
            .map_err(|error| JobError::Fatal(format!("payload: {error}")))?;
        let mut pass = CuratorPass {
            id: job.id.clone(),
            trigger: payload.trigger,
            dry_run: payload.dry_run,
            requested_by: payload.requested_by,
            state: "running".into(),
            started_at_ms: now_ms(),
            finished_at_ms: None,
            report: PassReport::default(),
        };
        self.store
            .save_pass(tenant_id, &pass)
            .await
            .map_err(JobError::retry)?;
        let outcome = self.pass(tenant_id, &mut pass, work).await;
        pass.finished_at_ms = Some(now_ms());
        pass.state = match &outcome {
            Ok(()) => "completed",
            Err(JobError::Cancelled) => "cancelled",
            Err(_) => "failed",
        }
        .into();
        if let Err(error) = &outcome {
            pass.report.error = Some(error.to_string());
        }
        self.store
            .save_pass(tenant_id, &pass)
            .await
            .map_err(JobError::retry)?;
        outcome?;
        Ok(json!({
            "findings": pass.report.findings.len(),
            "proposed": pass.report.proposed,
        }))
    }
}

impl CuratorPassKind {
    async fn pass(
        &self,
        tenant_id: &str,
        pass: &mut CuratorPass,
        work: &Work,
    ) -> Result<(), JobError> {
        let store = &self.store;
        let rules = super::settings(store.as_ref(), tenant_id)
            .await
            .map_err(JobError::retry)?
            .rules();
        work.progress(0, Some(3), "reading memory and notes").await;
        let entries = store
            .curated_memory(tenant_id)
            .await
            .map_err(JobError::retry)?;
        let notes = store
            .curated_notes(tenant_id, NOTES_MOST)
            .await
            .map_err(JobError::retry)?;
        pass.report.entries_read = entries.len() as u64;
        pass.report.notes_read = notes.len() as u64;
        work.log(
            "info",
            &format!(
                "read {} memory entries and {} notes",
                entries.len(),
                notes.len()
            ),
        )
        .await;
        if work.cancelled().is_cancelled() {
            return Err(JobError::Cancelled);
        }
        work.progress(1, Some(3), "looking for repeats and unused entries")
            .await;
        let read: Vec<Entry> = entries
            .iter()
            .map(|curated| Entry {
                id: curated.entry.id.clone(),
                scope: curated.entry.scope,
                project_id: curated.entry.project_id.clone(),
                text: curated.entry.text.clone(),
                created_at_ms: curated.entry.created_at_ms,
                // An entry edited lately is in use, though no run was given it.
                last_used_at_ms: curated
                    .used_at_ms
                    .map(|used| used.max(curated.entry.updated_at_ms))
                    .or(Some(curated.entry.updated_at_ms)),
            })
            .collect();
        let texts: Vec<NoteText> = notes
            .iter()
            .map(|note| NoteText {
                id: note.id.clone(),
                title: note.title.clone(),
                body: note.body.clone(),
            })
            .collect();
        let mut findings = memory_findings(&read, rules, now_ms());
        findings.extend(orphan_notes(&texts));
        work.progress(2, Some(3), "proposing").await;
        let waiting = store
            .proposals(tenant_id, "", Some("pending"))
            .await
            .map_err(JobError::retry)?;
        for finding in findings {
            if work.cancelled().is_cancelled() {
                return Err(JobError::Cancelled);
            }
            let text_of = |id: &str| {
                entries
                    .iter()
                    .find(|curated| curated.entry.id == id)
                    .map(|curated| curated.entry.text.clone())
            };
            if finding.kind == FindingKind::OrphanNote {
                let title = texts
                    .iter()
                    .find(|note| note.id == finding.subject_id)
                    .map(|note| note.title.clone())
                    .unwrap_or_default();
                pass.report.findings.push(PassFinding {
                    subject: title,
                    kept: None,
                    scope: None,
                    project_id: None,
                    proposal_id: None,
                    not_proposed: Some(
                        "notes are never changed by the curator: link it from another note, or delete it".into(),
                    ),
                    finding,
                });
                continue;
            }
            let Some(subject) = entries
                .iter()
                .find(|curated| curated.entry.id == finding.subject_id)
            else {
                continue;
            };
            let scope = scope_of(subject);
            let kept = finding.kept_id.as_deref().and_then(text_of);
            let mut reported = PassFinding {
                subject: subject.entry.text.clone(),
                kept: kept.clone(),
                scope: Some(scope.kind),
                project_id: subject.entry.project_id.clone(),
                proposal_id: None,
                not_proposed: None,
                finding: finding.clone(),
            };
            let earlier = waiting.iter().find(|proposal| {
                proposal.pass_id.is_some()
                    && proposal.scope == scope.kind
                    && proposal.project_id == subject.entry.project_id
                    && proposal.operations.iter().any(|operation| {
                        operation.old_text.as_deref() == Some(subject.entry.text.as_str())
                    })
            });
            match earlier {
                // This pass's own, from an attempt that did not finish.
                Some(proposal) if proposal.pass_id.as_deref() == Some(pass.id.as_str()) => {
                    reported.proposal_id = Some(proposal.id.clone());
                    pass.report.proposed += 1;
                }
                Some(proposal) => {
                    reported.not_proposed = Some(format!(
                        "proposed by an earlier pass; waiting for review ({})",
                        proposal.id
                    ));
                }
                None if pass.dry_run => {
                    reported.not_proposed = Some("a dry run proposes nothing".into());
                }
                None => match self
                    .propose(tenant_id, pass, subject, &finding, kept)
                    .await?
                {
                    Ok(id) => {
                        reported.proposal_id = Some(id);
                        pass.report.proposed += 1;
                    }
                    Err(reason) => reported.not_proposed = Some(reason),
                },
            }
            pass.report.findings.push(reported);
        }
        work.log(
            "info",
            &format!(
                "{} findings; {} proposals{}",
                pass.report.findings.len(),
                pass.report.proposed,
                if pass.dry_run { " (a dry run)" } else { "" }
            ),
        )
        .await;
        work.progress(3, Some(3), "done").await;
        Ok(())
    }

    /// Queues the removal of `subject` for review: its id, or why it could not be
    /// proposed (memory changed since it was read).
    async fn propose(
        &self,
        tenant_id: &str,
        pass: &CuratorPass,
        subject: &CuratedEntry,
        finding: &app::curator::Finding,
        kept: Option<String>,
    ) -> Result<Result<String, String>, JobError> {
        let scope = scope_of(subject);
        let operations = vec![Operation {
            action: Action::Remove,
            content: None,
            old_text: Some(subject.entry.text.clone()),
        }];
        let current: Vec<Current> = self
            .store
            .memory_entries(tenant_id, &scope)
            .await
            .map_err(JobError::retry)?
            .into_iter()
            .map(|entry| Current {
                id: entry.id,
                text: entry.text,
            })
            .collect();
        match plan(&current, &operations, scope.kind.limit()) {
            Ok(changes)
                if changes.iter().any(|change| {
                    matches!(change, app::memory::Change::Remove { id } if *id == subject.entry.id)
                }) => {}
            Ok(_) => return Ok(Err("another entry holds the same text; remove it in memory".into())),
            Err(reason) => return Ok(Err(reason)),
        }
        let reason = match kept {
            Some(kept) => format!("{}; kept: “{kept}”", finding.reason),
            None => finding.reason.clone(),
        };
        let proposal = MemoryProposal {
            id: uuid::Uuid::new_v4().to_string(),
            scope: scope.kind,
            project_id: (scope.kind == ScopeKind::Project).then(|| scope.id.clone()),
            operations,
            proposed_by: format!("the curator (pass {})", pass.id),
            run_id: None,
            created_at_ms: now_ms(),
            state: "pending".into(),
            reviewed_by: None,
            outcome: None,
            pass_id: Some(pass.id.clone()),
            reason: Some(reason),
        };
        self.store
            .add_proposal(tenant_id, &scope, &proposal)
            .await
            .map_err(JobError::retry)?;
        Ok(Ok(proposal.id))
    }
}
