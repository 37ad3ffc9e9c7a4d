//! `agent-os user …` and `agent-os token …`: accounts managed from the machine that holds
//! the store, for operators and scripts. Passwords come from `AGENT_OS_PASSWORD`, or a
//! prompt without echo on a terminal, or the first line of stdin.

use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;

use app::model::Role;
use clap::{Args, Subcommand};

use super::Accounts;

/// Where the store is, as `serve` finds it.
#[derive(Debug, Args)]
pub struct StoreArgs {
    /// Database URL (`sqlite:PATH` or `postgres://…`); default: the file in --data-dir.
    #[arg(long, env = "AGENT_OS_DB")]
    pub db: Option<String>,
    #[arg(long, env = "AGENT_OS_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,
}

impl StoreArgs {
    pub fn database_url(&self) -> String {
        crate::store::database_url(self.db.as_deref(), &self.data_dir)
    }
}

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create a user with a role in a tenant (created if new).
    Add {
        name: String,
        #[arg(long)]
        tenant: String,
        #[arg(long, value_parser = parse_role)]
        role: Role,
        #[command(flatten)]
        store: StoreArgs,
    },
    /// Give an existing user a role in a tenant (created if new), replacing any they had.
    Grant {
        name: String,
        #[arg(long)]
        tenant: String,
        #[arg(long, value_parser = parse_role)]
        role: Role,
        #[command(flatten)]
        store: StoreArgs,
    },
    /// List every user with their tenants and roles.
    List {
        #[command(flatten)]
        store: StoreArgs,
    },
    /// Set a user's password; every session of theirs ends.
    Passwd {
        name: String,
        #[command(flatten)]
        store: StoreArgs,
    },
}

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Create an API token acting as a user in one tenant; prints it once.
    Create {
        #[arg(long)]
        user: String,
        #[arg(long)]
        tenant: String,
        /// A role narrower than the user's own in the tenant.
        #[arg(long, value_parser = parse_role)]
        role: Option<Role>,
        /// Days until the token stops working (default: until revoked).
        #[arg(long)]
        expires_days: Option<u32>,
        #[command(flatten)]
        store: StoreArgs,
    },
    /// List tokens (of one user with --user): id, user, tenant, role, dates and state —
    /// never the token itself, which is not kept.
    List {
        #[arg(long)]
        user: Option<String>,
        #[command(flatten)]
        store: StoreArgs,
    },
    /// Revoke a token by its id (the part after `aos_`, before the second `_`).
    Revoke {
        id: String,
        #[command(flatten)]
        store: StoreArgs,
    },
}

fn parse_role(text: &str) -> Result<Role, String> {
    Role::parse(text)
}

async fn accounts(store: &StoreArgs) -> Result<Accounts, String> {
    // As `serve` does: a fresh machine can make its first user before the first start.
    if store.db.is_none() {
        std::fs::create_dir_all(&store.data_dir).map_err(|error| {
            format!(
                "cannot create the data directory {}: {error}",
                store.data_dir.display()
            )
        })?;
    }
    let store = crate::store::open(&store.database_url())
        .await
        .map_err(|error| format!("cannot open the store: {error}"))?;
    Ok(Accounts::new(store))
}

/// The password to set: `AGENT_OS_PASSWORD`, else asked twice on a terminal, else the
/// first line of stdin.
fn read_password() -> Result<String, String> {
    if let Ok(password) = std::env::var("AGENT_OS_PASSWORD") {
        return Ok(password);
    }
    if std::io::stdin().is_terminal() {
        let first = rpassword::prompt_password("Password: ").map_err(|e| e.to_string())?;
        let again = rpassword::prompt_password("Again: ").map_err(|e| e.to_string())?;
        if first != again {
            return Err("the two passwords differ".into());
        }
        return Ok(first);
    }
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|error| format!("cannot read the password from stdin: {error}"))?;
    Ok(line.trim_end_matches(['\r', '\n']).to_owned())
}

/// Rows under a heading, each column as wide as its widest cell.
fn table(heading: &[&str], rows: impl Iterator<Item = Vec<String>>) -> String {
    let mut all: Vec<Vec<String>> = vec![heading.iter().map(|cell| (*cell).to_owned()).collect()];
    all.extend(rows);
    let widths: Vec<usize> = (0..heading.len())
        .map(|column| {
            all.iter()
                .map(|row| row.get(column).map_or(0, |cell| cell.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in &all {
        let line = row
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect::<Vec<_>>()
            .join("  ");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Runs a user command; what to print on success.
pub async fn run_user(command: UserCommand) -> Result<String, String> {
    match command {
        UserCommand::Add {
            name,
            tenant,
            role,
            store,
        } => {
            let password = read_password()?;
            accounts(&store)
                .await?
                .add_user(&name, &password, &tenant, role)
                .await
                .map_err(|error| error.to_string())?;
            Ok(format!("created user {name} ({role} in {tenant})\n"))
        }
        UserCommand::Grant {
            name,
            tenant,
            role,
            store,
        } => {
            accounts(&store)
                .await?
                .grant(&name, &tenant, role)
                .await
                .map_err(|error| error.to_string())?;
            Ok(format!("{name} is {role} in {tenant}\n"))
        }
        UserCommand::List { store } => {
            let users = accounts(&store)
                .await?
                .users()
                .await
                .map_err(|error| error.to_string())?;
            let rows = users.iter().map(|(user, memberships)| {
                let tenants = memberships
                    .iter()
                    .map(|membership| format!("{} ({})", membership.tenant_id, membership.role))
                    .collect::<Vec<_>>()
                    .join(", ");
                vec![user.name.clone(), tenants]
            });
            Ok(table(&["NAME", "TENANTS"], rows))
        }
        UserCommand::Passwd { name, store } => {
            let password = read_password()?;
            accounts(&store)
                .await?
                .set_password(&name, &password)
                .await
                .map_err(|error| error.to_string())?;
            Ok(format!(
                "password of {name} changed; their sessions ended and their tokens were revoked\n"
            ))
        }
    }
}

/// Runs a token command; what to print on success (a new token, on its own line).
pub async fn run_token(command: TokenCommand) -> Result<String, String> {
    match command {
        TokenCommand::Create {
            user,
            tenant,
            role,
            expires_days,
            store,
        } => {
            let created = accounts(&store)
                .await?
                .create_token(&user, &tenant, role, expires_days)
                .await
                .map_err(|error| error.to_string())?;
            Ok(format!("{}\n", created.token))
        }
        TokenCommand::List { user, store } => {
            let tokens = accounts(&store)
                .await?
                .tokens(user.as_deref())
                .await
                .map_err(|error| error.to_string())?;
            let now = crate::clock::now_ms();
            let day = |ms: i64| app::when::readable(&app::when::rfc3339(ms));
            let rows = tokens.iter().map(|token| {
                let state = if token.revoked_at_ms.is_some() {
                    "revoked"
                } else if token.expires_at_ms.is_some_and(|at| at <= now) {
                    "expired"
                } else {
                    "active"
                };
                vec![
                    token.id.clone(),
                    token.user_name.clone(),
                    token.tenant_id.clone(),
                    token
                        .role
                        .map_or_else(|| "(user's)".to_owned(), |role| role.to_string()),
                    day(token.created_at_ms),
                    token.expires_at_ms.map_or_else(|| "never".to_owned(), day),
                    state.to_owned(),
                ]
            });
            Ok(table(
                &[
                    "ID", "USER", "TENANT", "ROLE", "CREATED", "EXPIRES", "STATE",
                ],
                rows,
            ))
        }
        TokenCommand::Revoke { id, store } => {
            accounts(&store)
                .await?
                .revoke_token(&id)
                .await
                .map_err(|error| error.to_string())?;
            Ok(format!("revoked token {id}\n"))
        }
    }
}
