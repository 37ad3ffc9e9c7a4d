//! Every operation the console serves, declared once: its method and path, who may call
//! it, what the audit trail records of it, its query, body and answer, and what serves
//! it. The router, the access policy, the audit, the server-function gate, the OpenAPI
//! description and the tests' access probes are all read from this one list; a path it
//! does not name is not served.
//!
//! Each resource declares its own operations beside its handlers (`threads.rs`,
//! `notes.rs`, …); the router gathers them into one [`Operations`].

pub(super) mod functions;
mod matching;
pub mod openapi;
pub(super) mod pages;

use app::model::Role;
use axum::http::Method;
use axum::routing::{MethodFilter, MethodRouter};
use schemars::{JsonSchema, Schema, SchemaGenerator};

use super::state::AppState;

pub use matching::{Found, fits};

/// An HTTP method the console serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verb {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl Verb {
    pub fn method(self) -> Method {
        match self {
            Verb::Get => Method::GET,
            Verb::Post => Method::POST,
            Verb::Put => Method::PUT,
            Verb::Patch => Method::PATCH,
            Verb::Delete => Method::DELETE,
        }
    }

    pub fn filter(self) -> MethodFilter {
        match self {
            Verb::Get => MethodFilter::GET,
            Verb::Post => MethodFilter::POST,
            Verb::Put => MethodFilter::PUT,
            Verb::Patch => MethodFilter::PATCH,
            Verb::Delete => MethodFilter::DELETE,
        }
    }

    /// The verb of a request's method; HEAD is served as GET.
    pub fn of(method: &Method) -> Option<Verb> {
        Some(match *method {
            Method::GET | Method::HEAD => Verb::Get,
            Method::POST => Verb::Post,
            Method::PUT => Verb::Put,
            Method::PATCH => Verb::Patch,
            Method::DELETE => Verb::Delete,
            _ => return None,
        })
    }
}

/// What a request to an operation must present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Anyone, signed in or not: signing in itself, the health check, the bundle.
    Public,
    /// A session or token with at least this role in its tenant.
    Needs(Role),
    /// The built-in demo agents: only with the demo key (what the console's own demo
    /// connectors send).
    Demo,
}

/// What the audit trail records when a call succeeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Audit {
    /// Nothing: the call only reads.
    Reads,
    /// This action, in the trail of the tenant the request acts in, with the ids named.
    Records(&'static str),
    /// The handler writes its own entry, in the trail of the tenant the change concerns
    /// (entering a tenant, founding one, answering its invitation): the trail of the
    /// tenant acted from must not name the member's other tenants.
    RecordedByHandler,
}

/// A type's JSON Schema, as the OpenAPI description shows it.
pub type SchemaOf = fn(&mut SchemaGenerator) -> Schema;

/// [`SchemaOf`] for `T`.
pub fn schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// What a request carries.
#[derive(Clone, Copy)]
pub enum Body {
    None,
    /// A JSON body of this type (`Content-Type: application/json`).
    Json(SchemaOf),
    /// A form (`application/x-www-form-urlencoded`): the console's own forms and server
    /// functions.
    Form,
    /// The body is the peer's to read (the demo agents').
    Any,
}

/// What a successful call answers.
#[derive(Clone, Copy)]
pub enum Answer {
    /// JSON of this type, with this status.
    Json(u16, SchemaOf),
    /// No body (204).
    Empty,
    /// Server-Sent Events, until the client goes or the stream ends.
    Events,
    /// An HTML page.
    Page,
    /// A redirect (303), the console's forms.
    Redirect,
    /// A file of the built site, or plain text.
    File,
    /// Whatever the peer answers (the demo agents).
    Any,
}

/// The handler an operation is served by, mounted for its verb.
pub type Handler = fn(MethodFilter) -> MethodRouter<AppState>;

/// What serves an operation.
#[derive(Clone, Copy)]
pub enum Serve {
    Handler(Handler),
    /// A Leptos server function (`/fn/NAME`), registered by its `#[server]` attribute.
    Function,
    /// A page the Leptos router renders.
    Page,
    /// A file of the built site.
    Asset,
    /// The demo agents, mounted under `/demo`.
    Demo,
}

/// One operation.
#[derive(Clone, Copy)]
pub struct Operation {
    pub verb: Verb,
    /// `/api/v1/notes/{id}`: `{name}` is one path segment, `{*name}` the rest of the path.
    pub path: &'static str,
    pub summary: &'static str,
    pub access: Access,
    pub audit: Audit,
    pub query: Option<SchemaOf>,
    pub body: Body,
    pub answer: Answer,
    pub serve: Serve,
    /// A body the operation accepts, for the access probes and the description.
    pub example: Option<&'static str>,
    /// A second success status the JSON answer may come with (201 created or 200 applied).
    pub also: Option<u16>,
    /// What the call makes: the collection its object is read under, and where the new
    /// object's id is in the answer (a JSON pointer). The description links them, so a
    /// client (the fuzzer) can follow a create to its object.
    pub creates: Option<(&'static str, &'static str)>,
}

impl Operation {
    /// An operation for viewers that reads and answers nothing yet; the builders below
    /// set the rest.
    pub const fn new(verb: Verb, path: &'static str, summary: &'static str) -> Self {
        Self {
            verb,
            path,
            summary,
            access: Access::Needs(Role::Viewer),
            audit: Audit::Reads,
            query: None,
            body: Body::None,
            answer: Answer::Empty,
            serve: Serve::Function,
            example: None,
            also: None,
            creates: None,
        }
    }

    pub const fn get(path: &'static str, summary: &'static str) -> Self {
        Self::new(Verb::Get, path, summary)
    }

    pub const fn post(path: &'static str, summary: &'static str) -> Self {
        Self::new(Verb::Post, path, summary)
    }

    pub const fn put(path: &'static str, summary: &'static str) -> Self {
        Self::new(Verb::Put, path, summary)
    }

    pub const fn patch(path: &'static str, summary: &'static str) -> Self {
        Self::new(Verb::Patch, path, summary)
    }

    pub const fn delete(path: &'static str, summary: &'static str) -> Self {
        Self::new(Verb::Delete, path, summary)
    }

    pub const fn public(mut self) -> Self {
        self.access = Access::Public;
        self
    }

    pub const fn needs(mut self, role: Role) -> Self {
        self.access = Access::Needs(role);
        self
    }

    pub const fn demo(mut self) -> Self {
        self.access = Access::Demo;
        self
    }

    /// A change, recorded in the audit trail as `action`.
    pub const fn records(mut self, action: &'static str) -> Self {
        self.audit = Audit::Records(action);
        self
    }

    pub const fn recorded_by_handler(mut self) -> Self {
        self.audit = Audit::RecordedByHandler;
        self
    }

    pub const fn query(mut self, query: SchemaOf) -> Self {
        self.query = Some(query);
        self
    }

    pub const fn json(mut self, body: SchemaOf, example: &'static str) -> Self {
        self.body = Body::Json(body);
        self.example = Some(example);
        self
    }

    pub const fn form(mut self, example: &'static str) -> Self {
        self.body = Body::Form;
        self.example = Some(example);
        self
    }

    pub const fn answers(mut self, status: u16, answer: SchemaOf) -> Self {
        self.answer = Answer::Json(status, answer);
        self
    }

    /// The call makes an object read under `collection`, its id at `pointer` in the answer.
    pub const fn creates(mut self, collection: &'static str, pointer: &'static str) -> Self {
        self.creates = Some((collection, pointer));
        self
    }

    /// The JSON answer may also come with `status`.
    pub const fn or_status(mut self, status: u16) -> Self {
        self.also = Some(status);
        self
    }

    pub const fn answer(mut self, answer: Answer) -> Self {
        self.answer = answer;
        self
    }

    pub const fn by(mut self, handler: Handler) -> Self {
        self.serve = Serve::Handler(handler);
        self
    }

    pub const fn serve(mut self, serve: Serve) -> Self {
        self.serve = serve;
        self
    }

    pub const fn body(mut self, body: Body) -> Self {
        self.body = body;
        self
    }

    /// Whether the operation changes state (and so is refused from another site).
    pub fn changes(&self) -> bool {
        self.verb != Verb::Get
    }
}

/// The operation a request calls, put on it by the request context.
#[derive(Clone, Copy)]
pub struct Called(pub &'static Operation);

/// The operations a server serves, in the order they are matched: the first whose method
/// and path fit a request is the request's.
#[derive(Clone)]
pub struct Operations(std::sync::Arc<[&'static Operation]>);

impl Operations {
    /// The resources' lists, one after the other.
    pub fn of(lists: &[&'static [Operation]]) -> Self {
        Self(lists.iter().copied().flatten().collect())
    }

    pub fn iter(&self) -> impl Iterator<Item = &'static Operation> + '_ {
        self.0.iter().copied()
    }

    /// What the list says of a request for `method` and `path`.
    pub fn find(&self, method: &axum::http::Method, path: &str) -> Found {
        matching::find(self.iter(), method, path)
    }

    /// The router of every operation served by a handler of ours: one route per path,
    /// each method the list names on it. Server functions, pages and assets are mounted by
    /// Leptos and the site's file service; the demo agents by the composition root.
    pub fn routes(&self) -> axum::Router<AppState> {
        let mut paths: Vec<(&'static str, MethodRouter<AppState>)> = Vec::new();
        for operation in self.iter() {
            let Serve::Handler(handler) = operation.serve else {
                continue;
            };
            let mounted = handler(operation.verb.filter());
            match paths.iter_mut().find(|(path, _)| *path == operation.path) {
                Some((_, methods)) => {
                    *methods = std::mem::replace(methods, MethodRouter::new()).merge(mounted);
                }
                None => paths.push((operation.path, mounted)),
            }
        }
        paths
            .into_iter()
            .fold(axum::Router::new(), |router, (path, methods)| {
                router.route(path, methods)
            })
    }

    /// The OpenAPI 3.1 description of the API the list declares.
    pub fn description(&self) -> serde_json::Value {
        openapi::description(self)
    }
}

#[cfg(test)]
mod tests;
