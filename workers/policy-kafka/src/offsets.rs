//! Which offset of each partition may be committed. A message's offset becomes committable only
//! when its outputs and those of every earlier message of its partition are acknowledged.
//! Messages of one partition may finish out of order (different keys run concurrently), so the
//! committable position is the lowest offset still in flight, or one past the highest finished.

use std::collections::{BTreeSet, HashMap};

pub type PartitionKey = (String, i32);

#[derive(Debug, Default)]
struct PartitionState {
    /// Bumped on every (re)assignment: completions from an earlier assignment are ignored.
    epoch: u64,
    in_flight: BTreeSet<i64>,
    highest_done: Option<i64>,
    committed: Option<i64>,
}

impl PartitionState {
    fn position(&self) -> Option<i64> {
        // Before anything finished there is nothing new to say about this partition.
        self.highest_done?;
        match self.in_flight.first() {
            Some(lowest) => Some(*lowest),
            None => self.highest_done.map(|o| o + 1),
        }
        .filter(|p| self.committed.is_none_or(|c| *p > c))
    }
}

#[derive(Debug, Default)]
pub struct OffsetTracker {
    partitions: HashMap<PartitionKey, PartitionState>,
    next_epoch: u64,
}

impl OffsetTracker {
    /// A partition was (re)assigned: forget whatever an earlier assignment left behind.
    pub fn assign(&mut self, topic: &str, partition: i32) -> u64 {
        self.next_epoch += 1;
        let state = PartitionState {
            epoch: self.next_epoch,
            ..Default::default()
        };
        self.partitions
            .insert((topic.to_string(), partition), state);
        self.next_epoch
    }

    /// A partition was revoked: returns the position to commit before letting it go.
    pub fn revoke(&mut self, topic: &str, partition: i32) -> Option<i64> {
        self.partitions
            .remove(&(topic.to_string(), partition))
            .and_then(|s| s.position())
    }

    /// A message was handed to a worker lane; returns the epoch to complete it with.
    pub fn start(&mut self, topic: &str, partition: i32, offset: i64) -> u64 {
        let key = (topic.to_string(), partition);
        if !self.partitions.contains_key(&key) {
            self.assign(topic, partition);
        }
        let state = self.partitions.get_mut(&key).expect("just ensured");
        state.in_flight.insert(offset);
        state.epoch
    }

    /// Every output of the message was acknowledged. False when the partition was revoked or
    /// reassigned meanwhile (its new owner will process the message again).
    pub fn complete(&mut self, topic: &str, partition: i32, offset: i64, epoch: u64) -> bool {
        let Some(state) = self.partitions.get_mut(&(topic.to_string(), partition)) else {
            return false;
        };
        if state.epoch != epoch || !state.in_flight.remove(&offset) {
            return false;
        }
        state.highest_done = Some(state.highest_done.map_or(offset, |h| h.max(offset)));
        true
    }

    /// Positions that advanced since the last call; they are recorded as committed.
    pub fn take_commits(&mut self) -> Vec<(PartitionKey, i64)> {
        let mut commits = Vec::new();
        for (key, state) in &mut self.partitions {
            if let Some(position) = state.position() {
                state.committed = Some(position);
                commits.push((key.clone(), position));
            }
        }
        commits.sort();
        commits
    }

    /// A commit of these positions failed: offer them again on the next call.
    pub fn commit_failed(&mut self, commits: &[(PartitionKey, i64)]) {
        for (key, position) in commits {
            if let Some(state) = self.partitions.get_mut(key) {
                if state.committed == Some(*position) {
                    state.committed = None;
                }
            }
        }
    }

    /// Messages dispatched but not yet finished, over all partitions.
    pub fn in_flight(&self) -> usize {
        self.partitions.values().map(|s| s.in_flight.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commits_only_below_the_lowest_message_in_flight() {
        let mut t = OffsetTracker::default();
        let e = t.assign("turns", 0);
        for o in 10..14 {
            assert_eq!(t.start("turns", 0, o), e);
        }
        assert!(t.take_commits().is_empty(), "nothing finished yet");
        assert!(t.complete("turns", 0, 12, e));
        assert!(t.complete("turns", 0, 11, e));
        // 10 is still in flight: the resume point stays at 10 however much came after it.
        assert_eq!(t.take_commits(), vec![(("turns".to_string(), 0), 10)]);
        assert!(t.complete("turns", 0, 10, e));
        assert_eq!(t.take_commits(), vec![(("turns".to_string(), 0), 13)]);
        assert!(t.complete("turns", 0, 13, e));
        assert_eq!(t.take_commits(), vec![(("turns".to_string(), 0), 14)]);
        assert!(t.take_commits().is_empty(), "no advance, no commit");
        assert_eq!(t.in_flight(), 0);
    }

    #[test]
    fn revoked_partition_commits_what_is_done_and_ignores_late_completions() {
        let mut t = OffsetTracker::default();
        let e = t.assign("turns", 1);
        t.start("turns", 1, 5);
        t.start("turns", 1, 6);
        t.complete("turns", 1, 5, e);
        assert_eq!(t.revoke("turns", 1), Some(6));
        assert!(
            !t.complete("turns", 1, 6, e),
            "revoked: the new owner reprocesses 6"
        );
        let e2 = t.assign("turns", 1);
        assert_ne!(e, e2);
        t.start("turns", 1, 6);
        assert!(!t.complete("turns", 1, 6, e), "stale epoch");
        assert!(t.complete("turns", 1, 6, e2));
        assert_eq!(t.take_commits(), vec![(("turns".to_string(), 1), 7)]);
    }

    #[test]
    fn partitions_are_independent() {
        let mut t = OffsetTracker::default();
        let a = t.start("turns", 0, 0);
        let b = t.start("turns", 1, 100);
        t.start("turns", 1, 101);
        t.complete("turns", 1, 101, b);
        t.complete("turns", 0, 0, a);
        assert_eq!(
            t.take_commits(),
            vec![
                (("turns".to_string(), 0), 1),
                (("turns".to_string(), 1), 100)
            ]
        );
        assert_eq!(t.in_flight(), 1);
        assert_eq!(t.revoke("turns", 9), None);
        let commits = vec![(("turns".to_string(), 0), 1)];
        t.commit_failed(&commits);
        assert_eq!(
            t.take_commits(),
            commits,
            "a failed commit is offered again"
        );
    }
}
