//! `/audit`: the tenant's audit trail for its owners — who (and by which token) changed
//! what, newest first.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::codec::Json;
use crate::components::layout::ContextFrame;
use crate::error::ApiError;
use crate::model::{AuditEntry, acted_by};
use crate::when::{readable, rfc3339};

/// The tenant's latest audit entries.
#[server(prefix = "/fn", endpoint = "audit")]
pub async fn load_audit() -> Result<Vec<AuditEntry>, ApiError> {
    use crate::api::service::*;
    let context = context()?;
    with_status(context.require(crate::model::Role::Owner, "reading the audit trail"))?;
    with_status(workspace()?.audit(&context.tenant, 200).await)
}

#[component]
pub fn AuditPage() -> impl IntoView {
    let entries = Resource::<_, Json>::new_with_options(|| (), |_| load_audit(), false);
    view! {
        <Title text="Audit" />
        <main class="main section-page" id="main" tabindex="-1">
            <h1>"Audit"</h1>
            <p class="muted">"Every change in this tenant, by whom and with which token, newest first."</p>
            <Transition fallback=|| view! { <p class="muted">"Loading the audit trail…"</p> }>
                {move || Suspend::new(async move {
                    match entries.await {
                        Ok(list) if list.is_empty() => view! { <p role="status">"Nothing has been changed yet."</p> }.into_any(),
                        Ok(list) => view! { <AuditTable entries=list /> }.into_any(),
                        Err(error) => view! {
                            <p class="error-text" role="alert">"The audit trail could not be loaded: " {error.say()}</p>
                        }.into_any(),
                    }
                })}
            </Transition>
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"Audit"</h2>
                <p class="muted">"Entries name objects by id; what was typed (messages, answers, secrets) is never recorded."</p>
            </section>
        </ContextFrame>
    }
}

#[component]
fn AuditTable(entries: Vec<AuditEntry>) -> impl IntoView {
    view! {
        <table class="audit-table" aria-label="Audit trail">
            <thead>
                <tr><th scope="col">"When"</th><th scope="col">"Who"</th><th scope="col">"Did"</th><th scope="col">"To"</th></tr>
            </thead>
            <tbody>
                {entries.into_iter().map(|entry| {
                    let at = rfc3339(entry.at_ms);
                    let who = acted_by(&entry.user, entry.token.as_deref());
                    view! {
                        <tr>
                            <td><time datetime=at.clone()>{readable(&at)}</time></td>
                            <td>{who}</td>
                            <td><code>{entry.action}</code></td>
                            <td class="audit-target">{entry.target}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}
