//! The probes of durable work: schedules, jobs, the agents' own schedulers, retention, the
//! knowledge curator and boards, by REST and by server function.

use reqwest::Method;

use crate::probes::{Body, PAUSED_SCHEDULE};

/// A filter no job matches.
const NO_JOBS: &str = r#"{"kind":"probe.none"}"#;

pub fn table() -> Vec<(Method, &'static str, Body)> {
    use Body::{Form, Json};
    vec![
        (Method::GET, "/api/v1/schedules", Body::None),
        (Method::GET, "/api/v1/schedules/{S}", Body::None),
        (Method::POST, "/api/v1/schedules", Json(PAUSED_SCHEDULE)),
        (
            Method::PATCH,
            "/api/v1/schedules/{S}",
            Json(r#"{"pause":"probed"}"#),
        ),
        (Method::POST, "/api/v1/schedules/{S}/run", Body::None),
        (Method::DELETE, "/api/v1/schedules/{O}", Body::None),
        (Method::GET, "/api/v1/jobs", Body::None),
        (Method::GET, "/api/v1/jobs/{B}", Body::None),
        (Method::POST, "/api/v1/jobs/{B}/cancel", Body::None),
        (Method::POST, "/api/v1/jobs/{B}/retry", Body::None),
        (Method::POST, "/api/v1/jobs/cancel", Json(NO_JOBS)),
        (Method::POST, "/api/v1/jobs/retry", Json(NO_JOBS)),
        (Method::GET, "/api/v1/agent-jobs", Body::None),
        (Method::GET, "/api/v1/retention", Body::None),
        (
            Method::PUT,
            "/api/v1/retention",
            Json(r#"{"raw_events_days":30,"jobs_days":30}"#),
        ),
        (Method::POST, "/fn/retention", Form("")),
        (
            Method::POST,
            "/fn/set_retention",
            Form("raw_events_days=30&jobs_days=30"),
        ),
        // The demo agent keeps no jobs of its own: refused as a bad request to those
        // allowed to try, and nothing is added to a gateway.
        (
            Method::POST,
            "/api/v1/agent-jobs/demo",
            Json(r#"{"name":"probe","schedule":"every 2h","prompt":"hello"}"#),
        ),
        (
            Method::POST,
            "/api/v1/agent-jobs/demo/probe/pause",
            Body::None,
        ),
        (
            Method::POST,
            "/api/v1/agent-jobs/demo/probe/resume",
            Body::None,
        ),
        (Method::DELETE, "/api/v1/agent-jobs/demo/probe", Body::None),
        (Method::POST, "/fn/schedules", Form("offset=0")),
        (Method::POST, "/fn/schedule", Form("schedule_id={S}")),
        (Method::POST, "/fn/schedule_agents", Form("")),
        (
            Method::POST,
            "/fn/create_schedule",
            Form(
                "name=fn+probe+{P}&agent=demo&prompt=hello&when_kind=cron&when_text=0+9+*+*+1&timezone=UTC&project_id=&target=new_thread&missed=skip&catch_up_window_s=3600&overlap=skip&asks=wait&idempotency_key=",
            ),
        ),
        (
            Method::POST,
            "/fn/edit_schedule",
            Form(
                "schedule_id={S}&name=probed&agent=demo&prompt=hello&when_kind=cron&when_text=0+9+*+*+1&timezone=UTC&project_id=&target=new_thread&missed=skip&catch_up_window_s=3600&overlap=skip&asks=wait",
            ),
        ),
        (
            Method::POST,
            "/fn/pause_schedule",
            Form("schedule_id={S}&reason=probed"),
        ),
        (Method::POST, "/fn/resume_schedule", Form("schedule_id={S}")),
        (Method::POST, "/fn/run_schedule", Form("schedule_id={S}")),
        (Method::POST, "/fn/delete_schedule", Form("schedule_id={U}")),
        (
            Method::POST,
            "/fn/jobs",
            Form("state=&kind=&agent=&project=&q=&offset=0"),
        ),
        (Method::POST, "/fn/job", Form("job_id={B}")),
        (Method::POST, "/fn/cancel_job", Form("job_id={B}")),
        (Method::POST, "/fn/retry_job", Form("job_id={B}")),
        (
            Method::POST,
            "/fn/cancel_matching_jobs",
            Form("state=&kind=probe.none&agent=&project=&q="),
        ),
        (
            Method::POST,
            "/fn/retry_matching_jobs",
            Form("state=&kind=probe.none&agent=&project=&q="),
        ),
        (Method::POST, "/fn/agent_jobs", Form("")),
        (
            Method::POST,
            "/fn/add_agent_job",
            Form("agent=demo&name=probe&schedule=every+2h&prompt=hello"),
        ),
        (
            Method::POST,
            "/fn/pause_agent_job",
            Form("agent=demo&job_id=probe"),
        ),
        (
            Method::POST,
            "/fn/resume_agent_job",
            Form("agent=demo&job_id=probe"),
        ),
        (
            Method::POST,
            "/fn/remove_agent_job",
            Form("agent=demo&job_id=probe"),
        ),
        (Method::GET, "/api/v1/curator/settings", Body::None),
        (
            Method::PUT,
            "/api/v1/curator/settings",
            Json(r#"{"weekly":true,"idle_minutes":30,"near_percent":80,"unused_days":90}"#),
        ),
        (Method::GET, "/api/v1/curator/passes", Body::None),
        (Method::GET, "/api/v1/curator/passes/{A}", Body::None),
        (
            Method::POST,
            "/api/v1/curator/passes",
            Json(r#"{"dry_run":true}"#),
        ),
        (Method::GET, "/api/v1/curator/changes", Body::None),
        (Method::POST, "/api/v1/curator/changes/{C}/undo", Body::None),
        (Method::POST, "/fn/curator_passes", Form("")),
        (Method::POST, "/fn/start_curator_pass", Form("dry_run=true")),
        (Method::POST, "/fn/curator_changes", Form("")),
        (
            Method::POST,
            "/fn/undo_curator_change",
            Form("change_id={C}"),
        ),
        (Method::POST, "/fn/curator_settings", Form("")),
        (
            Method::POST,
            "/fn/set_curator_settings",
            Form("weekly=on&idle_minutes=30&near_percent=80&unused_days=90"),
        ),
        (Method::GET, "/api/v1/boards", Body::None),
        (
            Method::POST,
            "/api/v1/boards",
            Json(r#"{"name":"probe {P}"}"#),
        ),
        (Method::GET, "/api/v1/boards/{F}", Body::None),
        (
            Method::PATCH,
            "/api/v1/boards/{F}",
            Json(r#"{"name":"probed by {P}"}"#),
        ),
        (Method::DELETE, "/api/v1/boards/{BD}", Body::None),
        (
            Method::POST,
            "/api/v1/boards/{F}/cards",
            Json(r#"{"title":"card by {P}"}"#),
        ),
        (Method::GET, "/api/v1/cards/{I}", Body::None),
        (
            Method::PATCH,
            "/api/v1/cards/{I}",
            Json(r#"{"body":"edited by {P}"}"#),
        ),
        (
            Method::POST,
            "/api/v1/cards/{I}/move",
            Json(r#"{"lane":"todo","index":0}"#),
        ),
        (
            Method::POST,
            "/api/v1/cards/{I}/comments",
            Json(r#"{"body":"said by {P}"}"#),
        ),
    ]
}
