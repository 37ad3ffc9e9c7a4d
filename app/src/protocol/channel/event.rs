//! A run's durable events: their shared run identity, JSON form and dense sequencing.

use std::sync::Arc;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use super::{Channel, EventBody, EventDraft};
use crate::tagged::{self, TagAndContent};

/// The identity of a run: every event of it carries these (shared, not copied).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRef {
    pub tenant_id: Arc<str>,
    pub thread_id: Arc<str>,
    pub run_id: Arc<str>,
}

impl RunRef {
    pub fn new(tenant_id: &str, thread_id: &str, run_id: &str) -> Self {
        Self {
            tenant_id: tenant_id.into(),
            thread_id: thread_id.into(),
            run_id: run_id.into(),
        }
    }
}

/// One durable event of a run, as stored, streamed and projected. Its JSON form also
/// carries `tool_call_id` and `request_id`, taken from the body when written (see
/// [`RunEvent::tool_call_id`]) so every reader can route without knowing each kind.
#[derive(Clone, Debug, PartialEq)]
pub struct RunEvent {
    /// The run the event belongs to, shared by all its events: placing or dropping an
    /// event touches one reference count, not three.
    pub run: Arc<RunRef>,
    /// Dense and monotonic per run, starting at 1.
    pub sequence: u64,
    pub channel: Channel,
    /// Written as `kind` and `payload` beside the other fields.
    pub body: EventBody,
    /// Unix milliseconds.
    pub ts: i64,
    /// Position of the raw upstream event this one was normalized from.
    pub upstream: Option<u64>,
}

/// The written form of a [`RunEvent`]: the body's routing ids repeated at the top level.
#[derive(Serialize)]
struct RunEventOut<'a> {
    tenant_id: &'a str,
    thread_id: &'a str,
    run_id: &'a str,
    sequence: u64,
    channel: Channel,
    kind: &'static str,
    payload: tagged::Content<'a, EventBody>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    request_id: Option<&'a str>,
    ts: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    upstream: Option<u64>,
}

impl Serialize for RunEvent {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RunEventOut {
            tenant_id: &self.run.tenant_id,
            thread_id: &self.run.thread_id,
            run_id: &self.run.run_id,
            sequence: self.sequence,
            channel: self.channel,
            // The derive's name, which is what the reader matches.
            kind: tagged::variant_name(&self.body).map_err(serde::ser::Error::custom)?,
            payload: tagged::Content(&self.body),
            tool_call_id: self.tool_call_id(),
            request_id: self.request_id(),
            ts: self.ts,
            upstream: self.upstream,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RunEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(RunEventVisitor)
    }
}

struct RunEventVisitor;

impl<'de> Visitor<'de> for RunEventVisitor {
    type Value = RunEvent;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a run event object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RunEvent, A::Error> {
        use serde::de::Error;
        let (mut tenant_id, mut thread_id, mut run_id) = (None, None, None);
        let (mut sequence, mut channel, mut ts, mut upstream) = (None, None, None, None);
        let mut body = TagAndContent::<EventBody>::new("kind", "payload");
        while let Some(tagged::Text(key)) = map.next_key()? {
            match &*key {
                "tenant_id" => tenant_id = Some(map.next_value::<Arc<str>>()?),
                "thread_id" => thread_id = Some(map.next_value::<Arc<str>>()?),
                "run_id" => run_id = Some(map.next_value::<Arc<str>>()?),
                "sequence" => sequence = Some(map.next_value::<u64>()?),
                "channel" => channel = Some(map.next_value::<Channel>()?),
                "ts" => ts = Some(map.next_value::<i64>()?),
                "upstream" => upstream = map.next_value::<Option<u64>>()?,
                // Written from the body; read back from it.
                _ if body.read(&key, &mut map)? => {}
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(RunEvent {
            run: Arc::new(RunRef {
                tenant_id: tenant_id.ok_or_else(|| A::Error::missing_field("tenant_id"))?,
                thread_id: thread_id.ok_or_else(|| A::Error::missing_field("thread_id"))?,
                run_id: run_id.ok_or_else(|| A::Error::missing_field("run_id"))?,
            }),
            sequence: sequence.ok_or_else(|| A::Error::missing_field("sequence"))?,
            channel: channel.ok_or_else(|| A::Error::missing_field("channel"))?,
            body: body.finish()?,
            ts: ts.ok_or_else(|| A::Error::missing_field("ts"))?,
            upstream,
        })
    }
}

impl RunEvent {
    /// Places a draft in a run at `sequence`; `now_ms` stands in for a missing upstream time.
    pub fn from_draft(run: &Arc<RunRef>, sequence: u64, draft: EventDraft, now_ms: i64) -> Self {
        Self {
            run: Arc::clone(run),
            sequence,
            channel: draft.channel,
            body: draft.body,
            ts: draft.ts.unwrap_or(now_ms),
            upstream: draft.upstream,
        }
    }

    pub fn kind(&self) -> &'static str {
        self.body.kind()
    }

    pub fn tenant_id(&self) -> &str {
        &self.run.tenant_id
    }

    pub fn thread_id(&self) -> &str {
        &self.run.thread_id
    }

    pub fn run_id(&self) -> &str {
        &self.run.run_id
    }

    /// The tool call this event concerns, if any.
    pub fn tool_call_id(&self) -> Option<&str> {
        self.body.tool_call_id()
    }

    /// The ask or gateway request this event concerns, if any.
    pub fn request_id(&self) -> Option<&str> {
        self.body.request_id()
    }
}

/// Assigns dense sequence numbers to drafts of one run.
#[derive(Clone, Debug)]
pub struct Sequencer {
    run: Arc<RunRef>,
    next: u64,
}

impl Sequencer {
    pub fn new(run: RunRef) -> Self {
        Self {
            run: Arc::new(run),
            next: 1,
        }
    }

    /// Continues a run whose last stored event is `last_sequence`.
    pub fn resume(run: RunRef, last_sequence: u64) -> Self {
        Self {
            run: Arc::new(run),
            next: last_sequence + 1,
        }
    }

    pub fn place(&mut self, draft: EventDraft, now_ms: i64) -> RunEvent {
        let event = RunEvent::from_draft(&self.run, self.next, draft, now_ms);
        self.next += 1;
        event
    }

    pub fn run(&self) -> &RunRef {
        &self.run
    }
}
