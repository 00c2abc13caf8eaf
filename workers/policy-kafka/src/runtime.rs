//! The one run loop of every worker: a consumer group member with manual offsets. What happens
//! to a message is an operator's business ([`crate::lanes`] for the stage workers,
//! [`crate::batch`] for the sinks); the loop owns consuming, offset tracking, commits,
//! rebalances, the stranded-member check and the drain on shutdown.
//!
//! - A message's offset becomes committable only when the operator completes it, which it does
//!   once the message's outputs are acknowledged (or its batch is stored, or it is
//!   dead-lettered), and everything before it in its partition too ([`OffsetTracker`]).
//! - On revocation the finished prefix of the revoked partitions is committed synchronously and
//!   late completions for them are dropped; on shutdown the operator drains and a final commit
//!   runs.
//! - A member left without partitions by a faulty rebalance rejoins ([`crate::assignment`]).

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use backon::Retryable;
use policy_avro::{AvroCodec, DeadLetter};
use rdkafka::consumer::{
    BaseConsumer, CommitMode, Consumer, ConsumerContext, Rebalance, StreamConsumer,
};
use rdkafka::message::OwnedMessage;
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::{ClientContext, Message, Offset, TopicPartitionList};

use crate::assignment::{check_and_rejoin, StrandedDetector};
use crate::batch::{BatchHandler, BatchLimits, Batching};
use crate::config::KafkaConfig;
use crate::lanes::{Lanes, MessageHandler};
use crate::metrics::WorkerMetrics;
use crate::offsets::OffsetTracker;
use crate::retry::backoff;

/// One record a handler wants produced for an input message.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputRecord {
    pub topic: String,
    pub key: Vec<u8>,
    pub payload: Vec<u8>,
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
/// offset tracker.
#[derive(Debug)]
pub struct RebalanceContext {
    tracker: Arc<Mutex<OffsetTracker>>,
}

/// A group member with manual offsets, subscribed to `topics`, whose rebalances go through
/// `tracker`.
fn group_consumer(
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

/// What every operator shares: the producer, the dead-letter path, the offset tracker and the
/// metrics.
pub struct Runtime {
    pub(crate) stage: String,
    pub(crate) dead_letter_topic: String,
    pub(crate) max_transient_retries: usize,
    pub(crate) producer: FutureProducer,
    pub(crate) dead_letters: Arc<AvroCodec<DeadLetter>>,
    pub(crate) tracker: Arc<Mutex<OffsetTracker>>,
    pub(crate) metrics: Arc<WorkerMetrics>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("stage", &self.stage)
            .finish_non_exhaustive()
    }
}

const PRODUCE_TIMEOUT: Duration = Duration::from_secs(30);

impl Runtime {
    /// Produces `outputs` one after the other, each acknowledged before the next (a message has
    /// one or two outputs: ordering matters more than the round trips).
    pub(crate) async fn produce_all(&self, outputs: &[OutputRecord]) -> Result<(), String> {
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

    /// The dead letter itself must be acknowledged before the offset moves on; if even that
    /// fails, keep trying: losing the message is not an option.
    pub(crate) async fn dead_letter_until_acked(&self, message: &OwnedMessage, reason: &str) {
        tracing::error!(
            topic = message.topic(),
            partition = message.partition(),
            offset = message.offset(),
            reason,
            "dead-lettering message"
        );
        let sent = (|| async {
            let record = self.dead_letter(message, reason)?;
            self.produce_all(&[record]).await
        })
        .retry(backoff(None))
        .notify(|e, delay| {
            tracing::error!(error = e, ?delay, "dead letter not acknowledged; retrying");
        })
        .await;
        debug_assert!(sent.is_ok(), "retried without limit");
        self.metrics.dead_lettered.inc();
    }

    /// The message is done: its offset may be committed once everything before it is.
    pub(crate) fn complete(&self, topic: &str, partition: i32, offset: i64, epoch: u64) {
        let done = self
            .tracker
            .lock()
            .expect("tracker lock")
            .complete(topic, partition, offset, epoch);
        if !done {
            tracing::debug!(offset, "completion for a revoked partition dropped");
        }
    }
}

/// The hooks of the run loop. `true` from a hook asks for a commit right away.
pub(crate) trait Operator: Send {
    /// A message arrived; its offset is tracked under `epoch` and completes through the runtime.
    fn on_message(
        &mut self,
        runtime: &Runtime,
        message: OwnedMessage,
        epoch: u64,
    ) -> impl Future<Output = bool> + Send;
    /// Every tick of the loop (100 ms at most): time-based work.
    fn on_tick(&mut self, runtime: &Runtime) -> impl Future<Output = bool> + Send;
    /// Shutdown: finish what is in flight by `deadline`.
    fn on_shutdown(self, runtime: &Runtime, deadline: Instant) -> impl Future<Output = ()> + Send;
}

/// Runs a stage worker: `handler` in concurrent lanes (ordered per key) until `shutdown`
/// resolves, then drains and commits.
pub async fn run_worker(
    kafka: &KafkaConfig,
    config: WorkerConfig,
    handler: Arc<dyn MessageHandler>,
    dead_letters: Arc<AvroCodec<DeadLetter>>,
    metrics: Arc<WorkerMetrics>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), WorkerError> {
    let runtime = Arc::new(runtime(kafka, &config, dead_letters, metrics)?);
    let lanes = Lanes::spawn(runtime.clone(), handler, &config);
    run_loop(kafka, &config, runtime, lanes, shutdown).await
}

/// Runs a batching worker (a sink) until `shutdown` resolves, then stores what is buffered and
/// commits.
pub async fn run_batch_worker<H: BatchHandler>(
    kafka: &KafkaConfig,
    config: WorkerConfig,
    handler: Arc<H>,
    limits: BatchLimits,
    dead_letters: Arc<AvroCodec<DeadLetter>>,
    metrics: Arc<WorkerMetrics>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), WorkerError> {
    let runtime = Arc::new(runtime(kafka, &config, dead_letters, metrics)?);
    tracing::info!(batch_rows = limits.max_items, batch_age = ?limits.max_age, "batching");
    run_loop(
        kafka,
        &config,
        runtime,
        Batching::new(handler, limits),
        shutdown,
    )
    .await
}

fn runtime(
    kafka: &KafkaConfig,
    config: &WorkerConfig,
    dead_letters: Arc<AvroCodec<DeadLetter>>,
    metrics: Arc<WorkerMetrics>,
) -> Result<Runtime, WorkerError> {
    Ok(Runtime {
        stage: config.stage.clone(),
        dead_letter_topic: config.dead_letter_topic.clone(),
        max_transient_retries: config.max_transient_retries,
        producer: kafka.producer().create()?,
        dead_letters,
        tracker: Arc::new(Mutex::new(OffsetTracker::default())),
        metrics,
    })
}

/// Longest wait between two operator ticks.
const TICK: Duration = Duration::from_millis(100);

async fn run_loop<O: Operator>(
    kafka: &KafkaConfig,
    config: &WorkerConfig,
    runtime: Arc<Runtime>,
    mut operator: O,
    shutdown: impl Future<Output = ()>,
) -> Result<(), WorkerError> {
    let tracker = runtime.tracker.clone();
    let consumer = group_consumer(
        kafka,
        &config.group_id,
        &config.input_topics,
        tracker.clone(),
    )?;
    let metrics = runtime.metrics.clone();
    tracing::info!(stage = config.stage, group = config.group_id, topics = ?config.input_topics, "worker started");
    let lag_task = tokio::spawn(crate::metrics::track_lag(consumer.clone(), metrics.clone()));
    let mut commit_tick = tokio::time::interval(config.commit_interval);
    let mut operator_tick = tokio::time::interval(TICK.min(config.commit_interval));
    let mut assignment_tick = tokio::time::interval(config.assignment_check_interval);
    let mut stranded = StrandedDetector::default();
    tokio::pin!(shutdown);
    loop {
        let commit_now = tokio::select! {
            _ = &mut shutdown => break,
            _ = commit_tick.tick() => true,
            _ = operator_tick.tick() => operator.on_tick(&runtime).await,
            _ = assignment_tick.tick() => {
                check_and_rejoin(&consumer, &mut stranded, &config.group_id, &config.input_topics).await;
                false
            }
            received = consumer.recv() => match received {
                Ok(message) => {
                    let message = message.detach();
                    let epoch = tracker.lock().expect("tracker lock").start(message.topic(), message.partition(), message.offset());
                    metrics.received.inc();
                    // A busy operator (full lanes, a batch being stored) pauses consumption
                    // instead of buffering without end; shutdown still wins.
                    tokio::select! {
                        commit = operator.on_message(&runtime, message, epoch) => commit,
                        _ = &mut shutdown => break,
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "consumer error");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    false
                }
            },
        };
        if commit_now {
            commit(&consumer, &tracker, CommitMode::Async);
        }
    }
    tracing::info!(stage = config.stage, "shutting down: draining");
    operator
        .on_shutdown(&runtime, Instant::now() + config.drain_timeout)
        .await;
    commit(&consumer, &tracker, CommitMode::Sync);
    lag_task.abort();
    consumer.unsubscribe();
    tracing::info!(stage = config.stage, "worker stopped");
    Ok(())
}

/// Commits what the tracker says is finished; a failed commit is retried on the next call.
fn commit(
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
