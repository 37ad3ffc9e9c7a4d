//! The demo peer's key: the bearer the built-in demo agents answer to. The console's own
//! demo connectors send it; anyone else needs it given (`AGENT_OS_DEMO_KEY`), so a page on
//! another site, a name that merely resolves here, or a stranger on the network cannot
//! drive the demo agents or read what they were sent.

use std::sync::Arc;

use axum::http::{HeaderMap, header};
use subtle::ConstantTimeEq;

use super::secret::random_hex;

/// The variable that sets the key; without it each start makes a random one.
pub const ENV: &str = "AGENT_OS_DEMO_KEY";

#[derive(Clone)]
pub struct DemoKey(Arc<str>);

/// Never prints the key.
impl std::fmt::Debug for DemoKey {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("DemoKey(…)")
    }
}

impl DemoKey {
    /// `AGENT_OS_DEMO_KEY` when set (and not blank), else 32 random bytes.
    pub fn from_env() -> Self {
        match std::env::var(ENV) {
            Ok(key) if !key.trim().is_empty() => Self(Arc::from(key.trim())),
            _ => Self(Arc::from(random_hex(32))),
        }
    }

    /// The key, to configure the demo connectors with.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether the request carries `Authorization: Bearer <this key>`, compared without an
    /// early exit.
    pub fn admits(&self, headers: &HeaderMap) -> bool {
        headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .is_some_and(|given| {
                let given = given.trim().as_bytes();
                given.len() == self.0.len() && bool::from(given.ct_eq(self.0.as_bytes()))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_key_as_a_bearer_is_admitted() {
        let key = DemoKey(Arc::from("k3y"));
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::AUTHORIZATION, value.parse().unwrap());
            key.admits(&headers)
        };
        assert!(with("Bearer k3y"));
        assert!(!with("Bearer k3"));
        assert!(!with("Bearer k3yy"));
        assert!(!with("k3y"));
        assert!(!key.admits(&HeaderMap::new()));
        assert_eq!(format!("{key:?}"), "DemoKey(…)");
    }
}
