//! Starting runs from the thread page — a message, a retry, an action on a surface — and
//! joining the ones the server starts on its own: each shown at once and followed live.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::load_thread_page;
use crate::components::a2ui::OnSurfaceAction;
use crate::components::context_pane::RunSignals;
use crate::components::output_card::Selection;
use crate::components::output_card::ThreadSurfaces;
use crate::components::scroll_port::ScrollPort;
use crate::components::tool_card::{ContinuedCalls, DeclinedCalls, ExpandedRows, WaitingCalls};
use crate::error::ApiError;
use crate::live::{Connection, follow, is_open};
use crate::model::RunSummary;
use crate::projection::{ItemBody, RunView, ViewPolicy};
use crate::protocol::ask::{Ask, Outcome};

pub(super) fn signals(summary: RunSummary, view: RunView) -> RunSignals {
    RunSignals {
        summary: RwSignal::new(summary),
        view: RwSignal::new(view),
    }
}

/// What the page keeps of its runs, and how it says a run is being started or could not be.
#[derive(Clone, Copy)]
pub(super) struct RunStarter {
    pub runs: RwSignal<Vec<RunSignals>>,
    pub connection: RwSignal<Connection>,
    pub port: ScrollPort,
    pub busy: RwSignal<bool>,
    pub problem: RwSignal<Option<String>>,
}

impl RunStarter {
    /// A run the server started for this page: shown, and followed live.
    pub fn add(self, summary: RunSummary) {
        let id = summary.id.clone();
        // The page may have found it already (a discovery that ran while it started).
        if let Some(view) = join(self.runs, summary, RunView::new(ViewPolicy::default())) {
            follow(&id, view, self.connection);
        }
    }

    /// Whoever starts a run wants to see what comes back: the page goes to its end and
    /// waits for the server; the new run joins, or the problem is said.
    pub fn start(
        self,
        started: impl std::future::Future<Output = Result<RunSummary, ApiError>> + 'static,
    ) {
        self.port.jump_to_latest();
        self.busy.set(true);
        self.problem.set(None);
        spawn_local(async move {
            match started.await {
                Ok(summary) => self.add(summary),
                Err(error) => {
                    self.problem.try_set(Some(error.say()));
                }
            }
            self.busy.try_set(false);
        });
    }

    /// Runs the server started on its own (a resume after the last answer) join the page;
    /// `agent` learns the thread's agent.
    pub fn discover(self, thread_id: String, agent: RwSignal<Option<String>>) {
        let (runs, connection) = (self.runs, self.connection);
        spawn_local(async move {
            let Ok(page) = load_thread_page(thread_id).await else {
                return;
            };
            // The page may have been left meanwhile: nothing below may panic on that.
            if agent.try_set(page.agent.clone()).is_some() {
                return;
            }
            for run in page.runs {
                let Some(known) = runs.try_with_untracked(|list| {
                    list.iter()
                        .find(|r| r.summary.with_untracked(|s| s.id == run.run.id))
                        .copied()
                }) else {
                    return;
                };
                match known {
                    Some(existing) => {
                        let id = run.run.id.clone();
                        existing.summary.try_set(run.run);
                        // Over here but open again there (an ask reopened after a
                        // restart): the page takes the server's view and follows it.
                        let reopened = existing.view.try_with_untracked(|view| !is_open(view))
                            == Some(true)
                            && is_open(&run.view);
                        if reopened && existing.view.try_set(run.view).is_none() {
                            follow(&id, existing.view, connection);
                        }
                    }
                    None => {
                        let open = is_open(&run.view);
                        let id = run.run.id.clone();
                        // Two discoveries at once find the same run: it joins once.
                        if let Some(view) = join(runs, run.run, run.view)
                            && open
                        {
                            follow(&id, view, connection);
                        }
                    }
                }
            }
        });
    }
}

/// Adds the run to the page unless it is there already; its view when it was added.
fn join(
    runs: RwSignal<Vec<RunSignals>>,
    summary: RunSummary,
    view: RunView,
) -> Option<RwSignal<RunView>> {
    let id = summary.id.clone();
    let added = signals(summary, view);
    let pushed = runs.try_update(|list| {
        let known = list
            .iter()
            .any(|run| run.summary.with_untracked(|summary| summary.id == id));
        if !known {
            list.push(added);
        }
        !known
    });
    (pushed == Some(true)).then_some(added.view)
}

/// Runs of the thread started or resumed elsewhere (another tab, the inbox, a script),
/// or open again there, show in the tenant's live inbox, running or waiting: the page
/// looks for them, so it follows them and can stop them.
pub fn discover_runs_from_elsewhere(
    thread_id: StoredValue<String>,
    runs: RwSignal<Vec<RunSignals>>,
    discover: impl Fn() + 'static,
) {
    let Some(inbox) = crate::components::inbox::use_inbox() else {
        return;
    };
    let elsewhere = Memo::new(move |_| {
        let thread = thread_id.get_value();
        inbox
            .with(|inbox| {
                inbox
                    .running
                    .iter()
                    .filter(|run| run.thread_id == thread)
                    .map(|run| run.run_id.clone())
                    .chain(
                        inbox
                            .asks
                            .iter()
                            .filter(|ask| ask.thread_id == thread)
                            .map(|ask| ask.run_id.clone()),
                    )
                    .collect::<std::collections::BTreeSet<String>>()
            })
            .unwrap_or_default()
    });
    // A run the page does not know, or knows as over: the server's word is fetched.
    Effect::new(move |_| {
        let news = elsewhere.with(|ids| {
            runs.with_untracked(|list| {
                ids.iter().any(|id| {
                    list.iter()
                        .find(|run| run.summary.with_untracked(|summary| &summary.id == id))
                        .is_none_or(|run| run.view.with_untracked(|view| !is_open(view)))
                })
            })
        });
        if news {
            discover();
        }
    });
}

/// What every tool card of the thread reads besides its own run: the results follow-up
/// runs brought for calls their paused runs started (one card per call across the
/// thread), the calls a pending ask waits on, the calls an ask declined, and the rows
/// the operator opened.
pub(super) fn provide_call_states(
    runs: RwSignal<Vec<RunSignals>>,
    pending: Memo<Vec<(String, Ask)>>,
) {
    // One card per tool call across the thread: results a follow-up run brought for calls
    // its paused run started are shown on the paused run's cards.
    let continued = Memo::new(move |_| {
        runs.with(|runs| {
            let mut calls = std::collections::HashMap::new();
            for run in runs {
                let id = run.summary.with(|summary| summary.id.clone());
                let Some(paused_id) = crate::projection::history::resumed_run(&id) else {
                    continue;
                };
                let Some(paused) = runs
                    .iter()
                    .find(|other| other.summary.with(|summary| summary.id == paused_id))
                else {
                    continue;
                };
                run.view.with(|follow_up| {
                    paused.view.with(|paused| {
                        for item in crate::projection::history::continued_calls(follow_up, paused) {
                            if let ItemBody::ToolCall { tool_call_id, .. } = &item.body {
                                calls.insert(tool_call_id.clone(), item.clone());
                            }
                        }
                    })
                });
            }
            calls
        })
    });
    provide_context(ContinuedCalls(continued));
    let waiting = Memo::new(move |_| {
        pending.with(|list| {
            list.iter()
                .filter_map(|(_, ask)| ask.tool_call_id.clone())
                .collect::<Vec<String>>()
        })
    });
    provide_context(WaitingCalls(waiting));
    let declined = Memo::new(move |_| {
        runs.with(|list| {
            list.iter()
                .flat_map(|run| {
                    run.view.with(|view| {
                        view.asks
                            .iter()
                            .filter(|ask| ask.state.outcome() == Outcome::Denied)
                            .filter_map(|ask| ask.tool_call_id.clone())
                            .collect::<Vec<String>>()
                    })
                })
                .collect::<Vec<String>>()
        })
    });
    provide_context(DeclinedCalls(declined));
    provide_context(ExpandedRows(RwSignal::new(Default::default())));
}

/// The thread's A2UI surfaces for its cards and canvas: every run's surface operations
/// folded (oldest run first), where each surface was last drawn, and which the canvas shows.
pub fn provide_thread_surfaces(
    runs: RwSignal<Vec<RunSignals>>,
    selection: RwSignal<Option<Selection>>,
    on_action: OnSurfaceAction,
) {
    let surface_artifacts = move || {
        runs.with(|runs| {
            let mut found = Vec::new();
            for (position, run) in runs.iter().enumerate() {
                run.view.with(|view| {
                    found.extend(
                        view.artifacts
                            .iter()
                            .filter(|a| a.kind == crate::a2ui::ARTIFACT_KIND)
                            .map(|a| (position, a.clone())),
                    )
                });
            }
            found
        })
    };
    let surfaces = Memo::new(move |_| {
        let found = surface_artifacts();
        crate::a2ui::of_artifacts(found.iter().map(|(_, artifact)| artifact))
    });
    let last_drawn = Memo::new(move |_| {
        let mut last = std::collections::HashMap::new();
        for (position, artifact) in surface_artifacts() {
            for id in crate::a2ui::surface_ids(&artifact.data) {
                last.insert(id, (position, artifact.artifact_id.clone()));
            }
        }
        last
    });
    let in_canvas = Memo::new(move |_| match selection.get() {
        Some(Selection::Artifact { run, id }) => runs.with(|runs| {
            runs.get(run)
                .and_then(|r| {
                    r.view.with(|view| {
                        view.artifact(&id)
                            .filter(|a| a.kind == crate::a2ui::ARTIFACT_KIND)
                            .map(|a| crate::a2ui::surface_ids(&a.data))
                    })
                })
                .unwrap_or_default()
        }),
        _ => Vec::new(),
    });
    provide_context(ThreadSurfaces {
        surfaces,
        last_drawn,
        in_canvas,
        on_action,
    });
}
