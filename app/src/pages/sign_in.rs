//! `/login` and `/setup`: the pages a signed-out browser sees. Both are plain forms that
//! post to the server's `/auth/` handlers, so they work before the bundle has loaded; a
//! refusal comes back as a code in the query, worded here.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

fn login_problem(code: &str) -> &'static str {
    match code {
        "wrong" => "The user name or password is wrong.",
        "throttled" => "Too many failed sign-ins. Wait a few minutes, then try again.",
        "no-tenant" => "This account belongs to no tenant yet. Ask an owner to add you to one.",
        "busy" => "The server is checking many sign-ins at once. Try again in a moment.",
        _ => "Signing in did not work. Try again.",
    }
}

fn setup_problem(code: &str) -> &'static str {
    match code {
        "name" => "A user name has 1 to 64 letters, digits, '.', '-', '_' or '@'.",
        "tenant" => "A tenant name has 1 to 64 letters, digits, '-' or '_'.",
        "password" => "A password has 8 to 1024 characters.",
        "used" => "This setup link was used already, or someone has set up this console.",
        "busy" => "The server is busy. Try again in a moment.",
        _ => "Setting up did not work. Try again.",
    }
}

#[component]
pub fn LoginPage() -> impl IntoView {
    let query = use_query_map();
    let problem = move || query.with(|query| query.get("error").map(|code| login_problem(&code)));
    let next = move || query.with(|query| query.get("next").unwrap_or_default());
    view! {
        <Title text="Sign in" />
        <main class="auth-page" id="main">
            <form class="auth-card" method="post" action="/auth/login">
                <h1>"Sign in to Agent OS"</h1>
                {move || problem().map(|text| view! { <p class="error-text" role="alert">{text}</p> })}
                <label class="field-label" for="login-name">"User name"</label>
                <input id="login-name" name="username" type="text" autocomplete="username"
                    autocapitalize="none" spellcheck="false" required autofocus />
                <label class="field-label" for="login-password">"Password"</label>
                <input id="login-password" name="password" type="password"
                    autocomplete="current-password" required />
                <input type="hidden" name="next" value=next />
                <button type="submit" class="button primary">"Sign in"</button>
                <p class="muted">
                    "No account? An owner adds people with " <code>"agent-os user add"</code>
                    ". A new installation is set up from the link " <code>"agent-os serve"</code>
                    " printed when it started."
                </p>
            </form>
        </main>
    }
}

#[component]
pub fn SetupPage() -> impl IntoView {
    let query = use_query_map();
    let token = move || query.with(|query| query.get("token").unwrap_or_default());
    let problem = move || {
        query.with(|query| {
            query
                .get("error")
                .map(|code| (code.clone(), setup_problem(&code)))
        })
    };
    view! {
        <Title text="Set up" />
        <main class="auth-page" id="main">
            <form class="auth-card" method="post" action="/auth/setup">
                <h1>"Set up Agent OS"</h1>
                <p>"Create the first owner and their tenant. This link works once."</p>
                {move || problem().map(|(code, text)| view! {
                    <p class="error-text" role="alert">
                        {text}
                        {(code == "used").then(|| view! { " " <a href="/login">"Sign in"</a> })}
                    </p>
                })}
                {move || token().is_empty().then(|| view! {
                    <p class="error-text" role="alert">
                        "This page needs the setup link that " <code>"agent-os serve"</code>
                        " printed when it started with no users."
                    </p>
                })}
                <input type="hidden" name="token" value=token />
                <label class="field-label" for="setup-name">"Your user name"</label>
                <input id="setup-name" name="username" type="text" autocomplete="username"
                    autocapitalize="none" spellcheck="false" required maxlength="64" autofocus />
                <label class="field-label" for="setup-password">"Password (8 characters or more)"</label>
                <input id="setup-password" name="password" type="password"
                    autocomplete="new-password" required minlength="8" maxlength="1024" />
                <label class="field-label" for="setup-tenant">"Tenant"</label>
                <input id="setup-tenant" name="tenant" type="text" value="default" required
                    maxlength="64" pattern="[A-Za-z0-9_-]+" spellcheck="false" />
                <button type="submit" class="button primary">"Create owner and sign in"</button>
            </form>
        </main>
    }
}
