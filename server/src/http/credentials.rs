//! What a request presents — `Authorization: Bearer …`, else the session cookie — and who
//! it acts as: the one reading of credentials, for the request context and the forms.

use app::error::ApiError;
use app::model::{TENANT_HEADER, check_tenant_name};
use axum::http::{HeaderMap, header};

use super::error::HttpError;
use crate::auth::{Accounts, Identity};

/// The cookie a signed-in browser carries: the session's id (the store keeps its digest).
pub const SESSION_COOKIE: &str = "agent_os_session";

/// What a request presents: `Authorization: Bearer …`, else the session cookie.
pub enum Credentials<'a> {
    Bearer(&'a str),
    Session(&'a str),
    Nothing,
}

pub fn credentials(headers: &HeaderMap) -> Credentials<'_> {
    if let Some(token) = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
    {
        return Credentials::Bearer(token.trim());
    }
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|cookies| cookies.split(';'))
        .find_map(|pair| {
            let (name, value) = pair.trim().split_once('=')?;
            (name == SESSION_COOKIE).then_some(Credentials::Session(value))
        })
        .unwrap_or(Credentials::Nothing)
}

/// Who the request's credentials act as, if they are good: a token in its own tenant or
/// the one `x-agent-os-tenant` picks among its user's; a session in the tenant it was
/// switched to (the header cannot move a session).
pub async fn identity(
    accounts: &Accounts,
    headers: &HeaderMap,
) -> Result<Option<Identity>, HttpError> {
    match credentials(headers) {
        Credentials::Bearer(token) => {
            let wanted = tenant_header(headers)?;
            Ok(accounts.token_identity(token, wanted).await?)
        }
        Credentials::Session(cookie) => Ok(accounts.session_identity(cookie).await?),
        Credentials::Nothing => Ok(None),
    }
}

/// Whether the request's credentials still act in `tenant` — checked again while a live
/// stream stays open, without counting as the session's use. A store that cannot answer
/// does not cut the stream.
pub async fn still_acts_in(accounts: &Accounts, headers: &HeaderMap, tenant: &str) -> bool {
    let identity = match credentials(headers) {
        Credentials::Bearer(token) => match tenant_header(headers) {
            Ok(wanted) => accounts
                .token_identity(token, wanted)
                .await
                .map_err(|error| error.to_string()),
            Err(_) => return false,
        },
        Credentials::Session(cookie) => accounts
            .session_lasts(cookie)
            .await
            .map_err(|error| error.to_string()),
        Credentials::Nothing => return false,
    };
    match identity {
        Ok(Some(identity)) => identity.tenant == tenant,
        Ok(None) => false,
        Err(error) => {
            tracing::warn!(%error, "could not recheck a live stream's access");
            true
        }
    }
}

/// How often an open live stream's access is checked again.
const RECHECK_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// Completes once the request's credentials no longer act in `tenant` (checked every
/// [`RECHECK_EVERY`]): the end of what an open live stream may still send.
pub async fn access_ends(accounts: Accounts, headers: HeaderMap, tenant: String) {
    loop {
        tokio::time::sleep(RECHECK_EVERY).await;
        if !still_acts_in(&accounts, &headers, &tenant).await {
            return;
        }
    }
}

/// The tenant a token's request names, if it names one; a name that cannot be a tenant
/// is refused rather than ignored.
fn tenant_header(headers: &HeaderMap) -> Result<Option<&str>, HttpError> {
    let Some(named) = headers
        .get(TENANT_HEADER)
        .map(|value| value.to_str().map(str::trim))
    else {
        return Ok(None);
    };
    let named = named.map_err(|_| {
        HttpError(ApiError::BadRequest(format!(
            "{TENANT_HEADER}: not a tenant name"
        )))
    })?;
    if named.is_empty() {
        return Ok(None);
    }
    check_tenant_name(named).map_err(|problem| {
        HttpError(ApiError::BadRequest(format!("{TENANT_HEADER}: {problem}")))
    })?;
    Ok(Some(named))
}
