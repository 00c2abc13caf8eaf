//! The audit sink worker: answers, escalations and dead letters → one ClickHouse row per turn.
//!
//! Offsets are committed only after the batch holding their rows was inserted; a crash between
//! insert and commit re-reads those records and re-inserts the same rows, which the
//! ReplacingMergeTree (keyed by turn id) collapses. A record the sink cannot decode still
//! becomes a row (`outcome = 'undecodable'`) rather than a dead letter: the dead-letter topic is
//! one of this worker's inputs.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use policy_avro::{AvroCodec, DeadLetter, Escalation, PolicyAnswer};
use policy_kafka::assignment::{check_and_rejoin, StrandedDetector};
use policy_kafka::message::decode_value;
use policy_kafka::metrics::WorkerMetrics;
use policy_kafka::offsets::OffsetTracker;
use policy_kafka::runtime::{commit, group_consumer, WorkerError};
use policy_kafka::{Coordinates, KafkaConfig, MessageError};
use rdkafka::consumer::CommitMode;
use rdkafka::message::OwnedMessage;
use rdkafka::Message;

use crate::batch::Batch;
use crate::config::AuditConfig;
use crate::row::{self, AuditRow};
use crate::store::AuditStore;

/// The topics the sink reads.
#[derive(Debug, Clone)]
pub struct AuditTopics {
    pub answers: String,
    pub escalations: String,
    pub dead_letters: String,
}

pub struct AuditCodecs {
    pub answers: AvroCodec<PolicyAnswer>,
    pub escalations: AvroCodec<Escalation>,
    pub dead_letters: AvroCodec<DeadLetter>,
}

/// (topic, partition, offset, epoch): what to complete in the tracker once stored.
type OffsetToken = (String, i32, i64, u64);

pub struct AuditSink {
    pub topics: AuditTopics,
    pub codecs: AuditCodecs,
    pub store: Arc<AuditStore>,
    pub metrics: Arc<WorkerMetrics>,
}

const DECODE_RETRY: Duration = Duration::from_millis(500);
const SHUTDOWN_FLUSH_DEADLINE: Duration = Duration::from_secs(20);

impl AuditSink {
    /// The row for one record. Only a transient failure (the schema registry is unreachable)
    /// is an error; it is retried by the caller.
    async fn row_for(&self, message: &OwnedMessage) -> Result<AuditRow, MessageError> {
        let at = Coordinates {
            topic: message.topic().to_string(),
            partition: message.partition(),
            offset: message.offset(),
        };
        let decoded = if at.topic == self.topics.answers {
            decode_value(&self.codecs.answers, message)
                .await
                .map(|a| row::from_answer(&a, &at))
        } else if at.topic == self.topics.escalations {
            decode_value(&self.codecs.escalations, message)
                .await
                .map(|e| row::from_escalation(&e, &at))
        } else {
            decode_value(&self.codecs.dead_letters, message)
                .await
                .map(|d| row::from_dead_letter(&d, &at))
        };
        match decoded {
            Err(e) if e.is_transient() => Err(e),
            Err(e) => {
                tracing::warn!(error = %e, "audit input not decodable; recorded as such");
                Ok(row::undecodable(
                    &at,
                    &e.to_string(),
                    policy_avro::now_millis(),
                ))
            }
            Ok(row) => Ok(row),
        }
    }

    /// Inserts until it succeeds (consumption waits meanwhile: back-pressure, never loss), or
    /// until `deadline` when shutting down, leaving the offsets uncommitted for the next owner.
    async fn insert(&self, rows: &[AuditRow], deadline: Option<Instant>) -> bool {
        let mut delay = Duration::from_millis(100);
        loop {
            let started = Instant::now();
            match self.store.insert(rows).await {
                Ok(()) => {
                    self.metrics
                        .latency
                        .observe(started.elapsed().as_secs_f64());
                    return true;
                }
                Err(e) => {
                    self.metrics.retried.inc();
                    tracing::warn!(error = %e, retry_in = ?delay, "audit insert failed");
                    if deadline.is_some_and(|d| Instant::now() + delay > d) {
                        return false;
                    }
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(Duration::from_secs(5));
                }
            }
        }
    }

    /// Runs until `shutdown` resolves; then flushes what is buffered and commits.
    pub async fn run(
        &self,
        kafka: &KafkaConfig,
        config: &AuditConfig,
        group_id: &str,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), WorkerError> {
        let tracker = Arc::new(Mutex::new(OffsetTracker::default()));
        let inputs = vec![
            self.topics.answers.clone(),
            self.topics.escalations.clone(),
            self.topics.dead_letters.clone(),
        ];
        let consumer = group_consumer(kafka, group_id, &inputs, tracker.clone())?;
        let mut batch: Batch<AuditRow, OffsetToken> =
            Batch::new(config.batch_max_rows, config.batch_max_age);
        let mut flush_tick =
            tokio::time::interval(config.batch_max_age.min(Duration::from_millis(100)));
        let mut assignment_tick = tokio::time::interval(Duration::from_secs(10));
        let mut stranded = StrandedDetector::default();
        tracing::info!(group = group_id, topics = ?inputs, batch_rows = config.batch_max_rows, batch_age = ?config.batch_max_age, "audit sink started");
        tokio::pin!(shutdown);
        loop {
            let full = tokio::select! {
                _ = &mut shutdown => break,
                _ = flush_tick.tick() => batch.is_due(Instant::now()),
                _ = assignment_tick.tick() => {
                    check_and_rejoin(&consumer, &mut stranded, group_id, &inputs).await;
                    false
                }
                received = consumer.recv() => match received {
                    Ok(message) => {
                        let message = message.detach();
                        self.metrics.received.inc();
                        let row = loop {
                            match self.row_for(&message).await {
                                Ok(row) => break row,
                                Err(e) => {
                                    tracing::warn!(error = %e, "transient decode failure; retrying");
                                    tokio::time::sleep(DECODE_RETRY).await;
                                }
                            }
                        };
                        if row.outcome == "undecodable" {
                            self.metrics.dead_lettered.inc();
                        }
                        let epoch = tracker.lock().expect("tracker lock").start(message.topic(), message.partition(), message.offset());
                        let token = (message.topic().to_string(), message.partition(), message.offset(), epoch);
                        batch.push(row, token, Instant::now())
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "consumer error");
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        false
                    }
                },
            };
            if full {
                self.flush(&mut batch, &tracker, None).await;
                commit(&consumer, &tracker, CommitMode::Async);
            }
        }
        if !batch.is_empty() {
            let deadline = Instant::now() + SHUTDOWN_FLUSH_DEADLINE;
            self.flush(&mut batch, &tracker, Some(deadline)).await;
        }
        commit(&consumer, &tracker, CommitMode::Sync);
        tracing::info!("audit sink stopped");
        Ok(())
    }

    async fn flush(
        &self,
        batch: &mut Batch<AuditRow, OffsetToken>,
        tracker: &Mutex<OffsetTracker>,
        deadline: Option<Instant>,
    ) {
        let items = batch.take();
        let (rows, tokens): (Vec<AuditRow>, Vec<OffsetToken>) = items.into_iter().unzip();
        if !self.insert(&rows, deadline).await {
            tracing::warn!(
                rows = rows.len(),
                "shutting down with an unsaved batch; its records will be re-read"
            );
            return;
        }
        let mut tracker = tracker.lock().expect("tracker lock");
        for (topic, partition, offset, epoch) in tokens {
            // A partition revoked meanwhile drops the completion: its new owner re-reads the
            // record and re-inserts the same row, which replaces this one.
            tracker.complete(&topic, partition, offset, epoch);
        }
        self.metrics.processed.add(rows.len() as u64);
        tracing::debug!(rows = rows.len(), "audit batch inserted");
    }
}
