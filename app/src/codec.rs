//! The one way the console reads JSON from the server: resources, the live stream and
//! pasted values all go through `serde_json`'s byte reader, the reader server functions
//! use, so each type's deserializer is compiled into the browser bundle once, not twice.

use serde::de::DeserializeOwned;

/// Reads JSON text.
pub fn from_json<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    serde_json::from_slice(text.as_bytes())
}

/// The resource codec: JSON written by the server, read back with [`from_json`].
#[cfg(feature = "ui")]
pub struct Json;

#[cfg(feature = "ui")]
impl<T: serde::Serialize> leptos::server::codee::Encoder<T> for Json {
    type Error = serde_json::Error;
    type Encoded = String;

    fn encode(value: &T) -> Result<String, serde_json::Error> {
        serde_json::to_string(value)
    }
}

#[cfg(feature = "ui")]
impl<T: DeserializeOwned> leptos::server::codee::Decoder<T> for Json {
    type Error = serde_json::Error;
    type Encoded = str;

    fn decode(text: &str) -> Result<T, serde_json::Error> {
        from_json(text)
    }
}
