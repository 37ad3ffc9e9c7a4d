//! One-pass reading of an event's JSON object into [`WireEvent`], duplicate fields refused.

use serde::{Deserialize, de};
use serde_json::Value;

use super::{Field, WireEvent};
use crate::tagged::Text;

/// The `id` of an event's `rawEvent`, the rest skipped unread: LangGraph names an
/// interrupt there, and that id is all the console needs of the framework's own event.
#[derive(Debug, Default)]
pub(crate) struct RawEventId(pub(super) Option<String>);

impl<'de> Deserialize<'de> for RawEventId {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> de::Visitor<'de> for Visitor {
            type Value = RawEventId;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }

            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<RawEventId, A::Error> {
                let mut id = None;
                while let Some(key) = map.next_key::<Text<'de>>()? {
                    if key.0 == "id" && id.is_none() {
                        id = map.next_value::<Option<IdValue>>()?.and_then(|v| v.0);
                    } else {
                        map.next_value::<de::IgnoredAny>()?;
                    }
                }
                Ok(RawEventId(id))
            }

            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<RawEventId, A::Error> {
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(RawEventId(None))
            }

            fn visit_bool<E>(self, _: bool) -> Result<RawEventId, E> {
                Ok(RawEventId(None))
            }

            fn visit_i64<E>(self, _: i64) -> Result<RawEventId, E> {
                Ok(RawEventId(None))
            }

            fn visit_u64<E>(self, _: u64) -> Result<RawEventId, E> {
                Ok(RawEventId(None))
            }

            fn visit_f64<E>(self, _: f64) -> Result<RawEventId, E> {
                Ok(RawEventId(None))
            }

            fn visit_str<E>(self, _: &str) -> Result<RawEventId, E> {
                Ok(RawEventId(None))
            }

            fn visit_unit<E>(self) -> Result<RawEventId, E> {
                Ok(RawEventId(None))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// A `rawEvent.id` that is a string; any other value is skipped.
struct IdValue(Option<String>);

impl<'de> Deserialize<'de> for IdValue {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(deserializer)? {
            Value::String(id) => IdValue(Some(id)),
            _ => IdValue(None),
        })
    }
}

/// Reads one field's value into its slot; a field given twice is an error, as JSON
/// objects with duplicate keys are ambiguous.
pub(super) fn fill<'de, T: Deserialize<'de>, A: de::MapAccess<'de>>(
    slot: &mut Option<T>,
    name: &'static str,
    map: &mut A,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = map.next_value()?;
    Ok(())
}

/// Fills a [`WireEvent`] from a JSON object.
struct Fill<'w, 'a>(&'w mut WireEvent<'a>);

impl<'de> de::Visitor<'de> for Fill<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an AG-UI event object")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let wire = self.0;
        let mut kind = None;
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Type => {
                    if kind.is_some() {
                        return Err(de::Error::duplicate_field("type"));
                    }
                    kind = Some(map.next_value::<Text<'de>>()?.0);
                }
                Field::Other => {
                    map.next_value::<de::IgnoredAny>()?;
                }
                field => wire.fill_field(field, &mut map)?,
            }
        }
        wire.kind = kind.ok_or_else(|| de::Error::missing_field("type"))?;
        Ok(())
    }
}

impl<'a> WireEvent<'a> {
    /// Fills `self` (a default event the caller owns, so the large struct is never
    /// moved) from `text`.
    pub(super) fn parse_into(&mut self, text: &'a str) -> Result<(), serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        de::Deserializer::deserialize_map(&mut deserializer, Fill(self))?;
        deserializer.end()
    }
}
