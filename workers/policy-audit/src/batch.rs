//! Size- and age-bounded batches (pure: the caller passes the clock).

use std::time::{Duration, Instant};

/// Items waiting for one insert, each with the token the caller needs once it is stored
/// (the Kafka offset to complete).
#[derive(Debug)]
pub struct Batch<R, T> {
    items: Vec<(R, T)>,
    opened_at: Option<Instant>,
    max_rows: usize,
    max_age: Duration,
}

impl<R, T> Batch<R, T> {
    pub fn new(max_rows: usize, max_age: Duration) -> Batch<R, T> {
        Batch {
            items: Vec::with_capacity(max_rows.min(10_000)),
            opened_at: None,
            max_rows: max_rows.max(1),
            max_age,
        }
    }

    /// Adds an item; true when the batch is now full and should be flushed.
    pub fn push(&mut self, row: R, token: T, now: Instant) -> bool {
        self.opened_at.get_or_insert(now);
        self.items.push((row, token));
        self.items.len() >= self.max_rows
    }

    /// True when the batch is full or its oldest item has waited `max_age`.
    pub fn is_due(&self, now: Instant) -> bool {
        match self.opened_at {
            None => false,
            Some(opened) => {
                self.items.len() >= self.max_rows || now.duration_since(opened) >= self.max_age
            }
        }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Empties the batch; the age clock restarts with the next push.
    pub fn take(&mut self) -> Vec<(R, T)> {
        self.opened_at = None;
        std::mem::take(&mut self.items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_at_max_rows() {
        let t0 = Instant::now();
        let mut batch = Batch::new(3, Duration::from_secs(1));
        assert!(!batch.push("a", 1, t0));
        assert!(!batch.push("b", 2, t0));
        assert!(batch.push("c", 3, t0));
        assert!(batch.is_due(t0));
        let taken = batch.take();
        assert_eq!(taken, [("a", 1), ("b", 2), ("c", 3)]);
        assert!(batch.is_empty() && !batch.is_due(t0));
    }

    #[test]
    fn due_when_the_oldest_item_reaches_max_age() {
        let t0 = Instant::now();
        let mut batch = Batch::new(1000, Duration::from_millis(1000));
        assert!(
            !batch.is_due(t0 + Duration::from_secs(60)),
            "empty is never due"
        );
        batch.push("a", 1, t0);
        batch.push("b", 2, t0 + Duration::from_millis(900));
        assert!(!batch.is_due(t0 + Duration::from_millis(999)));
        assert!(
            batch.is_due(t0 + Duration::from_millis(1000)),
            "age counts from the first item"
        );
    }

    #[test]
    fn age_restarts_after_take() {
        let t0 = Instant::now();
        let mut batch = Batch::new(1000, Duration::from_millis(100));
        batch.push("a", 1, t0);
        batch.take();
        let t1 = t0 + Duration::from_secs(5);
        batch.push("b", 2, t1);
        assert!(!batch.is_due(t1 + Duration::from_millis(50)));
        assert_eq!(batch.len(), 1);
    }
}
