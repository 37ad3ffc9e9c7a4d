//! Bearer secrets (session ids, API tokens, the setup link): random, shown once, stored
//! only as their SHA-256, compared in constant time.

use argon2::password_hash::rand_core::{OsRng, RngCore};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// `count` random bytes from the operating system.
pub fn random_bytes(count: usize) -> Vec<u8> {
    let mut buffer = vec![0u8; count];
    OsRng.fill_bytes(&mut buffer);
    buffer
}

/// `bytes` random bytes from the operating system, as lowercase hex.
pub fn random_hex(bytes: usize) -> String {
    hex::encode(random_bytes(bytes))
}

/// What the store keeps of a secret: its SHA-256, as hex. The secrets are 256 random
/// bits, so an unsalted fast hash is enough: there is nothing to guess.
pub fn digest(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Whether `secret` is the one whose digest is `stored`, without an early exit.
pub fn matches(stored: &str, secret: &str) -> bool {
    let given = digest(secret);
    stored.len() == given.len() && bool::from(stored.as_bytes().ct_eq(given.as_bytes()))
}

/// The prefix of every API token, so a leaked one is recognisable (and scannable).
pub const TOKEN_PREFIX: &str = "aos";

/// A new API token: its public id (for listing and revoking) and the whole token the
/// user is shown once: `aos_<id>_<secret>`.
pub struct NewToken {
    pub id: String,
    pub token: String,
    pub digest: String,
}

pub fn new_token() -> NewToken {
    let id = random_hex(8);
    let secret = random_hex(32);
    NewToken {
        token: format!("{TOKEN_PREFIX}_{id}_{secret}"),
        digest: digest(&secret),
        id,
    }
}

/// Splits `aos_<id>_<secret>` into its id and secret; anything else is not a token.
pub fn parse_token(token: &str) -> Option<(&str, &str)> {
    let rest = token.strip_prefix(TOKEN_PREFIX)?.strip_prefix('_')?;
    let (id, secret) = rest.split_once('_')?;
    let hex = |text: &str, length: usize| {
        text.len() == length && text.bytes().all(|byte| byte.is_ascii_hexdigit())
    };
    (hex(id, 16) && hex(secret, 64)).then_some((id, secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_recognisable_and_only_its_digest_is_kept() {
        let new = new_token();
        let (id, secret) = parse_token(&new.token).unwrap();
        assert_eq!(id, new.id);
        assert!(!new.digest.contains(secret));
        assert!(matches(&new.digest, secret));
        assert!(!matches(&new.digest, &random_hex(32)));
        assert_ne!(new_token().token, new.token);
    }

    #[test]
    fn anything_but_a_well_formed_token_is_refused() {
        let good = new_token().token;
        for bad in [
            "",
            "aos_",
            "Bearer x",
            &good[..good.len() - 1],
            &good.replace("aos_", "sk_"),
            &format!("{good}0"),
            "aos_zzzzzzzzzzzzzzzz_0000000000000000000000000000000000000000000000000000000000000000",
        ] {
            assert!(parse_token(bad).is_none(), "{bad}");
        }
    }
}
