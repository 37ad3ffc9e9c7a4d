//! Which workspace tools agents may run freely in the tenant, and which ask an operator
//! first: a section of the Members page, changed by owners.

use leptos::prelude::*;

use crate::codec::Json;
use crate::error::ApiError;
use crate::workspace_tools::{ToolPolicy, ToolSetting};

#[server(prefix = "/fn", endpoint = "tool_settings")]
pub async fn load_tool_settings() -> Result<Vec<ToolSetting>, ApiError> {
    use crate::api::service::*;
    with_status(tools()?.tool_settings(&context()?).await)
}

#[server(prefix = "/fn", endpoint = "set_tool_policy")]
pub async fn set_tool_policy(tool: String, policy: String) -> Result<Vec<ToolSetting>, ApiError> {
    use crate::api::service::*;
    let policy = with_status(ToolPolicy::parse(&policy).map_err(ApiError::BadRequest))?;
    with_status(tools()?.set_tool_policy(&context()?, &tool, policy).await)
}

#[component]
pub fn ToolPolicySection() -> impl IntoView {
    let change = ServerAction::<SetToolPolicy>::new();
    let settings = Resource::<_, Json>::new_with_options(
        move || change.version().get(),
        |_| load_tool_settings(),
        false,
    );
    view! {
        <section aria-labelledby="tools-heading">
            <h2 id="tools-heading">"Workspace tools agents may call"</h2>
            <p class="muted">"AG-UI agents are offered these tools; the console runs them on the server, in the agent's name. A tool that asks first waits for an operator to allow each call."</p>
            {move || change.value().get().and_then(Result::err).map(|error| view! { <p class="error-text" role="alert">{error.say()}</p> })}
            <Transition fallback=|| view! { <p class="muted">"Loading the tools…"</p> }>
                {move || Suspend::new(async move {
                    match settings.await {
                        Ok(list) => view! {
                            <table class="audit-table" aria-label="Workspace tools">
                                <thead><tr><th scope="col">"Tool"</th><th scope="col">"Changes the workspace"</th><th scope="col">"When an agent calls it"</th></tr></thead>
                                <tbody>
                                    {list.into_iter().map(|tool| {
                                        let name = tool.name.clone();
                                        let label = format!("When an agent calls {}", tool.name);
                                        view! {
                                            <tr>
                                                <td><code>{tool.name.clone()}</code></td>
                                                <td>{if tool.writes { "yes" } else { "no" }}</td>
                                                <td>
                                                    <select aria-label=label on:change=move |event| {
                                                        change.dispatch(SetToolPolicy { tool: name.clone(), policy: event_target_value(&event) });
                                                    }>
                                                        <option value="free" selected=tool.policy == ToolPolicy::Free>"runs at once"</option>
                                                        <option value="ask" selected=tool.policy == ToolPolicy::Ask>"asks an operator first"</option>
                                                    </select>
                                                </td>
                                            </tr>
                                        }
                                    }).collect_view()}
                                </tbody>
                            </table>
                        }.into_any(),
                        Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}
