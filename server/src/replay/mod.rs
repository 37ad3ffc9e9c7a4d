//! `agent-os replay`: shows a stored run (or a recorded stream file) as the console would,
//! between exclusive sequence cursors. Read-only: it never calls an agent, never re-runs a
//! tool and never answers an ask.

mod ksadk;

use std::collections::HashSet;
use std::path::PathBuf;

use app::projection::{RunView, ViewPolicy};
use app::protocol::agui::AgUiConfig;
use app::protocol::channel::{RunEvent, RunRef};
use app::protocol::recorded::{RecordedFormat, detect_format, normalize_recorded, place_all};
use serde_json::{Value, json};

use crate::store::{self, StoreError, UpstreamEvent};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Json,
    Text,
}

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("cannot open the database: {0}")]
    Store(#[from] StoreError),
    #[error("no run or thread {0:?} in tenant {1:?}")]
    NotFound(String, String),
    #[error("cannot read {path}: {error}")]
    File {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("give a run or thread id, or --file PATH")]
    NothingToReplay,
    #[error("KsADK session record: {0}")]
    Record(#[from] app::protocol::ksadk_record::RecordError),
    #[error("asking the KsADK runtime at {url} failed: {error}")]
    Runtime { url: String, error: String },
    #[error("the KsADK runtime has no events for session {0:?}")]
    EmptySession(String),
}

pub use self::ksadk::Source as KsAdkSource;

/// What to replay and how to show it.
pub struct Request {
    pub target: Option<String>,
    pub file: Option<PathBuf>,
    pub after: u64,
    pub before: Option<u64>,
    pub format: Format,
    pub database_url: String,
    pub tenant: String,
    pub show_reasoning: bool,
    /// Read the target, a KsADK session, from this runtime instead of the store.
    pub ksadk: Option<KsAdkSource>,
}

/// One replayed run: its events within the cursors, their view, and the raw upstream
/// events the view does not reflect (known but unprojected), in order.
struct Replayed {
    run_id: String,
    events: Vec<RunEvent>,
    view: RunView,
    extras: Vec<UpstreamEvent>,
}

fn unprojected(events: &[RunEvent], raw: Vec<UpstreamEvent>) -> Vec<UpstreamEvent> {
    let cited: HashSet<u64> = events.iter().filter_map(|event| event.upstream).collect();
    raw.into_iter()
        .filter(|raw| !cited.contains(&raw.position))
        .collect()
}

pub async fn run(request: Request) -> Result<String, ReplayError> {
    let policy = ViewPolicy {
        show_reasoning: request.show_reasoning,
    };
    let replayed = match (&request.file, &request.target, &request.ksadk) {
        (Some(path), _, _) => replay_file(path, &request, policy)?,
        (None, _, Some(source)) => {
            let rows = ksadk::fetch(source, request.after, request.before).await?;
            if rows.is_empty() && request.after == 0 && request.before.is_none() {
                return Err(ReplayError::EmptySession(source.session_id.clone()));
            }
            ksadk::replay(rows, &source.session_id, &request, policy)
        }
        (None, Some(target), None) => replay_stored(target, &request, policy).await?,
        (None, None, None) => return Err(ReplayError::NothingToReplay),
    };
    Ok(match request.format {
        Format::Json => render_json(&replayed),
        Format::Text => render_text(&replayed),
    })
}

fn window(events: Vec<RunEvent>, after: u64, before: Option<u64>) -> Vec<RunEvent> {
    events
        .into_iter()
        .filter(|event| {
            event.sequence > after && before.is_none_or(|before| event.sequence < before)
        })
        .collect()
}

fn replay_file(
    path: &PathBuf,
    request: &Request,
    policy: ViewPolicy,
) -> Result<Vec<Replayed>, ReplayError> {
    let bytes = std::fs::read(path).map_err(|error| ReplayError::File {
        path: path.clone(),
        error,
    })?;
    if app::protocol::ksadk_record::is_record(&bytes) {
        let page = app::protocol::ksadk_record::read_page(&bytes)?;
        return Ok(ksadk::replay(
            page.rows,
            &path.display().to_string(),
            request,
            policy,
        ));
    }
    // A recorded RunAgentInput beside the stream tells which calls came from earlier runs.
    let stem = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let config = std::fs::read(path.with_file_name(format!("{stem}.request.json")))
        .ok()
        .and_then(|input| serde_json::from_slice::<Value>(&input).ok())
        .map(|input| AgUiConfig::from_run_input(&input))
        .unwrap_or_default();
    let raw = raw_events(&bytes);
    let run = RunRef::new(&request.tenant, "file", &path.display().to_string());
    let events = window(
        place_all(run, normalize_recorded(&bytes, config), 0),
        request.after,
        request.before,
    );
    Ok(vec![Replayed {
        run_id: path.display().to_string(),
        view: RunView::from_events(policy, &events),
        extras: unprojected(&events, raw),
        events,
    }])
}

/// The upstream events of a recorded file, numbered as the adapters number them.
fn raw_events(bytes: &[u8]) -> Vec<UpstreamEvent> {
    let text = String::from_utf8_lossy(bytes);
    let bodies: Vec<String> = match detect_format(bytes) {
        RecordedFormat::AgUiSse | RecordedFormat::OpenAiChat | RecordedFormat::OpenAiResponses => {
            app::protocol::sse::decode_all(bytes)
                .iter()
                .map(|frame| {
                    frame
                        .map(|frame| frame.kept_text())
                        .unwrap_or_else(|error| error.to_string())
                })
                .collect()
        }
        RecordedFormat::AgUiJsonl => text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect(),
        RecordedFormat::Hermes => text
            .lines()
            .filter(|line| !line.trim().is_empty())
            .filter_map(
                |line| match app::protocol::hermes::parse_transcript_line(line) {
                    Ok(record) if record.from_gateway => Some(record.message.to_string()),
                    Ok(_) => None,
                    Err(_) => Some(line.to_owned()),
                },
            )
            .collect(),
    };
    bodies
        .into_iter()
        .enumerate()
        .map(|(position, body)| UpstreamEvent {
            position: position as u64,
            body,
        })
        .collect()
}

async fn replay_stored(
    target: &str,
    request: &Request,
    policy: ViewPolicy,
) -> Result<Vec<Replayed>, ReplayError> {
    let store = store::open(&request.database_url).await?;
    let runs = match store.get_run(&request.tenant, target).await? {
        Some(run) => vec![run],
        None => {
            let runs = store.list_runs(&request.tenant, target).await?;
            if runs.is_empty() {
                return Err(ReplayError::NotFound(
                    target.to_owned(),
                    request.tenant.clone(),
                ));
            }
            runs
        }
    };
    let mut replayed = Vec::new();
    for run in runs {
        let events = store
            .events(&request.tenant, &run.id, request.after, request.before)
            .await?;
        let raw = store
            .upstream_events(&request.tenant, &run.id, None)
            .await?;
        let raw = match (events.first(), events.last()) {
            // Only raw events inside the window's span are extras of this window.
            (Some(first), Some(last)) if request.after > 0 || request.before.is_some() => {
                let (low, high) = (
                    first.upstream.unwrap_or(0),
                    last.upstream.unwrap_or(u64::MAX),
                );
                raw.into_iter()
                    .filter(|r| r.position >= low && r.position <= high)
                    .collect()
            }
            _ => raw,
        };
        replayed.push(Replayed {
            run_id: run.id,
            view: RunView::from_events(policy, &events),
            extras: unprojected(&events, raw),
            events,
        });
    }
    Ok(replayed)
}

fn render_json(replayed: &[Replayed]) -> String {
    let runs: Vec<Value> = replayed
        .iter()
        .map(|run| {
            json!({
                "run_id": run.run_id,
                "events": run.events,
                "view": run.view,
                "extras": run.extras.iter().map(|raw| json!({"position": raw.position, "body": raw.body})).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({ "runs": runs })).unwrap_or_default()
}

fn render_text(replayed: &[Replayed]) -> String {
    let mut out = String::new();
    for run in replayed {
        let first = run.events.first().map_or(0, |e| e.sequence);
        let last = run.events.last().map_or(0, |e| e.sequence);
        out.push_str(&format!(
            "run {} — {} — events {first}..{last}\n",
            run.run_id,
            run.view.status.label()
        ));
        for line in run.view.timeline_lines() {
            out.push_str(&line);
            out.push('\n');
        }
        for ask in run.view.pending_asks() {
            out.push_str(&format!("pending ask {}: {}\n", ask.id, ask.title));
        }
        for raw in &run.extras {
            out.push_str(&format!(
                "extra #{}: {}\n",
                raw.position,
                app::protocol::limits::excerpt(&raw.body, 200)
            ));
        }
    }
    out
}
