//! A fire as context: a run a schedule started is told which schedule and which fire it
//! belongs to (nobody may be at the keyboard), and records it, so its context pane names
//! the schedule and links back to it.

use std::time::Duration;

use app::error::ApiError;
use app::protocol::channel::GivenItem;

use super::when::read;
use crate::connectors::ContextEntry;
use crate::store::Store;

/// The kind of a given item that is a schedule's fire.
pub const SCHEDULE_ITEM: &str = "schedule";

/// What a run being started in `thread_id` is given about the fire that starts it, if a
/// fire does.
pub async fn fire_context(
    store: &dyn Store,
    tenant_id: &str,
    thread_id: &str,
) -> Result<Option<(ContextEntry, GivenItem)>, ApiError> {
    let Some((schedule, fire)) = store.fire_starting_in(tenant_id, thread_id).await? else {
        return Ok(None);
    };
    let due = read(
        &schedule.when,
        &schedule.timezone,
        schedule.created_at_ms,
        Duration::ZERO,
    )
    .map(|timing| timing.local(fire.slot_ms))
    .unwrap_or_else(|_| app::when::readable(&app::when::rfc3339(fire.slot_ms)));
    let how = if fire.manual {
        "run now by an operator"
    } else if fire.catch_up {
        "caught up after it was missed"
    } else {
        "at its time"
    };
    let asks = match schedule.asks {
        app::model::schedules::AskPolicy::Wait => {
            "Any ask you raise waits in the operator's inbox until someone answers it."
        }
        app::model::schedules::AskPolicy::Deny => {
            "Any ask you raise is refused at once: nobody is at the keyboard to answer it."
        }
    };
    let entry = ContextEntry {
        description: format!("The schedule “{}” that started this run", schedule.name),
        value: format!(
            "This run was started by the console's schedule “{}” ({} in {}), for its fire due {due}, {how}. {asks}",
            schedule.name,
            schedule.when.describe(),
            schedule.timezone,
        ),
    };
    let item = GivenItem {
        kind: SCHEDULE_ITEM.to_owned(),
        id: schedule.id,
        title: format!("{} · due {due}", schedule.name),
        version: None,
        pinned_by: "fire".to_owned(),
    };
    Ok(Some((entry, item)))
}
