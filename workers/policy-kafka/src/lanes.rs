//! The stage workers' operator: messages processed concurrently in lanes, a message's lane
//! chosen by its key so that the turns of one conversation are processed in order.
//!
//! - Outputs are produced with an idempotent producer; a lane does not wait for their
//!   acknowledgement (up to `max_in_flight` messages await theirs), so throughput is not
//!   bounded by the broker's produce round trip. The offset completes when every output is
//!   acknowledged.
//! - Transient failures are retried with the runtime's backoff; a poison message (or one that
//!   stays transient past the retries) becomes a dead letter and the partition moves on.

use std::future::Future;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use backon::Retryable;
use rdkafka::message::OwnedMessage;
use rdkafka::producer::{DeliveryFuture, FutureRecord};
use rdkafka::Message;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;

use crate::retry::{backoff, HandleError};
use crate::runtime::{Operator, OutputRecord, Runtime, WorkerConfig};

pub type HandleFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<OutputRecord>, HandleError>> + Send + 'a>>;

/// What a stage worker does with one message: the records to produce for it.
pub trait MessageHandler: Send + Sync + 'static {
    fn handle<'a>(&'a self, message: &'a OwnedMessage) -> HandleFuture<'a>;
}

pub(crate) struct Lanes {
    senders: Vec<mpsc::Sender<(OwnedMessage, u64)>>,
    lanes: Vec<JoinHandle<()>>,
    in_flight: Arc<Semaphore>,
    max_in_flight: usize,
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

impl Lanes {
    pub(crate) fn spawn(
        runtime: Arc<Runtime>,
        handler: Arc<dyn MessageHandler>,
        config: &WorkerConfig,
    ) -> Lanes {
        let max_in_flight = config.max_in_flight.max(1);
        let in_flight = Arc::new(Semaphore::new(max_in_flight));
        let mut senders = Vec::new();
        let mut lanes = Vec::new();
        for _ in 0..config.lanes.max(1) {
            let (tx, mut rx) = mpsc::channel::<(OwnedMessage, u64)>(config.lane_capacity);
            senders.push(tx);
            let (runtime, handler, in_flight) =
                (runtime.clone(), handler.clone(), in_flight.clone());
            lanes.push(tokio::spawn(async move {
                while let Some((message, epoch)) = rx.recv().await {
                    let permit = in_flight
                        .clone()
                        .acquire_owned()
                        .await
                        .expect("the semaphore is never closed");
                    process(&runtime, &handler, message, epoch, permit).await;
                }
            }));
        }
        tracing::info!(lanes = lanes.len(), "lanes started");
        Lanes {
            senders,
            lanes,
            in_flight,
            max_in_flight,
        }
    }
}

impl Operator for Lanes {
    async fn on_message(&mut self, _: &Runtime, message: OwnedMessage, epoch: u64) -> bool {
        let lane = lane_of(message.key(), message.partition(), self.senders.len());
        // Bounded lanes: a full lane pauses consumption instead of buffering without end.
        if self.senders[lane].send((message, epoch)).await.is_err() {
            tracing::error!(lane, "lane stopped; its message will be read again");
        }
        false
    }

    async fn on_tick(&mut self, _: &Runtime) -> bool {
        false
    }

    async fn on_shutdown(self, _: &Runtime, deadline: Instant) {
        drop(self.senders);
        let drained = tokio::time::timeout_at(deadline.into(), async {
            for lane in self.lanes {
                let _ = lane.await;
            }
            // Every permit back: every delivery in flight has completed.
            let _ = self.in_flight.acquire_many(self.max_in_flight as u32).await;
        })
        .await;
        if drained.is_err() {
            tracing::warn!("lanes did not drain in time; unfinished messages will be redelivered");
        }
    }
}

/// Runs the handler, retrying transient failures with backoff.
async fn handle(
    runtime: &Runtime,
    handler: &Arc<dyn MessageHandler>,
    message: &OwnedMessage,
) -> Result<Vec<OutputRecord>, HandleError> {
    (|| handler.handle(message))
        .retry(backoff(Some(runtime.max_transient_retries)))
        .when(HandleError::is_transient)
        .notify(|e, delay| {
            runtime.metrics.retried.inc();
            tracing::warn!(error = %e, ?delay, topic = message.topic(), partition = message.partition(), offset = message.offset(), "retrying");
        })
        .await
}

/// Hands the outputs to the producer without waiting for their acknowledgements: the returned
/// futures resolve when the broker has them. Ordering per partition is the idempotent
/// producer's (sends are enqueued in lane order).
async fn enqueue(runtime: &Runtime, outputs: &[OutputRecord]) -> Vec<DeliveryFuture> {
    let mut acks = Vec::with_capacity(outputs.len());
    for o in outputs {
        loop {
            let record = FutureRecord::to(&o.topic).key(&o.key).payload(&o.payload);
            match runtime.producer.send_result(record) {
                Ok(ack) => break acks.push(ack),
                // The local queue is full: wait for the broker to drain it.
                Err((_, _)) => tokio::time::sleep(std::time::Duration::from_millis(5)).await,
            }
        }
    }
    acks
}

/// The slow path, for outputs whose asynchronous delivery failed: produce them again one by one
/// with backoff; dead-letter the message if that fails too.
async fn deliver_or_dead_letter(
    runtime: &Runtime,
    message: &OwnedMessage,
    outputs: &[OutputRecord],
) {
    let delivered = (|| runtime.produce_all(outputs))
        .retry(backoff(Some(runtime.max_transient_retries)))
        .notify(|e, delay| {
            runtime.metrics.retried.inc();
            tracing::warn!(error = %e, ?delay, "produce failed; retrying");
        })
        .await;
    match delivered {
        Ok(()) => runtime.metrics.processed.inc(),
        Err(e) => {
            let reason = format!(
                "gave up after {} retries: produce: {e}",
                runtime.max_transient_retries
            );
            runtime.dead_letter_until_acked(message, &reason).await
        }
    }
}

/// Processes one message: the handler runs in the lane (in order per key); the wait for the
/// broker's acknowledgements does not hold the lane. The offset completes once every output is
/// acknowledged (or the message is dead-lettered); `permit` bounds what is in flight.
async fn process(
    runtime: &Arc<Runtime>,
    handler: &Arc<dyn MessageHandler>,
    message: OwnedMessage,
    epoch: u64,
    permit: OwnedSemaphorePermit,
) {
    let started = Instant::now();
    let complete = move |runtime: &Runtime, message: &OwnedMessage| {
        runtime
            .metrics
            .latency
            .observe(started.elapsed().as_secs_f64());
        runtime.complete(
            message.topic(),
            message.partition(),
            message.offset(),
            epoch,
        );
    };
    let outputs = match handle(runtime, handler, &message).await {
        Ok(outputs) => outputs,
        Err(error) => {
            let reason = match &error {
                HandleError::Poison(reason) => reason.clone(),
                HandleError::Transient(reason) => format!(
                    "gave up after {} retries: {reason}",
                    runtime.max_transient_retries
                ),
            };
            runtime.dead_letter_until_acked(&message, &reason).await;
            complete(runtime, &message);
            return;
        }
    };
    let acks = enqueue(runtime, &outputs).await;
    let runtime = runtime.clone();
    tokio::spawn(async move {
        let mut delivered = true;
        for ack in acks {
            delivered &= matches!(ack.await, Ok(Ok(_)));
        }
        if delivered {
            runtime.metrics.processed.inc();
        } else {
            deliver_or_dead_letter(&runtime, &message, &outputs).await;
        }
        complete(&runtime, &message);
        drop(permit);
    });
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
