//! Who may do what: accounts with argon2id passwords, one role per tenant a user belongs
//! to, API tokens and sessions kept only as digests, and the one-time setup link of a
//! store with no users, and the key the built-in demo agents answer to. `cli` is the `agent-os user` and `agent-os token` commands.

pub mod accounts;
pub mod cli;
pub mod demo_key;
mod invitations;
mod media_hosts;
mod members;
pub mod password;
pub mod secret;
pub mod sessions;
pub mod throttle;

pub use accounts::{Accounts, AuthError, Identity};
pub use demo_key::DemoKey;
