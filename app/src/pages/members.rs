//! `/members`: a tenant's members and API tokens, for its owners — add a member (a new
//! user with a first password, or an invitation its user accepts), withdraw an
//! invitation, change a role, remove a member, and create or revoke tokens. The server
//! keeps every tenant with at least one owner.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::codec::Json;
use crate::components::layout::ContextFrame;
use crate::components::tool_policy::ToolPolicySection;
use crate::error::ApiError;
use crate::model::{Invitation, IssuedToken, Member, MemberAdded, Role, TokenSummary};
use crate::when::{readable, rfc3339};

#[cfg(feature = "ssr")]
fn role_of(text: &str) -> Result<Role, ApiError> {
    Role::parse(text.trim()).map_err(ApiError::BadRequest)
}

#[server(prefix = "/fn", endpoint = "members")]
pub async fn load_members() -> Result<Vec<Member>, ApiError> {
    use crate::api::service::*;
    with_status(members()?.members(&context()?).await)
}

/// With `password`, makes `user` a new user who joins with `role`; without, invites
/// them, and they join once they accept.
#[server(prefix = "/fn", endpoint = "add_member")]
pub async fn add_member(
    user: String,
    role: String,
    password: String,
) -> Result<MemberAdded, ApiError> {
    use crate::api::service::*;
    let role = with_status(role_of(&role))?;
    let password = Some(password.as_str()).filter(|password| !password.is_empty());
    with_status(
        members()?
            .add_member(&context()?, user.trim(), role, password)
            .await,
    )
}

#[server(prefix = "/fn", endpoint = "invitations")]
pub async fn load_invitations() -> Result<Vec<Invitation>, ApiError> {
    use crate::api::service::*;
    with_status(members()?.invitations(&context()?).await)
}

#[server(prefix = "/fn", endpoint = "withdraw_invitation")]
pub async fn withdraw_invitation(user: String) -> Result<(), ApiError> {
    use crate::api::service::*;
    with_status(members()?.withdraw_invitation(&context()?, &user).await)
}

#[server(prefix = "/fn", endpoint = "set_member_role")]
pub async fn set_member_role(user: String, role: String) -> Result<(), ApiError> {
    use crate::api::service::*;
    let role = with_status(role_of(&role))?;
    with_status(members()?.set_member_role(&context()?, &user, role).await)
}

#[server(prefix = "/fn", endpoint = "remove_member")]
pub async fn remove_member(user: String) -> Result<(), ApiError> {
    use crate::api::service::*;
    with_status(members()?.remove_member(&context()?, &user).await)
}

#[server(prefix = "/fn", endpoint = "tokens")]
pub async fn load_tokens() -> Result<Vec<TokenSummary>, ApiError> {
    use crate::api::service::*;
    with_status(members()?.tokens(&context()?).await)
}

/// A token of my own in this tenant: with my role, or `role` when narrower; valid for
/// `expires_days` days, or until revoked when empty.
#[server(prefix = "/fn", endpoint = "create_token")]
pub async fn create_token(role: String, expires_days: String) -> Result<IssuedToken, ApiError> {
    use crate::api::service::*;
    let role = match role.trim() {
        "" => None,
        named => Some(with_status(role_of(named))?),
    };
    let expires_days = match expires_days.trim() {
        "" => None,
        days => Some(with_status(days.parse::<u32>().map_err(|_| {
            ApiError::BadRequest(format!(
                "expires_days is a whole number of days, not {days:?}"
            ))
        }))?),
    };
    with_status(
        members()?
            .create_token(&context()?, role, expires_days)
            .await,
    )
}

#[server(prefix = "/fn", endpoint = "revoke_token")]
pub async fn revoke_token(token_id: String) -> Result<(), ApiError> {
    use crate::api::service::*;
    with_status(members()?.revoke_token(&context()?, &token_id).await)
}

const ROLES: [Role; 3] = [Role::Viewer, Role::Operator, Role::Owner];

#[component]
pub fn MembersPage() -> impl IntoView {
    let add = ServerAction::<AddMember>::new();
    let set_role = ServerAction::<SetMemberRole>::new();
    let remove = ServerAction::<RemoveMember>::new();
    let create = ServerAction::<CreateToken>::new();
    let revoke = ServerAction::<RevokeToken>::new();
    let withdraw = ServerAction::<WithdrawInvitation>::new();
    let invitations = Resource::<_, Json>::new_with_options(
        move || (add.version().get(), withdraw.version().get()),
        |_| load_invitations(),
        false,
    );
    let members = Resource::<_, Json>::new_with_options(
        move || {
            (
                add.version().get(),
                set_role.version().get(),
                remove.version().get(),
            )
        },
        |_| load_members(),
        false,
    );
    let tokens = Resource::<_, Json>::new_with_options(
        move || (create.version().get(), revoke.version().get()),
        |_| load_tokens(),
        false,
    );
    // The last refusal of any of the actions, said once where the operator looks.
    let problem = move || {
        [
            add.value().get().and_then(Result::err),
            set_role.value().get().and_then(Result::err),
            remove.value().get().and_then(Result::err),
            create.value().get().and_then(Result::err),
            revoke.value().get().and_then(Result::err),
            withdraw.value().get().and_then(Result::err),
        ]
        .into_iter()
        .flatten()
        .next()
    };
    view! {
        <Title text="Members" />
        <main class="main section-page" id="main" tabindex="-1">
            <h1>"Members"</h1>
            {move || problem().map(|error| view! { <p class="error-text" role="alert">{error.say()}</p> })}
            <section aria-labelledby="members-heading">
                <h2 id="members-heading">"People"</h2>
                <Transition fallback=|| view! { <p class="muted">"Loading members…"</p> }>
                    {move || Suspend::new(async move {
                        match members.await {
                            Ok(list) => view! { <MemberTable members=list set_role remove /> }.into_any(),
                            Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                        }
                    })}
                </Transition>
                <ActionForm action=add attr:class="member-form">
                    <label class="field-label" for="member-user">"User name"</label>
                    <input id="member-user" name="user" type="text" required maxlength="64"
                        autocomplete="off" autocapitalize="none" spellcheck="false" />
                    <label class="field-label" for="member-role">"Role"</label>
                    <select id="member-role" name="role">
                        {ROLES.into_iter().map(|role| view! { <option value=role.label()>{role.label()}</option> }).collect_view()}
                    </select>
                    <label class="field-label" for="member-password">"First password (to create a new user; leave empty to invite)"</label>
                    <input id="member-password" name="password" type="password" autocomplete="new-password" maxlength="1024" />
                    <button type="submit" class="button primary">"Add member"</button>
                </ActionForm>
                {move || add.value().get().and_then(Result::ok).map(|added| view! {
                    <p class="muted" role="status">{match added {
                        MemberAdded::Created => "The new user can sign in with their first password.",
                        MemberAdded::Invited => "Invited: they join once they accept, from the tenant menu after signing in.",
                    }}</p>
                })}
            </section>
            <section aria-labelledby="invitations-heading">
                <h2 id="invitations-heading">"Invitations"</h2>
                <Transition fallback=|| view! { <p class="muted">"Loading invitations…"</p> }>
                    {move || Suspend::new(async move {
                        match invitations.await {
                            Ok(list) => view! { <InvitationTable invitations=list withdraw /> }.into_any(),
                            Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                        }
                    })}
                </Transition>
            </section>
            <section aria-labelledby="tokens-heading">
                <h2 id="tokens-heading">"API tokens"</h2>
                <Transition fallback=|| view! { <p class="muted">"Loading tokens…"</p> }>
                    {move || Suspend::new(async move {
                        match tokens.await {
                            Ok(list) => view! { <TokenTable tokens=list revoke /> }.into_any(),
                            Err(error) => view! { <p class="error-text" role="alert">{error.say()}</p> }.into_any(),
                        }
                    })}
                </Transition>
                <ActionForm action=create attr:class="member-form">
                    <label class="field-label" for="token-role">"Role (at most mine)"</label>
                    <select id="token-role" name="role">
                        <option value="">"my role"</option>
                        {ROLES.into_iter().map(|role| view! { <option value=role.label()>{role.label()}</option> }).collect_view()}
                    </select>
                    <label class="field-label" for="token-days">"Expires after (days; empty: until revoked)"</label>
                    <input id="token-days" name="expires_days" type="number" min="1" inputmode="numeric" />
                    <button type="submit" class="button primary">"Create a token for me"</button>
                </ActionForm>
                {move || create.value().get().and_then(Result::ok).map(|issued| view! {
                    <div class="issued-token" role="status">
                        <p>"Token " <code>{issued.id}</code> " — copy it now; it is shown this once:"</p>
                        <input type="text" readonly class="issued-token-value" aria-label="New token" prop:value=issued.token />
                    </div>
                })}
            </section>
            <ToolPolicySection />
        </main>
        <ContextFrame>
            <section class="pane-section">
                <h2>"Members"</h2>
                <p class="muted">"Viewers read and follow runs; operators also start and stop runs and answer asks; owners also manage members and tokens. Someone who has an account already is invited, and joins only by accepting. A tenant always keeps an owner."</p>
            </section>
        </ContextFrame>
    }
}

#[component]
fn MemberTable(
    members: Vec<Member>,
    set_role: ServerAction<SetMemberRole>,
    remove: ServerAction<RemoveMember>,
) -> impl IntoView {
    view! {
        <table class="audit-table" aria-label="Members">
            <thead><tr><th scope="col">"User"</th><th scope="col">"Role"</th><th scope="col"><span class="visually-hidden">"Actions"</span></th></tr></thead>
            <tbody>
                {members.into_iter().map(|member| {
                    let user = member.user.clone();
                    let for_role = user.clone();
                    let label = format!("Role of {user}");
                    view! {
                        <tr>
                            <td>{user.clone()}</td>
                            <td>
                                <select aria-label=label on:change=move |event| {
                                    set_role.dispatch(SetMemberRole { user: for_role.clone(), role: event_target_value(&event) });
                                }>
                                    {ROLES.into_iter().map(|role| view! {
                                        <option value=role.label() selected=role == member.role>{role.label()}</option>
                                    }).collect_view()}
                                </select>
                            </td>
                            <td>
                                <button type="button" class="button small ghost" aria-label=format!("Remove {user}")
                                    on:click=move |_| { remove.dispatch(RemoveMember { user: user.clone() }); }>"Remove"</button>
                            </td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}

#[component]
fn InvitationTable(
    invitations: Vec<Invitation>,
    withdraw: ServerAction<WithdrawInvitation>,
) -> impl IntoView {
    if invitations.is_empty() {
        return view! { <p class="muted">"No invitations waiting."</p> }.into_any();
    }
    view! {
        <table class="audit-table" aria-label="Invitations">
            <thead><tr><th scope="col">"User"</th><th scope="col">"Role"</th><th scope="col">"Invited by"</th><th scope="col">"When"</th><th scope="col"><span class="visually-hidden">"Actions"</span></th></tr></thead>
            <tbody>
                {invitations.into_iter().map(|invitation| {
                    let user = invitation.user.clone();
                    let at = rfc3339(invitation.created_at_ms);
                    view! {
                        <tr>
                            <td>{invitation.user}</td>
                            <td>{invitation.role.label()}</td>
                            <td>{invitation.invited_by}</td>
                            <td><time datetime=at.clone()>{readable(&at)}</time></td>
                            <td>
                                <button type="button" class="button small ghost" aria-label=format!("Withdraw the invitation of {user}")
                                    on:click=move |_| { withdraw.dispatch(WithdrawInvitation { user: user.clone() }); }>"Withdraw"</button>
                            </td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }.into_any()
}

#[component]
fn TokenTable(tokens: Vec<TokenSummary>, revoke: ServerAction<RevokeToken>) -> impl IntoView {
    if tokens.is_empty() {
        return view! { <p class="muted">"No tokens in this tenant."</p> }.into_any();
    }
    let when = |ms: i64| {
        let at = rfc3339(ms);
        view! { <time datetime=at.clone()>{readable(&at)}</time> }
    };
    view! {
        <table class="audit-table" aria-label="API tokens">
            <thead><tr><th scope="col">"Token"</th><th scope="col">"User"</th><th scope="col">"Role"</th><th scope="col">"Created"</th><th scope="col">"State"</th><th scope="col"><span class="visually-hidden">"Actions"</span></th></tr></thead>
            <tbody>
                {tokens.into_iter().map(|token| {
                    let id = token.id.clone();
                    let state = match (token.revoked_at_ms, token.expires_at_ms) {
                        (Some(_), _) => "revoked".to_owned(),
                        (None, Some(expires)) => format!("expires {}", readable(&rfc3339(expires))),
                        (None, None) => "active".to_owned(),
                    };
                    let live = token.revoked_at_ms.is_none();
                    view! {
                        <tr>
                            <td><code>{token.id.clone()}</code></td>
                            <td>{token.user}</td>
                            <td>{token.role.map_or("user's role", Role::label)}</td>
                            <td>{when(token.created_at_ms)}</td>
                            <td>{state}</td>
                            <td>{live.then(|| view! {
                                <button type="button" class="button small ghost" aria-label=format!("Revoke {id}")
                                    on:click=move |_| { revoke.dispatch(RevokeToken { token_id: id.clone() }); }>"Revoke"</button>
                            })}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }.into_any()
}
