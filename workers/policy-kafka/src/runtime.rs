//! The worker runtime shared by every stage: a consumer group member with manual offsets.
//!
//! - Messages are processed concurrently in `lanes`; a message's lane is chosen by its key, so
//!   the turns of one conversation are processed in order.
//! - A message's outputs are produced with an idempotent producer; its offset becomes
//!   committable only when all of them (and everything before it in its partition) are
//!   acknowledged by the broker ([`OffsetTracker`]). Lanes do not wait for acknowledgements
//!   (up to `max_in_flight` messages await theirs), so throughput is not bounded by the
//!   broker's produce round trip.
//! - Transient failures are retried with exponential backoff; a poison message becomes a dead
//!   letter (reason + original bytes) and the partition moves on.
//! - On revocation the finished prefix of the revoked partitions is committed synchronously and
//!   late completions for them are dropped; on shutdown the lanes drain and a final commit runs.
//! - A member left without partitions by a faulty rebalance rejoins ([`crate::assignment`]).

use std::future::Future;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use backon::{ExponentialBuilder, Retryable};
use policy_avro::{AvroCodec, DeadLetter};
use rdkafka::consumer::{
    BaseConsumer, CommitMode, Consumer, ConsumerContext, Rebalance, StreamConsumer,
};
use rdkafka::message::OwnedMessage;
use rdkafka::producer::{DeliveryFuture, FutureProducer, FutureRecord};
use rdkafka::{ClientContext, Message, Offset, TopicPartitionList};
use tokio::sync::mpsc;

use crate::assignment::{check_and_rejoin, StrandedDetector};
use crate::config::KafkaConfig;
use crate::metrics::WorkerMetrics;
use crate::offsets::OffsetTracker;

/// One record a handler wants produced for an input message.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputRecord {
    pub topic: String,
    pub key: Vec<u8>,
    pub payload: Vec<u8>,
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum HandleError {
    /// The message may succeed later (a backend is down): retry.
    #[error("transient: {0}")]
    Transient(String),
    /// The message itself is the problem: dead-letter it.
    #[error("{0}")]
    Poison(String),
}

pub type HandleFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<OutputRecord>, HandleError>> + Send + 'a>>;

pub trait MessageHandler: Send + Sync + 'static {
    fn handle<'a>(&'a self, message: &'a OwnedMessage) -> HandleFuture<'a>;
}

#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// Stage name, recorded in dead letters and metrics.
    pub stage: String,
    pub group_id: String,
    pub input_topics: Vec<String>,
    pub dead_letter_topic: String,
    /// Concurrent lanes (each processes its messages in order).
    pub lanes: usize,
    pub lane_capacity: usize,
    pub commit_interval: Duration,
    /// Transient failures of one message retried before it is dead-lettered.
    pub max_transient_retries: usize,
    pub drain_timeout: Duration,
    /// Messages whose outputs may await the broker's acknowledgement at once (all lanes).
    pub max_in_flight: usize,
    /// How often a member that owns no partitions checks whether it was stranded
    /// ([`crate::assignment`]).
    pub assignment_check_interval: Duration,
}

impl WorkerConfig {
    pub fn new(stage: &str, group_id: &str, input_topics: &[&str]) -> WorkerConfig {
        WorkerConfig {
            stage: stage.into(),
            group_id: group_id.into(),
            input_topics: input_topics.iter().map(|t| t.to_string()).collect(),
            dead_letter_topic: "policy.deadletter".into(),
            lanes: 16,
            lane_capacity: 64,
            commit_interval: Duration::from_millis(500),
            max_transient_retries: 8,
            drain_timeout: Duration::from_secs(20),
            max_in_flight: 1000,
            assignment_check_interval: Duration::from_secs(10),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error("kafka: {0}")]
    Kafka(#[from] rdkafka::error::KafkaError),
}

/// Commits the finished prefix of revoked partitions and registers assigned ones with the
/// offset tracker. Shared by the stage runtime and the batching sinks.
pub struct RebalanceContext {
    tracker: Arc<Mutex<OffsetTracker>>,
}

/// A group member with manual offsets, subscribed to `topics`, whose rebalances go through
/// `tracker`.
pub fn group_consumer(
    kafka: &KafkaConfig,
    group_id: &str,
    topics: &[String],
    tracker: Arc<Mutex<OffsetTracker>>,
) -> Result<Arc<StreamConsumer<RebalanceContext>>, WorkerError> {
    let consumer: StreamConsumer<RebalanceContext> = kafka
        .consumer(group_id)
        .create_with_context(RebalanceContext { tracker })?;
    let topics: Vec<&str> = topics.iter().map(String::as_str).collect();
    consumer.subscribe(&topics)?;
    Ok(Arc::new(consumer))
}

impl ClientContext for RebalanceContext {}

impl ConsumerContext for RebalanceContext {
    fn pre_rebalance(&self, consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        let Rebalance::Revoke(revoked) = rebalance else {
            return;
        };
        let mut commit = TopicPartitionList::new();
        {
            let mut tracker = self.tracker.lock().expect("tracker lock");
            for element in revoked.elements() {
                if let Some(position) = tracker.revoke(element.topic(), element.partition()) {
                    let _ = commit.add_partition_offset(
                        element.topic(),
                        element.partition(),
                        Offset::Offset(position),
                    );
                }
            }
        }
        if commit.count() > 0 {
            match consumer.commit(&commit, CommitMode::Sync) {
                Ok(()) => tracing::info!(
                    partitions = commit.count(),
                    "committed finished offsets of revoked partitions"
                ),
                Err(e) => {
                    tracing::warn!(error = %e, "commit on revocation failed; the new owner may reprocess a few messages")
                }
            }
        }
    }

    fn post_rebalance(&self, _consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let Rebalance::Assign(assigned) = rebalance {
            let mut tracker = self.tracker.lock().expect("tracker lock");
            for element in assigned.elements() {
                tracker.assign(element.topic(), element.partition());
            }
            tracing::info!(partitions = assigned.count(), "partitions assigned");
        }
    }
}

struct Shared {
    stage: String,
    dead_letter_topic: String,
    max_transient_retries: usize,
    producer: FutureProducer,
    handler: Arc<dyn MessageHandler>,
    dead_letters: Arc<AvroCodec<DeadLetter>>,
    tracker: Arc<Mutex<OffsetTracker>>,
    metrics: Arc<WorkerMetrics>,
}

const PRODUCE_TIMEOUT: Duration = Duration::from_secs(30);

impl Shared {
    async fn produce_all(&self, outputs: &[OutputRecord]) -> Result<(), String> {
        // A stage emits one record per message (two at most): acknowledging them one after
        // the other costs nothing measurable and keeps their order.
        for o in outputs {
            let record = FutureRecord::to(&o.topic).key(&o.key).payload(&o.payload);
            self.producer
                .send(record, PRODUCE_TIMEOUT)
                .await
                .map_err(|(e, _)| e.to_string())?;
        }
        Ok(())
    }

    fn dead_letter(&self, message: &OwnedMessage, error: &str) -> Result<OutputRecord, String> {
        let letter = DeadLetter {
            source_topic: message.topic().to_string(),
            source_partition: message.partition(),
            source_offset: message.offset(),
            key: message.key().map(<[u8]>::to_vec),
            stage: self.stage.clone(),
            error: error.to_string(),
            original: message.payload().map(<[u8]>::to_vec).unwrap_or_default(),
            failed_at: policy_avro::now_millis(),
        };
        let payload = self
            .dead_letters
            .encode(&letter)
            .map_err(|e| e.to_string())?;
        Ok(OutputRecord {
            topic: self.dead_letter_topic.clone(),
            key: message.key().map(<[u8]>::to_vec).unwrap_or_default(),
            payload,
        })
    }

    /// Runs the handler, retrying transient failures with backoff.
    async fn handle(&self, message: &OwnedMessage) -> Result<Vec<OutputRecord>, HandleError> {
        let backoff = ExponentialBuilder::default()
            .with_min_delay(Duration::from_millis(50))
            .with_max_delay(Duration::from_secs(5))
            .with_max_times(self.max_transient_retries);
        (|| self.handler.handle(message))
            .retry(backoff)
            .when(|e| matches!(e, HandleError::Transient(_)))
            .notify(|e, delay| {
                self.metrics.retried.inc();
                tracing::warn!(error = %e, ?delay, topic = message.topic(), partition = message.partition(), offset = message.offset(), "retrying");
            })
            .await
    }

    /// Hands the outputs to the producer without waiting for their acknowledgements: the
    /// returned futures resolve when the broker has them. Ordering per partition is the
    /// idempotent producer's (sends are enqueued in lane order).
    async fn enqueue(&self, outputs: &[OutputRecord]) -> Vec<DeliveryFuture> {
        let mut acks = Vec::with_capacity(outputs.len());
        for o in outputs {
            loop {
                let record = FutureRecord::to(&o.topic).key(&o.key).payload(&o.payload);
                match self.producer.send_result(record) {
                    Ok(ack) => break acks.push(ack),
                    // The local queue is full: wait for the broker to drain it.
                    Err((_, _)) => tokio::time::sleep(Duration::from_millis(5)).await,
                }
            }
        }
        acks
    }

    /// The slow path, for outputs whose asynchronous delivery failed: produce them again one by
    /// one with backoff; dead-letter the message if that fails too.
    async fn deliver_or_dead_letter(&self, message: &OwnedMessage, outputs: &[OutputRecord]) {
        let backoff = ExponentialBuilder::default()
            .with_min_delay(Duration::from_millis(50))
            .with_max_delay(Duration::from_secs(5))
            .with_max_times(self.max_transient_retries);
        let delivered = (|| self.produce_all(outputs))
            .retry(backoff)
            .notify(|e, delay| {
                self.metrics.retried.inc();
                tracing::warn!(error = %e, ?delay, "produce failed; retrying");
            })
            .await;
        match delivered {
            Ok(()) => self.metrics.processed.inc(),
            Err(e) => {
                let reason = format!(
                    "gave up after {} retries: produce: {e}",
                    self.max_transient_retries
                );
                self.dead_letter_until_acked(message, &reason).await
            }
        }
    }

    /// The dead letter itself must be acknowledged before the offset moves on; if even that
    /// fails, keep trying: losing the message is not an option.
    async fn dead_letter_until_acked(&self, message: &OwnedMessage, reason: &str) {
        tracing::error!(
            topic = message.topic(),
            partition = message.partition(),
            offset = message.offset(),
            reason,
            "dead-lettering message"
        );
        loop {
            let sent = match self.dead_letter(message, reason) {
                Ok(record) => self.produce_all(&[record]).await,
                Err(e) => Err(e),
            };
            match sent {
                Ok(()) => break,
                Err(e) => {
                    tracing::error!(error = e, "dead letter not acknowledged; retrying in 1 s");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
        self.metrics.dead_lettered.inc();
    }

    fn complete(&self, message: &OwnedMessage, epoch: u64, started: Instant) {
        self.metrics
            .latency
            .observe(started.elapsed().as_secs_f64());
        let done = self.tracker.lock().expect("tracker lock").complete(
            message.topic(),
            message.partition(),
            message.offset(),
            epoch,
        );
        if !done {
            tracing::debug!(
                offset = message.offset(),
                "completion for a revoked partition dropped"
            );
        }
    }

    /// Processes one message: the handler runs in the lane (in order per key); the wait for
    /// the broker's acknowledgements does not hold the lane, so a lane's throughput is not
    /// bounded by the produce round trip. The offset completes once every output is
    /// acknowledged (or the message is dead-lettered); `permit` bounds what is in flight.
    async fn process(
        self: &Arc<Self>,
        message: OwnedMessage,
        epoch: u64,
        permit: tokio::sync::OwnedSemaphorePermit,
    ) {
        let started = Instant::now();
        let outputs = match self.handle(&message).await {
            Ok(outputs) => outputs,
            Err(error) => {
                let reason = match &error {
                    HandleError::Poison(reason) => reason.clone(),
                    HandleError::Transient(reason) => format!(
                        "gave up after {} retries: {reason}",
                        self.max_transient_retries
                    ),
                };
                self.dead_letter_until_acked(&message, &reason).await;
                self.complete(&message, epoch, started);
                return;
            }
        };
        let acks = self.enqueue(&outputs).await;
        let shared = self.clone();
        tokio::spawn(async move {
            let mut delivered = true;
            for ack in acks {
                delivered &= matches!(ack.await, Ok(Ok(_)));
            }
            if delivered {
                shared.metrics.processed.inc();
            } else {
                shared.deliver_or_dead_letter(&message, &outputs).await;
            }
            shared.complete(&message, epoch, started);
            drop(permit);
        });
    }
}

fn lane_of(key: Option<&[u8]>, partition: i32, lanes: usize) -> usize {
    let mut hasher = DefaultHasher::new();
    match key {
        Some(key) => key.hash(&mut hasher),
        // Keyless messages keep partition order.
        None => partition.hash(&mut hasher),
    }
    (hasher.finish() % lanes as u64) as usize
}

/// Runs a worker until `shutdown` resolves, then drains and commits.
pub async fn run_worker(
    kafka: &KafkaConfig,
    config: WorkerConfig,
    handler: Arc<dyn MessageHandler>,
    dead_letters: Arc<AvroCodec<DeadLetter>>,
    metrics: Arc<WorkerMetrics>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), WorkerError> {
    let tracker = Arc::new(Mutex::new(OffsetTracker::default()));
    let consumer = group_consumer(
        kafka,
        &config.group_id,
        &config.input_topics,
        tracker.clone(),
    )?;
    let shared = Arc::new(Shared {
        stage: config.stage.clone(),
        dead_letter_topic: config.dead_letter_topic.clone(),
        max_transient_retries: config.max_transient_retries,
        producer: kafka.producer().create()?,
        handler,
        dead_letters,
        tracker: tracker.clone(),
        metrics: metrics.clone(),
    });
    let in_flight = Arc::new(tokio::sync::Semaphore::new(config.max_in_flight.max(1)));
    let mut lanes = Vec::new();
    let mut senders = Vec::new();
    for _ in 0..config.lanes.max(1) {
        let (tx, mut rx) = mpsc::channel::<(OwnedMessage, u64)>(config.lane_capacity);
        let shared = shared.clone();
        senders.push(tx);
        let in_flight = in_flight.clone();
        lanes.push(tokio::spawn(async move {
            while let Some((message, epoch)) = rx.recv().await {
                let permit = in_flight
                    .clone()
                    .acquire_owned()
                    .await
                    .expect("the semaphore is never closed");
                shared.process(message, epoch, permit).await;
            }
        }));
    }
    tracing::info!(stage = config.stage, group = config.group_id, topics = ?config.input_topics, lanes = lanes.len(), "worker started");
    let lag_task = tokio::spawn(crate::metrics::track_lag(consumer.clone(), metrics.clone()));
    let mut commit_tick = tokio::time::interval(config.commit_interval);
    let mut assignment_tick = tokio::time::interval(config.assignment_check_interval);
    let mut stranded = StrandedDetector::default();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            _ = commit_tick.tick() => commit(&consumer, &tracker, CommitMode::Async),
            _ = assignment_tick.tick() => {
                check_and_rejoin(&consumer, &mut stranded, &config.group_id, &config.input_topics).await;
            }
            received = consumer.recv() => match received {
                Ok(message) => {
                    let message = message.detach();
                    let epoch = tracker.lock().expect("tracker lock").start(message.topic(), message.partition(), message.offset());
                    let lane = lane_of(message.key(), message.partition(), senders.len());
                    metrics.received.inc();
                    // Bounded lanes: a full lane pauses consumption instead of buffering without end.
                    tokio::select! {
                        sent = senders[lane].send((message, epoch)) => if sent.is_err() { break },
                        _ = &mut shutdown => break,
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "consumer error");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            },
        }
    }
    tracing::info!(stage = config.stage, "shutting down: draining lanes");
    drop(senders);
    let drained = tokio::time::timeout(config.drain_timeout, async {
        for lane in lanes {
            let _ = lane.await;
        }
        // Every permit back: every delivery in flight has completed.
        let _ = in_flight
            .acquire_many(config.max_in_flight.max(1) as u32)
            .await;
    })
    .await;
    if drained.is_err() {
        tracing::warn!("lanes did not drain in time; unfinished messages will be redelivered");
    }
    commit(&consumer, &tracker, CommitMode::Sync);
    lag_task.abort();
    consumer.unsubscribe();
    tracing::info!(stage = config.stage, "worker stopped");
    Ok(())
}

/// Commits what the tracker says is finished; a failed commit is retried on the next call.
pub fn commit(
    consumer: &StreamConsumer<RebalanceContext>,
    tracker: &Mutex<OffsetTracker>,
    mode: CommitMode,
) {
    let commits = tracker.lock().expect("tracker lock").take_commits();
    if commits.is_empty() {
        return;
    }
    let mut list = TopicPartitionList::new();
    for ((topic, partition), position) in &commits {
        let _ = list.add_partition_offset(topic, *partition, Offset::Offset(*position));
    }
    if let Err(e) = consumer.commit(&list, mode) {
        tracing::warn!(error = %e, "offset commit failed; will retry on the next tick");
        tracker
            .lock()
            .expect("tracker lock")
            .commit_failed(&commits);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_key_same_lane() {
        let a = lane_of(Some(b"conv-1"), 0, 8);
        assert_eq!(
            a,
            lane_of(Some(b"conv-1"), 5, 8),
            "the key decides, not the partition"
        );
        assert!(lane_of(Some(b"conv-2"), 0, 8) < 8);
        assert_eq!(lane_of(None, 3, 8), lane_of(None, 3, 8));
    }
}
