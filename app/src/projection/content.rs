//! Edits, artifacts, agent state, messages snapshots and the plan.

use super::patch::apply_patch;
use super::{ArtifactView, EditView, ErrorKind, ItemBody, RunView};
use crate::protocol::channel::{EventBody, RunEvent};

impl RunView {
    pub(super) fn apply_content(&mut self, event: &RunEvent) -> Option<usize> {
        match &event.body {
            EventBody::Edit {
                edit_id,
                tool_call_id,
                filename,
                patch,
            } => {
                let view = EditView {
                    edit_id: edit_id.clone(),
                    tool_call_id: tool_call_id.clone(),
                    filename: filename.clone(),
                    patch: patch.clone(),
                };
                match self.edits.iter_mut().find(|e| e.edit_id == *edit_id) {
                    Some(existing) => *existing = view,
                    None => self.edits.push(view),
                }
                Some(self.push_item(
                    event,
                    ItemBody::Edit {
                        edit_id: edit_id.clone(),
                    },
                ))
            }
            EventBody::Artifact {
                artifact_id,
                artifact_kind,
                title,
                data,
            } => match self.index.artifacts.get(artifact_id) {
                Some(&position) => {
                    let artifact = &mut self.artifacts[position];
                    artifact.kind.clone_from(artifact_kind);
                    artifact.replace(title.clone(), data.clone());
                    None
                }
                None => {
                    let view = ArtifactView {
                        artifact_id: artifact_id.clone(),
                        kind: artifact_kind.clone(),
                        title: title.clone(),
                        data: data.clone(),
                        earlier: Vec::new(),
                        versions_dropped: 0,
                    };
                    self.index
                        .artifacts
                        .insert(artifact_id.clone(), self.artifacts.len());
                    self.artifacts.push(view);
                    Some(self.push_item(
                        event,
                        ItemBody::Artifact {
                            artifact_id: artifact_id.clone(),
                        },
                    ))
                }
            },
            EventBody::ArtifactPatched { artifact_id, patch } => {
                let Some(&position) = self.index.artifacts.get(artifact_id) else {
                    return Some(self.error_item(
                        event,
                        ErrorKind::Patch,
                        format!("patch for artifact {artifact_id:?}, which does not exist"),
                        None,
                    ));
                };
                match apply_patch(&mut self.artifacts[position].data, patch) {
                    Ok(()) => None,
                    Err(problem) => Some(self.error_item(
                        event,
                        ErrorKind::Patch,
                        format!(
                            "artifact {artifact_id:?} patch failed and was rolled back: {problem}"
                        ),
                        None,
                    )),
                }
            }
            EventBody::StateSnapshot { snapshot } => {
                self.state.clone_from(snapshot);
                None
            }
            EventBody::StateDelta { patch } => match apply_patch(&mut self.state, patch) {
                Ok(()) => None,
                Err(problem) => Some(self.error_item(
                    event,
                    ErrorKind::Patch,
                    format!("state patch failed and was rolled back: {problem}"),
                    None,
                )),
            },
            EventBody::MessagesSnapshot { messages } => {
                self.messages_snapshot = Some(messages.clone());
                let count = messages.as_array().map_or(0, Vec::len);
                Some(self.push_item(
                    event,
                    ItemBody::Json {
                        label: format!("messages snapshot ({count} messages)"),
                        json: messages.clone(),
                    },
                ))
            }
            EventBody::Plan { items } => {
                self.plan.clone_from(items);
                None
            }
            // apply_body routes only the kinds above here.
            _ => None,
        }
    }
}
