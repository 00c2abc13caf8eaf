//! Results that depend only on a question's text and on libraries fixed when the worker starts
//! (the similarity to the attack and domain libraries): worked out once per distinct question,
//! as the query-embedding cache does for the vector. Real traffic repeats its questions, and a
//! library search is a dot product with every entry. Bounded: emptied when full.

use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Debug)]
pub struct QuestionMemo<T> {
    entries: Mutex<HashMap<String, T>>,
    capacity: usize,
}

impl<T: Clone> QuestionMemo<T> {
    pub fn new(capacity: usize) -> QuestionMemo<T> {
        QuestionMemo {
            entries: Mutex::default(),
            capacity,
        }
    }

    pub fn get(&self, question: &str) -> Option<T> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.get(question).cloned()
    }

    pub fn insert(&self, question: &str, value: T) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= self.capacity {
            entries.clear();
        }
        entries.insert(question.to_string(), value);
    }
}

impl<T: Clone> Default for QuestionMemo<T> {
    fn default() -> Self {
        QuestionMemo::new(4096)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_per_question_and_stays_bounded() {
        let memo = QuestionMemo::new(2);
        memo.insert("a", 1);
        memo.insert("b", 2);
        assert_eq!(memo.get("a"), Some(1));
        memo.insert("c", 3);
        assert_eq!(memo.get("c"), Some(3));
        assert!(memo.get("a").is_none(), "emptied when full");
    }
}
