//! Who may call which route: one table of the role each route needs (and the action the
//! audit trail records for each change), the few routes open to anyone, and a default that
//! denies — a route missing from the table needs an owner unless it only reads.

use app::model::Role;
use axum::http::Method;

/// What a request to a route must present.
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

/// Where the built-in demo agents are mounted.
pub const DEMO_PREFIX: &str = "/demo/";

/// Routes open to anyone. The bundle and icons carry nothing of any tenant.
const PUBLIC: &[&str] = &[
    "/healthz",
    "/login",
    "/setup",
    "/favicon.svg",
    "/api/v1/auth/login",
    "/api/v1/auth/setup",
    "/api/v1/auth/logout",
    "/auth/login",
    "/auth/setup",
    "/auth/logout",
];

/// Everything under these prefixes is open to anyone.
const PUBLIC_PREFIXES: &[&str] = &["/pkg/"];

/// Requests that change state: the role each needs and the action the audit trail
/// records when one succeeds; `{}` stands for one path segment, and a pattern that starts
/// with a method is for that method only.
const CHANGES: &[(&str, Role, &str)] = &[
    ("/api/v1/tenants", Role::Owner, "tenant.create"),
    ("/api/v1/threads", Role::Operator, "thread.create"),
    ("/api/v1/threads/{}/messages", Role::Operator, "run.start"),
    ("PATCH /api/v1/threads/{}", Role::Operator, "thread.archive"),
    (
        "/api/v1/threads/{}/surface-actions",
        Role::Operator,
        "surface.action",
    ),
    ("/api/v1/runs/{}/cancel", Role::Operator, "run.cancel"),
    ("/api/v1/runs/{}/retry", Role::Operator, "run.retry"),
    ("/api/v1/asks/{}/receipt", Role::Operator, "ask.answer"),
    ("POST /api/v1/notes", Role::Operator, "note.create"),
    ("PATCH /api/v1/notes/{}", Role::Operator, "note.edit"),
    ("DELETE /api/v1/notes/{}", Role::Operator, "note.delete"),
    ("POST /api/v1/projects", Role::Operator, "project.create"),
    ("POST /api/v1/memory", Role::Operator, "memory.change"),
    (
        "POST /api/v1/memory/proposals",
        Role::Operator,
        "memory.propose",
    ),
    (
        "PUT /api/v1/memory/settings",
        Role::Owner,
        "memory.settings",
    ),
    ("PATCH /api/v1/memory/{}", Role::Operator, "memory.edit"),
    ("DELETE /api/v1/memory/{}", Role::Operator, "memory.delete"),
    (
        "POST /api/v1/memory/review/{}/accept",
        Role::Operator,
        "memory.accept",
    ),
    (
        "POST /api/v1/memory/review/{}/reject",
        Role::Operator,
        "memory.reject",
    ),
    (
        "PUT /api/v1/threads/{}/context",
        Role::Operator,
        "thread.pin",
    ),
    (
        "PUT /api/v1/projects/{}/context",
        Role::Operator,
        "project.pin",
    ),
    ("PATCH /api/v1/projects/{}", Role::Operator, "project.edit"),
    (
        "DELETE /api/v1/projects/{}",
        Role::Operator,
        "project.delete",
    ),
    ("PUT /api/v1/tools/{}", Role::Owner, "tools.policy"),
    ("POST /api/v1/passvault", Role::Owner, "passvault.create"),
    ("PATCH /api/v1/passvault/{}", Role::Owner, "passvault.edit"),
    (
        "DELETE /api/v1/passvault/{}",
        Role::Owner,
        "passvault.delete",
    ),
    (
        "POST /api/v1/passvault/{}/reveal",
        Role::Owner,
        "passvault.reveal",
    ),
    (
        "/api/v1/notes/{}/versions/{}/restore",
        Role::Operator,
        "note.restore",
    ),
    (
        "/api/v1/auth/logout-everywhere",
        Role::Viewer,
        "session.end_all",
    ),
    ("/auth/tenant", Role::Viewer, "session.switch_tenant"),
    ("/auth/logout-everywhere", Role::Viewer, "session.end_all"),
    // Only the caller's own list: which hosts their browser loads media from.
    ("/fn/set_media_hosts", Role::Viewer, "media_hosts.set"),
    ("/auth/new-tenant", Role::Owner, "tenant.create"),
    // Only the caller's own invitations: accepting one joins the tenant that invited.
    ("/auth/invitation", Role::Viewer, "invitation.answer"),
    ("/fn/create_thread", Role::Operator, "thread.create"),
    ("/fn/rename_thread", Role::Operator, "thread.rename"),
    ("/fn/archive_thread", Role::Operator, "thread.archive"),
    ("/fn/bind_agent", Role::Operator, "thread.bind_agent"),
    ("/fn/send_message", Role::Operator, "run.start"),
    ("/fn/send_surface_action", Role::Operator, "surface.action"),
    ("/fn/retry_run", Role::Operator, "run.retry"),
    ("/fn/cancel_run", Role::Operator, "run.cancel"),
    ("/fn/answer_ask", Role::Operator, "ask.answer"),
    ("/fn/create_note", Role::Operator, "note.create"),
    ("/fn/edit_note", Role::Operator, "note.edit"),
    ("/fn/delete_note", Role::Operator, "note.delete"),
    ("/fn/restore_note", Role::Operator, "note.restore"),
    ("/fn/create_project", Role::Operator, "project.create"),
    ("/fn/edit_project", Role::Operator, "project.edit"),
    ("/fn/archive_project", Role::Operator, "project.archive"),
    ("/fn/delete_project", Role::Operator, "project.delete"),
    ("/fn/pin_notes", Role::Operator, "thread.pin"),
    ("/fn/pin_memory", Role::Operator, "thread.pin"),
    ("/fn/remember", Role::Operator, "memory.change"),
    ("/fn/edit_memory", Role::Operator, "memory.edit"),
    ("/fn/forget", Role::Operator, "memory.delete"),
    ("/fn/decide_memory", Role::Operator, "memory.review"),
    ("/fn/set_memory_settings", Role::Owner, "memory.settings"),
    ("/fn/set_tool_policy", Role::Owner, "tools.policy"),
    ("/fn/create_secret", Role::Owner, "passvault.create"),
    ("/fn/edit_secret", Role::Owner, "passvault.edit"),
    ("/fn/delete_secret", Role::Owner, "passvault.delete"),
    ("/fn/reveal_secret", Role::Owner, "passvault.reveal"),
    ("/fn/add_member", Role::Owner, "member.add"),
    ("/fn/set_member_role", Role::Owner, "member.set_role"),
    ("/fn/remove_member", Role::Owner, "member.remove"),
    ("/fn/withdraw_invitation", Role::Owner, "member.uninvite"),
    ("/fn/create_token", Role::Owner, "token.create"),
    ("/fn/revoke_token", Role::Owner, "token.revoke"),
];

/// Reads only an owner may make: the audit trail, the members and the tokens.
const OWNER_READS: &[&str] = &[
    "/api/v1/audit",
    "/audit",
    "/fn/audit",
    "/members",
    "/fn/members",
    "/fn/invitations",
    "/fn/tokens",
];

/// Server functions that only read: called with POST like every server function.
const READING_FUNCTIONS: &[&str] = &[
    "/fn/me",
    "/fn/list_threads",
    "/fn/inbox",
    "/fn/search_threads",
    "/fn/get_thread",
    "/fn/thread_page",
    "/fn/run_arrivals",
    "/fn/agent_environments",
    "/fn/notes",
    "/fn/note",
    "/fn/note_versions",
    "/fn/note_version",
    "/fn/projects",
    "/fn/project_page",
    "/fn/agents",
    "/fn/thread_context",
    "/fn/memory",
    "/fn/memory_review",
    "/fn/memory_settings",
    "/fn/tool_settings",
    "/fn/memory_to_pin",
    "/fn/notes_to_pin",
    "/fn/passvault",
    "/fn/vault_matches",
    "/fn/highlight_code",
    "/fn/gallery_payloads",
    "/fn/media_hosts",
];

pub fn access(method: &Method, path: &str) -> Access {
    if path.starts_with(DEMO_PREFIX) {
        return Access::Demo;
    }
    if PUBLIC.contains(&path)
        || PUBLIC_PREFIXES
            .iter()
            .any(|prefix| path.starts_with(prefix))
    {
        return Access::Public;
    }
    if OWNER_READS.contains(&path) {
        return Access::Needs(Role::Owner);
    }
    let reads = *method == Method::GET || *method == Method::HEAD;
    if reads && !path.starts_with("/fn/") || READING_FUNCTIONS.contains(&path) {
        return Access::Needs(Role::Viewer);
    }
    match change(method, path) {
        Some((_, role, _)) => Access::Needs(*role),
        None => Access::Needs(Role::Owner),
    }
}

fn change(method: &Method, path: &str) -> Option<&'static (&'static str, Role, &'static str)> {
    CHANGES
        .iter()
        .find(|(pattern, _, _)| match pattern.split_once(' ') {
            Some((only, pattern)) => only == method.as_str() && matches_pattern(pattern, path),
            None => matches_pattern(pattern, path),
        })
}

/// The action the audit trail records for a request that changes state, if it does.
/// Changes whose handler writes its own audit entry, in the trail of the tenant the
/// change concerns rather than the one the request acts in: answering an invitation
/// (in the inviting tenant's trail), entering another tenant and founding one (in that
/// tenant's) must not tell the user's current tenant which other tenants they belong to.
const SELF_AUDITED: &[&str] = &[
    "/auth/invitation",
    "/auth/tenant",
    "/auth/new-tenant",
    "/api/v1/tenants",
];

pub fn audited(method: &Method, path: &str) -> Option<&'static str> {
    if *method == Method::GET
        || *method == Method::HEAD
        || READING_FUNCTIONS.contains(&path)
        || SELF_AUDITED.contains(&path)
    {
        return None;
    }
    change(method, path).map(|(_, _, action)| *action)
}

/// Whether `path` is `pattern` with each `{}` standing for one non-empty segment.
fn matches_pattern(pattern: &str, path: &str) -> bool {
    let mut wanted = pattern.split('/');
    let mut given = path.split('/');
    loop {
        match (wanted.next(), given.next()) {
            (None, None) => return true,
            (Some("{}"), Some(segment)) if !segment.is_empty() => {}
            (Some(part), Some(segment)) if part == segment => {}
            _ => return false,
        }
    }
}

/// Whether a request for `path` is for a page a browser shows (rather than data or an
/// action): pages send a signed-out browser to the sign-in page instead of answering 401.
pub fn is_page(method: &Method, path: &str) -> bool {
    *method == Method::GET && !path.starts_with("/api/") && !path.starts_with("/fn/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signing_in_and_the_bundle_are_open_and_nothing_else_is() {
        for path in [
            "/healthz",
            "/login",
            "/setup",
            "/pkg/agent_os.js",
            "/api/v1/auth/login",
        ] {
            assert_eq!(access(&Method::GET, path), Access::Public, "{path}");
        }
        for path in [
            "/",
            "/threads/t1",
            "/api/v1/runs/r1",
            "/api/v1/me",
            "/pkgx",
            "/login/x",
        ] {
            assert_eq!(
                access(&Method::GET, path),
                Access::Needs(Role::Viewer),
                "{path}"
            );
        }
    }

    #[test]
    fn changes_need_an_operator_and_unknown_changes_an_owner() {
        let post = |path| access(&Method::POST, path);
        assert_eq!(
            post("/api/v1/asks/k1/receipt"),
            Access::Needs(Role::Operator)
        );
        assert_eq!(
            post("/api/v1/threads/t1/messages"),
            Access::Needs(Role::Operator)
        );
        assert_eq!(post("/fn/answer_ask"), Access::Needs(Role::Operator));
        assert_eq!(post("/fn/thread_page"), Access::Needs(Role::Viewer));
        assert_eq!(post("/api/v1/tenants"), Access::Needs(Role::Owner));
        // Not in the table: denied to all but owners, whatever the method.
        assert_eq!(post("/api/v1/asks//receipt"), Access::Needs(Role::Owner));
        assert_eq!(
            post("/api/v1/threads/t1/messages/x"),
            Access::Needs(Role::Owner)
        );
        assert_eq!(post("/fn/something_new"), Access::Needs(Role::Owner));
        assert_eq!(access(&Method::GET, "/fn/me"), Access::Needs(Role::Viewer));
        assert_eq!(
            access(&Method::GET, "/fn/answer_ask"),
            Access::Needs(Role::Operator)
        );
        assert_eq!(
            access(&Method::DELETE, "/api/v1/runs/r1"),
            Access::Needs(Role::Owner)
        );
    }

    #[test]
    fn a_pattern_with_a_method_is_for_that_method_only() {
        assert_eq!(
            access(&Method::PATCH, "/api/v1/notes/n1"),
            Access::Needs(Role::Operator)
        );
        assert_eq!(
            access(&Method::DELETE, "/api/v1/notes/n1"),
            Access::Needs(Role::Operator)
        );
        // Not a method the table names for this path: owners only.
        assert_eq!(
            access(&Method::PUT, "/api/v1/notes/n1"),
            Access::Needs(Role::Owner)
        );
        assert_eq!(
            audited(&Method::DELETE, "/api/v1/notes/n1"),
            Some("note.delete")
        );
        assert_eq!(audited(&Method::POST, "/api/v1/notes"), Some("note.create"));
    }

    #[test]
    fn the_passvault_is_read_by_everyone_in_the_tenant_and_kept_by_owners() {
        for (method, path) in [
            (Method::GET, "/passvault"),
            (Method::GET, "/api/v1/passvault"),
            (Method::GET, "/api/v1/passvault/e1"),
            (Method::POST, "/fn/vault_matches"),
        ] {
            assert_eq!(access(&method, path), Access::Needs(Role::Viewer), "{path}");
        }
        for (method, path) in [
            (Method::POST, "/api/v1/passvault"),
            (Method::PATCH, "/api/v1/passvault/e1"),
            (Method::DELETE, "/api/v1/passvault/e1"),
            (Method::POST, "/api/v1/passvault/e1/reveal"),
            (Method::POST, "/fn/reveal_secret"),
        ] {
            assert_eq!(access(&method, path), Access::Needs(Role::Owner), "{path}");
        }
        assert_eq!(
            audited(&Method::POST, "/api/v1/passvault/e1/reveal"),
            Some("passvault.reveal")
        );
        assert_eq!(audited(&Method::POST, "/fn/vault_matches"), None);
    }

    #[test]
    fn the_audit_is_for_owners_and_records_changes_only() {
        for path in ["/audit", "/api/v1/audit"] {
            assert_eq!(
                access(&Method::GET, path),
                Access::Needs(Role::Owner),
                "{path}"
            );
        }
        assert_eq!(
            access(&Method::POST, "/fn/audit"),
            Access::Needs(Role::Owner)
        );
        assert_eq!(
            audited(&Method::POST, "/api/v1/asks/k/receipt"),
            Some("ask.answer")
        );
        assert_eq!(
            audited(&Method::POST, "/fn/send_message"),
            Some("run.start")
        );
        assert_eq!(audited(&Method::GET, "/api/v1/threads"), None);
        assert_eq!(audited(&Method::POST, "/fn/thread_page"), None);
        assert_eq!(audited(&Method::POST, "/fn/unknown"), None);
    }

    #[test]
    fn pages_are_what_a_browser_navigates_to() {
        assert!(is_page(&Method::GET, "/threads/t1"));
        assert!(!is_page(&Method::GET, "/api/v1/threads"));
        assert!(!is_page(&Method::POST, "/fn/me"));
        assert!(!is_page(&Method::POST, "/"));
    }
}
