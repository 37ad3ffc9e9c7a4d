//! AG-UI 1.0 chunk expansion: *_CHUNK events become START / CONTENT (ARGS) / END, with
//! the 1.0 closing rules. Runs before verification.

use crate::protocol::channel::Role;

use super::wire::{AgUiEvent, Upstream};

#[derive(Clone, Debug, PartialEq)]
enum OpenChunk {
    Text {
        id: String,
        role: Role,
        name: Option<String>,
    },
    Tool {
        id: String,
        name: String,
        parent: Option<String>,
    },
    Reasoning {
        id: String,
    },
}

impl OpenChunk {
    fn close(self) -> AgUiEvent {
        match self {
            OpenChunk::Text { id, .. } => AgUiEvent::TextEnd { id },
            OpenChunk::Tool { id, .. } => AgUiEvent::ToolEnd { id },
            OpenChunk::Reasoning { id } => AgUiEvent::ReasoningMessageEnd { id },
        }
    }
}

/// Open chunk streams of one lane (the run itself, or one subagent run).
#[derive(Debug, Default)]
struct Lane {
    subagent: Option<String>,
    open: Vec<OpenChunk>,
}

/// Expands chunk events; everything else passes through, after closing what it closes.
#[derive(Debug, Default)]
pub struct ChunkExpander {
    lanes: Vec<Lane>,
}

/// What closing does to open chunk streams.
enum Closes {
    Nothing,
    Lane,
    AllLanes,
}

fn closes(event: &AgUiEvent) -> Closes {
    use AgUiEvent::*;
    match event {
        RunStarted { .. } | RunFinished { .. } | RunError { .. } | MessagesSnapshot { .. } => {
            Closes::AllLanes
        }
        Raw { .. }
        | ActivitySnapshot { .. }
        | ActivityDelta { .. }
        | ReasoningEncrypted { .. }
        | SubagentStarted { .. }
        | SubagentFinished { .. }
        | SubagentError { .. }
        | Unknown { .. } => Closes::Nothing,
        _ => Closes::Lane,
    }
}

impl ChunkExpander {
    pub fn new() -> Self {
        Self::default()
    }

    /// No chunk stream is open, so a non-chunk event passes through unchanged.
    pub fn is_idle(&self) -> bool {
        self.lanes.iter().all(|lane| lane.open.is_empty())
    }

    fn lane_index(&mut self, subagent: &Option<String>) -> usize {
        match self
            .lanes
            .iter()
            .position(|lane| lane.subagent == *subagent)
        {
            Some(index) => index,
            None => {
                self.lanes.push(Lane {
                    subagent: subagent.clone(),
                    open: Vec::new(),
                });
                self.lanes.len() - 1
            }
        }
    }

    fn close_lane(
        &mut self,
        lane: usize,
        like: &Upstream,
        out: &mut Vec<Result<Upstream, String>>,
    ) {
        for open in std::mem::take(&mut self.lanes[lane].open) {
            out.push(Ok(Upstream {
                event: open.close(),
                ts: like.ts,
                subagent: like.subagent.clone(),
            }));
        }
    }

    /// Expands one event into `out`: events to verify, or violations (`Err`).
    pub fn expand(&mut self, upstream: Upstream, out: &mut Vec<Result<Upstream, String>>) {
        let emit = |event: AgUiEvent, out: &mut Vec<Result<Upstream, String>>| {
            out.push(Ok(Upstream {
                event,
                ts: upstream.ts,
                subagent: upstream.subagent.clone(),
            }));
        };
        match &upstream.event {
            AgUiEvent::TextChunk {
                id,
                role,
                name,
                delta,
            } => {
                let lane = self.lane_index(&upstream.subagent);
                let current = self.lanes[lane].open.iter().find_map(|open| match open {
                    OpenChunk::Text { id, role, name } => Some((id.clone(), *role, name.clone())),
                    _ => None,
                });
                if let Some((open_id, open_role, open_name)) = current
                    && id.as_ref().is_none_or(|id| *id == open_id)
                {
                    if let Some(role) = role
                        && *role != open_role
                    {
                        out.push(Err(format!(
                            "TEXT_MESSAGE_CHUNK changes the role of message {open_id:?} from {open_role:?} to {role:?}"
                        )));
                        return;
                    }
                    if name.is_some() && *name != open_name {
                        out.push(Err(format!(
                            "TEXT_MESSAGE_CHUNK changes the name of message {open_id:?}"
                        )));
                        return;
                    }
                    if let Some(delta) = delta.as_ref().filter(|d| !d.is_empty()) {
                        emit(
                            AgUiEvent::TextContent {
                                id: open_id,
                                delta: delta.clone(),
                            },
                            out,
                        );
                    }
                    return;
                }
                let Some(id) = id.clone() else {
                    out.push(Err(
                        "TEXT_MESSAGE_CHUNK carries no messageId and no message is open".into(),
                    ));
                    return;
                };
                self.close_lane(lane, &upstream, out);
                let role = role.unwrap_or_default();
                emit(
                    AgUiEvent::TextStart {
                        id: id.clone(),
                        role,
                        name: name.clone(),
                    },
                    out,
                );
                if let Some(delta) = delta.as_ref().filter(|d| !d.is_empty()) {
                    emit(
                        AgUiEvent::TextContent {
                            id: id.clone(),
                            delta: delta.clone(),
                        },
                        out,
                    );
                }
                self.lanes[lane].open.push(OpenChunk::Text {
                    id,
                    role,
                    name: name.clone(),
                });
            }
            AgUiEvent::ToolChunk {
                id,
                name,
                parent,
                delta,
            } => {
                let lane = self.lane_index(&upstream.subagent);
                let current = self.lanes[lane].open.iter().find_map(|open| match open {
                    OpenChunk::Tool { id, name, parent } => {
                        Some((id.clone(), name.clone(), parent.clone()))
                    }
                    _ => None,
                });
                if let Some((open_id, open_name, open_parent)) = current
                    && id.as_ref().is_none_or(|id| *id == open_id)
                {
                    if name.as_ref().is_some_and(|name| *name != open_name) {
                        out.push(Err(format!(
                            "TOOL_CALL_CHUNK changes the name of tool call {open_id:?} from {open_name:?}"
                        )));
                        return;
                    }
                    if parent.is_some() && *parent != open_parent {
                        out.push(Err(format!(
                            "TOOL_CALL_CHUNK changes the parentMessageId of tool call {open_id:?}"
                        )));
                        return;
                    }
                    if let Some(delta) = delta.as_ref().filter(|d| !d.is_empty()) {
                        emit(
                            AgUiEvent::ToolArgs {
                                id: open_id,
                                delta: delta.clone(),
                            },
                            out,
                        );
                    }
                    return;
                }
                let Some(id) = id.clone() else {
                    out.push(Err(
                        "TOOL_CALL_CHUNK carries no toolCallId and no tool call is open".into(),
                    ));
                    return;
                };
                let Some(name) = name.clone() else {
                    out.push(Err(format!(
                        "TOOL_CALL_CHUNK opens tool call {id:?} without a toolCallName"
                    )));
                    return;
                };
                self.close_lane(lane, &upstream, out);
                emit(
                    AgUiEvent::ToolStart {
                        id: id.clone(),
                        name: name.clone(),
                        parent: parent.clone(),
                    },
                    out,
                );
                if let Some(delta) = delta.as_ref().filter(|d| !d.is_empty()) {
                    emit(
                        AgUiEvent::ToolArgs {
                            id: id.clone(),
                            delta: delta.clone(),
                        },
                        out,
                    );
                }
                self.lanes[lane].open.push(OpenChunk::Tool {
                    id,
                    name,
                    parent: parent.clone(),
                });
            }
            AgUiEvent::ReasoningChunk { id, delta } => {
                let lane = self.lane_index(&upstream.subagent);
                let current = self.lanes[lane].open.iter().find_map(|open| match open {
                    OpenChunk::Reasoning { id } => Some(id.clone()),
                    _ => None,
                });
                if let Some(open_id) = current
                    && id.as_ref().is_none_or(|id| *id == open_id)
                {
                    if let Some(delta) = delta.as_ref().filter(|d| !d.is_empty()) {
                        emit(
                            AgUiEvent::ReasoningMessageContent {
                                id: open_id,
                                delta: delta.clone(),
                            },
                            out,
                        );
                    }
                    return;
                }
                let Some(id) = id.clone() else {
                    out.push(Err(
                        "REASONING_MESSAGE_CHUNK carries no messageId and no reasoning message is open"
                            .into(),
                    ));
                    return;
                };
                self.close_lane(lane, &upstream, out);
                emit(AgUiEvent::ReasoningMessageStart { id: id.clone() }, out);
                if let Some(delta) = delta.as_ref().filter(|d| !d.is_empty()) {
                    emit(
                        AgUiEvent::ReasoningMessageContent {
                            id: id.clone(),
                            delta: delta.clone(),
                        },
                        out,
                    );
                }
                self.lanes[lane].open.push(OpenChunk::Reasoning { id });
            }
            other => {
                match closes(other) {
                    Closes::Nothing => {}
                    Closes::Lane => {
                        if let Some(lane) = self
                            .lanes
                            .iter()
                            .position(|lane| lane.subagent == upstream.subagent)
                        {
                            self.close_lane(lane, &upstream, out);
                        }
                    }
                    Closes::AllLanes => {
                        for lane in 0..self.lanes.len() {
                            self.close_lane(lane, &upstream, out);
                        }
                    }
                }
                out.push(Ok(upstream));
            }
        }
    }
}
