//! The AG-UI side of an agent runtime that offers one in its bootstrap document: runs go
//! there as AG-UI while they start; the first that cannot start (refused, unreachable)
//! moves the agent to the OpenAI APIs for good, and that run is carried by them at once
//! (nothing began on the runtime's side).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use app::protocol::openai::OpenAiApi;
use app::protocol::openai::request::Conversation;
use serde_json::Value;

use super::bootstrap;
use super::spec::OpenAiSpec;
use crate::connectors::agui::AgUiConnector;
use crate::connectors::reach::url_without_credentials;
use crate::connectors::sse_stream::{self, SendError, StreamRequest};
use crate::connectors::{ContextEntry, GivenContext, Host, RunOptions};

enum State {
    Unread,
    /// The document offers no AG-UI (or there is no document).
    Plain,
    AgUi {
        url: String,
        connector: Arc<AgUiConnector>,
        /// The API key, only when the AG-UI URL is on the runtime's own origin.
        bearer: Option<String>,
        absent: Vec<String>,
    },
    /// AG-UI was offered, and its first run could not start.
    Refused {
        url: String,
        reason: String,
    },
}

pub struct Runtime {
    reads_bootstrap: bool,
    state: Mutex<State>,
    /// The document says paused responses are continued by id.
    continues: AtomicBool,
    /// The runtime is KsADK's.
    ksadk: AtomicBool,
}

/// How an AG-UI run went.
pub enum Sent {
    /// The runtime answered; what reading its stream came to.
    Read(Result<(), String>),
    /// It did not start: the note saying so (the OpenAI APIs carry the run).
    Refused(String),
}

/// Whether a run's input is a RunAgentInput (sent over AG-UI) rather than a conversation.
pub fn sent_over_agui(input: &Value) -> bool {
    input.get("runId").is_some() && input.get("threadId").is_some()
}

/// The conversation a RunAgentInput carries, for the OpenAI APIs.
pub fn conversation_of_run_input(input: &Value) -> Conversation {
    let entries = input
        .get("context")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            Some(ContextEntry {
                description: entry.get("description")?.as_str()?.to_owned(),
                value: entry.get("value")?.as_str()?.to_owned(),
            })
        })
        .collect();
    Conversation {
        messages: input
            .get("messages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        instructions: super::instructions(&GivenContext {
            entries,
            items: Vec::new(),
        }),
        ..Conversation::default()
    }
}

fn same_origin(a: &str, b: &str) -> bool {
    match (reqwest::Url::parse(a), reqwest::Url::parse(b)) {
        (Ok(a), Ok(b)) => a.origin() == b.origin(),
        _ => false,
    }
}

impl Runtime {
    /// `reads_bootstrap`: false when the operator named the API to speak.
    pub fn new(reads_bootstrap: bool) -> Self {
        Self {
            reads_bootstrap,
            state: Mutex::new(State::Unread),
            continues: AtomicBool::new(false),
            ksadk: AtomicBool::new(false),
        }
    }

    /// The AG-UI connector for the runtime, reading its bootstrap document on first use.
    pub async fn agui(
        &self,
        host: &Host,
        spec: &OpenAiSpec,
        key: Option<&str>,
        tools: &[Value],
    ) -> Option<Arc<AgUiConnector>> {
        if !self.reads_bootstrap {
            return None;
        }
        if let Some(known) = self.known() {
            return known;
        }
        let read = bootstrap::read(host, &spec.url, key).await;
        self.continues
            .store(read.continues_responses, Ordering::SeqCst);
        self.ksadk.store(read.ksadk, Ordering::SeqCst);
        let state = match read.agui {
            Some(url) => State::AgUi {
                connector: Arc::new(AgUiConnector::new(
                    &spec.name,
                    &url,
                    tools.to_vec(),
                    Vec::new(),
                )),
                bearer: key
                    .filter(|_| same_origin(&url, &spec.url))
                    .map(str::to_owned),
                url,
                absent: read.absent,
            },
            None => State::Plain,
        };
        if let Ok(mut known) = self.state.lock()
            && matches!(*known, State::Unread)
        {
            *known = state;
        }
        self.known().flatten()
    }

    /// Whether the runtime's document (read by [`Runtime::agui`]) says a paused response
    /// is resumed by continuing it.
    pub fn continues_responses(&self) -> bool {
        self.continues.load(Ordering::SeqCst)
    }

    /// Whether the runtime is KsADK's (read by [`Runtime::agui`]).
    pub fn is_ksadk(&self) -> bool {
        self.ksadk.load(Ordering::SeqCst)
    }

    /// `None` while the document is unread; then the connector, if AG-UI is spoken.
    fn known(&self) -> Option<Option<Arc<AgUiConnector>>> {
        let state = self.state.lock().ok()?;
        match &*state {
            State::Unread => None,
            State::AgUi { connector, .. } => Some(Some(Arc::clone(connector))),
            State::Plain | State::Refused { .. } => Some(None),
        }
    }

    /// Sends a RunAgentInput to the runtime's AG-UI URL (once: it starts a run) and reads
    /// the answer into the store.
    pub async fn send(
        &self,
        host: &Host,
        tenant_id: &str,
        run_id: &str,
        input: &Value,
        options: RunOptions,
    ) -> Sent {
        let offered = match self.state.lock().as_deref() {
            Ok(State::AgUi { url, bearer, .. }) => Some((url.clone(), bearer.clone())),
            _ => None,
        };
        let Some((url, bearer)) = offered else {
            return Sent::Refused("AG-UI is no longer spoken with this runtime.".into());
        };
        let request = StreamRequest {
            url: &url,
            body: input,
            bearer: bearer.as_deref(),
            retries: 0,
        };
        match sse_stream::send(host, &request).await {
            Ok(response) => {
                let mut normalizer = crate::connectors::agui::stream::normalizer(input, options);
                Sent::Read(
                    sse_stream::read(host, tenant_id, run_id, &url, response, &mut normalizer)
                        .await,
                )
            }
            Err(error) => {
                let reason = match error {
                    SendError::Status { status, detail } if detail.is_empty() => {
                        format!("HTTP {status}")
                    }
                    SendError::Status { status, detail } => format!("HTTP {status}: {detail}"),
                    SendError::Unanswered(message) => message,
                };
                let shown = url_without_credentials(&url);
                if let Ok(mut state) = self.state.lock() {
                    *state = State::Refused {
                        url: shown.clone(),
                        reason: reason.clone(),
                    };
                }
                Sent::Refused(format!(
                    "The runtime offers AG-UI at {shown}, but the run could not start there ({reason}); the OpenAI APIs carry it, and the runs after it."
                ))
            }
        }
    }

    /// The protocol and why, as the context pane shows them; `otherwise` is what the OpenAI
    /// negotiation says.
    pub fn shown(&self, otherwise: (String, String), api: Option<OpenAiApi>) -> (String, String) {
        let Ok(state) = self.state.lock() else {
            return otherwise;
        };
        match &*state {
            State::Unread if self.reads_bootstrap && api.is_none() => (
                otherwise.0,
                "not asked yet: the first run reads the runtime's bootstrap document and speaks AG-UI if it offers it, else the Responses API, else Chat Completions".into(),
            ),
            State::AgUi { absent, url, .. } => {
                let mut because = if self.is_ksadk() {
                    format!(
                        "KsADK's bootstrap (POST …{}) lists it, at {}",
                        bootstrap::KSADK_BOOTSTRAP,
                        url_without_credentials(url)
                    )
                } else {
                    "the runtime's bootstrap document offers it (GET …/bootstrap)".to_owned()
                };
                if !absent.is_empty() {
                    because.push_str(&format!(
                        "; it reports no {}, and asks that arrive are shown all the same",
                        absent.join(", ")
                    ));
                }
                ("AG-UI".into(), because)
            }
            State::Refused { url, reason } => (
                otherwise.0,
                format!(
                    "{}; the runtime offers AG-UI at {url}, but its first run there did not start ({reason})",
                    otherwise.1
                ),
            ),
            State::Plain if self.continues_responses() => (
                otherwise.0,
                format!(
                    "{}; its bootstrap document says it continues its own responses, so a paused one is resumed by its id",
                    otherwise.1
                ),
            ),
            State::Plain if self.is_ksadk() => (
                otherwise.0,
                format!(
                    "{}; KsADK's bootstrap (POST …{}) lists no AG-UI; each thread is one of its sessions, which keeps the conversation",
                    otherwise.1,
                    bootstrap::KSADK_BOOTSTRAP
                ),
            ),
            State::Unread | State::Plain => otherwise,
        }
    }
}
