//! A tenant's members and tokens as its owners manage them, on both stores: members
//! added (new users at once, existing ones by an invitation they accept), roles changed,
//! members removed, a tenant never left without an owner, and tokens listed and revoked
//! within their tenant only.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;

use app::api::service::MembersService;
use app::model::{Member, MemberAdded, RequestContext, Role};
use server::auth::Accounts;

const PASSWORD: &str = "correct horse battery";

fn owner_of(tenant: &str, name: &str, user_id: &str) -> RequestContext {
    RequestContext {
        tenant: tenant.to_owned(),
        role: Role::Owner,
        user_id: user_id.to_owned(),
        actor: name.to_owned(),
        token_id: None,
        memberships: Vec::new(),
    }
}

/// Ada owns acme and Eve owns evil; each as the owner acting in their tenant.
async fn two_tenants(accounts: &Accounts) -> (RequestContext, RequestContext) {
    let ada = accounts
        .add_user("ada", PASSWORD, "acme", Role::Owner)
        .await
        .unwrap();
    let eve = accounts
        .add_user("eve", PASSWORD, "evil", Role::Owner)
        .await
        .unwrap();
    (
        owner_of("acme", "ada", &ada.id),
        owner_of("evil", "eve", &eve.id),
    )
}

fn member(user: &str, role: Role) -> Member {
    Member {
        user: user.to_owned(),
        role,
    }
}

#[tokio::test]
async fn owners_add_change_and_remove_members_and_a_tenant_keeps_an_owner() {
    for backend in backends::all().await {
        let accounts = Accounts::new(backend.store.clone());
        let (context, eve) = two_tenants(&accounts).await;

        // A new user made with a first password joins at once; an existing one is
        // invited and joins by accepting.
        let added = accounts
            .add_member(&context, "bob", Role::Viewer, Some(PASSWORD))
            .await
            .unwrap();
        assert_eq!(added, MemberAdded::Created);
        let added = accounts
            .add_member(&context, "eve", Role::Operator, None)
            .await
            .unwrap();
        assert_eq!(added, MemberAdded::Invited);
        accounts
            .answer_invitation(&eve.user_id, "acme", true)
            .await
            .unwrap();
        assert_eq!(
            accounts.members(&context).await.unwrap(),
            vec![
                member("ada", Role::Owner),
                member("bob", Role::Viewer),
                member("eve", Role::Operator)
            ],
            "{}",
            backend.name
        );
        // Bob can sign in with the first password, into acme.
        let opened = accounts.login("bob", PASSWORD, None).await.unwrap();
        assert_eq!(opened.identity.tenant, "acme");

        accounts
            .set_member_role(&context, "bob", Role::Operator)
            .await
            .unwrap();
        // The last owner can be neither demoted nor removed…
        let demoted = accounts
            .set_member_role(&context, "ada", Role::Viewer)
            .await;
        assert!(demoted.unwrap_err().to_string().contains("needs an owner"));
        let removed = accounts.remove_member(&context, "ada").await;
        assert!(removed.unwrap_err().to_string().contains("needs an owner"));
        // …until someone else is one.
        accounts
            .set_member_role(&context, "eve", Role::Owner)
            .await
            .unwrap();
        accounts.remove_member(&context, "ada").await.unwrap();
        assert_eq!(
            accounts.members(&context).await.unwrap(),
            vec![member("bob", Role::Operator), member("eve", Role::Owner)]
        );
        // Someone not in the tenant cannot be changed or removed there.
        let outsider = accounts
            .set_member_role(&context, "ada", Role::Viewer)
            .await;
        assert!(outsider.unwrap_err().to_string().contains("not a member"));
        // Eve's own tenant is untouched.
        let eves = accounts.memberships("eve").await.unwrap();
        assert_eq!(eves.len(), 2, "{eves:?}");
    }
}

#[tokio::test]
async fn owners_see_and_revoke_only_their_tenants_tokens() {
    for backend in backends::all().await {
        let accounts = Accounts::new(backend.store.clone());
        let (acme, evil) = two_tenants(&accounts).await;
        let issued = MembersService::create_token(&accounts, &acme, Some(Role::Viewer), Some(7))
            .await
            .unwrap();
        let theirs = MembersService::create_token(&accounts, &evil, None, None)
            .await
            .unwrap();
        let listed = MembersService::tokens(&accounts, &acme).await.unwrap();
        assert_eq!(listed.len(), 1, "{}", backend.name);
        assert_eq!(
            (listed[0].id.as_str(), listed[0].role),
            (issued.id.as_str(), Some(Role::Viewer))
        );
        assert!(listed[0].expires_at_ms.is_some());
        assert!(issued.token.starts_with(&format!("aos_{}_", issued.id)));

        // Another tenant's token does not exist here.
        let elsewhere = MembersService::revoke_token(&accounts, &acme, &theirs.id).await;
        assert!(elsewhere.unwrap_err().to_string().contains("no token"));
        assert!(
            accounts
                .token_identity(&theirs.token, None)
                .await
                .unwrap()
                .is_some()
        );
        MembersService::revoke_token(&accounts, &acme, &issued.id)
            .await
            .unwrap();
        assert!(
            accounts
                .token_identity(&issued.token, None)
                .await
                .unwrap()
                .is_none()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owners_changing_each_other_at_once_leave_an_owner_and_a_removal_stays_removed() {
    for backend in backends::all().await {
        let name = backend.name;
        let accounts = Accounts::new(backend.store.clone());
        let (ada, _) = two_tenants(&accounts).await;
        let bob = accounts
            .add_user("bob", PASSWORD, "acme", Role::Owner)
            .await
            .unwrap();
        let bob = owner_of("acme", "bob", &bob.id);
        accounts
            .add_member(&ada, "carl", Role::Viewer, Some(PASSWORD))
            .await
            .unwrap();
        let carl = backend.store.user_by_name("carl").await.unwrap().unwrap();
        for attempt in 0..10 {
            // Each of the two owners demotes the other: one of them stays an owner.
            let (first, second) = tokio::join!(
                accounts.set_member_role(&ada, "bob", Role::Viewer),
                accounts.set_member_role(&bob, "ada", Role::Viewer),
            );
            let refused = [&first, &second]
                .iter()
                .filter(|outcome| {
                    outcome
                        .as_ref()
                        .is_err_and(|error| error.to_string().contains("needs an owner"))
                })
                .count();
            assert_eq!(refused, 1, "{name} #{attempt}: {first:?} {second:?}");
            let owners = accounts
                .members(&ada)
                .await
                .unwrap()
                .into_iter()
                .filter(|member| member.role == Role::Owner)
                .count();
            assert_eq!(owners, 1, "{name} #{attempt}");
            let owner = if first.is_ok() { &ada } else { &bob };
            for user in ["ada", "bob"] {
                accounts
                    .set_member_role(owner, user, Role::Owner)
                    .await
                    .unwrap();
            }

            // A removal and a role change at once: the member is gone either way.
            let (removed, _) = tokio::join!(
                accounts.remove_member(&ada, "carl"),
                accounts.set_member_role(&bob, "carl", Role::Operator),
            );
            removed.unwrap();
            let members = accounts.members(&ada).await.unwrap();
            assert!(
                members.iter().all(|member| member.user != "carl"),
                "{name} #{attempt}: {members:?}"
            );
            accounts
                .add_member(&ada, "carl", Role::Viewer, None)
                .await
                .unwrap();
            accounts
                .answer_invitation(&carl.id, "acme", true)
                .await
                .unwrap();
        }
    }
}

#[tokio::test]
async fn an_invited_user_joins_only_by_accepting_and_an_owner_learns_nothing_of_a_name() {
    for backend in backends::all().await {
        let name = backend.name;
        let accounts = Accounts::new(backend.store.clone());
        let (ada, eve) = two_tenants(&accounts).await;
        let eve_in_acme = || async {
            accounts
                .memberships("eve")
                .await
                .unwrap()
                .into_iter()
                .find(|membership| membership.tenant_id == "acme")
                .map(|membership| membership.role)
        };

        // A user who exists and a name nobody has are invited alike.
        for user in ["eve", "nobody"] {
            let added = accounts
                .add_member(&ada, user, Role::Operator, None)
                .await
                .unwrap();
            assert_eq!(added, MemberAdded::Invited, "{name} {user}");
        }
        let listed = MembersService::invitations(&accounts, &ada).await.unwrap();
        let shown: Vec<_> = listed
            .iter()
            .map(|invitation| {
                (
                    invitation.tenant.as_str(),
                    invitation.user.as_str(),
                    invitation.role,
                    invitation.invited_by.as_str(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            vec![
                ("acme", "eve", Role::Operator, "ada"),
                ("acme", "nobody", Role::Operator, "ada")
            ],
            "{name}"
        );
        // Invited is not joined: eve is in no member list and cannot act in acme.
        assert_eq!(eve_in_acme().await, None, "{name}");
        assert!(
            accounts
                .members(&ada)
                .await
                .unwrap()
                .iter()
                .all(|member| member.user != "eve")
        );
        // Eve sees the invitation; nobody else does, and another tenant's owner does not.
        let hers = accounts.my_invitations(&eve).await.unwrap();
        assert_eq!(hers.len(), 1, "{name}: {hers:?}");
        assert_eq!(
            (hers[0].tenant.as_str(), hers[0].role),
            ("acme", Role::Operator)
        );
        let evils = MembersService::invitations(&accounts, &eve).await.unwrap();
        assert!(evils.is_empty(), "{name}: {evils:?}");

        // Inviting again changes the role of the one invitation.
        accounts
            .add_member(&ada, "eve", Role::Viewer, None)
            .await
            .unwrap();
        let hers = accounts.my_invitations(&eve).await.unwrap();
        assert_eq!(hers.len(), 1, "{name}");
        assert_eq!(hers[0].role, Role::Viewer, "{name}");

        // Declined, it is gone, and accepting it afterwards is refused.
        accounts
            .answer_invitation(&eve.user_id, "acme", false)
            .await
            .unwrap();
        let late = accounts.answer_invitation(&eve.user_id, "acme", true).await;
        assert!(
            late.unwrap_err().to_string().contains("no invitation"),
            "{name}"
        );
        assert_eq!(eve_in_acme().await, None, "{name}");

        // Withdrawn by the owner, likewise.
        accounts
            .add_member(&ada, "eve", Role::Operator, None)
            .await
            .unwrap();
        accounts.withdraw_invitation(&ada, "eve").await.unwrap();
        let late = accounts.answer_invitation(&eve.user_id, "acme", true).await;
        assert!(late.is_err(), "{name}");
        let again = accounts.withdraw_invitation(&ada, "eve").await;
        assert!(
            again.unwrap_err().to_string().contains("no invitation"),
            "{name}"
        );

        // Accepted, eve joins with the invitation's role, once.
        accounts
            .add_member(&ada, "eve", Role::Operator, None)
            .await
            .unwrap();
        let joined = accounts
            .answer_invitation(&eve.user_id, "acme", true)
            .await
            .unwrap();
        assert_eq!(joined, Some(Role::Operator), "{name}");
        assert_eq!(eve_in_acme().await, Some(Role::Operator), "{name}");
        assert!(accounts.my_invitations(&eve).await.unwrap().is_empty());
        let twice = accounts.answer_invitation(&eve.user_id, "acme", true).await;
        assert!(twice.is_err(), "{name}");
        // A member is not invited again (their role is changed instead).
        let member = accounts.add_member(&ada, "eve", Role::Owner, None).await;
        assert!(
            member.unwrap_err().to_string().contains("member of"),
            "{name}"
        );

        // A first password makes a new user; a taken name is refused and adds no one.
        let taken = accounts
            .add_member(&ada, "eve", Role::Owner, Some(PASSWORD))
            .await;
        assert!(
            taken.unwrap_err().to_string().contains("exists already"),
            "{name}"
        );
        assert_eq!(eve_in_acme().await, Some(Role::Operator), "{name}");

        // Someone who takes an invited name later does not get the invitation.
        let taker = accounts
            .add_user("nobody", PASSWORD, "evil", Role::Viewer)
            .await
            .unwrap();
        let takers = owner_of("evil", "nobody", &taker.id);
        assert!(
            accounts.my_invitations(&takers).await.unwrap().is_empty(),
            "{name}"
        );
        let taken = accounts.answer_invitation(&taker.id, "acme", true).await;
        assert!(
            taken.unwrap_err().to_string().contains("no invitation"),
            "{name}"
        );
        // An API token, which belongs to one tenant, is shown no invitations.
        let zed = accounts
            .add_user("zed", PASSWORD, "evil", Role::Viewer)
            .await
            .unwrap();
        accounts
            .add_member(&ada, "zed", Role::Viewer, None)
            .await
            .unwrap();
        let zeds = owner_of("evil", "zed", &zed.id);
        assert_eq!(accounts.my_invitations(&zeds).await.unwrap().len(), 1);
        let by_token = RequestContext {
            token_id: Some("t1".into()),
            ..zeds
        };
        assert!(accounts.my_invitations(&by_token).await.unwrap().is_empty());

        // Only an owner invites and withdraws.
        let operator = RequestContext {
            role: Role::Operator,
            ..ada.clone()
        };
        let refused = accounts
            .add_member(&operator, "mallory", Role::Owner, None)
            .await;
        assert!(
            refused
                .unwrap_err()
                .to_string()
                .contains("needs the owner role")
        );
        let refused = accounts.withdraw_invitation(&operator, "nobody").await;
        assert!(refused.is_err(), "{name}");
    }
}
