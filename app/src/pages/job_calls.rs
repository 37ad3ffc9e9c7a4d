//! The Curator page's calls to the server — jobs listed by a filter, one job read,
//! cancelled or retried, or every job matching a filter — the filter as links carry it,
//! and the actions the page shares among its parts.

use leptos::prelude::*;

use crate::components::search_box::query_value;
use crate::error::ApiError;
use crate::model::jobs::{JobDetail, JobFilter, JobList, JobState, JobsTouched};

/// Jobs a page lists.
pub const PAGE: u32 = 50;

/// The filter as a form and a link carry it: empty fields filter nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JobQuery {
    pub state: String,
    pub kind: String,
    pub agent: String,
    pub project: String,
    pub q: String,
}

impl JobQuery {
    pub fn filter(&self) -> JobFilter {
        let given = |text: &str| Some(text.trim().to_owned()).filter(|text| !text.is_empty());
        JobFilter {
            state: JobState::parse(self.state.trim()),
            kind: given(&self.kind),
            agent: given(&self.agent),
            project_id: given(&self.project),
            text: given(&self.q),
        }
    }

    /// The page's link with this filter, at `offset`, with the job `id` open.
    pub fn href(&self, offset: u32, id: Option<&str>) -> String {
        let mut parts = Vec::new();
        for (name, value) in [
            ("state", &self.state),
            ("kind", &self.kind),
            ("agent", &self.agent),
            ("project", &self.project),
            ("q", &self.q),
        ] {
            if !value.trim().is_empty() {
                parts.push(format!("{name}={}", query_value(value.trim())));
            }
        }
        if offset > 0 {
            parts.push(format!("offset={offset}"));
        }
        if let Some(id) = id {
            parts.push(format!("id={}", query_value(id)));
        }
        match parts.is_empty() {
            true => "/curator".to_owned(),
            false => format!("/curator?{}", parts.join("&")),
        }
    }

    /// The same filter in another state tab (empty: all).
    pub fn in_state(&self, state: &str) -> JobQuery {
        JobQuery {
            state: state.to_owned(),
            ..self.clone()
        }
    }
}

#[server(prefix = "/fn", endpoint = "jobs")]
pub async fn load_jobs(
    state: String,
    kind: String,
    agent: String,
    project: String,
    q: String,
    offset: u32,
) -> Result<JobList, ApiError> {
    use crate::api::service::*;
    let filter = JobQuery {
        state,
        kind,
        agent,
        project,
        q,
    }
    .filter();
    with_status(jobs()?.list_jobs(&context()?, &filter, offset, PAGE).await)
}

#[server(prefix = "/fn", endpoint = "job")]
pub async fn load_job(job_id: String) -> Result<JobDetail, ApiError> {
    use crate::api::service::*;
    with_status(jobs()?.job(&context()?, &job_id).await)
}

#[server(prefix = "/fn", endpoint = "cancel_job")]
pub async fn cancel_job(job_id: String) -> Result<JobsTouched, ApiError> {
    use crate::api::service::*;
    let filter = JobFilter::default();
    with_status(
        jobs()?
            .cancel_jobs(&context()?, Some(&job_id), &filter)
            .await,
    )
}

#[server(prefix = "/fn", endpoint = "retry_job")]
pub async fn retry_job(job_id: String) -> Result<JobsTouched, ApiError> {
    use crate::api::service::*;
    let filter = JobFilter::default();
    with_status(
        jobs()?
            .retry_jobs(&context()?, Some(&job_id), &filter)
            .await,
    )
}

/// Cancels every job matching the filter.
#[server(prefix = "/fn", endpoint = "cancel_matching_jobs")]
pub async fn cancel_matching_jobs(
    state: String,
    kind: String,
    agent: String,
    project: String,
    q: String,
) -> Result<JobsTouched, ApiError> {
    use crate::api::service::*;
    let query = JobQuery {
        state,
        kind,
        agent,
        project,
        q,
    };
    with_status(
        jobs()?
            .cancel_jobs(&context()?, None, &query.filter())
            .await,
    )
}

/// Runs every failed or cancelled job matching the filter again.
#[server(prefix = "/fn", endpoint = "retry_matching_jobs")]
pub async fn retry_matching_jobs(
    state: String,
    kind: String,
    agent: String,
    project: String,
    q: String,
) -> Result<JobsTouched, ApiError> {
    use crate::api::service::*;
    let query = JobQuery {
        state,
        kind,
        agent,
        project,
        q,
    };
    with_status(jobs()?.retry_jobs(&context()?, None, &query.filter()).await)
}

/// The actions of the page, and a count that moves when one worked.
#[derive(Clone, Copy)]
pub struct JobActions {
    pub cancel: ServerAction<CancelJob>,
    pub retry: ServerAction<RetryJob>,
    pub cancel_matching: ServerAction<CancelMatchingJobs>,
    pub retry_matching: ServerAction<RetryMatchingJobs>,
    pub changed: RwSignal<u32>,
}

impl JobActions {
    pub fn new() -> Self {
        let actions = Self {
            cancel: ServerAction::new(),
            retry: ServerAction::new(),
            cancel_matching: ServerAction::new(),
            retry_matching: ServerAction::new(),
            changed: RwSignal::new(0),
        };
        let JobActions {
            cancel,
            retry,
            cancel_matching,
            retry_matching,
            changed,
        } = actions;
        for value in [
            cancel.value(),
            retry.value(),
            cancel_matching.value(),
            retry_matching.value(),
        ] {
            Effect::new(move |_| {
                if value.with(|value| matches!(value, Some(Ok(_)))) {
                    changed.update(|count| *count += 1);
                }
            });
        }
        actions
    }

    /// The last action's outcome in words: how many jobs it reached, or why not.
    pub fn said(&self) -> Option<Result<String, String>> {
        let said = |value: Option<Result<JobsTouched, ApiError>>, verb: &str| {
            value.map(|value| match value {
                Ok(touched) if touched.count == 1 => Ok(format!("1 job {verb}.")),
                Ok(touched) => Ok(format!("{} jobs {verb}.", touched.count)),
                Err(error) => Err(error.say()),
            })
        };
        [
            said(self.cancel.value().get(), "cancelled"),
            said(self.retry.value().get(), "to run again"),
            said(self.cancel_matching.value().get(), "cancelled"),
            said(self.retry_matching.value().get(), "to run again"),
        ]
        .into_iter()
        .flatten()
        .next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_link_keeps_every_field_given_and_drops_empty_ones() {
        let query = JobQuery {
            state: "failed".into(),
            kind: "schedule.fire".into(),
            q: "model quota".into(),
            ..JobQuery::default()
        };
        assert_eq!(
            query.href(50, Some("job-1")),
            "/curator?state=failed&kind=schedule.fire&q=model%20quota&offset=50&id=job-1"
        );
        assert_eq!(JobQuery::default().href(0, None), "/curator");
        assert_eq!(
            query.in_state("").href(0, None),
            "/curator?kind=schedule.fire&q=model%20quota"
        );
    }

    #[test]
    fn a_filter_reads_a_known_state_and_ignores_empty_fields() {
        let query = JobQuery {
            state: "retryable".into(),
            agent: " scout ".into(),
            project: " ".into(),
            ..JobQuery::default()
        };
        let filter = query.filter();
        assert_eq!(filter.state, Some(JobState::Retryable));
        assert_eq!(filter.agent.as_deref(), Some("scout"));
        assert_eq!(filter.project_id, None);
        assert_eq!(filter.text, None);
    }
}
