//! The tenant's retention on the Curator page: how long raw frames and finished jobs are
//! kept before the daily retention job removes them. Everyone reads it; owners set it.

use leptos::prelude::*;

use crate::codec::Json;
use crate::components::identity::is_owner;
use crate::error::{ApiError, refusal};
use crate::model::retention::RetentionSettings;

#[server(prefix = "/fn", endpoint = "retention")]
pub async fn load_retention() -> Result<RetentionSettings, ApiError> {
    use crate::api::service::*;
    with_status(jobs()?.retention(&context()?).await)
}

#[server(prefix = "/fn", endpoint = "set_retention")]
pub async fn set_retention(
    raw_events_days: u32,
    jobs_days: u32,
) -> Result<RetentionSettings, ApiError> {
    use crate::api::service::*;
    let settings = RetentionSettings {
        raw_events_days,
        jobs_days,
    };
    with_status(jobs()?.set_retention(&context()?, settings).await)
}

#[component]
pub fn RetentionSection() -> impl IntoView {
    let set = ServerAction::<SetRetention>::new();
    let settings = Resource::<_, Json>::new_with_options(
        move || set.version().get(),
        |_| load_retention(),
        false,
    );
    let owner = is_owner();
    view! {
        <section class="pane-section" aria-labelledby="retention-heading">
            <h2 id="retention-heading">"Retention"</h2>
            {move || set.value().with(refusal).map(|problem| view! { <p class="error-text" role="alert">{problem}</p> })}
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    match settings.await {
                        Ok(now) => view! {
                            <p class="muted">{format!(
                                "Every day, the raw frames of runs older than {} days and jobs finished more than {} days ago are removed. Timelines and replays keep every normalized event.",
                                now.raw_events_days, now.jobs_days
                            )}</p>
                            <Show when=move || owner.get()>
                                <ActionForm action=set attr:class="note-form">
                                    <label class="field-label" for="retention-raw">"Raw frames, days"</label>
                                    <input id="retention-raw" name="raw_events_days" type="number" min="1" max="3650" value=now.raw_events_days.to_string() />
                                    <label class="field-label" for="retention-jobs">"Finished jobs, days"</label>
                                    <input id="retention-jobs" name="jobs_days" type="number" min="1" max="3650" value=now.jobs_days.to_string() />
                                    <button type="submit" class="button small">"Save retention"</button>
                                </ActionForm>
                            </Show>
                        }.into_any(),
                        Err(error) => view! { <p class="error-text">{error.say()}</p> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}
