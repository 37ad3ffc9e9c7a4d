//! The console's own sign-in, first-run setup, sign-out and tenant forms: plain HTML form
//! posts under `/auth/`, answered with a redirect, so they work before (and without) the
//! browser bundle. A refusal goes back to the form as a short code the page words; no
//! text from the request is echoed.

use std::net::SocketAddr;

use axum::Form;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::on;
use serde::Deserialize;

use super::auth::{Refused, closing_cookie, opening_cookie, sign_in};
use super::context::{Context, encode_component};
use super::credentials::{Credentials, credentials};
use super::error::HttpError;
use super::operations::{Answer, Operation};
use super::state::AppState;
use crate::auth::{AuthError, password};
use app::model::Role::Owner;

/// A form of the console's own pages, answered with a redirect.
const fn form(path: &'static str, summary: &'static str, example: &'static str) -> Operation {
    Operation::post(path, summary)
        .form(example)
        .answer(Answer::Redirect)
}

pub const OPERATIONS: &[Operation] = &[
    form("/auth/login", "sign in", "username=nobody&password=wrong")
        .public()
        .by(|verb| on(verb, login)),
    form(
        "/auth/setup",
        "make the first owner",
        "token=0&username=first&password=a+long+password&tenant=first",
    )
    .public()
    .by(|verb| on(verb, setup)),
    form("/auth/logout", "sign out", "")
        .public()
        .by(|verb| on(verb, logout)),
    form(
        "/auth/logout-everywhere",
        "end every session of the user",
        "",
    )
    .records("session.end_all")
    .by(|verb| on(verb, logout_everywhere)),
    form(
        "/auth/tenant",
        "move this browser's session to another of the user's tenants",
        "tenant=default",
    )
    .recorded_by_handler()
    .by(|verb| on(verb, switch_tenant)),
    form(
        "/auth/new-tenant",
        "found a tenant and move the session there",
        "tenant=probe-founded",
    )
    .needs(Owner)
    .recorded_by_handler()
    .by(|verb| on(verb, new_tenant)),
    form(
        "/auth/invitation",
        "accept or decline an invitation of one's own",
        "tenant=nowhere&answer=decline",
    )
    .recorded_by_handler()
    .by(|verb| on(verb, answer_invitation)),
];

/// 303 to `location`, setting `cookie` when given.
fn redirect(location: &str, cookie: Option<HeaderValue>) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(location) {
        headers.insert(header::LOCATION, value);
    }
    if let Some(cookie) = cookie {
        headers.insert(header::SET_COOKIE, cookie);
    }
    response
}

/// Where a form may send the browser afterwards: a path on this site, never another
/// site (`//host`, `/\host` and absolute URLs all become `/`).
pub fn local_path(next: Option<&str>) -> &str {
    match next {
        Some(path)
            if path.starts_with('/')
                && !path.starts_with("//")
                && !path.starts_with("/\\")
                && !path.chars().any(char::is_control) =>
        {
            path
        }
        _ => "/",
    }
}

#[derive(Deserialize)]
struct LoginForm {
    username: String,
    password: String,
    next: Option<String>,
}

async fn login(
    State(state): State<AppState>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Form(form): Form<LoginForm>,
) -> Result<Response, HttpError> {
    let next = local_path(form.next.as_deref());
    let back = |code: &str| {
        redirect(
            &format!("/login?error={code}&next={}", encode_component(next)),
            None,
        )
    };
    match sign_in(
        &state,
        client,
        &headers,
        form.username.trim(),
        &form.password,
        None,
    )
    .await
    {
        Ok(opened) => Ok(redirect(next, Some(opening_cookie(&opened, &headers)))),
        Err(Refused::Throttled { .. }) => Ok(back("throttled")),
        Err(Refused::Auth(AuthError::Busy(_))) => Ok(back("busy")),
        Err(Refused::Auth(AuthError::BadCredentials)) => Ok(back("wrong")),
        Err(Refused::Auth(AuthError::Invalid(_) | AuthError::NotMember { .. })) => {
            Ok(back("no-tenant"))
        }
        Err(Refused::Auth(error)) => Err(error.into()),
    }
}

#[derive(Deserialize)]
struct SetupForm {
    token: String,
    username: String,
    password: String,
    tenant: String,
}

async fn setup(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(form): Form<SetupForm>,
) -> Result<Response, HttpError> {
    let username = form.username.trim();
    let tenant = form.tenant.trim();
    let problem = if crate::auth::accounts::check_user_name(username).is_err() {
        Some("name")
    } else if app::model::check_tenant_name(tenant).is_err() {
        Some("tenant")
    } else if password::check_new(&form.password).is_err() {
        Some("password")
    } else {
        None
    };
    let back = |code: &str| {
        redirect(
            &format!(
                "/setup?token={}&error={code}",
                encode_component(&form.token)
            ),
            None,
        )
    };
    if let Some(code) = problem {
        return Ok(back(code));
    }
    match state
        .accounts
        .complete_setup(&form.token, username, &form.password, tenant)
        .await
    {
        Ok(opened) => {
            tracing::info!(user = %opened.identity.user_name, tenant = %opened.identity.tenant, "the first owner was created");
            Ok(redirect("/", Some(opening_cookie(&opened, &headers))))
        }
        Err(AuthError::SetupUsed) => Ok(back("used")),
        Err(AuthError::Busy(_)) => Ok(back("busy")),
        Err(error) => Err(error.into()),
    }
}

async fn logout(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, HttpError> {
    if let Credentials::Session(cookie) = credentials(&headers) {
        state.accounts.logout(cookie).await?;
    }
    Ok(redirect("/login", Some(closing_cookie(&headers))))
}

/// Ends every session of the signed-in user, this browser's too.
async fn logout_everywhere(
    State(state): State<AppState>,
    Context(context): Context,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    state.accounts.logout_everywhere(&context.user_id).await?;
    Ok(redirect("/login", Some(closing_cookie(&headers))))
}

/// The session cookie the request came with (its context came from this very cookie),
/// or `refused` (400) for a request with a token, which names no session.
fn session_of<'a>(headers: &'a HeaderMap, refused: &str) -> Result<&'a str, HttpError> {
    match credentials(headers) {
        Credentials::Session(cookie) => Ok(cookie),
        _ => Err(HttpError(app::error::ApiError::BadRequest(refused.into()))),
    }
}

#[derive(Deserialize)]
struct TenantForm {
    tenant: String,
}

/// Moves this browser's session to another of the user's tenants.
async fn switch_tenant(
    State(state): State<AppState>,
    Context(context): Context,
    headers: HeaderMap,
    Form(form): Form<TenantForm>,
) -> Result<Response, HttpError> {
    let cookie = session_of(
        &headers,
        "only a signed-in browser switches tenants; a token acts in the tenant it was made in",
    )?;
    let tenant = form.tenant.trim();
    state
        .accounts
        .switch_tenant(cookie, &context.user_id, &context.actor, tenant)
        .await?;
    // Written in the trail of the tenant entered: the one left learns nothing of the
    // member's other tenants.
    super::audit::write_in(
        state.runs.store(),
        &context,
        tenant,
        "session.switch_tenant",
        String::new(),
    )
    .await;
    Ok(redirect("/", None))
}

/// Creates a tenant with this user as its owner and moves the session there.
async fn new_tenant(
    State(state): State<AppState>,
    Context(context): Context,
    headers: HeaderMap,
    Form(form): Form<TenantForm>,
) -> Result<Response, HttpError> {
    let name = form.tenant.trim();
    match state.accounts.found_tenant(&context.user_id, name).await {
        Ok(()) => {}
        Err(AuthError::Invalid(_)) => return Ok(redirect("/?tenant-error=name", None)),
        Err(AuthError::TenantTaken(_)) => return Ok(redirect("/?tenant-error=taken", None)),
        Err(error) => return Err(error.into()),
    }
    tracing::info!(user = %context.actor, tenant = %name, "a tenant was created");
    super::audit::write_in(
        state.runs.store(),
        &context,
        name,
        "tenant.create",
        format!("tenant={name}"),
    )
    .await;
    if let Credentials::Session(cookie) = credentials(&headers) {
        state
            .accounts
            .switch_tenant(cookie, &context.user_id, &context.actor, name)
            .await?;
    }
    Ok(redirect("/", None))
}

#[derive(Deserialize)]
struct InvitationForm {
    tenant: String,
    /// `accept` or `decline`.
    answer: String,
}

/// The signed-in user's answer to an invitation: accepted, they join the tenant and this
/// browser's session moves there; declined, the invitation is gone. Only a signed-in
/// browser answers: a token belongs to one tenant and joins the user to none.
async fn answer_invitation(
    State(state): State<AppState>,
    Context(context): Context,
    headers: HeaderMap,
    Form(form): Form<InvitationForm>,
) -> Result<Response, HttpError> {
    let cookie = session_of(&headers, "only a signed-in browser answers an invitation")?;
    let accept = match form.answer.as_str() {
        "accept" => true,
        "decline" => false,
        _ => {
            return Err(HttpError(app::error::ApiError::BadRequest(
                "answer is \"accept\" or \"decline\"".into(),
            )));
        }
    };
    let tenant = form.tenant.trim();
    match state
        .accounts
        .answer_invitation(&context.user_id, tenant, accept)
        .await
    {
        Ok(_) => {}
        Err(AuthError::NoInvitation(_)) => return Ok(redirect("/?invitation-error=gone", None)),
        Err(error) => return Err(error.into()),
    }
    // The tenant that invited keeps the answer in its own trail.
    let action = if accept {
        "invitation.accept"
    } else {
        "invitation.decline"
    };
    super::audit::write_in(
        state.runs.store(),
        &context,
        tenant,
        action,
        format!("user={}", context.actor),
    )
    .await;
    if accept {
        tracing::info!(user = %context.actor, %tenant, "an invitation was accepted");
        state
            .accounts
            .switch_tenant(cookie, &context.user_id, &context.actor, tenant)
            .await?;
    }
    Ok(redirect("/", None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_sends_the_browser_only_to_a_page_of_this_site() {
        assert_eq!(local_path(Some("/threads/t1?x=1")), "/threads/t1?x=1");
        for elsewhere in [
            None,
            Some(""),
            Some("https://evil.example/"),
            Some("//evil.example/"),
            Some("/\\evil.example"),
            Some("threads"),
            Some("/a\r\nSet-Cookie: x=1"),
        ] {
            assert_eq!(local_path(elsewhere), "/", "{elsewhere:?}");
        }
    }
}
