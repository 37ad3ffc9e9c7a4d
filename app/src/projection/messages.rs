//! Message and reasoning events, and the pinned final answer.

use super::{FinalAnswer, ItemBody, Keyed, RunView};
use crate::protocol::channel::{EventBody, Role, RunEvent};

impl RunView {
    pub(super) fn apply_message(&mut self, event: &RunEvent) -> Option<usize> {
        match &event.body {
            EventBody::UserMessage { message_id, text } => {
                let position = self.message_item(event, message_id, Role::User);
                if let ItemBody::Message {
                    text: body,
                    streaming,
                    ..
                } = &mut self.items[position].body
                {
                    body.clone_from(text);
                    *streaming = false;
                }
                Some(position)
            }
            EventBody::MessageStarted {
                message_id,
                role,
                name,
            } => {
                let position = self.message_item(event, message_id, *role);
                if let ItemBody::Message {
                    role: r,
                    name: n,
                    streaming,
                    ..
                } = &mut self.items[position].body
                {
                    *r = *role;
                    n.clone_from(name);
                    *streaming = true;
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::TextDelta { message_id, delta } => {
                let position = self.message_item(event, message_id, Role::Assistant);
                if let ItemBody::Message { text, .. } = &mut self.items[position].body {
                    text.push_str(delta);
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::MessageEnded { message_id } => {
                let position = self
                    .index
                    .items
                    .get(&self.items, Keyed::Message, message_id)?;
                if let ItemBody::Message { streaming, .. } = &mut self.items[position].body {
                    *streaming = false;
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::FinalAnswer { message_id, text } => {
                let position = message_id
                    .as_ref()
                    .map(|id| self.message_item(event, id, Role::Assistant));
                let position = match (position, text) {
                    (Some(position), _) => Some(position),
                    (None, Some(_)) => {
                        let id = format!("final-{}", event.sequence);
                        Some(self.message_item(event, &id, Role::Assistant))
                    }
                    (None, None) => None,
                };
                let position = position?;
                if let ItemBody::Message {
                    text: body,
                    is_final,
                    streaming,
                    ..
                } = &mut self.items[position].body
                {
                    if let Some(text) = text {
                        // The upstream's own final text wins over what was streamed.
                        body.clone_from(text);
                    }
                    *is_final = true;
                    *streaming = false;
                    self.final_answer = Some(FinalAnswer {
                        text: body.clone(),
                        item: Some(position),
                    });
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::ReasoningStarted { message_id } => {
                Some(self.reasoning_item(event, message_id))
            }
            EventBody::ReasoningDelta { message_id, delta } => {
                let position = self.reasoning_item(event, message_id);
                if let ItemBody::Reasoning { text, .. } = &mut self.items[position].body {
                    text.push_str(delta);
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::ReasoningEnded { message_id } => {
                let position = self
                    .index
                    .items
                    .get(&self.items, Keyed::Reasoning, message_id)?;
                if let ItemBody::Reasoning { streaming, .. } = &mut self.items[position].body {
                    *streaming = false;
                }
                self.touch(position, event);
                Some(position)
            }
            EventBody::ReasoningEncrypted {
                subtype,
                entity_id,
                value,
            } => {
                self.encrypted_reasoning.push(serde_json::json!({
                    "subtype": subtype, "entityId": entity_id, "encryptedValue": value
                }));
                Some(self.push_item(
                    event,
                    ItemBody::EncryptedReasoning {
                        entity_id: entity_id.clone(),
                        subtype: subtype.clone(),
                    },
                ))
            }
            // apply_body routes only the kinds above here.
            _ => None,
        }
    }

    fn message_item(&mut self, event: &RunEvent, message_id: &str, role: Role) -> usize {
        if let Some(position) = self
            .index
            .items
            .get(&self.items, Keyed::Message, message_id)
        {
            return position;
        }
        let position = self.push_item(
            event,
            ItemBody::Message {
                message_id: message_id.to_owned(),
                role,
                name: None,
                text: String::new(),
                streaming: true,
                is_final: false,
            },
        );
        self.index.items.insert(&self.items, position);
        position
    }

    fn reasoning_item(&mut self, event: &RunEvent, message_id: &str) -> usize {
        if let Some(position) = self
            .index
            .items
            .get(&self.items, Keyed::Reasoning, message_id)
        {
            return position;
        }
        let position = self.push_item(
            event,
            ItemBody::Reasoning {
                message_id: message_id.to_owned(),
                text: String::new(),
                streaming: true,
            },
        );
        self.index.items.insert(&self.items, position);
        position
    }
}
