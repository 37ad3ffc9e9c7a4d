//! Frontend tools: run by the console in the browser, allowed to run on the server (the
//! workspace tools), or answered by the operator.

use leptos::prelude::*;
use serde_json::{Value, json};

use super::{AskHead, Sender};
use crate::components::catalog::CatalogView;
use crate::console_tools::{ConsoleTool, failure};
use crate::protocol::ask::{Ask, AskOrigin};
use crate::workspace_tools::WorkspaceCall;

/// A tool the agent asked the console to run. One the console implements runs at once
/// and its result goes back by itself; for any other the operator gives the result.
#[component]
pub(super) fn FrontendTool(ask: Ask, id: String, sender: Sender) -> impl IntoView {
    let console_tool = match &ask.origin {
        AskOrigin::AgUiFrontendTool {
            tool_name,
            arguments,
        } => ConsoleTool::from_call(tool_name, arguments),
        _ => None,
    };
    let workspace_call = match &ask.origin {
        AskOrigin::AgUiFrontendTool {
            tool_name,
            arguments,
        } => WorkspaceCall::from_call(tool_name, arguments),
        _ => None,
    };
    if let AskOrigin::AgUiFrontendTool {
        tool_name,
        arguments,
    } = &ask.origin
        && crate::catalog::ANSWERED_AS_TOOLS.contains(&tool_name.as_str())
    {
        let (component, arguments) = (tool_name.clone(), arguments.clone());
        return view! { <CatalogToolAsk ask id component arguments sender /> }.into_any();
    }
    match (console_tool, workspace_call) {
        (Some(call), _) => view! { <ConsoleToolRun ask id call sender /> }.into_any(),
        (None, Some(call)) => view! { <WorkspaceToolAsk ask id call sender /> }.into_any(),
        (None, None) => view! { <OperatorToolResult ask id sender /> }.into_any(),
    }
}

/// A catalog component the agent called as a tool: drawn from the call's arguments; the
/// operator's decision is the call's result, sent once as the ask's receipt.
#[component]
fn CatalogToolAsk(
    ask: Ask,
    id: String,
    component: String,
    arguments: String,
    sender: Sender,
) -> impl IntoView {
    let mut data = crate::codec::from_json::<Value>(&arguments).unwrap_or(Value::String(arguments));
    // tool-ui's fallback id: the payload's own, else the call's.
    if let Some(fields) = data.as_object_mut() {
        fields
            .entry("id")
            .or_insert_with(|| Value::String(format!("{component}-{}", ask.id)));
    }
    let decided = Callback::new(move |(action, data): (String, Value)| {
        sender.send(
            "submit",
            json!({ "result": { "action": action, "data": data } }),
        );
    });
    view! {
        <section class="ask tool catalog-ask" role="form" aria-labelledby=format!("{id}-title")>
            <AskHead ask=ask.clone() id=id.clone() />
            <CatalogView component data on_action=Some(decided) />
            <footer class="ask-actions">
                <button type="button" class="button ghost" disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("cancel", Value::Null)>"Decline"</button>
            </footer>
        </section>
    }
}

/// A workspace tool the tenant has it ask about first: what it would do, and Allow or
/// Deny. Allowed, the server runs it and sends the agent what came of it; the browser
/// sends no result of its own.
#[component]
fn WorkspaceToolAsk(
    ask: Ask,
    id: String,
    call: Result<WorkspaceCall, String>,
    sender: Sender,
) -> impl IntoView {
    let (doing, allow) = match &call {
        Ok(call) => (call.describe(), "Allow"),
        Err(problem) => (problem.clone(), "Tell the agent"),
    };
    let body = match &call {
        Ok(WorkspaceCall::NoteWrite { body, .. }) => Some(body.clone()),
        Ok(WorkspaceCall::Memory { operation }) => operation.content.clone(),
        _ => None,
    };
    view! {
        <section class="ask tool" role="form" aria-labelledby=format!("{id}-title")>
            <AskHead ask=ask.clone() id=id.clone() />
            <p>{doing}</p>
            {body.filter(|text| !text.is_empty()).map(|text| view! { <pre class="tool-preview">{text}</pre> })}
            <p class="muted">"The console runs this on the server once allowed, in the agent's name and yours."</p>
            <footer class="ask-actions">
                <button type="button" class="button primary" disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("submit", json!({ "result": null }))>{allow}</button>
                <button type="button" class="button ghost" disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("cancel", Value::Null)>"Deny"</button>
            </footer>
        </section>
    }
}

/// Runs a console tool once, in the browser, and sends what came of it.
#[component]
fn ConsoleToolRun(
    ask: Ask,
    id: String,
    call: Result<ConsoleTool, String>,
    sender: Sender,
) -> impl IntoView {
    let doing = match &call {
        Ok(tool) => tool.describe(),
        Err(problem) => problem.clone(),
    };
    let ran = StoredValue::new(false);
    // Effects run only in the browser, after hydration: the server never runs the tool.
    Effect::new(move |_| {
        if ran.get_value() {
            return;
        }
        ran.set_value(true);
        let result = match &call {
            Ok(tool) => run_in_browser(tool)
                .map(|()| tool.result())
                .unwrap_or_else(|problem| failure(&problem)),
            Err(problem) => failure(problem),
        };
        sender.send("submit", json!({ "result": result }));
    });
    view! {
        <section class="ask tool" role="form" aria-labelledby=format!("{id}-title")>
            <AskHead ask=ask.clone() id=id.clone() />
            <p class="muted" role="status">"The console runs this itself: " {doing}</p>
        </section>
    }
}

/// Runs a console tool in the browser: checks what only the browser can judge. Its effect
/// is shown from the answer it records.
fn run_in_browser(tool: &ConsoleTool) -> Result<(), String> {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    {
        use wasm_bindgen::JsCast;
        match tool {
            ConsoleTool::ChangeBackground { color } => {
                let document = document();
                // The browser is the judge of CSS: a colour it does not take reads back empty.
                let probe = document
                    .create_element("div")
                    .ok()
                    .and_then(|element| element.dyn_into::<web_sys::HtmlElement>().ok())
                    .ok_or("the page cannot check a colour")?;
                let _ = probe.style().set_property("color", color);
                if probe
                    .style()
                    .get_property_value("color")
                    .unwrap_or_default()
                    .is_empty()
                {
                    return Err(format!("this browser does not take {color:?} as a colour"));
                }
                // The thread shows the colour from the recorded answer, so it stays with
                // this thread and survives a reload.
                Ok(())
            }
        }
    }
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    {
        let _ = tool;
        Err("tools run in the browser only".into())
    }
}

/// What the operator says of a tool they ran by hand, as the call's result: that it was
/// done, and their note when they wrote one.
fn done_result(note: &str) -> Value {
    match note.trim() {
        "" => json!({ "done": true }),
        note => json!({ "done": true, "note": note }),
    }
}

/// A tool the console does not implement: the operator does it, or declines, and says so
/// in words; a JSON result of their own waits under "Advanced".
#[component]
fn OperatorToolResult(ask: Ask, id: String, sender: Sender) -> impl IntoView {
    let note: NodeRef<leptos::html::Textarea> = NodeRef::new();
    let raw: NodeRef<leptos::html::Textarea> = NodeRef::new();
    let (note_id, raw_id) = (format!("{id}-note"), format!("{id}-result"));
    let error = RwSignal::new(None::<String>);
    let done = move |_| {
        let text = note
            .get_untracked()
            .map(|area| area.value())
            .unwrap_or_default();
        sender.send("submit", json!({ "result": done_result(&text) }));
    };
    let send_raw = move |_| {
        let Some(area) = raw.get_untracked() else {
            return;
        };
        match crate::codec::from_json::<Value>(&area.value()) {
            Ok(result) => {
                error.set(None);
                sender.send("submit", json!({ "result": result }));
            }
            Err(problem) => error.set(Some(format!("That is not JSON: {problem}"))),
        }
    };
    view! {
        <section class="ask tool" role="form" aria-labelledby=format!("{id}-title")>
            <AskHead ask=ask.clone() id=id.clone() />
            <p>"The console cannot do this itself. Do it, then tell the agent, or decline."</p>
            <label for=note_id.clone() class="field-label">"What happened (optional)"</label>
            <textarea id=note_id node_ref=note rows="2"></textarea>
            <footer class="ask-actions">
                <button type="button" class="button primary" disabled=move || sender.sending.get() on:click=done>
                    "Done"
                </button>
                <button type="button" class="button ghost" disabled=move || sender.sending.get()
                    on:click=move |_| sender.send("cancel", Value::Null)>"Decline"</button>
            </footer>
            <details class="ask-details">
                <summary>"Advanced"</summary>
                <label for=raw_id.clone() class="field-label">"Result (JSON)"</label>
                <textarea id=raw_id node_ref=raw rows="3" spellcheck="false">"{\"ok\": true}"</textarea>
                {move || error.get().map(|text| view! { <p class="ask-notice" role="alert">{text}</p> })}
                <button type="button" class="button" disabled=move || sender.sending.get() on:click=send_raw>
                    "Send this result"
                </button>
            </details>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::done_result;
    use serde_json::json;

    #[test]
    fn a_tool_done_by_hand_answers_done_with_the_note_if_any() {
        assert_eq!(done_result("  "), json!({ "done": true }));
        assert_eq!(
            done_result(" rendered it \n"),
            json!({ "done": true, "note": "rendered it" })
        );
    }
}
