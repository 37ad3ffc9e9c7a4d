//! The server functions (`/fn/NAME`): the console's own calls from the browser, each a
//! form POST answered with JSON. Their arguments and answers are the Rust types of the
//! `#[server]` functions beside the components that call them; here is who may call each
//! and what the audit records. A function not listed here is not served.

use app::model::Role::{Operator, Owner, Viewer};

use super::{Operation, Serve};

/// A server function `name` that reads, open to `role`.
const fn reads(path: &'static str, summary: &'static str, role: app::model::Role) -> Operation {
    Operation::post(path, summary)
        .needs(role)
        .serve(Serve::Function)
        .form("")
}

/// A server function that changes state, recorded in the audit as `action`.
const fn changes(
    path: &'static str,
    summary: &'static str,
    role: app::model::Role,
    action: &'static str,
) -> Operation {
    reads(path, summary, role).records(action)
}

pub const OPERATIONS: &[Operation] = &[
    reads("/fn/me", "who the caller is, in which tenant", Viewer),
    reads("/fn/list_threads", "the tenant's threads", Viewer),
    reads(
        "/fn/inbox",
        "the tenant's pending asks and runs in progress",
        Viewer,
    ),
    reads(
        "/fn/search_threads",
        "threads holding every word searched",
        Viewer,
    ),
    reads("/fn/get_thread", "one thread", Viewer),
    reads("/fn/thread_page", "a thread with its runs' views", Viewer),
    reads(
        "/fn/run_arrivals",
        "when each item of a run arrived",
        Viewer,
    ),
    reads(
        "/fn/agent_environments",
        "what each agent is and where",
        Viewer,
    ),
    reads("/fn/notes", "notes, listed or searched", Viewer),
    reads("/fn/note", "one note", Viewer),
    reads("/fn/note_versions", "a note's versions", Viewer),
    reads("/fn/note_version", "one version of a note", Viewer),
    reads("/fn/projects", "the tenant's projects", Viewer),
    reads(
        "/fn/project_page",
        "a project with its threads and notes",
        Viewer,
    ),
    reads("/fn/agents", "the configured agents", Viewer),
    reads("/fn/thread_context", "what a thread pins", Viewer),
    reads("/fn/memory", "a memory scope's entries", Viewer),
    reads(
        "/fn/memory_review",
        "memory changes agents proposed",
        Viewer,
    ),
    reads(
        "/fn/memory_settings",
        "the tenant's memory settings",
        Viewer,
    ),
    reads(
        "/fn/tool_settings",
        "the workspace tools and their policy",
        Viewer,
    ),
    reads(
        "/fn/memory_to_pin",
        "memory entries a thread may pin",
        Viewer,
    ),
    reads("/fn/notes_to_pin", "notes a thread may pin", Viewer),
    reads("/fn/passvault", "passvault entries, without values", Viewer),
    reads(
        "/fn/vault_matches",
        "passvault entries an ask may be answered from",
        Viewer,
    ),
    reads(
        "/fn/highlight_code",
        "code coloured by the server's highlighter",
        Viewer,
    ),
    reads(
        "/fn/gallery_payloads",
        "the component gallery's payloads",
        Viewer,
    ),
    reads(
        "/fn/media_hosts",
        "the hosts the caller's browser loads media from",
        Viewer,
    ),
    changes(
        "/fn/set_media_hosts",
        "the caller's own media hosts",
        Viewer,
        "media_hosts.set",
    ),
    reads("/fn/audit", "the tenant's audit trail", Owner),
    reads("/fn/members", "the tenant's members", Owner),
    reads("/fn/invitations", "the tenant's open invitations", Owner),
    reads("/fn/tokens", "the tenant's API tokens", Owner),
    reads(
        "/fn/thread_draft",
        "what a new thread starts from: agents and what each offers to try",
        Viewer,
    ),
    changes(
        "/fn/start_thread",
        "start a thread with its first message",
        Operator,
        "thread.create",
    ),
    changes(
        "/fn/rename_thread",
        "rename a thread",
        Operator,
        "thread.rename",
    ),
    changes(
        "/fn/archive_thread",
        "archive or restore a thread",
        Operator,
        "thread.archive",
    ),
    changes(
        "/fn/bind_agent",
        "bind a thread to an agent",
        Operator,
        "thread.bind_agent",
    ),
    changes(
        "/fn/send_message",
        "send a message: a new run",
        Operator,
        "run.start",
    ),
    changes(
        "/fn/send_surface_action",
        "act on an agent's surface",
        Operator,
        "surface.action",
    ),
    changes("/fn/retry_run", "run a turn again", Operator, "run.retry"),
    changes("/fn/cancel_run", "stop a run", Operator, "run.cancel"),
    changes("/fn/answer_ask", "answer an ask", Operator, "ask.answer"),
    changes("/fn/create_note", "write a note", Operator, "note.create"),
    changes("/fn/edit_note", "edit a note", Operator, "note.edit"),
    changes("/fn/delete_note", "delete a note", Operator, "note.delete"),
    changes(
        "/fn/restore_note",
        "restore a note's version",
        Operator,
        "note.restore",
    ),
    changes(
        "/fn/create_project",
        "start a project",
        Operator,
        "project.create",
    ),
    changes(
        "/fn/edit_project",
        "edit a project",
        Operator,
        "project.edit",
    ),
    changes(
        "/fn/archive_project",
        "archive or restore a project",
        Operator,
        "project.archive",
    ),
    changes(
        "/fn/delete_project",
        "delete a project",
        Operator,
        "project.delete",
    ),
    changes(
        "/fn/pin_notes",
        "pin notes to a thread",
        Operator,
        "thread.pin",
    ),
    changes(
        "/fn/pin_memory",
        "pin memory to a thread",
        Operator,
        "thread.pin",
    ),
    changes("/fn/remember", "change memory", Operator, "memory.change"),
    changes(
        "/fn/edit_memory",
        "edit a memory entry",
        Operator,
        "memory.edit",
    ),
    changes(
        "/fn/forget",
        "remove a memory entry",
        Operator,
        "memory.delete",
    ),
    changes(
        "/fn/decide_memory",
        "accept or reject a proposed change",
        Operator,
        "memory.review",
    ),
    changes(
        "/fn/set_memory_settings",
        "the tenant's memory settings",
        Owner,
        "memory.settings",
    ),
    changes(
        "/fn/set_tool_policy",
        "which tools run freely",
        Owner,
        "tools.policy",
    ),
    changes(
        "/fn/create_secret",
        "keep a secret",
        Owner,
        "passvault.create",
    ),
    changes(
        "/fn/edit_secret",
        "edit a passvault entry",
        Owner,
        "passvault.edit",
    ),
    changes(
        "/fn/delete_secret",
        "delete a passvault entry",
        Owner,
        "passvault.delete",
    ),
    changes(
        "/fn/reveal_secret",
        "reveal a value, with the password",
        Owner,
        "passvault.reveal",
    ),
    changes(
        "/fn/add_member",
        "add or invite a member",
        Owner,
        "member.add",
    ),
    changes(
        "/fn/set_member_role",
        "change a member's role",
        Owner,
        "member.set_role",
    ),
    changes(
        "/fn/remove_member",
        "remove a member",
        Owner,
        "member.remove",
    ),
    changes(
        "/fn/withdraw_invitation",
        "withdraw an invitation",
        Owner,
        "member.uninvite",
    ),
    changes(
        "/fn/create_token",
        "make an API token",
        Owner,
        "token.create",
    ),
    changes(
        "/fn/revoke_token",
        "revoke an API token",
        Owner,
        "token.revoke",
    ),
    reads("/fn/schedules", "the tenant's schedules", Viewer),
    reads(
        "/fn/schedule",
        "a schedule with its next times and last fires",
        Viewer,
    ),
    reads(
        "/fn/schedule_agents",
        "the agents a schedule may name",
        Viewer,
    ),
    changes(
        "/fn/create_schedule",
        "make a schedule",
        Operator,
        "schedule.create",
    ),
    changes(
        "/fn/edit_schedule",
        "edit a schedule",
        Operator,
        "schedule.edit",
    ),
    changes(
        "/fn/pause_schedule",
        "pause a schedule",
        Operator,
        "schedule.pause",
    ),
    changes(
        "/fn/resume_schedule",
        "resume a schedule",
        Operator,
        "schedule.resume",
    ),
    changes(
        "/fn/run_schedule",
        "fire a schedule now",
        Operator,
        "schedule.run",
    ),
    changes(
        "/fn/delete_schedule",
        "delete a schedule",
        Operator,
        "schedule.delete",
    ),
    reads(
        "/fn/jobs",
        "background jobs with the count in each state",
        Viewer,
    ),
    reads("/fn/job", "a job with its attempts and log", Viewer),
    changes("/fn/cancel_job", "cancel a job", Operator, "job.cancel"),
    changes("/fn/retry_job", "run a job again", Operator, "job.retry"),
    changes(
        "/fn/cancel_matching_jobs",
        "cancel every job matching a filter",
        Operator,
        "job.cancel",
    ),
    changes(
        "/fn/retry_matching_jobs",
        "run every failed job matching a filter again",
        Operator,
        "job.retry",
    ),
    reads("/fn/agent_jobs", "each agent's own scheduled jobs", Viewer),
    changes(
        "/fn/add_agent_job",
        "add a job to an agent's own scheduler",
        Owner,
        "agent_job.add",
    ),
    changes(
        "/fn/pause_agent_job",
        "pause a job of an agent's own scheduler",
        Owner,
        "agent_job.pause",
    ),
    changes(
        "/fn/resume_agent_job",
        "resume a job of an agent's own scheduler",
        Owner,
        "agent_job.resume",
    ),
    changes(
        "/fn/remove_agent_job",
        "remove a job from an agent's own scheduler",
        Owner,
        "agent_job.remove",
    ),
    reads(
        "/fn/retention",
        "how long the tenant keeps raw frames and finished jobs",
        Viewer,
    ),
    changes(
        "/fn/set_retention",
        "set how long the tenant keeps raw frames and finished jobs",
        Owner,
        "retention.set",
    ),
    reads(
        "/fn/curator_passes",
        "the curator's latest passes with their reports",
        Viewer,
    ),
    changes(
        "/fn/start_curator_pass",
        "ask for a pass over memory and notes now",
        Operator,
        "curator.pass",
    ),
    reads(
        "/fn/curator_changes",
        "every change made on the curator's proposals, and every undo",
        Viewer,
    ),
    changes(
        "/fn/undo_curator_change",
        "put a memory entry back as it was before a curator's change",
        Operator,
        "curator.undo",
    ),
    reads(
        "/fn/curator_settings",
        "when the curator passes and what it looks for",
        Viewer,
    ),
    changes(
        "/fn/set_curator_settings",
        "set when the curator passes and what it looks for",
        Owner,
        "curator.settings",
    ),
];
