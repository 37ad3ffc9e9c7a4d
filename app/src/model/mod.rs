//! Workspace records shared by the server, the browser and the REST API.

use serde::{Deserialize, Serialize};

use crate::tagged::internally_tagged;

pub mod context;
pub mod curator;
pub mod gateway_jobs;
pub mod inbox;
pub mod jobs;
pub mod kanban;
pub mod memory;
pub mod notes;
pub mod passvault;
pub mod projects;
pub mod retention;
pub mod schedules;
pub mod section;

/// Every request is scoped to a tenant; this one when nothing names another.
pub const DEFAULT_TENANT: &str = "default";

/// The header an API token picks one of its user's tenants with (a session's tenant is
/// the one it was switched to; the header does not move it).
pub const TENANT_HEADER: &str = "x-agent-os-tenant";

/// What a user may do in a tenant, each role including the ones below it: a viewer reads
/// and follows runs live; an operator also starts and stops runs, answers asks and edits
/// workspace objects; an owner also manages members and tokens.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Viewer,
    Operator,
    Owner,
}

impl Role {
    pub fn label(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Operator => "operator",
            Role::Owner => "owner",
        }
    }

    pub fn parse(text: &str) -> Result<Role, String> {
        match text {
            "viewer" => Ok(Role::Viewer),
            "operator" => Ok(Role::Operator),
            "owner" => Ok(Role::Owner),
            other => Err(format!(
                "a role is owner, operator or viewer, not {other:?}"
            )),
        }
    }

    /// Whether this role includes `needed`.
    pub fn allows(self, needed: Role) -> bool {
        self >= needed
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(self.label())
    }
}

/// Who is acting in a request and for which tenant: worked out once per request by the
/// server from the request's session or token (REST, server functions, live streams and
/// page renders alike) and handed to every handler in the request's extensions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestContext {
    pub tenant: String,
    /// The role the request acts with in `tenant`.
    pub role: Role,
    pub user_id: String,
    /// The signed-in user's name: who receipts and the audit say acted.
    pub actor: String,
    /// The API token the request came with, if it came with one.
    pub token_id: Option<String>,
    /// Every tenant the user belongs to, with the role held there.
    pub memberships: Vec<Membership>,
}

impl RequestContext {
    /// Who acted, as receipts record it: see [`acted_by`].
    pub fn acted_by(&self) -> String {
        acted_by(&self.actor, self.token_id.as_deref())
    }

    /// Refuses (403) a caller whose role does not reach `role`, naming what needed it.
    /// Services that guard their own data check this besides the route table, so a
    /// caller the table let through by mistake still cannot read or change it.
    pub fn require(&self, role: Role, doing: &str) -> Result<(), crate::error::ApiError> {
        if self.role.allows(role) {
            Ok(())
        } else {
            Err(crate::error::ApiError::Forbidden(format!(
                "{doing} needs the {role} role in tenant {:?}; you are a {}",
                self.tenant, self.role
            )))
        }
    }
}

/// Who acted, as people read it: the user, and the API token if one was used.
pub fn acted_by(user: &str, token: Option<&str>) -> String {
    match token {
        Some(token) => format!("{user} (token {token})"),
        None => user.to_owned(),
    }
}

/// A tenant a user belongs to and their role in it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Membership {
    pub tenant: String,
    pub role: Role,
}

/// The signed-in user as the console shows them: name, current tenant and role there,
/// and every tenant they may switch to.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Me {
    pub user: String,
    pub tenant: String,
    pub role: Role,
    pub memberships: Vec<Membership>,
    /// Tenants whose owners invited the user, waiting for them to accept or decline.
    #[serde(default)]
    pub invitations: Vec<Invitation>,
}

/// An owner's invitation of a user into a tenant: the user joins only if they accept.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invitation {
    pub tenant: String,
    pub user: String,
    pub role: Role,
    pub invited_by: String,
    /// Milliseconds since the Unix epoch.
    pub created_at_ms: i64,
}

/// What adding a member did: a new user made with their first password joined at once;
/// any other name was invited, and joins once its user accepts. The two read alike
/// whether a user of that name exists or not.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MemberAdded {
    Created,
    Invited,
}

/// Tenant names: 1 to 64 characters of ASCII letters, digits, `-` and `_`, so that they
/// travel unchanged in a header, a cookie and a URL.
pub fn check_tenant_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 {
        return Err(format!(
            "a tenant name has 1 to 64 characters; {name:?} has {}",
            name.len()
        ));
    }
    match name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        Some(bad) => Err(format!(
            "a tenant name uses letters, digits, '-' and '_' only; {name:?} contains {bad:?}"
        )),
        None => Ok(()),
    }
}

/// A member of a tenant, as its owners manage them.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    pub user: String,
    pub role: Role,
}

/// An API token of a tenant as listed: never the token itself, which is not kept.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenSummary {
    pub id: String,
    pub user: String,
    /// Narrower than the user's role, when set.
    pub role: Option<Role>,
    pub created_at_ms: i64,
    pub expires_at_ms: Option<i64>,
    pub revoked_at_ms: Option<i64>,
}

/// A token just created: the only time the token itself is seen.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuedToken {
    pub id: String,
    pub token: String,
}

/// One change in a tenant's audit trail: who (and by which token), what, to what, when.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// Milliseconds since the Unix epoch.
    pub at_ms: i64,
    pub user: String,
    pub token: Option<String>,
    /// What was done, as `object.verb`: `ask.answer`, `run.cancel`, `thread.create`…
    pub action: String,
    /// The ids it was done to, never what was typed.
    pub target: String,
}

/// One conversation with an agent, as listed in the sidebar.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadSummary {
    pub id: String,
    pub tenant_id: String,
    pub title: String,
    /// Milliseconds since the Unix epoch.
    pub created_at_ms: i64,
    /// The project the thread belongs to, if any.
    #[serde(default)]
    pub project_id: Option<String>,
    /// Set while the thread is archived: out of the sidebar's list, still readable,
    /// searchable and restorable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived_at_ms: Option<i64>,
    /// The project's name, where a list groups threads by project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_name: Option<String>,
    /// When its latest run started or ended, where a list says how recent each thread is;
    /// none before its first message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_at_ms: Option<i64>,
}

impl ThreadSummary {
    /// When the thread last moved: its latest run, else its creation.
    pub fn last_moved_ms(&self) -> i64 {
        self.active_at_ms
            .unwrap_or(self.created_at_ms)
            .max(self.created_at_ms)
    }
}

/// A run as the thread page lists it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSummary {
    pub id: String,
    pub agent: String,
    pub status: crate::protocol::status::RunStatus,
    pub created_at_ms: i64,
}

/// One run of a thread with its projection, as the server rendered it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunPage {
    pub run: RunSummary,
    pub view: crate::projection::RunView,
}

/// How the console reaches one configured agent, as the context pane shows it. Endpoints
/// are shown without credentials: no URL user or query, and of a command only the program.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentEnvironment {
    pub agent: String,
    /// "AG-UI" or "Hermes gateway (JSON-RPC)".
    pub protocol: String,
    /// "HTTP + SSE", "WebSocket" or "stdio".
    pub transport: String,
    pub endpoint: String,
    /// Names of the tools the console offers the agent to call back.
    pub tools: Vec<String>,
    /// Why this protocol and transport, when the console chose between several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chosen_because: Option<String>,
}

/// Something to try with an agent: the words to send and, in a line, what they do.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Starter {
    pub prompt: String,
    pub line: String,
}

impl Starter {
    pub fn new(prompt: &str, line: &str) -> Self {
        Self {
            prompt: prompt.to_owned(),
            line: line.to_owned(),
        }
    }
}

/// What a new thread is started from: the agents (the default first), what each offers
/// to try, and the project it will belong to.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThreadDraft {
    pub agents: Vec<String>,
    /// The agent a thread started here talks to unless another is chosen.
    pub agent: Option<String>,
    pub starters: Vec<(String, Vec<Starter>)>,
    /// The project's id and name, when the thread is to be started in one.
    pub project: Option<(String, String)>,
}

/// What `agent` offers to try, from each agent's starters listed default agent first
/// (the default agent's when none is chosen).
pub fn starters_of<'a>(
    starters: &'a [(String, Vec<Starter>)],
    agent: Option<&str>,
) -> &'a [Starter] {
    starters
        .iter()
        .find(|(name, _)| Some(name.as_str()) == agent)
        .or_else(|| starters.first())
        .map(|(_, starters)| starters.as_slice())
        .unwrap_or_default()
}

/// Everything the thread page shows, loaded in one request.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThreadPage {
    pub thread: ThreadSummary,
    /// The agent the thread is bound to (none until its first message).
    pub agent: Option<String>,
    pub agents: Vec<String>,
    pub runs: Vec<RunPage>,
    /// What each agent offers to try (by name, the default agent first), suggested for a
    /// new thread as its agent is chosen.
    pub suggestions: Vec<(String, Vec<Starter>)>,
    /// Every configured agent's environment, the default first.
    #[serde(default)]
    pub environments: Vec<AgentEnvironment>,
}

/// What became of an answer the user gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", rename_all = "snake_case")]
pub enum AnswerOutcome {
    Accepted,
    /// Someone (another tab, another person) answered first, or the ask expired.
    AlreadyClosed {
        state: crate::protocol::ask::AskState,
        answered_by: Option<String>,
    },
}

internally_tagged!(AnswerOutcome, "outcome");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chosen_agents_starters_are_offered_else_the_default_agents() {
        let listed = vec![
            ("demo".to_owned(), vec![Starter::new("plan", "A plan")]),
            ("hermes".to_owned(), vec![Starter::new("idle", "Goes idle")]),
        ];
        assert_eq!(starters_of(&listed, Some("hermes"))[0].prompt, "idle");
        assert_eq!(starters_of(&listed, None)[0].prompt, "plan");
        assert_eq!(starters_of(&listed, Some("gone"))[0].prompt, "plan");
        assert!(starters_of(&[], Some("demo")).is_empty());
    }

    #[test]
    fn a_role_below_the_one_needed_is_refused_saying_what_needed_it() {
        let context = |role: Role| RequestContext {
            tenant: "acme".into(),
            role,
            user_id: "u".into(),
            actor: "bob".into(),
            token_id: None,
            memberships: Vec::new(),
        };
        let refused = context(Role::Viewer)
            .require(Role::Owner, "reading the audit trail")
            .unwrap_err();
        assert!(matches!(refused, crate::error::ApiError::Forbidden(_)));
        assert!(
            refused
                .to_string()
                .contains("reading the audit trail needs the owner role"),
            "{refused}"
        );
        assert!(context(Role::Owner).require(Role::Owner, "x").is_ok());
        assert!(context(Role::Owner).require(Role::Viewer, "x").is_ok());
    }

    #[test]
    fn tenant_names_are_checked_with_a_reason() {
        assert!(check_tenant_name("team-7_b").is_ok());
        assert!(check_tenant_name("").unwrap_err().contains("1 to 64"));
        assert!(
            check_tenant_name(&"x".repeat(65))
                .unwrap_err()
                .contains("has 65")
        );
        assert!(check_tenant_name("a/b").unwrap_err().contains("'/'"));
    }
}
