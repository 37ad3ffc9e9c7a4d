//! The probe data of `access.rs`: for each operation of the console's list, the concrete
//! calls that probe it — path and body, with placeholders for the objects probed. Who may
//! make each call is the operation's own declaration, never repeated here; an operation
//! with no entry here fails the test, so the table is complete by construction.

use app::model::Role;
use reqwest::Method;
use server::http::operations::{self, Access, Serve};

/// How a call is made.
#[derive(Clone, Copy)]
pub enum Body {
    None,
    Json(&'static str),
    Form(&'static str),
}

/// An action on the demo's board surface (which declares none: refused as a bad request
/// to those allowed to try).
const SURFACE_ACTION: &str =
    r#"{"surfaceId":"board-watch","sourceComponentId":"root","name":"probe"}"#;

/// A schedule made paused, so that probing makes no fires.
pub const PAUSED_SCHEDULE: &str = r#"{"name":"probed","agent":"demo","prompt":"hello","when":{"kind":"cron","expression":"0 9 * * 1"},"timezone":"UTC","paused_reason":"probe"}"#;

pub const RECEIPT: &str = r#"{"channel":"tool-result","receipt":{"toolCallId":"approve-budget","component":"approval_card","action":"once","data":{},"ts":"2026-12-04T12:00:00Z"}}"#;

/// One call: method, path (`{T}` thread, `{R}` run, `{K}` ask key, `{N}` a note, `{J}` a
/// project, `{M}` a memory entry, `{V}` a passvault entry, `{X}` a token, `{L}` a memory
/// proposal; `{D}` and `{E}` notes, `{Q}` and `{W}` projects, `{Y}` and `{Z}` passvault
/// entries, `{G}` and `{H}` memory entries of the persona's own to delete; `{S}` a
/// schedule, `{B}` a job, `{O}` and `{U}` schedules of the persona's own to delete; `{A}` a
/// curator pass, `{C}` a change in its ledger; `{F}` a board, `{I}` a card on it, `{BD}` a
/// board of the persona's own to delete; `{P}` the
/// persona's name, `{TENANT}` its tenant), body; the role its operation declares, and
/// whether it names an object of the tenant (so another tenant gets 404).
pub struct Probe {
    pub method: Method,
    pub path: &'static str,
    pub body: Body,
    pub needs: Role,
    pub names_object: bool,
}

/// Whether `text` names an object of the tenant (a placeholder other than the persona).
fn names_object(text: &str) -> bool {
    [
        "{T}", "{R}", "{K}", "{N}", "{J}", "{M}", "{V}", "{X}", "{L}", "{D}", "{E}", "{Q}", "{W}",
        "{Y}", "{Z}", "{G}", "{H}", "{S}", "{B}", "{O}", "{U}", "{A}", "{C}", "{F}", "{I}", "{BD}",
    ]
    .iter()
    .any(|placeholder| text.contains(placeholder))
}

/// Every probe: each operation that needs a role, called as the table says.
pub fn probes() -> Vec<Probe> {
    let table = table();
    let mut used = vec![false; table.len()];
    let mut probes = Vec::new();
    for operation in server::http::operations().iter() {
        let Access::Needs(needs) = operation.access else {
            continue;
        };
        if matches!(operation.serve, Serve::Asset | Serve::Demo) {
            continue;
        }
        let method = operation.verb.method();
        let mut found = false;
        for (index, (called, path, body)) in table.iter().enumerate() {
            let bare = path.split('?').next().unwrap_or(path);
            if *called != method || !operations::fits(operation.path, bare) {
                continue;
            }
            found = true;
            used[index] = true;
            // An object named in the path, or in a server function's form, is what the
            // call acts on; one named in a JSON body is a field of what it makes.
            let named =
                names_object(bare) || matches!(body, Body::Form(form) if names_object(form));
            probes.push(Probe {
                method: method.clone(),
                path,
                body: *body,
                needs,
                names_object: named,
            });
        }
        assert!(
            found,
            "no probe for {method} {}: add its calls to tests/access/probes.rs",
            operation.path
        );
    }
    for (index, (method, path, _)) in table.iter().enumerate() {
        assert!(used[index], "{method} {path} probes no declared operation");
    }
    // Ending a persona's sessions comes after everything else it calls.
    probes.sort_by_key(|probe| probe.path.contains("logout"));
    probes
}

fn table() -> Vec<(Method, &'static str, Body)> {
    use Body::{Form, Json};
    let mut table = vec![
        (Method::GET, "/api/v1/me", Body::None),
        (Method::GET, "/api/v1/agents", Body::None),
        (Method::GET, "/api/v1/tenants", Body::None),
        (Method::GET, "/api/v1/threads", Body::None),
        (Method::GET, "/api/v1/threads/{T}", Body::None),
        (Method::GET, "/api/v1/runs/{R}", Body::None),
        (Method::GET, "/api/v1/runs/{R}/events", Body::None),
        (Method::GET, "/api/v1/asks", Body::None),
        (Method::GET, "/api/v1/inbox", Body::None),
        (Method::GET, "/api/v1/audit", Body::None),
        (Method::GET, "/api/v1/asks/{K}", Body::None),
        (Method::POST, "/api/v1/asks/{K}/receipt", Json(RECEIPT)),
        (
            Method::PATCH,
            "/api/v1/threads/{T}",
            Json(r#"{"archived":false}"#),
        ),
        (
            Method::POST,
            "/api/v1/threads/{T}/messages",
            Json(r#"{"text":"probe"}"#),
        ),
        (
            Method::POST,
            "/api/v1/threads/{T}/surface-actions",
            Json(SURFACE_ACTION),
        ),
        (Method::POST, "/api/v1/runs/{R}/retry", Body::None),
        (Method::POST, "/api/v1/runs/{R}/cancel", Body::None),
        (Method::POST, "/api/v1/threads", Json("{}")),
        (Method::GET, "/api/v1/notes", Body::None),
        (Method::GET, "/api/v1/notes?q=probe", Body::None),
        (Method::GET, "/api/v1/notes/{N}", Body::None),
        (Method::GET, "/api/v1/notes/{N}/versions", Body::None),
        (Method::GET, "/api/v1/notes/{N}/versions/1", Body::None),
        (Method::POST, "/api/v1/notes", Json(r#"{"title":"probe"}"#)),
        (
            Method::PATCH,
            "/api/v1/notes/{N}",
            Json(r#"{"title":"edited by {P}"}"#),
        ),
        (
            Method::POST,
            "/api/v1/notes/{N}/versions/1/restore",
            Body::None,
        ),
        (Method::DELETE, "/api/v1/notes/{D}", Body::None),
        (Method::GET, "/api/v1/projects", Body::None),
        (Method::GET, "/api/v1/projects/{J}", Body::None),
        (
            Method::POST,
            "/api/v1/projects",
            Json(r#"{"name":"probe {P}"}"#),
        ),
        (
            Method::PATCH,
            "/api/v1/projects/{J}",
            Json(r#"{"description":"edited by {P}"}"#),
        ),
        (Method::DELETE, "/api/v1/projects/{W}", Body::None),
        (
            Method::POST,
            "/api/v1/threads",
            Json(r#"{"project_id":"{J}"}"#),
        ),
        (Method::GET, "/api/v1/threads/{T}/context", Body::None),
        (
            Method::PUT,
            "/api/v1/threads/{T}/context",
            Json(r#"{"notes":["{N}"]}"#),
        ),
        (Method::GET, "/api/v1/projects/{J}/context", Body::None),
        (
            Method::PUT,
            "/api/v1/projects/{J}/context",
            Json(r#"{"notes":["{N}"]}"#),
        ),
        (Method::GET, "/api/v1/memory", Body::None),
        (Method::GET, "/api/v1/memory/{M}", Body::None),
        (Method::GET, "/api/v1/memory/review", Body::None),
        (Method::GET, "/api/v1/memory/settings", Body::None),
        (
            Method::POST,
            "/api/v1/memory",
            Json(r#"{"scope":"tenant","operations":[{"action":"add","content":"fact by {P}"}]}"#),
        ),
        (
            Method::PATCH,
            "/api/v1/memory/{M}",
            Json(r#"{"text":"probed fact, edited by {P}"}"#),
        ),
        (
            Method::PUT,
            "/api/v1/memory/settings",
            Json(r#"{"auto_accept":false}"#),
        ),
        (
            Method::POST,
            "/api/v1/tenants",
            Json(r#"{"name":"probe-{P}"}"#),
        ),
        (Method::GET, "/api/v1/tools", Body::None),
        (
            Method::PUT,
            "/api/v1/tools/note_write",
            Json(r#"{"policy":"ask"}"#),
        ),
        (Method::POST, "/fn/tool_settings", Form("")),
        (
            Method::POST,
            "/fn/set_tool_policy",
            Form("tool=note_write&policy=ask"),
        ),
        (Method::GET, "/api/v1/passvault", Body::None),
        (Method::GET, "/api/v1/passvault/{V}", Body::None),
        (
            Method::POST,
            "/api/v1/passvault",
            Json(r#"{"name":"probe {P}","env_var":"PROBE","value":"v"}"#),
        ),
        (
            Method::PATCH,
            "/api/v1/passvault/{V}",
            Json(r#"{"description":"probed by {P}"}"#),
        ),
        (
            Method::POST,
            "/api/v1/passvault/{V}/reveal",
            Json(r#"{"password":"tester-password-1"}"#),
        ),
        (Method::DELETE, "/api/v1/passvault/{Y}", Body::None),
        (Method::POST, "/fn/passvault", Form("q=&offset=0")),
        (
            Method::POST,
            "/fn/vault_matches",
            Form("env_var=PROBE&run_id={R}"),
        ),
        (Method::POST, "/fn/gallery_payloads", Form("")),
        (
            Method::POST,
            "/fn/highlight_code",
            Form("language=rust&code=fn+main()+%7B%7D"),
        ),
        (
            Method::POST,
            "/fn/create_secret",
            Form(
                "name=fn+probe+{P}&env_var=PROBE&description=&metadata=&value=v&agents=&sent_by=operator",
            ),
        ),
        (
            Method::POST,
            "/fn/edit_secret",
            Form(
                "entry_id={V}&name=probed&env_var=PROBE&description=fn+{P}&metadata=&value=&agents=&sent_by=operator",
            ),
        ),
        (
            Method::POST,
            "/fn/reveal_secret",
            Form("entry_id={V}&password=tester-password-1"),
        ),
        (Method::POST, "/fn/delete_secret", Form("entry_id={Z}")),
        (Method::POST, "/fn/me", Form("")),
        (Method::POST, "/fn/list_threads", Form("")),
        (Method::POST, "/fn/inbox", Form("")),
        (Method::POST, "/fn/media_hosts", Form("")),
        (
            Method::POST,
            "/fn/set_media_hosts",
            Form("hosts=example.org"),
        ),
        (Method::POST, "/fn/search_threads", Form("query=anything")),
        (Method::POST, "/fn/audit", Form("")),
        (Method::POST, "/fn/get_thread", Form("thread_id={T}")),
        (Method::POST, "/fn/thread_page", Form("thread_id={T}")),
        (Method::POST, "/fn/agent_environments", Form("")),
        (Method::POST, "/fn/run_arrivals", Form("run_id={R}")),
        (
            Method::POST,
            "/fn/rename_thread",
            Form("thread_id={T}&title=renamed"),
        ),
        (
            Method::POST,
            "/fn/archive_thread",
            Form("thread_id={T}&archived=false"),
        ),
        (
            Method::POST,
            "/fn/bind_agent",
            Form("thread_id={T}&agent=demo"),
        ),
        (
            Method::POST,
            "/fn/send_message",
            Form("thread_id={T}&text=probe"),
        ),
        (
            Method::POST,
            "/fn/send_surface_action",
            Form(
                "thread_id={T}&request[surfaceId]=board-watch&request[sourceComponentId]=root&request[name]=probe",
            ),
        ),
        (Method::POST, "/fn/retry_run", Form("run_id={R}")),
        (Method::POST, "/fn/cancel_run", Form("run_id={R}")),
        (
            Method::POST,
            "/fn/answer_ask",
            Form("run_id={R}&ask_id=approve-budget&receipt={RECEIPT}"),
        ),
        (Method::POST, "/fn/start_thread", Form("text=probe")),
        (Method::POST, "/fn/thread_draft", Form("")),
        (
            Method::POST,
            "/fn/projects",
            Form("archived=false&q=&offset=0"),
        ),
        (Method::POST, "/fn/agents", Form("")),
        (
            Method::POST,
            "/fn/memory",
            Form("scope=tenant&project_id=&q="),
        ),
        (Method::POST, "/fn/memory_review", Form("")),
        (Method::POST, "/fn/memory_settings", Form("")),
        (
            Method::POST,
            "/fn/remember",
            Form("scope=tenant&project_id=&text=fn+fact+by+{P}"),
        ),
        (
            Method::POST,
            "/fn/edit_memory",
            Form("entry_id={M}&text=fn+edit+by+{P}"),
        ),
        (
            Method::POST,
            "/fn/set_memory_settings",
            Form("auto_accept=false"),
        ),
        (
            Method::POST,
            "/api/v1/memory/proposals",
            Json(
                r#"{"scope":"tenant","operations":[{"action":"add","content":"proposed by {P}"}],"proposed_by":"probe"}"#,
            ),
        ),
        (Method::POST, "/fn/thread_context", Form("thread_id={T}")),
        (
            Method::POST,
            "/fn/pin_notes",
            Form("thread_id={T}&note_ids={N}"),
        ),
        (Method::POST, "/fn/notes_to_pin", Form("q=probe")),
        (Method::POST, "/fn/memory_to_pin", Form("thread_id={T}")),
        (
            Method::POST,
            "/fn/pin_memory",
            Form("thread_id={T}&entry_ids="),
        ),
        (Method::POST, "/fn/project_page", Form("project_id={J}")),
        (
            Method::POST,
            "/fn/create_project",
            Form("name=fn+probe+{P}&description=&default_agent="),
        ),
        (
            Method::POST,
            "/fn/edit_project",
            Form("project_id={J}&name=Probed&description=x&default_agent=demo"),
        ),
        (
            Method::POST,
            "/fn/archive_project",
            Form("project_id={J}&archived=false"),
        ),
        (Method::POST, "/fn/delete_project", Form("project_id={Q}")),
        (Method::POST, "/fn/notes", Form("q=probe&tag=&offset=0")),
        (Method::POST, "/fn/note", Form("note_id={N}")),
        (Method::POST, "/fn/note_versions", Form("note_id={N}")),
        (
            Method::POST,
            "/fn/note_version",
            Form("note_id={N}&version=1"),
        ),
        (
            Method::POST,
            "/fn/create_note",
            Form("title=probe&body=text&tags=a&project_id="),
        ),
        (
            Method::POST,
            "/fn/edit_note",
            Form("note_id={N}&title=edited&body=text&tags=&project_id={J}&base_version=1"),
        ),
        (
            Method::POST,
            "/fn/restore_note",
            Form("note_id={N}&version=1"),
        ),
        (Method::POST, "/fn/delete_note", Form("note_id={E}")),
        (Method::POST, "/fn/members", Form("")),
        (Method::POST, "/fn/tokens", Form("")),
        (
            Method::POST,
            "/fn/add_member",
            Form("user={P}-new&role=viewer&password=first-password-1"),
        ),
        (
            Method::POST,
            "/fn/add_member",
            Form("user={P}-invited&role=operator&password="),
        ),
        (Method::POST, "/fn/invitations", Form("")),
        (
            Method::POST,
            "/fn/withdraw_invitation",
            Form("user={P}-invited"),
        ),
        (
            Method::POST,
            "/fn/set_member_role",
            Form("user={P}-new&role=operator"),
        ),
        (Method::POST, "/fn/remove_member", Form("user={P}-new")),
        (
            Method::POST,
            "/fn/create_token",
            Form("role=viewer&expires_days=1"),
        ),
        (Method::POST, "/fn/revoke_token", Form("token_id={X}")),
        (Method::GET, "/", Body::None),
        (Method::GET, "/notes", Body::None),
        (Method::GET, "/notes?q=probe", Body::None),
        (Method::GET, "/notes/{N}", Body::None),
        (Method::GET, "/projects", Body::None),
        (Method::GET, "/projects/{J}", Body::None),
        (Method::GET, "/audit", Body::None),
        (Method::GET, "/passvault", Body::None),
        (Method::GET, "/gallery", Body::None),
        (Method::GET, "/members", Body::None),
        (Method::GET, "/new", Body::None),
        (Method::GET, "/threads/{T}", Body::None),
        (Method::POST, "/auth/new-tenant", Form("tenant=form-{P}")),
        (
            Method::POST,
            "/auth/invitation",
            Form("tenant=nowhere&answer=decline"),
        ),
        (Method::DELETE, "/api/v1/memory/{G}", Body::None),
        (Method::POST, "/fn/forget", Form("entry_id={H}")),
        (Method::POST, "/api/v1/memory/review/{L}/accept", Body::None),
        (Method::POST, "/api/v1/memory/review/{L}/reject", Body::None),
        (
            Method::POST,
            "/fn/decide_memory",
            Form("proposal_id={L}&accept=false"),
        ),
        (Method::GET, "/api/v1/inbox/events", Body::None),
        (Method::POST, "/auth/tenant", Form("tenant={TENANT}")),
        (Method::GET, "/memory", Body::None),
        (Method::GET, "/schedules", Body::None),
        (Method::GET, "/kanban", Body::None),
        (Method::GET, "/curator", Body::None),
        // Ending the persona's sessions: probed last (see `probes`).
        (Method::POST, "/api/v1/auth/logout-everywhere", Body::None),
        (Method::POST, "/auth/logout-everywhere", Form("")),
    ];
    table.extend(crate::background_probes::table());
    table
}
