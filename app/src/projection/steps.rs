//! Steps and subagents: items that open and later close.

use super::{ItemBody, RunView};
use crate::protocol::channel::{EventBody, RunEvent};

impl RunView {
    pub(super) fn apply_step(&mut self, event: &RunEvent) -> Option<usize> {
        match &event.body {
            EventBody::StepStarted { name } => {
                let position = self.push_item(
                    event,
                    ItemBody::Step {
                        name: name.clone(),
                        active: true,
                    },
                );
                self.index.active_steps.push((name.clone(), position));
                Some(position)
            }
            EventBody::StepFinished { name } => {
                let slot = self
                    .index
                    .active_steps
                    .iter()
                    .rposition(|(n, _)| n == name)?;
                let (_, position) = self.index.active_steps.remove(slot);
                if let ItemBody::Step { active, .. } = &mut self.items[position].body {
                    *active = false;
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::SubagentStarted {
                subagent_run_id,
                name,
            } => {
                let position = self.push_item(
                    event,
                    ItemBody::Subagent {
                        subagent_run_id: subagent_run_id.clone(),
                        name: name.clone(),
                        running: true,
                        error: None,
                    },
                );
                self.index
                    .subagents
                    .insert(subagent_run_id.clone(), position);
                Some(position)
            }
            EventBody::SubagentFinished {
                subagent_run_id,
                error,
            } => {
                let position = *self.index.subagents.get(subagent_run_id)?;
                if let ItemBody::Subagent {
                    running, error: e, ..
                } = &mut self.items[position].body
                {
                    *running = false;
                    e.clone_from(error);
                }
                self.touch(position, event);
                Some(position)
            }
            // apply_body routes only the kinds above here.
            _ => None,
        }
    }
}
