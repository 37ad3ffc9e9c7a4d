//! The vault's key and sealing: values are encrypted at rest with XChaCha20-Poly1305
//! under one key — from `AGENT_OS_VAULT_KEY` (64 hex digits), else a key file made once
//! with mode 0600 in the data directory — and bound to where they are kept (the
//! associated data), so a sealed value copied elsewhere does not open.

use std::io::Write;
use std::path::{Path, PathBuf};

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};

use crate::auth::secret::random_bytes;

/// The environment variable that holds the key, as 64 hex digits.
pub const KEY_ENV: &str = "AGENT_OS_VAULT_KEY";
/// The key file's name in the data directory.
pub const KEY_FILE: &str = "vault.key";

/// The text form of a sealed value begins with this (the scheme's version).
const SEALED_PREFIX: &str = "xc20p1";

#[derive(Debug, thiserror::Error)]
pub enum VaultError {
    #[error("{KEY_ENV} must be 64 hex digits (32 bytes)")]
    BadEnvKey,
    #[error("the vault key file {0} does not hold 64 hex digits")]
    BadKeyFile(PathBuf),
    #[error("the vault key file {path} can be read by others (mode {mode:o}); chmod 600 it")]
    KeyFileOpen { path: PathBuf, mode: u32 },
    #[error("the vault key file {path} cannot be used: {source}")]
    KeyFileIo {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the value is too large to seal")]
    TooLarge,
    /// Wrong key, wrong place, or altered: which of them is not said.
    #[error("a sealed value does not open with this vault key")]
    Unsealable,
}

/// The vault's key. Never printed.
pub struct VaultKey(Key);

impl std::fmt::Debug for VaultKey {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("VaultKey(…)")
    }
}

fn key_from_hex(text: &str) -> Option<Key> {
    let bytes = hex::decode(text.trim()).ok()?;
    (bytes.len() == 32).then(|| *Key::from_slice(&bytes))
}

impl VaultKey {
    /// The key from `env_key` (the value of [`KEY_ENV`], if set), else from the key file in
    /// `data_dir`, made with mode 0600 on first use.
    pub fn load(env_key: Option<&str>, data_dir: &Path) -> Result<VaultKey, VaultError> {
        if let Some(text) = env_key {
            return key_from_hex(text)
                .map(VaultKey)
                .ok_or(VaultError::BadEnvKey);
        }
        let path = data_dir.join(KEY_FILE);
        let io = |source| VaultError::KeyFileIo {
            path: path.clone(),
            source,
        };
        if !path.exists() {
            std::fs::create_dir_all(data_dir).map_err(io)?;
            create_key_file(&path).map_err(io)?;
        }
        refuse_open_file(&path)?;
        let text = std::fs::read_to_string(&path).map_err(io)?;
        key_from_hex(&text)
            .map(VaultKey)
            .ok_or_else(|| VaultError::BadKeyFile(path.clone()))
    }

    /// Seals `value` for the place `bound_to` names (e.g. tenant and entry id).
    pub fn seal(&self, value: &[u8], bound_to: &str) -> Result<String, VaultError> {
        let nonce_bytes = random_bytes(24);
        let nonce = XNonce::from_slice(&nonce_bytes);
        let sealed = XChaCha20Poly1305::new(&self.0)
            .encrypt(
                nonce,
                Payload {
                    msg: value,
                    aad: bound_to.as_bytes(),
                },
            )
            .map_err(|_| VaultError::TooLarge)?;
        Ok(format!(
            "{SEALED_PREFIX}.{}.{}",
            hex::encode(nonce_bytes),
            hex::encode(sealed)
        ))
    }

    /// Opens a value sealed for `bound_to`.
    pub fn open(&self, sealed: &str, bound_to: &str) -> Result<Vec<u8>, VaultError> {
        let mut parts = sealed.split('.');
        let (Some(SEALED_PREFIX), Some(nonce), Some(body), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(VaultError::Unsealable);
        };
        let nonce = hex::decode(nonce)
            .ok()
            .filter(|nonce| nonce.len() == 24)
            .ok_or(VaultError::Unsealable)?;
        let body = hex::decode(body).map_err(|_| VaultError::Unsealable)?;
        XChaCha20Poly1305::new(&self.0)
            .decrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: &body,
                    aad: bound_to.as_bytes(),
                },
            )
            .map_err(|_| VaultError::Unsealable)
    }
}

/// Writes a new random key, readable by the owner only from the moment it exists.
fn create_key_file(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    file.write_all(hex::encode(random_bytes(32)).as_bytes())?;
    file.sync_all()
}

/// Refuses a key file that others may read.
fn refuse_open_file(path: &Path) -> Result<(), VaultError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map_err(|source| VaultError::KeyFileIo {
                path: path.to_owned(),
                source,
            })?
            .permissions()
            .mode()
            & 0o777;
        if mode & 0o077 != 0 {
            return Err(VaultError::KeyFileOpen {
                path: path.to_owned(),
                mode,
            });
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_opens_only_where_it_was_sealed_and_unaltered() {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let key = VaultKey::load(None, dir.path()).unwrap_or_else(|error| panic!("{error}"));
        let seal = |value: &[u8]| key.seal(value, "acme/db-password").unwrap_or_default();
        let sealed = seal(b"hunter2");
        assert!(!sealed.contains("hunter2") && !sealed.contains(&hex::encode("hunter2")));
        assert_eq!(
            key.open(&sealed, "acme/db-password").ok(),
            Some(b"hunter2".to_vec())
        );
        // Another place, an altered byte, another key: nothing opens, and says so alike.
        assert!(matches!(
            key.open(&sealed, "evil/db-password"),
            Err(VaultError::Unsealable)
        ));
        let mut altered = sealed.clone();
        let last = altered.pop().unwrap_or('0');
        altered.push(if last == '0' { '1' } else { '0' });
        assert!(matches!(
            key.open(&altered, "acme/db-password"),
            Err(VaultError::Unsealable)
        ));
        let other = VaultKey::load(Some(&"ab".repeat(32)), dir.path())
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(matches!(
            other.open(&sealed, "acme/db-password"),
            Err(VaultError::Unsealable)
        ));
        // The same value sealed twice looks different (a fresh nonce each time).
        assert_ne!(sealed, seal(b"hunter2"));
        assert_eq!(format!("{key:?}"), "VaultKey(…)");
    }

    #[test]
    fn the_key_file_is_made_once_for_its_owner_only_and_an_open_one_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let first = VaultKey::load(None, dir.path()).unwrap_or_else(|error| panic!("{error}"));
        let path = dir.path().join(KEY_FILE);
        let mode = std::fs::metadata(&path).map(|meta| meta.permissions().mode() & 0o777);
        assert_eq!(mode.ok(), Some(0o600));
        let sealed = first.seal(b"v", "t/e").unwrap_or_default();
        let again = VaultKey::load(None, dir.path()).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(again.open(&sealed, "t/e").ok(), Some(b"v".to_vec()));
        let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644));
        let refused = VaultKey::load(None, dir.path())
            .err()
            .map(|error| error.to_string());
        assert!(refused.is_some_and(|text| text.contains("chmod 600")));
        for bad in ["", "xyz", &"ab".repeat(31)] {
            assert!(matches!(
                VaultKey::load(Some(bad), dir.path()),
                Err(VaultError::BadEnvKey)
            ));
        }
    }
}
