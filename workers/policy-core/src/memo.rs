//! A bounded memo: values that depend only on their key and never change while a process runs
//! (a text's stems, a word's nearest policy words in a snapshot, a version's ranking of a
//! question, a question's similarity to libraries fixed at start), worked out once per
//! distinct key. Real traffic repeats its questions and clauses. Bounded by emptying when
//! full: simple, and the working set refills within a few turns.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;

#[derive(Debug)]
pub struct Memo<K, V> {
    entries: Mutex<HashMap<K, V>>,
    capacity: usize,
}

impl<K: Eq + Hash, V: Clone> Memo<K, V> {
    pub fn new(capacity: usize) -> Memo<K, V> {
        Memo {
            entries: Mutex::default(),
            capacity,
        }
    }

    pub fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.get(key).cloned()
    }

    pub fn insert(&self, key: K, value: V) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= self.capacity {
            entries.clear();
        }
        entries.insert(key, value);
    }

    /// The value for `key`, made (outside the lock) and kept when it is not there yet.
    pub fn get_or_insert_with<Q>(&self, key: &Q, make: impl FnOnce() -> V) -> V
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        if let Some(found) = self.get(key) {
            return found;
        }
        let value = make();
        self.insert(key.to_owned(), value.clone());
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_per_key_and_stays_bounded() {
        let memo: Memo<String, i32> = Memo::new(2);
        memo.insert("a".into(), 1);
        memo.insert("b".into(), 2);
        assert_eq!(memo.get("a"), Some(1));
        memo.insert("c".into(), 3);
        assert_eq!(memo.get("c"), Some(3));
        assert!(memo.get("a").is_none(), "emptied when full");
        assert_eq!(memo.get_or_insert_with("d", || 4), 4);
        assert_eq!(memo.get_or_insert_with("d", || 5), 4, "made once");
    }
}
