//! The posted envelope, the receipt and its time, and the shape checks made before any ask.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ReceiptError;

/// The envelope a client posts: `{"channel":"tool-result","receipt":{…}}`.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReceiptEnvelope {
    pub channel: String,
    pub receipt: Receipt,
}

/// The answer to one ask, named by the ask's id in `toolCallId`.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Receipt {
    pub tool_call_id: String,
    pub component: String,
    pub action: String,
    #[serde(default)]
    pub data: Value,
    /// When the user acted; required in a posted receipt (see [`ReceiptEnvelope::parse`]),
    /// absent in answers read back from a transcript.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<ReceiptTime>,
}

/// The time a receipt was made, in epoch milliseconds. Read from a JSON integer (what the
/// contract and the console write) or an RFC 3339 string; always written as the integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ReceiptTime(pub i64);

/// Read from an integer (epoch milliseconds) or an RFC 3339 string; written as the
/// integer.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for ReceiptTime {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ReceiptTime".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "anyOf": [
                {"type": "integer", "description": "milliseconds since the Unix epoch"},
                {"type": "string", "format": "date-time"},
            ],
        })
    }
}

impl ReceiptTime {
    /// The time as RFC 3339 in UTC with milliseconds, e.g. `2026-12-02T10:00:00.000Z`.
    pub fn to_rfc3339(self) -> String {
        crate::when::rfc3339(self.0)
    }

    /// Reads an RFC 3339 time (any offset) as epoch milliseconds.
    pub fn parse_rfc3339(text: &str) -> Option<ReceiptTime> {
        let at = time::OffsetDateTime::parse(
            text.trim(),
            &time::format_description::well_known::Rfc3339,
        )
        .ok()?;
        let millis = at.unix_timestamp_nanos().div_euclid(1_000_000);
        i64::try_from(millis)
            .ok()
            .filter(|ms| *ms >= 0)
            .map(ReceiptTime)
    }
}

const TS_EXPECTED: &str = "epoch milliseconds (a non-negative integer) or an RFC 3339 time";

impl Serialize for ReceiptTime {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(self.0)
    }
}

impl<'de> Deserialize<'de> for ReceiptTime {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = ReceiptTime;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(TS_EXPECTED)
            }

            fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<ReceiptTime, E> {
                i64::try_from(value)
                    .map(ReceiptTime)
                    .map_err(|_| E::custom(format!("receipt.ts {value} is out of range")))
            }

            fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<ReceiptTime, E> {
                if value < 0 {
                    return Err(E::custom(format!(
                        "receipt.ts {value} is negative; expected {TS_EXPECTED}"
                    )));
                }
                Ok(ReceiptTime(value))
            }

            fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<ReceiptTime, E> {
                ReceiptTime::parse_rfc3339(value).ok_or_else(|| {
                    E::custom(format!(
                        "receipt.ts `{value}` is not a time; expected {TS_EXPECTED}"
                    ))
                })
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Receipts carry passwords and secrets: never print their data.
impl fmt::Debug for Receipt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receipt")
            .field("tool_call_id", &self.tool_call_id)
            .field("component", &self.component)
            .field("action", &self.action)
            .field("data", &"<not shown>")
            .field("ts", &self.ts)
            .finish()
    }
}

impl ReceiptEnvelope {
    /// Parses a posted body, naming the first field that is wrong.
    pub fn parse(body: &[u8]) -> Result<ReceiptEnvelope, ReceiptError> {
        let envelope: ReceiptEnvelope = serde_json::from_slice(body)
            .map_err(|error| ReceiptError::Malformed(format!("receipt is not valid: {error}")))?;
        if envelope.channel != "tool-result" {
            return Err(ReceiptError::Malformed(format!(
                "channel `{}` is not allowed; expected `tool-result`",
                envelope.channel
            )));
        }
        let receipt = &envelope.receipt;
        if receipt.ts.is_none() {
            return Err(ReceiptError::Malformed(format!(
                "receipt.ts is missing; expected {TS_EXPECTED}"
            )));
        }
        for (field, value) in [
            ("toolCallId", &receipt.tool_call_id),
            ("component", &receipt.component),
            ("action", &receipt.action),
        ] {
            if value.trim().is_empty() {
                return Err(ReceiptError::Malformed(format!(
                    "receipt.{field} must not be empty"
                )));
            }
        }
        Ok(envelope)
    }
}
