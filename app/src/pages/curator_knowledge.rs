//! The knowledge curator on the Curator page: a pass (or a dry run) asked for now, the
//! latest passes with what each found and proposed, the ledger of changes made on its
//! proposals with the undo of one, and — beside them — its settings, which owners set.

use leptos::prelude::*;

use crate::codec::Json;
use crate::components::details_open;
use crate::components::identity::{is_owner, may_act};
use crate::curator::FindingKind;
use crate::error::{ApiError, refusal};
use crate::model::curator::{
    CuratorChange, CuratorLedger, CuratorPass, CuratorPasses, CuratorSettings, PassFinding,
    PassStarted,
};
use crate::pages::notes::time_view;

/// How many passes the page shows.
const PASSES_SHOWN: usize = 10;

#[server(prefix = "/fn", endpoint = "curator_passes")]
pub async fn load_passes() -> Result<CuratorPasses, ApiError> {
    use crate::api::service::*;
    with_status(curator()?.passes(&context()?).await)
}

#[server(prefix = "/fn", endpoint = "start_curator_pass")]
pub async fn start_curator_pass(dry_run: bool) -> Result<PassStarted, ApiError> {
    use crate::api::service::*;
    with_status(
        curator()?
            .start_pass(&context()?, crate::model::curator::StartPass { dry_run })
            .await,
    )
}

#[server(prefix = "/fn", endpoint = "curator_changes")]
pub async fn load_ledger() -> Result<CuratorLedger, ApiError> {
    use crate::api::service::*;
    with_status(curator()?.ledger(&context()?).await)
}

#[server(prefix = "/fn", endpoint = "undo_curator_change")]
pub async fn undo_curator_change(change_id: String) -> Result<CuratorChange, ApiError> {
    use crate::api::service::*;
    with_status(curator()?.undo_change(&context()?, &change_id).await)
}

#[server(prefix = "/fn", endpoint = "curator_settings")]
pub async fn load_curator_settings() -> Result<CuratorSettings, ApiError> {
    use crate::api::service::*;
    with_status(curator()?.curator_settings(&context()?).await)
}

#[server(prefix = "/fn", endpoint = "set_curator_settings")]
pub async fn set_curator_settings(
    #[server(default)] weekly: Option<String>,
    idle_minutes: u32,
    near_percent: u8,
    unused_days: u32,
) -> Result<CuratorSettings, ApiError> {
    use crate::api::service::*;
    let settings = CuratorSettings {
        weekly: weekly.is_some(),
        idle_minutes,
        near_percent,
        unused_days,
    };
    with_status(curator()?.set_curator_settings(&context()?, settings).await)
}

fn kind_label(kind: FindingKind) -> &'static str {
    match kind {
        FindingKind::Duplicate => "Duplicate",
        FindingKind::NearDuplicate => "Near duplicate",
        FindingKind::Unused => "Unused",
        FindingKind::OrphanNote => "Note linked to nothing",
    }
}

/// The knowledge curator's passes and ledger; `heard` moves when background work changed.
#[component]
pub fn KnowledgeCurator(heard: Signal<u64>) -> impl IntoView {
    let start = ServerAction::<StartCuratorPass>::new();
    let undo = ServerAction::<UndoCuratorChange>::new();
    let passes = Resource::<_, Json>::new_with_options(
        move || (start.version().get(), heard.get()),
        |_| load_passes(),
        false,
    );
    let ledger = Resource::<_, Json>::new_with_options(
        move || (undo.version().get(), heard.get()),
        |_| load_ledger(),
        false,
    );
    let may = may_act();
    // Which reports are open, kept as the list is read again.
    let opened = RwSignal::new(std::collections::HashSet::<String>::new());
    view! {
        <section class="knowledge-curator" aria-labelledby="knowledge-heading">
            <h2 id="knowledge-heading">"Knowledge curator"</h2>
            <p class="muted">"A pass reads the tenant's and projects' memory and the notes. It finds entries that repeat others word for word or nearly, entries no run was given for a while, and notes that link to nothing. It proposes each removal into memory's review queue and never changes anything itself; a dry run only reports."</p>
            <Show when=move || may.get()>
                <div class="note-actions">
                    <button type="button" class="button small" on:click=move |_| { start.dispatch(StartCuratorPass { dry_run: false }); }>"Pass now"</button>
                    <button type="button" class="button small ghost" on:click=move |_| { start.dispatch(StartCuratorPass { dry_run: true }); }>"Dry run"</button>
                </div>
            </Show>
            {move || start.value().with(refusal).map(|problem| view! { <p class="error-text" role="alert">{problem}</p> })}
            <Transition fallback=|| view! { <p class="muted">"Loading passes…"</p> }>
                {move || Suspend::new(async move {
                    match passes.await {
                        Ok(list) if list.passes.is_empty() => view! { <p class="muted" role="status">"No pass yet."</p> }.into_any(),
                        Ok(list) => view! {
                            <ul class="note-list" aria-label="Curator passes">
                                {list.passes.into_iter().take(PASSES_SHOWN).map(|pass| view! { <PassView pass opened /> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                    }
                })}
            </Transition>
            <h3>"Changes made on its proposals"</h3>
            {move || undo.value().with(refusal).map(|problem| view! { <p class="error-text" role="alert">{problem}</p> })}
            <Transition fallback=|| view! { <p class="muted">"Loading the ledger…"</p> }>
                {move || Suspend::new(async move {
                    match ledger.await {
                        Ok(ledger) if ledger.changes.is_empty() => view! { <p class="muted" role="status">"No change yet: accepted proposals appear here, each with its undo."</p> }.into_any(),
                        Ok(ledger) => view! {
                            <ul class="note-list" aria-label="Curator ledger">
                                {ledger.changes.into_iter().map(|change| view! { <ChangeView change undo may /> }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn PassView(
    pass: CuratorPass,
    opened: RwSignal<std::collections::HashSet<String>>,
) -> impl IntoView {
    let found = pass.report.findings.len();
    let summary = format!(
        "{} · {}{} · {found} found, {} proposed",
        if pass.trigger == "weekly" {
            "Weekly"
        } else {
            "Asked for"
        },
        pass.state,
        if pass.dry_run { " · dry run" } else { "" },
        pass.report.proposed
    );
    view! {
        <li class="note-row curator-pass" data-pass=pass.id.clone()>
            <details prop:open={
                let id = pass.id.clone();
                move || opened.with(|open| open.contains(&id))
            } on:toggle={
                let id = pass.id.clone();
                move |event| {
                    if let Some(open) = details_open(&event)
                        && open != opened.with_untracked(|set| set.contains(&id))
                    {
                        opened.update(|set| {
                            if open { set.insert(id.clone()); } else { set.remove(&id); }
                        });
                    }
                }
            }>
                <summary>
                    <span class="note-title">{summary}</span>
                    " "
                    <span class="muted note-meta">{time_view(pass.started_at_ms)} " · " {pass.requested_by.clone()}</span>
                </summary>
                <p class="muted">{format!("Read {} memory entries and {} notes.", pass.report.entries_read, pass.report.notes_read)}</p>
                {pass.report.error.clone().map(|error| view! { <p class="error-text">{error}</p> })}
                <ul class="curator-findings">
                    {pass.report.findings.into_iter().map(|finding| view! { <FindingView finding /> }).collect_view()}
                </ul>
            </details>
        </li>
    }
}

#[component]
fn FindingView(finding: PassFinding) -> impl IntoView {
    let done = match (&finding.proposal_id, &finding.not_proposed) {
        (Some(_), _) => {
            view! { <a href="/memory#review-heading">"Proposed for review"</a> }.into_any()
        }
        (None, Some(why)) => view! { <span class="muted">{why.clone()}</span> }.into_any(),
        (None, None) => ().into_any(),
    };
    view! {
        <li>
            <strong>{kind_label(finding.finding.kind)}</strong>
            {finding.scope.map(|scope| format!(" ({})", scope.label()))}
            ": “" {finding.subject.clone()} "” — " {finding.finding.reason.clone()}
            {finding.kept.clone().map(|kept| view! { <span class="muted">" Kept: “" {kept} "”."</span> })}
            " " {done}
        </li>
    }
}

#[component]
fn ChangeView(
    change: CuratorChange,
    undo: ServerAction<UndoCuratorChange>,
    may: Signal<bool>,
) -> impl IntoView {
    let what = match (&change.before, &change.after, &change.undoes) {
        (None, Some(after), Some(_)) => format!("Put back “{}”", after.text),
        (Some(before), None, _) => format!("Removed “{}”", before.text),
        (Some(before), Some(after), _) => format!("Changed “{}” to “{}”", before.text, after.text),
        (None, Some(after), None) => format!("Added “{}”", after.text),
        (None, None, _) => "No entry".to_owned(),
    };
    let id = change.id.clone();
    let undoable = change.undoes.is_none() && change.undone_by.is_none();
    view! {
        <li class="note-row curator-change" data-change=change.id.clone()>
            <span class="note-title">{what}</span>
            <span class="muted note-meta">
                {time_view(change.at_ms)} " · " {change.actor.clone()} " · " {change.scope.label()}
                {change.undone_by.as_ref().map(|_| " · undone")}
            </span>
            <Show when=move || may.get() && undoable>
                {
                    let id = id.clone();
                    view! {
                        <button type="button" class="button small ghost" on:click=move |_| {
                            undo.dispatch(UndoCuratorChange { change_id: id.clone() });
                        }>"Undo"</button>
                    }
                }
            </Show>
        </li>
    }
}

/// The curator's settings beside the page: everyone reads them, owners set them.
#[component]
pub fn CuratorSettingsSection() -> impl IntoView {
    let set = ServerAction::<SetCuratorSettings>::new();
    let settings = Resource::<_, Json>::new_with_options(
        move || set.version().get(),
        |_| load_curator_settings(),
        false,
    );
    let owner = is_owner();
    view! {
        <section class="pane-section" aria-labelledby="curator-settings-heading">
            <h2 id="curator-settings-heading">"Curator settings"</h2>
            {move || set.value().with(refusal).map(|problem| view! { <p class="error-text" role="alert">{problem}</p> })}
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    match settings.await {
                        Ok(now) => view! {
                            <p class="muted">{describe(now)}</p>
                            <Show when=move || owner.get()>
                                <ActionForm action=set attr:class="note-form">
                                    <label class="memory-setting">
                                        <input type="checkbox" name="weekly" value="on" checked=now.weekly />
                                        " A pass every week"
                                    </label>
                                    <label class="field-label" for="curator-idle">"Idle for, minutes"</label>
                                    <input id="curator-idle" name="idle_minutes" type="number" min="1" max="1440" value=now.idle_minutes.to_string() />
                                    <label class="field-label" for="curator-near">"Near duplicates from, % of words"</label>
                                    <input id="curator-near" name="near_percent" type="number" min="50" max="100" value=now.near_percent.to_string() />
                                    <label class="field-label" for="curator-unused">"Unused after, days"</label>
                                    <input id="curator-unused" name="unused_days" type="number" min="1" max="3650" value=now.unused_days.to_string() />
                                    <button type="submit" class="button small">"Save curator settings"</button>
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

fn describe(settings: CuratorSettings) -> String {
    let when = if settings.weekly {
        format!(
            "A pass every week, once no run has started for {} minutes.",
            settings.idle_minutes
        )
    } else {
        "No weekly pass; passes run when asked for.".to_owned()
    };
    format!(
        "{when} Entries sharing {} % of their words are near duplicates; entries no run was given for {} days are unused.",
        settings.near_percent, settings.unused_days
    )
}
