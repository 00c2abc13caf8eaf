//! Detects a group member left without partitions while nobody consumes its input topics.
//!
//! Why: tansu 0.6's group coordinator can complete a rebalance with an empty assignment. When a
//! worker is killed (no LeaveGroup) and a replacement joins before the dead member's session
//! expires, the dead member is still the leader; if its expiry is noticed while the replacement's
//! SyncGroup is in flight, the follower's SyncGroup completes the generation without any
//! assignment, and nothing triggers another rebalance. Every partition then sits unowned forever
//! (reproduced by `crash_recovery.rs` with a 5 s pause before the restart).
//!
//! The worker cannot ask the broker who owns what (tansu's DescribeGroups carries no
//! assignments and its ListGroups drops the connection), so it checks the invariant it can see:
//! when it owns nothing, someone else must be making progress. "I own no partition, the group's
//! committed offsets lag the end of the input topics, and they did not move since the previous
//! check" means nobody is consuming: the worker leaves and rejoins the group, which makes it
//! leader of a fresh generation. A standby member (more members than partitions) sees the owners
//! commit and never rejoins.

use std::sync::Arc;
use std::time::Duration;

use rdkafka::consumer::{Consumer, ConsumerContext, StreamConsumer};
use rdkafka::{Offset, TopicPartitionList};

/// What one check saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupView {
    pub owned_partitions: usize,
    /// Sum over the input partitions of the group's committed position (the low watermark where
    /// nothing is committed yet).
    pub committed: i64,
    /// Sum of the partitions' high watermarks.
    pub end: i64,
}

impl GroupView {
    fn owns_nothing_with_backlog(&self) -> bool {
        self.owned_partitions == 0 && self.end > self.committed
    }
}

/// Compares consecutive views; says when to rejoin.
#[derive(Debug, Default)]
pub struct StrandedDetector {
    previous: Option<GroupView>,
}

impl StrandedDetector {
    /// Records one view (`None`: the check failed, which proves nothing); true when the member
    /// should rejoin now.
    pub fn observe(&mut self, view: Option<GroupView>) -> bool {
        let Some(view) = view else {
            return false;
        };
        let stranded = view.owns_nothing_with_backlog()
            && self.previous.is_some_and(|previous| {
                previous.owns_nothing_with_backlog() && previous.committed == view.committed
            });
        self.previous = if stranded { None } else { Some(view) };
        stranded
    }
}

/// Reads the member's assignment and the group's progress on its input topics.
/// Blocking (metadata and offset requests): call from a blocking thread.
pub fn describe<C: ConsumerContext>(
    consumer: &StreamConsumer<C>,
    topics: &[String],
    timeout: Duration,
) -> Option<GroupView> {
    let owned_partitions = consumer.assignment().ok()?.count();
    if owned_partitions > 0 {
        // The common case costs one local call, no request to the broker.
        return Some(GroupView {
            owned_partitions,
            committed: 0,
            end: 0,
        });
    }
    let (committed, end) = group_progress(consumer, topics, timeout)?;
    Some(GroupView {
        owned_partitions,
        committed,
        end,
    })
}

/// The consumer's group's committed offsets and the end offsets over every partition of
/// `topics`, each summed: their difference is the group's lag. A partition with nothing
/// committed counts from its low watermark. Blocking: call from a blocking thread.
pub fn group_progress<C: ConsumerContext, K: Consumer<C>>(
    consumer: &K,
    topics: &[String],
    timeout: Duration,
) -> Option<(i64, i64)> {
    let mut partitions = TopicPartitionList::new();
    for topic in topics {
        let metadata = consumer.fetch_metadata(Some(topic), timeout).ok()?;
        for t in metadata.topics() {
            for p in t.partitions() {
                partitions.add_partition(t.name(), p.id());
            }
        }
    }
    let committed_offsets = consumer.committed_offsets(partitions, timeout).ok()?;
    let (mut committed, mut end) = (0, 0);
    for element in committed_offsets.elements() {
        let (low, high) = consumer
            .fetch_watermarks(element.topic(), element.partition(), timeout)
            .ok()?;
        let position = match element.offset() {
            Offset::Offset(o) => o.max(low),
            _ => low,
        };
        committed += position;
        end += high;
    }
    Some((committed, end))
}

/// One check: describe the group off the async threads, feed the detector, rejoin if stranded.
pub async fn check_and_rejoin<C: ConsumerContext + 'static>(
    consumer: &Arc<StreamConsumer<C>>,
    detector: &mut StrandedDetector,
    group_id: &str,
    topics: &[String],
) {
    let view = {
        let (consumer, topics) = (consumer.clone(), topics.to_vec());
        tokio::task::spawn_blocking(move || describe(&consumer, &topics, Duration::from_secs(5)))
            .await
            .ok()
            .flatten()
    };
    if detector.observe(view) {
        tracing::warn!(
            group = group_id,
            ?view,
            "no partitions owned and nobody commits progress on the backlog: leaving and rejoining"
        );
        consumer.unsubscribe();
        let topics: Vec<&str> = topics.iter().map(String::as_str).collect();
        if let Err(e) = consumer.subscribe(&topics) {
            tracing::error!(error = %e, "re-subscribe failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(owned: usize, committed: i64, end: i64) -> Option<GroupView> {
        Some(GroupView {
            owned_partitions: owned,
            committed,
            end,
        })
    }

    #[test]
    fn rejoins_when_owning_nothing_and_the_backlog_does_not_move() {
        let mut detector = StrandedDetector::default();
        assert!(
            !detector.observe(view(0, 100, 500)),
            "one look could be mid-rebalance"
        );
        assert!(detector.observe(view(0, 100, 500)));
        assert!(
            !detector.observe(view(0, 100, 500)),
            "the comparison restarts after a rejoin"
        );
        assert!(
            detector.observe(view(0, 100, 520)),
            "new input, still nobody consuming"
        );
    }

    #[test]
    fn a_standby_member_sees_others_commit_and_stays() {
        let mut detector = StrandedDetector::default();
        for committed in [100, 150, 220, 300] {
            assert!(!detector.observe(view(0, committed, 500)));
        }
    }

    #[test]
    fn no_backlog_or_owned_partitions_is_healthy() {
        let mut detector = StrandedDetector::default();
        assert!(!detector.observe(view(0, 500, 500)));
        assert!(!detector.observe(view(0, 500, 500)), "idle, all consumed");
        let mut detector = StrandedDetector::default();
        assert!(!detector.observe(view(0, 100, 500)));
        assert!(!detector.observe(view(3, 0, 0)), "assigned meanwhile");
        assert!(
            !detector.observe(view(0, 100, 500)),
            "needs two stranded looks again"
        );
    }

    #[test]
    fn a_failed_check_proves_nothing() {
        let mut detector = StrandedDetector::default();
        assert!(!detector.observe(view(0, 100, 500)));
        assert!(!detector.observe(None));
        assert!(
            detector.observe(view(0, 100, 500)),
            "None neither counts nor resets"
        );
    }
}
