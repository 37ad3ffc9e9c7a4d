//! The arrival-order record of a run: one small entry an event, written as a tuple.

use serde::{Deserialize, Serialize};

use crate::protocol::channel::{Channel, kind_name, kind_number};

/// One event as it arrived, for the in-arrival-order view. There is one per event, so
/// it is kept to 16 bytes and written as a tuple: `[sequence, kind, channel, item?]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arrival {
    pub sequence: u64,
    /// The timeline item the event created or changed; `NO_ITEM` for none.
    item: u32,
    /// Position of the event's kind in [`crate::protocol::channel::EVENT_KINDS`].
    kind: u8,
    pub channel: Channel,
}

impl Arrival {
    const NO_ITEM: u32 = u32::MAX;

    pub(super) fn new(sequence: u64, kind: u8, channel: Channel, item: Option<usize>) -> Self {
        Self {
            sequence,
            item: item
                .and_then(|item| u32::try_from(item).ok())
                .unwrap_or(Self::NO_ITEM),
            kind,
            channel,
        }
    }

    /// The event's `kind`.
    pub fn kind(&self) -> &'static str {
        kind_name(self.kind)
    }

    /// The timeline item the event created or changed, if any.
    pub fn item(&self) -> Option<usize> {
        (self.item != Self::NO_ITEM).then_some(self.item as usize)
    }
}

#[derive(Serialize, Deserialize)]
struct ArrivalWire(
    u64,
    KindName,
    Channel,
    #[serde(default, skip_serializing_if = "Option::is_none")] Option<usize>,
);

/// An event kind, written as its name and read back as its number.
struct KindName(u8);

impl Serialize for KindName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(kind_name(self.0))
    }
}

impl<'de> Deserialize<'de> for KindName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = KindName;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an event kind")
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<KindName, E> {
                Ok(KindName(kind_number(name)))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

impl Serialize for Arrival {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ArrivalWire(
            self.sequence,
            KindName(self.kind),
            self.channel,
            self.item(),
        )
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Arrival {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let ArrivalWire(sequence, kind, channel, item) = ArrivalWire::deserialize(deserializer)?;
        Ok(Arrival::new(sequence, kind.0, channel, item))
    }
}
