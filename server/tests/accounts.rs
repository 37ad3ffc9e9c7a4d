//! Accounts on both stores and through the `agent-os user` / `agent-os token` commands:
//! passwords kept as argon2id, tokens as digests, roles per tenant, tokens that stop
//! working when revoked or expired, and a setup link that works once.

#![allow(clippy::unwrap_used)]

#[path = "common/backends.rs"]
mod backends;
mod common;

use app::model::Role;
use common::BIN;
use server::auth::Accounts;
use server::store::accounts::UserRecord;

const PASSWORD: &str = "correct horse battery";

#[tokio::test]
async fn a_sign_in_naming_no_tenant_opens_the_one_joined_first_not_one_that_added_the_user_later() {
    for backend in backends::all().await {
        let accounts = Accounts::new(backend.store.clone());
        accounts
            .add_user("ada", PASSWORD, "zeta", Role::Operator)
            .await
            .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        // Another tenant's owner adds her, under a name that sorts first.
        accounts.grant("ada", "-", Role::Viewer).await.unwrap();
        let opened = accounts.login("ada", PASSWORD, None).await.unwrap();
        assert_eq!(opened.identity.tenant, "zeta", "{}", backend.name);
    }
}

#[tokio::test]
async fn a_user_is_stored_with_an_argon2id_hash_and_a_role_per_tenant() {
    for backend in backends::all().await {
        let accounts = Accounts::new(backend.store.clone());
        accounts
            .add_user("ada", PASSWORD, "acme", Role::Owner)
            .await
            .unwrap();
        accounts.grant("ada", "labs", Role::Viewer).await.unwrap();
        let user = backend.store.user_by_name("ada").await.unwrap().unwrap();
        assert!(
            user.password_hash.starts_with("$argon2id$"),
            "{}: {}",
            backend.name,
            user.password_hash
        );
        assert!(!user.password_hash.contains(PASSWORD));
        let roles: Vec<_> = accounts
            .memberships("ada")
            .await
            .unwrap()
            .into_iter()
            .map(|membership| (membership.tenant_id, membership.role))
            .collect();
        assert_eq!(
            roles,
            [
                ("acme".to_owned(), Role::Owner),
                ("labs".to_owned(), Role::Viewer)
            ],
            "{}",
            backend.name
        );
        // A second user of that name, a short password, a bad name: refused, nothing made.
        let taken = accounts
            .add_user("ada", PASSWORD, "acme", Role::Viewer)
            .await;
        assert!(taken.unwrap_err().to_string().contains("exists already"));
        let short = accounts
            .add_user("bob", "short", "acme", Role::Viewer)
            .await;
        assert!(short.unwrap_err().to_string().contains("at least 8"));
        let bad = accounts
            .add_user("bob smith", PASSWORD, "acme", Role::Viewer)
            .await;
        assert!(bad.unwrap_err().to_string().contains("cannot contain"));
        assert_eq!(
            backend.store.count_users().await.unwrap(),
            1,
            "{}",
            backend.name
        );
    }
}

#[tokio::test]
async fn a_token_acts_as_its_user_in_its_tenant_until_revoked_or_expired() {
    for backend in backends::all().await {
        let accounts = Accounts::new(backend.store.clone());
        accounts
            .add_user("ada", PASSWORD, "acme", Role::Operator)
            .await
            .unwrap();
        let own = accounts
            .create_token("ada", "acme", None, None)
            .await
            .unwrap();
        let identity = accounts
            .token_identity(&own.token, None)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (
                identity.user_name.as_str(),
                identity.tenant.as_str(),
                identity.role
            ),
            ("ada", "acme", Role::Operator)
        );
        assert_eq!(identity.token_id.as_deref(), Some(own.record.id.as_str()));

        // Narrower roles only; no token for a tenant the user is not in.
        let viewer = accounts
            .create_token("ada", "acme", Some(Role::Viewer), Some(30))
            .await
            .unwrap();
        let identity = accounts
            .token_identity(&viewer.token, None)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(identity.role, Role::Viewer);
        let wider = accounts
            .create_token("ada", "acme", Some(Role::Owner), None)
            .await;
        assert!(
            wider
                .unwrap_err()
                .to_string()
                .contains("more than its user's role")
        );
        let elsewhere = accounts.create_token("ada", "nowhere", None, None).await;
        assert!(elsewhere.unwrap_err().to_string().contains("not a member"));

        // A token acts in the tenant it was made in alone: naming another of its user's
        // tenants is refused like naming one its user is not in, and the identity names
        // none of the user's other tenants.
        accounts.grant("ada", "labs", Role::Viewer).await.unwrap();
        let here = accounts
            .token_identity(&own.token, Some("acme"))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(here.tenant, "acme");
        assert!(
            here.memberships.iter().all(|held| held.tenant_id == "acme"),
            "{:?}",
            here.memberships
        );
        let there = accounts.token_identity(&own.token, Some("labs")).await;
        assert!(
            there
                .unwrap_err()
                .to_string()
                .contains("only in the tenant it was made in")
        );
        accounts
            .add_user("eve", PASSWORD, "evil", Role::Owner)
            .await
            .unwrap();
        let outside = accounts.token_identity(&own.token, Some("evil")).await;
        assert!(
            outside
                .unwrap_err()
                .to_string()
                .contains("only in the tenant it was made in")
        );

        // A token's secret is checked, not only its id; expired and revoked ones stop.
        let forged = format!("{}{}", &own.token[..own.token.len() - 4], "0000");
        if forged != own.token {
            assert_eq!(accounts.token_identity(&forged, None).await.unwrap(), None);
        }
        let expired = accounts
            .create_token("ada", "acme", None, Some(0))
            .await
            .unwrap();
        assert_eq!(
            accounts.token_identity(&expired.token, None).await.unwrap(),
            None
        );
        accounts.revoke_token(&own.record.id).await.unwrap();
        assert_eq!(
            accounts.token_identity(&own.token, None).await.unwrap(),
            None
        );
        let again = accounts.revoke_token(&own.record.id).await;
        assert!(again.unwrap_err().to_string().contains("revoked already"));
        // Listed without their secrets, with what stops them.
        let listed = accounts.tokens(Some("ada")).await.unwrap();
        assert_eq!(listed.len(), 3, "{}", backend.name);
        assert!(
            listed
                .iter()
                .any(|token| token.id == own.record.id && token.revoked_at_ms.is_some())
        );
        assert!(
            listed
                .iter()
                .any(|token| token.id == viewer.record.id && token.role == Some(Role::Viewer))
        );
        assert_eq!(accounts.tokens(None).await.unwrap().len(), 3);
        assert!(accounts.tokens(Some("nobody")).await.is_err());
        // A demoted user's token holds no more than the user now does.
        accounts.grant("ada", "acme", Role::Viewer).await.unwrap();
        let still = accounts
            .create_token("ada", "acme", None, None)
            .await
            .unwrap();
        assert_eq!(
            accounts
                .token_identity(&still.token, None)
                .await
                .unwrap()
                .unwrap()
                .role,
            Role::Viewer,
            "{}",
            backend.name
        );
    }
}

#[tokio::test]
async fn setup_links_used_at_once_make_one_first_owner() {
    for backend in backends::all().await {
        let store = backend.store.clone();
        let tokens: Vec<String> = (0..8).map(|i| format!("link-{i}")).collect();
        for token in &tokens {
            store.create_setup_token(token, 1).await.unwrap();
        }
        let setups = tokens.iter().enumerate().map(|(i, token)| {
            let store = store.clone();
            let owner = UserRecord {
                id: uuid::Uuid::new_v4().to_string(),
                name: format!("owner{i}"),
                password_hash: "$argon2id$stand-in".to_owned(),
                created_at_ms: 1,
            };
            async move {
                store
                    .complete_setup(token, &owner, &format!("tenant{i}"), 2)
                    .await
                    .unwrap()
            }
        });
        let made = futures_util::future::join_all(setups).await;
        assert_eq!(
            made.iter().filter(|made| **made).count(),
            1,
            "{}: {made:?}",
            backend.name
        );
        assert_eq!(store.count_users().await.unwrap(), 1, "{}", backend.name);
    }
}

#[tokio::test]
async fn the_setup_link_works_once_and_only_while_there_are_no_users() {
    for backend in backends::all().await {
        let store = &backend.store;
        store.create_setup_token("first", 1).await.unwrap();
        store.create_setup_token("second", 1).await.unwrap();
        let owner = |name: &str| UserRecord {
            id: uuid::Uuid::new_v4().to_string(),
            name: name.to_owned(),
            password_hash: "$argon2id$stand-in".to_owned(),
            created_at_ms: 1,
        };
        assert!(
            !store
                .complete_setup("unknown", &owner("eve"), "acme", 2)
                .await
                .unwrap()
        );
        assert!(
            store
                .complete_setup("first", &owner("ada"), "acme", 2)
                .await
                .unwrap()
        );
        // Used once; and once there is a user, no other link works either.
        assert!(
            !store
                .complete_setup("first", &owner("bob"), "acme", 3)
                .await
                .unwrap()
        );
        assert!(
            !store
                .complete_setup("second", &owner("bob"), "acme", 3)
                .await
                .unwrap()
        );
        let ada = store.user_by_name("ada").await.unwrap().unwrap();
        let memberships = store.memberships(&ada.id).await.unwrap();
        assert_eq!(memberships.len(), 1, "{}", backend.name);
        assert_eq!(memberships[0].role, Role::Owner);
        assert!(store.tenant_exists("acme").await.unwrap());
        assert_eq!(store.count_users().await.unwrap(), 1);
    }
}

#[tokio::test]
async fn a_login_opens_a_session_that_ends_at_logout_a_new_password_or_everywhere() {
    for backend in backends::all().await {
        let accounts = Accounts::new(backend.store.clone());
        accounts
            .add_user("ada", PASSWORD, "acme", Role::Operator)
            .await
            .unwrap();
        accounts.grant("ada", "labs", Role::Viewer).await.unwrap();
        // Wrong password and unknown user read the same.
        for (name, password) in [("ada", "wrong password"), ("nobody", PASSWORD)] {
            let refused = accounts.login(name, password, None).await.unwrap_err();
            assert_eq!(refused.to_string(), "the user name or password is wrong");
        }
        let first = accounts.login("ada", PASSWORD, None).await.unwrap();
        assert_eq!(
            (first.identity.tenant.as_str(), first.identity.role),
            ("acme", Role::Operator)
        );
        let second = accounts.login("ada", PASSWORD, Some("labs")).await.unwrap();
        assert_ne!(first.cookie, second.cookie, "each login has its own id");
        let seen = accounts
            .session_identity(&second.cookie)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((seen.tenant.as_str(), seen.role), ("labs", Role::Viewer));
        // Only the digest is stored: the cookie itself opens nothing when used as one.
        assert!(
            backend
                .store
                .session(&second.cookie)
                .await
                .unwrap()
                .is_none()
        );

        let switched = accounts
            .switch_tenant(&second.cookie, &seen.user_id, &seen.user_name, "acme")
            .await
            .unwrap();
        assert_eq!(switched, Role::Operator);
        let outside = accounts
            .switch_tenant(&second.cookie, &seen.user_id, &seen.user_name, "other")
            .await;
        assert!(outside.unwrap_err().to_string().contains("not a member"));
        assert!(
            accounts
                .login("ada", PASSWORD, Some("other"))
                .await
                .is_err()
        );

        accounts.logout(&first.cookie).await.unwrap();
        assert_eq!(
            accounts.session_identity(&first.cookie).await.unwrap(),
            None
        );
        assert!(
            accounts
                .session_identity(&second.cookie)
                .await
                .unwrap()
                .is_some()
        );
        accounts
            .set_password("ada", "a new password")
            .await
            .unwrap();
        assert_eq!(
            accounts.session_identity(&second.cookie).await.unwrap(),
            None
        );
        assert!(accounts.login("ada", PASSWORD, None).await.is_err());

        let a = accounts.login("ada", "a new password", None).await.unwrap();
        let b = accounts.login("ada", "a new password", None).await.unwrap();
        let ended = accounts
            .logout_everywhere(&a.identity.user_id)
            .await
            .unwrap();
        assert_eq!(ended, 2, "{}", backend.name);
        assert_eq!(accounts.session_identity(&b.cookie).await.unwrap(), None);
        // Garbage is no session.
        assert_eq!(
            accounts.session_identity("../etc/passwd").await.unwrap(),
            None
        );
    }
}

#[tokio::test]
async fn the_first_owner_is_made_with_the_setup_token_once() {
    for backend in backends::all().await {
        let accounts = Accounts::new(backend.store.clone());
        let token = accounts.setup_token().await.unwrap().unwrap();
        let bad = accounts
            .complete_setup("0".repeat(64).as_str(), "ada", PASSWORD, "acme")
            .await;
        assert!(
            bad.unwrap_err()
                .to_string()
                .contains("setup link is not valid")
        );
        let opened = accounts
            .complete_setup(&token, "ada", PASSWORD, "acme")
            .await
            .unwrap();
        assert_eq!(opened.identity.role, Role::Owner);
        let again = accounts
            .complete_setup(&token, "eve", PASSWORD, "acme")
            .await;
        assert!(again.is_err());
        assert_eq!(
            accounts.setup_token().await.unwrap(),
            None,
            "{}",
            backend.name
        );
    }
}

fn agent_os(args: &[&str], password: Option<&str>) -> std::process::Output {
    let mut command = std::process::Command::new(BIN);
    command
        .args(args)
        .env("RUST_LOG", "error")
        .env_remove("AGENT_OS_PASSWORD");
    if let Some(password) = password {
        command.env("AGENT_OS_PASSWORD", password);
    }
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_command_line_adds_users_and_tokens_and_the_store_keeps_neither_secret() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().to_str().unwrap();
    let added = agent_os(
        &[
            "user",
            "add",
            "ada",
            "--tenant",
            "acme",
            "--role",
            "owner",
            "--data-dir",
            dir,
        ],
        Some(PASSWORD),
    );
    assert!(added.status.success(), "{}", text(&added.stderr));
    assert_eq!(text(&added.stdout), "created user ada (owner in acme)\n");

    // The password may come from stdin too.
    let mut child = std::process::Command::new(BIN)
        .args([
            "user",
            "add",
            "bob",
            "--tenant",
            "acme",
            "--role",
            "viewer",
            "--data-dir",
            dir,
        ])
        .env_remove("AGENT_OS_PASSWORD")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"stdin password\n")
        .unwrap();
    let piped = child.wait_with_output().unwrap();
    assert!(piped.status.success(), "{}", text(&piped.stderr));

    let changed = agent_os(
        &["user", "passwd", "ada", "--data-dir", dir],
        Some("another password"),
    );
    assert!(changed.status.success(), "{}", text(&changed.stderr));

    let created = agent_os(
        &[
            "token",
            "create",
            "--user",
            "ada",
            "--tenant",
            "acme",
            "--expires-days",
            "7",
            "--data-dir",
            dir,
        ],
        None,
    );
    assert!(created.status.success(), "{}", text(&created.stderr));
    let token = text(&created.stdout).trim().to_owned();
    let (id, secret) = server::auth::secret::parse_token(&token).unwrap();

    // Refusals name what is wrong and exit non-zero.
    for (args, password, says) in [
        (
            vec!["user", "add", "ada", "--tenant", "acme", "--role", "owner"],
            Some(PASSWORD),
            "exists already",
        ),
        (
            vec!["user", "add", "cy", "--tenant", "acme", "--role", "admin"],
            Some(PASSWORD),
            "owner, operator or viewer",
        ),
        (
            vec!["user", "add", "cy", "--tenant", "acme", "--role", "viewer"],
            Some("short"),
            "at least 8",
        ),
        (
            vec!["user", "passwd", "nobody"],
            Some(PASSWORD),
            "no user \"nobody\"",
        ),
        (
            vec![
                "token", "create", "--user", "bob", "--tenant", "acme", "--role", "owner",
            ],
            None,
            "more than its user's role",
        ),
        (
            vec!["token", "revoke", "0000000000000000"],
            None,
            "no token",
        ),
    ] {
        let mut args = args.clone();
        args.extend(["--data-dir", dir]);
        let refused = agent_os(&args, password);
        assert!(!refused.status.success(), "{args:?}");
        assert!(
            text(&refused.stderr).contains(says),
            "{args:?}: {}",
            text(&refused.stderr)
        );
    }

    // Listing shows the token by id and state, never the token itself.
    let users = agent_os(&["user", "list", "--data-dir", dir], None);
    assert!(users.status.success(), "{}", text(&users.stderr));
    let users = text(&users.stdout);
    assert!(users.starts_with("NAME"), "{users}");
    assert!(
        users.contains("ada   acme (owner)") && users.contains("bob   acme (viewer)"),
        "{users}"
    );
    let listed = agent_os(&["token", "list", "--user", "ada", "--data-dir", dir], None);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let listed = text(&listed.stdout);
    assert!(listed.contains(id) && listed.contains("active"), "{listed}");
    assert!(!listed.contains(secret), "{listed}");

    let revoked = agent_os(&["token", "revoke", id, "--data-dir", dir], None);
    assert!(revoked.status.success(), "{}", text(&revoked.stderr));
    assert_eq!(text(&revoked.stdout), format!("revoked token {id}\n"));
    let listed = text(&agent_os(&["token", "list", "--data-dir", dir], None).stdout);
    assert!(
        listed
            .lines()
            .any(|line| line.starts_with(id) && line.ends_with("revoked")),
        "{listed}"
    );

    // Neither password nor the token's secret is anywhere in the data directory.
    for secret in [
        PASSWORD,
        "stdin password",
        "another password",
        secret,
        token.as_str(),
    ] {
        let holding = common::files_holding(temp.path(), secret);
        assert_eq!(holding, Vec::<String>::new(), "{secret:?} is stored");
    }
}

#[tokio::test]
async fn founding_a_tenant_makes_its_founder_owner_and_never_joins_a_taken_one() {
    for backend in backends::all().await {
        let accounts = Accounts::new(backend.store.clone());
        let ada = accounts
            .add_user("ada", PASSWORD, "acme", Role::Viewer)
            .await
            .unwrap();
        let eve = accounts
            .add_user("eve", PASSWORD, "evil", Role::Owner)
            .await
            .unwrap();
        accounts.found_tenant(&ada.id, "labs").await.unwrap();
        let held = accounts.memberships("ada").await.unwrap();
        assert!(
            held.iter()
                .any(|membership| membership.tenant_id == "labs" && membership.role == Role::Owner),
            "{}: {held:?}",
            backend.name
        );
        let taken = accounts.found_tenant(&eve.id, "labs").await;
        assert!(taken.unwrap_err().to_string().contains("exists already"));
        let eves = accounts.memberships("eve").await.unwrap();
        assert!(!eves.iter().any(|membership| membership.tenant_id == "labs"));
        let bad = accounts.found_tenant(&eve.id, "../x").await;
        assert!(bad.unwrap_err().to_string().contains("tenant name"));
    }
}

#[tokio::test]
async fn a_login_checked_against_a_password_changed_meanwhile_opens_no_session() {
    for backend in backends::all().await {
        let name = backend.name;
        let accounts = Accounts::new(backend.store.clone());
        accounts
            .add_user("ada", PASSWORD, "acme", Role::Owner)
            .await
            .unwrap();
        let checked = backend.store.user_by_name("ada").await.unwrap().unwrap();
        // The password changes between the login's check and its session.
        accounts
            .set_password("ada", "a different passphrase")
            .await
            .unwrap();
        let opened = backend
            .store
            .create_session("digest-old", &checked.id, &checked.password_hash, "acme", 1)
            .await
            .unwrap();
        assert!(
            !opened,
            "{name}: a session outlived the password it was checked with"
        );
        assert!(
            backend.store.session("digest-old").await.unwrap().is_none(),
            "{name}"
        );
        let current = backend.store.user_by_name("ada").await.unwrap().unwrap();
        let opened = backend
            .store
            .create_session("digest-new", &current.id, &current.password_hash, "acme", 1)
            .await
            .unwrap();
        assert!(opened, "{name}");
        assert!(
            accounts.login("ada", PASSWORD, None).await.is_err(),
            "{name}"
        );
    }
}
