//! Internally and adjacently tagged JSON forms for enums, read and written through each
//! enum's externally tagged derive (`#[serde(remote = "Self")]`).
//!
//! Serde's own tagged derives read every variant through a buffered content tree (the
//! tag may come last), and that generic path is compiled into the browser bundle once per
//! enum. Every writer of these forms puts the tag first, so the fields are read straight
//! from the JSON reader. Fields that come before their tag (a `serde_json::Value` keeps
//! keys sorted) are buffered and read afterwards on native builds — server, CLI, tests;
//! the browser bundle, which reads only what the server wrote, leaves that second path
//! out and refuses such an object with an error that says so.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::Serializer;

mod read;
mod write;

pub use self::read::{
    TagAndContent, deserialize_adjacently, deserialize_internally, read_tagged_object,
};
pub use self::write::{
    Content, NotAVariant, StructFields, serialize_adjacently, serialize_internally, variant_name,
};

/// A JSON string (an object key or a tag) that stays borrowed from the input unless it
/// had escapes: reading an object's keys allocates nothing.
pub struct Text<'a>(pub Cow<'a, str>);

impl<'de> de::Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(text)))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E: de::Error>(self, text: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(text)))
            }
        }
        deserializer.deserialize_str(TextVisitor)
    }
}

/// An enum whose externally tagged derive reads one variant from its name and fields.
pub trait Variants: Sized {
    fn deserialize_external<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;

    fn serialize_external<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
}

/// Gives an enum with `#[serde(remote = "Self")]` (its derive externally tagged) the
/// internally tagged form `{"<tag>": "<variant>", ...fields}`.
macro_rules! internally_tagged {
    ($enum:ident, $tag:literal) => {
        $crate::tagged::variants!($enum);
        $crate::tagged::tagged_schema!($enum, $tag, None);

        impl serde::Serialize for $enum {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                $crate::tagged::serialize_internally(self, $tag, serializer)
            }
        }

        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $crate::tagged::deserialize_internally(deserializer, $tag)
            }
        }
    };
}

/// Gives an enum with `#[serde(remote = "Self")]` the adjacently tagged form
/// `{"<tag>": "<variant>", "<content>": fields}`.
macro_rules! adjacently_tagged {
    ($enum:ident, $tag:literal, $content:literal) => {
        $crate::tagged::variants!($enum);
        $crate::tagged::tagged_schema!($enum, $tag, Some($content));

        impl serde::Serialize for $enum {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                $crate::tagged::serialize_adjacently(self, $tag, $content, serializer)
            }
        }

        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $crate::tagged::deserialize_adjacently(deserializer, $tag, $content)
            }
        }
    };
}

macro_rules! variants {
    ($enum:ident) => {
        impl $crate::tagged::Variants for $enum {
            fn deserialize_external<'de, D: serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                // The inherent function the remote derive wrote, not the trait's.
                $enum::deserialize(deserializer)
            }

            fn serialize_external<S: serde::Serializer>(
                &self,
                serializer: S,
            ) -> Result<S::Ok, S::Error> {
                $enum::serialize(self, serializer)
            }
        }
    };
}

/// The JSON Schema of a tagged enum (with the `schema` feature): an object naming its
/// variant in `<tag>` (and, adjacently tagged, its fields in `<content>`); the variants'
/// own fields are described in docs/protocol.md.
#[cfg(feature = "schema")]
macro_rules! tagged_schema {
    ($enum:ident, $tag:literal, $content:expr) => {
        impl schemars::JsonSchema for $enum {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($enum).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let mut properties = serde_json::Map::new();
                properties.insert($tag.into(), serde_json::json!({"type": "string"}));
                let content: Option<&str> = $content;
                if let Some(content) = content {
                    properties.insert(content.into(), serde_json::Value::Bool(true));
                }
                schemars::json_schema!({
                    "type": "object",
                    "required": [$tag],
                    "properties": properties,
                })
            }
        }
    };
}

#[cfg(not(feature = "schema"))]
macro_rules! tagged_schema {
    ($enum:ident, $tag:literal, $content:expr) => {};
}

pub(crate) use {adjacently_tagged, internally_tagged, tagged_schema, variants};

/// Fields of an outer struct that share one JSON object with an enum's fields (what
/// `#[serde(flatten)]` would do).
pub trait SharedFields {
    /// Reads the value of `key` when the key is one of these fields.
    fn read<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error>;
}

impl SharedFields for () {
    fn read<'de, A: MapAccess<'de>>(&mut self, _: &str, _: &mut A) -> Result<bool, A::Error> {
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use crate::model::AnswerOutcome;
    use crate::projection::{Item, ItemBody};
    use crate::protocol::ask::AskState;
    use crate::protocol::channel::{Channel, EventBody, RunEvent, RunOutcome};
    use serde_json::json;

    #[test]
    fn internally_tagged_variants_are_written_tag_first() {
        let cancelled = AskState::Cancelled {
            reason: "superseded".into(),
        };
        assert_eq!(
            serde_json::to_string(&cancelled).unwrap(),
            r#"{"state":"cancelled","reason":"superseded"}"#
        );
        assert_eq!(
            serde_json::to_string(&AskState::Pending).unwrap(),
            r#"{"state":"pending"}"#
        );
        let outcome = RunOutcome::Interrupted {
            ask_ids: vec!["a".into()],
        };
        let text = serde_json::to_string(&outcome).unwrap();
        assert_eq!(text, r#"{"type":"interrupted","ask_ids":["a"]}"#);
        assert_eq!(serde_json::from_str::<RunOutcome>(&text).unwrap(), outcome);
        assert_eq!(
            serde_json::from_str::<AskState>(r#"{"state":"pending"}"#).unwrap(),
            AskState::Pending
        );
    }

    #[test]
    fn an_item_reads_its_place_fields_before_and_after_the_tag() {
        let text = r#"{"sequence":4,"type":"step","updated":9,"name":"plan","active":true,"ts":7,"channel":"system"}"#;
        let item: Item = serde_json::from_str(text).unwrap();
        assert_eq!(
            item,
            Item {
                sequence: 4,
                updated: 9,
                ts: 7,
                channel: Channel::System,
                body: ItemBody::Step {
                    name: "plan".into(),
                    active: true,
                },
            }
        );
        let written = serde_json::to_string(&item).unwrap();
        assert_eq!(
            written,
            r#"{"sequence":4,"updated":9,"ts":7,"channel":"system","type":"step","name":"plan","active":true}"#
        );
    }

    #[test]
    fn fields_before_their_tag_are_still_read_on_native_builds() {
        // A serde_json::Value keeps keys sorted: "name" and "active" precede "type".
        let sorted = json!({"type": "step", "name": "plan", "active": false, "sequence": 1,
            "updated": 1, "ts": 0, "channel": "system"});
        let item: Item = serde_json::from_value(sorted).unwrap();
        assert_eq!(
            item.body,
            ItemBody::Step {
                name: "plan".into(),
                active: false
            }
        );
        let event = r#"{"tenant_id":"t","thread_id":"h","run_id":"r","sequence":2,"channel":"commentary",
            "payload":{"message_id":"m","delta":"hi"},"kind":"text_delta","ts":5}"#;
        let event: RunEvent = serde_json::from_str(event).unwrap();
        assert_eq!(
            event.body,
            EventBody::TextDelta {
                message_id: "m".into(),
                delta: "hi".into()
            }
        );
    }

    #[test]
    fn every_event_kind_in_the_table_is_a_name_the_derive_reads() {
        use crate::protocol::channel::EVENT_KINDS;
        for kind in EVENT_KINDS {
            let text = format!(r#"{{"kind":"{kind}","payload":{{}}}}"#);
            // A known name reads, or fails on its missing fields, never on the name.
            if let Err(error) = serde_json::from_str::<EventBody>(&text) {
                assert!(
                    !error.to_string().contains("unknown variant"),
                    "{kind}: {error}"
                );
            }
        }
        let delta = EventBody::TextDelta {
            message_id: "m".into(),
            delta: "d".into(),
        };
        assert_eq!(super::variant_name(&delta).unwrap(), delta.kind());
    }

    #[test]
    fn a_missing_or_unknown_tag_is_named_in_the_error() {
        let missing = serde_json::from_str::<AnswerOutcome>(r#"{"state":"x"}"#).unwrap_err();
        assert!(
            missing.to_string().contains("missing field `outcome`"),
            "{missing}"
        );
        let unknown =
            serde_json::from_str::<AnswerOutcome>(r#"{"outcome":"exploded"}"#).unwrap_err();
        assert!(
            unknown.to_string().contains("unknown variant `exploded`"),
            "{unknown}"
        );
        let event = r#"{"tenant_id":"t","thread_id":"h","run_id":"r","sequence":2,"channel":"system","ts":5}"#;
        let error = serde_json::from_str::<RunEvent>(event).unwrap_err();
        assert!(
            error.to_string().contains("missing field `kind`"),
            "{error}"
        );
        let event = r#"{"tenant_id":"t","thread_id":"h","run_id":"r","sequence":2,"channel":"system","kind":"text_delta","payload":{"message_id":"m"},"ts":5}"#;
        let error = serde_json::from_str::<RunEvent>(event).unwrap_err();
        assert!(
            error.to_string().contains("missing field `delta`"),
            "{error}"
        );
    }
}
