//! Passwords: argon2id hashes in PHC strings, checked off the async runtime, a few at a
//! time: each costs 19 MiB and most of a core, so a flood of sign-ins waits in a short
//! queue and past it is told the server is busy, rather than taking the memory and the
//! cores of everyone else.

use std::sync::LazyLock;

use tokio::sync::Semaphore;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

/// Memory in KiB, passes and lanes: OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane),
/// which keeps a login well under 250 ms on two shared cores (figures in docs/figures.md).
pub const MEMORY_KIB: u32 = 19 * 1024;
pub const PASSES: u32 = 2;
pub const LANES: u32 = 1;

/// Passwords shorter than this are refused when set.
pub const MIN_LENGTH: usize = 8;
/// Longer input is refused before hashing, so a huge body cannot buy a long hash.
pub const MAX_LENGTH: usize = 1024;

fn hasher() -> Argon2<'static> {
    let params = Params::new(MEMORY_KIB, PASSES, LANES, None).unwrap_or_else(|_| Params::default());
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Whether `password` may be set; the reason otherwise.
pub fn check_new(password: &str) -> Result<(), String> {
    let length = password.chars().count();
    if length < MIN_LENGTH {
        return Err(format!(
            "a password has at least {MIN_LENGTH} characters; this one has {length}"
        ));
    }
    if password.len() > MAX_LENGTH {
        return Err(format!("a password has at most {MAX_LENGTH} bytes"));
    }
    Ok(())
}

/// The PHC string of a new salted argon2id hash of `password`.
pub fn hash(password: &str) -> Result<String, String> {
    let salt = SaltString::generate(&mut OsRng);
    hasher()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|error| format!("hashing the password failed: {error}"))
}

/// Whether `password` matches the PHC string `stored`. A malformed stored hash matches
/// nothing. The parameters come from the stored string, so hashes made with older
/// parameters keep working.
pub fn verify(stored: &str, password: &str) -> bool {
    if password.len() > MAX_LENGTH {
        return false;
    }
    match PasswordHash::new(stored) {
        Ok(parsed) => hasher()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok(),
        Err(_) => false,
    }
}

/// A hash no password matches, checked for unknown users so that "no such user" takes
/// as long as "wrong password" and names cannot be probed by timing.
pub fn decoy() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash(&crate::auth::secret::random_hex(32)).unwrap_or_default())
}

/// Hashes computed at once: one per core.
static HASHING: LazyLock<Semaphore> = LazyLock::new(|| {
    Semaphore::new(std::thread::available_parallelism().map_or(2, std::num::NonZero::get))
});

/// Checks that may wait for a core; past this, a check is refused at once.
pub const QUEUE: usize = 32;
static WAITING: LazyLock<Semaphore> = LazyLock::new(|| Semaphore::new(QUEUE));

/// Too many password checks are waiting: try again in a moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the server is checking too many passwords at once; try again in a moment")]
pub struct Busy;

/// Runs `work` on a blocking thread once a hashing slot is free; [`Busy`] when the queue
/// for one is full.
async fn bounded<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<Option<T>, Busy> {
    let _waiting = WAITING.try_acquire().map_err(|_| Busy)?;
    let Ok(_hashing) = HASHING.acquire().await else {
        return Err(Busy);
    };
    Ok(tokio::task::spawn_blocking(work).await.ok())
}

/// [`verify`] on a blocking thread, within the bound on checks at once.
pub async fn verify_blocking(stored: String, password: String) -> Result<bool, Busy> {
    Ok(bounded(move || verify(&stored, &password))
        .await?
        .unwrap_or(false))
}

/// Why a new password could not be hashed.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    #[error(transparent)]
    Busy(#[from] Busy),
    #[error("{0}")]
    Failed(String),
}

/// [`hash`] on a blocking thread, within the same bound.
pub async fn hash_blocking(password: String) -> Result<String, HashError> {
    bounded(move || hash(&password))
        .await?
        .ok_or_else(|| HashError::Failed("hashing the password failed".into()))?
        .map_err(HashError::Failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_is_argon2id_salted_and_matches_only_its_password() {
        let first = hash("correct horse").unwrap();
        let second = hash("correct horse").unwrap();
        assert!(
            first.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{first}"
        );
        assert_ne!(first, second, "each hash has its own salt");
        assert!(verify(&first, "correct horse"));
        assert!(!verify(&first, "correct horsf"));
        assert!(!verify("not a phc string", "correct horse"));
        assert!(!verify(decoy(), ""));
    }

    #[test]
    fn short_and_oversized_passwords_are_refused_when_set() {
        assert!(check_new("seven77").unwrap_err().contains("at least 8"));
        assert!(check_new("eight888").is_ok());
        assert!(check_new(&"x".repeat(MAX_LENGTH + 1)).is_err());
        assert!(!verify(
            &hash("eight888").unwrap(),
            &"x".repeat(MAX_LENGTH + 1)
        ));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_flood_of_password_checks_is_bounded_and_the_rest_told_busy() {
        let stored = hash("correct horse").unwrap();
        let checks: Vec<_> = (0..QUEUE * 3)
            .map(|_| tokio::spawn(verify_blocking(stored.clone(), "wrong horse".into())))
            .collect();
        let mut busy = 0;
        for check in checks {
            match check.await.unwrap() {
                Ok(matched) => assert!(!matched),
                Err(Busy) => busy += 1,
            }
        }
        assert!(busy >= QUEUE, "{busy} of {} were refused", QUEUE * 3);
        assert_eq!(
            verify_blocking(stored, "correct horse".into()).await,
            Ok(true)
        );
    }
}
