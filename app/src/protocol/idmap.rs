//! Maps and sets keyed by upstream ids (message, tool call, ask ids), hashed with a
//! fast per-process-seeded hasher: they are looked up several times for every event.

use std::collections::{HashMap, HashSet};

pub type IdMap<V> = HashMap<String, V, foldhash::fast::RandomState>;
pub type IdSet = HashSet<String, foldhash::fast::RandomState>;
