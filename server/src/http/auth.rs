//! Signing in and out over HTTP — `/api/v1/auth/login`, `logout`, `logout-everywhere`,
//! `setup` and `/api/v1/me` — and the session cookie's shape.

use std::net::SocketAddr;

use app::error::ApiError;
use app::model::{Membership, RequestContext, Role};
use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::on;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::body::parse_body;
use super::context::Context;
use super::credentials::{Credentials, SESSION_COOKIE, credentials};
use super::error::HttpError;
use super::operations::{Operation, schema};
use super::state::AppState;
use crate::auth::AuthError;
use crate::auth::sessions::{ABSOLUTE_MS, Opened};
use crate::clock::now_ms;

pub const OPERATIONS: &[Operation] = &[
    Operation::post("/api/v1/auth/login", "check a name and password and open a session")
        .public()
        .json(schema::<LoginBody>, r#"{"username":"nobody","password":"not a password"}"#)
        .answers(200, schema::<MeBody>)
        .by(|verb| on(verb, login)),
    Operation::post(
        "/api/v1/auth/setup",
        "make the first owner with the setup link's token, and sign them in",
    )
    .public()
    .json(
        schema::<SetupBody>,
        r#"{"token":"0000000000000000000000000000000000000000000000000000000000000000","username":"first","password":"a long password","tenant":"first"}"#,
    )
    .answers(200, schema::<MeBody>)
    .by(|verb| on(verb, setup)),
    Operation::post("/api/v1/auth/logout", "end the session the cookie carries")
        .public()
        .by(|verb| on(verb, logout)),
    Operation::post(
        "/api/v1/auth/logout-everywhere",
        "end every session of the signed-in user",
    )
    .records("session.end_all")
    .answers(200, schema::<Ended>)
    .by(|verb| on(verb, logout_everywhere)),
    Operation::get("/api/v1/me", "who the credentials act as, in which tenant")
        .answers(200, schema::<MeBody>)
        .by(|verb| on(verb, me)),
];

impl From<AuthError> for ApiError {
    fn from(error: AuthError) -> Self {
        match error {
            AuthError::Invalid(message) => ApiError::BadRequest(message),
            error @ (AuthError::UnknownUser(_)
            | AuthError::UnknownToken(_)
            | AuthError::NoInvitation(_)) => ApiError::NotFound(error.to_string()),
            error @ (AuthError::NameTaken(_)
            | AuthError::TenantTaken(_)
            | AuthError::LastOwner(_)
            | AuthError::AlreadyMember { .. }) => ApiError::Conflict(error.to_string()),
            error @ AuthError::BadCredentials => ApiError::Unauthorized(error.to_string()),
            error @ AuthError::Busy(_) => ApiError::TooManyRequests(error.to_string()),
            error @ (AuthError::NotMember { .. }
            | AuthError::RoleTooWide { .. }
            | AuthError::TokenElsewhere { .. }
            | AuthError::SetupUsed) => ApiError::Forbidden(error.to_string()),
            AuthError::Store(error) => error.into(),
        }
    }
}

impl From<AuthError> for HttpError {
    fn from(error: AuthError) -> Self {
        HttpError(error.into())
    }
}

/// Whether the browser reached the server over TLS, as a reverse proxy in front of it
/// says (`X-Forwarded-Proto` or `Forwarded`) or, for a proxy that says nothing, as the
/// browser's own `Origin` shows (every sign-in and sign-out is a POST from the page, and
/// a page cannot forge it). Believing a false claim only makes the cookie `Secure`,
/// which an attacker gains nothing from.
pub fn over_tls(headers: &HeaderMap) -> bool {
    let said = |name: &str| {
        headers
            .get_all(name)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .map(str::to_ascii_lowercase)
            .collect::<Vec<_>>()
    };
    said("x-forwarded-proto").iter().any(|value| {
        value
            .split(',')
            .next()
            .is_some_and(|proto| proto.trim() == "https")
    }) || said("forwarded").iter().any(|value| {
        value
            .split([';', ','])
            .any(|part| part.trim() == "proto=https")
    }) || said("origin")
        .iter()
        .any(|origin| origin.starts_with("https://"))
}

fn session_cookie(value: &str, max_age_s: i64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age_s}{secure}"
    ))
    .unwrap_or_else(|_| HeaderValue::from_static("agent_os_session=; Path=/; Max-Age=0"))
}

/// Who the credentials act as.
#[derive(Serialize, JsonSchema)]
pub struct MeBody {
    pub user: String,
    pub tenant: String,
    pub role: Role,
    /// The API token's id, when one was used.
    pub token: Option<String>,
    /// The user's tenants (a token's: its own only).
    pub memberships: Vec<Membership>,
}

fn me_json(context: &RequestContext) -> MeBody {
    MeBody {
        user: context.actor.clone(),
        tenant: context.tenant.clone(),
        role: context.role,
        token: context.token_id.clone(),
        memberships: context.memberships.clone(),
    }
}

/// How many sessions "log out everywhere" ended.
#[derive(Serialize, JsonSchema)]
pub struct Ended {
    pub ended: u64,
}

fn signed_in(opened: &Opened, headers: &HeaderMap) -> Response {
    let context = RequestContext::from(opened.identity.clone());
    let mut response = (StatusCode::OK, axum::Json(me_json(&context))).into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, opening_cookie(opened, headers));
    response
}

/// The cookie that carries a new session to the browser.
pub(super) fn opening_cookie(opened: &Opened, headers: &HeaderMap) -> HeaderValue {
    session_cookie(&opened.cookie, ABSOLUTE_MS / 1000, over_tls(headers))
}

/// The cookie that makes the browser forget its session.
pub(super) fn closing_cookie(headers: &HeaderMap) -> HeaderValue {
    session_cookie("", 0, over_tls(headers))
}

#[derive(Deserialize, JsonSchema)]
struct LoginBody {
    username: String,
    password: String,
    /// One of the user's tenants to act in; the one they joined first when absent.
    tenant: Option<String>,
}

fn too_many(until: i64, now: i64) -> Response {
    let seconds = ((until - now) / 1000).max(1);
    let mut response = HttpError(ApiError::TooManyRequests(format!(
        "too many failed sign-ins; try again in {seconds} s"
    )))
    .into_response();
    if let Ok(value) = HeaderValue::from_str(&seconds.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

/// Why a sign-in did not open a session.
pub(super) enum Refused {
    /// Too many failures for the account or the address: retry after this instant.
    Throttled {
        until: i64,
        now: i64,
    },
    Auth(AuthError),
}

/// Checks a name and password under the login throttle and opens a session: the one
/// sign-in both the JSON endpoint and the console's form use. The attempt is counted
/// before the password is checked. A session the browser presented is ended once the
/// new one opens, so one browser holds one session.
pub(super) async fn sign_in(
    state: &AppState,
    client: SocketAddr,
    headers: &HeaderMap,
    name: &str,
    password: &str,
    tenant: Option<&str>,
) -> Result<Opened, Refused> {
    let now = now_ms();
    let attempt = state
        .login_throttle
        .reserve(name, &client.ip().to_string(), now)
        .map_err(|until| Refused::Throttled { until, now })?;
    match state.accounts.login(name, password, tenant).await {
        Ok(opened) => {
            state.login_throttle.succeeded(attempt);
            if let Credentials::Session(earlier) = credentials(headers)
                && let Err(error) = state.accounts.logout(earlier).await
            {
                tracing::warn!(%error, "could not end the session a sign-in replaced");
            }
            let context = RequestContext::from(opened.identity.clone());
            super::audit::write(
                state.runs.store(),
                &context,
                "session.sign_in",
                String::new(),
            )
            .await;
            Ok(opened)
        }
        Err(AuthError::BadCredentials) => {
            tracing::warn!(%client, "a sign-in failed");
            Err(Refused::Auth(AuthError::BadCredentials))
        }
        Err(error) => {
            state.login_throttle.cancel(attempt);
            Err(Refused::Auth(error))
        }
    }
}

async fn login(
    State(state): State<AppState>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, HttpError> {
    let body: LoginBody = parse_body(&body)?;
    match sign_in(
        &state,
        client,
        &headers,
        &body.username,
        &body.password,
        body.tenant.as_deref(),
    )
    .await
    {
        Ok(opened) => Ok(signed_in(&opened, &headers)),
        Err(Refused::Throttled { until, now }) => Ok(too_many(until, now)),
        Err(Refused::Auth(error)) => Err(error.into()),
    }
}

#[derive(Deserialize, JsonSchema)]
struct SetupBody {
    token: String,
    username: String,
    password: String,
    tenant: String,
}

async fn setup(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, HttpError> {
    let body: SetupBody = parse_body(&body)?;
    let opened = state
        .accounts
        .complete_setup(&body.token, &body.username, &body.password, &body.tenant)
        .await?;
    tracing::info!(user = %opened.identity.user_name, tenant = %opened.identity.tenant, "the first owner was created");
    Ok(signed_in(&opened, &headers))
}

async fn logout(State(state): State<AppState>, headers: HeaderMap) -> Result<Response, HttpError> {
    if let Credentials::Session(cookie) = credentials(&headers) {
        state.accounts.logout(cookie).await?;
    }
    let mut response = StatusCode::NO_CONTENT.into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, closing_cookie(&headers));
    Ok(response)
}

async fn logout_everywhere(
    State(state): State<AppState>,
    Context(context): Context,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    let ended = state.accounts.logout_everywhere(&context.user_id).await?;
    let mut response = axum::Json(Ended { ended }).into_response();
    response
        .headers_mut()
        .insert(header::SET_COOKIE, closing_cookie(&headers));
    Ok(response)
}

async fn me(Context(context): Context) -> Response {
    axum::Json(me_json(&context)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxy_or_the_pages_origin_saying_https_makes_the_cookie_secure() {
        let of = |pairs: &[(&'static str, &str)]| over_tls(&crate::http::header_map(pairs));
        assert!(!of(&[]));
        assert!(of(&[("x-forwarded-proto", "https")]));
        assert!(of(&[("x-forwarded-proto", "HTTPS, http")]));
        assert!(!of(&[("x-forwarded-proto", "http")]));
        assert!(of(&[(
            "forwarded",
            "for=192.0.2.1;proto=https;by=203.0.113.43"
        )]));
        assert!(!of(&[("forwarded", "for=192.0.2.1;proto=http")]));
        // A proxy that says nothing: the page's own origin tells.
        assert!(of(&[("origin", "https://console.example.org")]));
        assert!(!of(&[("origin", "http://127.0.0.1:3000")]));
        assert!(!of(&[("origin", "null")]));
        let cookie = session_cookie("abc", 60, true);
        assert!(cookie.to_str().unwrap_or_default().ends_with("; Secure"));
        assert!(
            !session_cookie("abc", 60, false)
                .to_str()
                .unwrap_or_default()
                .contains("Secure")
        );
    }
}
