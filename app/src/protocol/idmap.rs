//! Maps and sets keyed by upstream ids (message, tool call, ask ids), hashed with a
//! fast per-process-seeded hasher: they are looked up several times for every event.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::ops::Range;

pub type IdMap<V> = HashMap<String, V, foldhash::fast::RandomState>;
pub type IdSet = HashSet<String, foldhash::fast::RandomState>;

/// A map from ids to small values that keeps every id in one text buffer instead of a
/// string of its own: a long run's thousands of ids cost two allocations, and dropping
/// the map frees two blocks instead of one per id.
#[derive(Clone, Debug)]
pub struct PackedIdMap<V> {
    ids: String,
    table: hashbrown::HashTable<(Range<u32>, V)>,
    hasher: foldhash::fast::RandomState,
}

impl<V> Default for PackedIdMap<V> {
    fn default() -> Self {
        Self {
            ids: String::new(),
            table: hashbrown::HashTable::new(),
            hasher: foldhash::fast::RandomState::default(),
        }
    }
}

impl<V: Copy> PackedIdMap<V> {
    pub fn get(&self, id: &str) -> Option<V> {
        let hash = self.hasher.hash_one(id);
        self.table
            .find(hash, |(range, _)| packed(&self.ids, range) == id)
            .map(|(_, value)| *value)
    }

    /// Sets the value of `id`, keeping the id the first time it is seen.
    pub fn set(&mut self, id: &str, value: V) {
        let hash = self.hasher.hash_one(id);
        let (ids, hasher) = (&self.ids, &self.hasher);
        let entry = self.table.entry(
            hash,
            |(range, _)| packed(ids, range) == id,
            |(range, _)| hasher.hash_one(packed(ids, range)),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(mut slot) => slot.get_mut().1 = value,
            hashbrown::hash_table::Entry::Vacant(slot) => {
                // Past 4 GiB of ids in one stream, later ids read back empty (never a
                // panic); a run's memory runs out long before.
                let start = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
                self.ids.push_str(id);
                let end = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
                slot.insert((start..end, value));
            }
        }
    }

    /// Every id with its value, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, V)> + '_ {
        self.table
            .iter()
            .map(|(range, value)| (packed(&self.ids, range), *value))
    }
}

/// The id `range` points at in the packed text.
fn packed<'a>(ids: &'a str, range: &Range<u32>) -> &'a str {
    ids.get(range.start as usize..range.end as usize)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_ids_are_found_updated_and_listed_like_a_map() {
        let mut map = PackedIdMap::default();
        let ids: Vec<String> = (0..500).map(|n| format!("call-{n}")).collect();
        for id in &ids {
            map.set(id, 1u8);
        }
        map.set("call-7", 2);
        map.set("", 3);
        assert_eq!(map.get("call-7"), Some(2));
        assert_eq!(map.get("call-499"), Some(1));
        assert_eq!(map.get(""), Some(3));
        assert_eq!(map.get("call-500"), None);
        assert_eq!(map.get("call-4"), Some(1));
        assert_eq!(map.iter().count(), 501);
        assert_eq!(map.iter().filter(|(_, value)| *value == 2).count(), 1);
    }
}
