//! Notices, passed-through JSON events, protocol violations and malformed input.

use super::{ErrorKind, ItemBody, RunView};
use crate::protocol::channel::{Channel, EventBody, Level, RunEvent};

impl RunView {
    pub(super) fn apply_notice(&mut self, event: &RunEvent) -> Option<usize> {
        match &event.body {
            EventBody::Notice {
                level,
                text,
                source,
            } => {
                // Spinner and "preparing a tool" texts describe the present moment only.
                if source == "thinking.delta" || source == "tool.generating" {
                    self.activity = (!text.is_empty()).then(|| text.clone());
                    return None;
                }
                let kind = if *level == Level::Error {
                    Some(ErrorKind::Gateway)
                } else {
                    None
                };
                Some(match kind {
                    Some(kind) if event.channel == Channel::Error => {
                        self.error_item(event, kind, text.clone(), None)
                    }
                    _ => self.push_item(
                        event,
                        ItemBody::Notice {
                            level: *level,
                            text: text.clone(),
                            source: source.clone(),
                        },
                    ),
                })
            }
            EventBody::Custom { name, value } => Some(self.push_item(
                event,
                ItemBody::Json {
                    label: format!("custom event {name}"),
                    json: value.clone(),
                },
            )),
            EventBody::Raw { source, event: raw } => Some(self.push_item(
                event,
                ItemBody::Json {
                    label: match source {
                        Some(source) => format!("raw event from {source}"),
                        None => "raw event".into(),
                    },
                    json: raw.clone(),
                },
            )),
            EventBody::Unknown {
                upstream_type,
                event: raw,
            } => Some(self.push_item(
                event,
                ItemBody::Json {
                    label: format!("unknown event {upstream_type}"),
                    json: raw.clone(),
                },
            )),
            EventBody::ProtocolViolation { message, .. } => {
                Some(self.error_item(event, ErrorKind::ProtocolViolation, message.clone(), None))
            }
            EventBody::Malformed { message, excerpt } => Some(self.error_item(
                event,
                ErrorKind::Malformed,
                message.clone(),
                (!excerpt.is_empty()).then(|| excerpt.clone()),
            )),
            // apply_body routes only the kinds above here.
            _ => None,
        }
    }
}
