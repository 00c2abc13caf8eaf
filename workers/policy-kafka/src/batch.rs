//! Batching workers (a sink that stores many messages in one write): the [`BatchHandler`]
//! hooks, the operator that runs them on the runtime's one loop, and the size- and age-bounded
//! [`Batch`] (pure: the caller passes the clock).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use backon::Retryable;
use rdkafka::message::OwnedMessage;
use rdkafka::Message;

use crate::retry::{backoff, HandleError};
use crate::runtime::{Operator, Runtime};

pub type BatchFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, HandleError>> + Send + 'a>>;

/// What a batching worker does: turn each message into an item, and store items a batch at a
/// time. Offsets are committed only after the batch holding their items was stored.
pub trait BatchHandler: Send + Sync + 'static {
    type Item: Send + Sync + 'static;

    /// The item for one message, in receive order. A transient error is retried (the loop
    /// waits: back-pressure); a poison message is dead-lettered.
    fn prepare<'a>(&'a self, message: &'a OwnedMessage) -> BatchFuture<'a, Self::Item>;

    /// Stores one batch. Retried with backoff until it succeeds (or the shutdown deadline).
    fn flush<'a>(&'a self, items: &'a [Self::Item]) -> BatchFuture<'a, ()>;
}

/// How big and how old a batch may get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchLimits {
    pub max_items: usize,
    pub max_age: Duration,
}

/// An item with where its message came from (topic, partition, offset, epoch).
type Token = (String, i32, i64, u64);

pub(crate) struct Batching<H: BatchHandler> {
    handler: Arc<H>,
    batch: Batch<H::Item, Token>,
}

impl<H: BatchHandler> Batching<H> {
    pub(crate) fn new(handler: Arc<H>, limits: BatchLimits) -> Batching<H> {
        Batching {
            handler,
            batch: Batch::new(limits.max_items, limits.max_age),
        }
    }

    /// Stores the batch (retrying; until `deadline` if one is given) and completes its offsets.
    async fn flush(&mut self, runtime: &Runtime, deadline: Option<Instant>) -> bool {
        if self.batch.is_empty() {
            return false;
        }
        let items = self.batch.take();
        let (rows, tokens): (Vec<H::Item>, Vec<Token>) = items.into_iter().unzip();
        let started = Instant::now();
        let stored = (|| self.handler.flush(&rows))
            .retry(backoff(None))
            .when(|e| e.is_transient() && deadline.is_none_or(|d| Instant::now() < d))
            .notify(|e, delay| {
                runtime.metrics.retried.inc();
                tracing::warn!(error = %e, ?delay, rows = rows.len(), "batch not stored; retrying");
            })
            .await;
        if let Err(e) = stored {
            tracing::warn!(error = %e, rows = rows.len(), "batch not stored; its messages will be read again");
            return false;
        }
        runtime
            .metrics
            .latency
            .observe(started.elapsed().as_secs_f64());
        for (topic, partition, offset, epoch) in tokens {
            // A partition revoked meanwhile drops the completion: its new owner reads the
            // message again and stores the same item again (sinks are idempotent).
            runtime.complete(&topic, partition, offset, epoch);
        }
        runtime.metrics.processed.add(rows.len() as u64);
        true
    }
}

impl<H: BatchHandler> Operator for Batching<H> {
    async fn on_message(&mut self, runtime: &Runtime, message: OwnedMessage, epoch: u64) -> bool {
        let prepared = (|| self.handler.prepare(&message))
            .retry(backoff(None))
            .when(HandleError::is_transient)
            .notify(|e, delay| {
                runtime.metrics.retried.inc();
                tracing::warn!(error = %e, ?delay, "cannot prepare the message yet; retrying");
            })
            .await;
        match prepared {
            Ok(item) => {
                let token = (
                    message.topic().to_string(),
                    message.partition(),
                    message.offset(),
                    epoch,
                );
                if self.batch.push(item, token, Instant::now()) {
                    return self.flush(runtime, None).await;
                }
                false
            }
            Err(error) => {
                runtime
                    .dead_letter_until_acked(&message, &error.to_string())
                    .await;
                runtime.complete(
                    message.topic(),
                    message.partition(),
                    message.offset(),
                    epoch,
                );
                false
            }
        }
    }

    async fn on_tick(&mut self, runtime: &Runtime) -> bool {
        if self.batch.is_due(Instant::now()) {
            return self.flush(runtime, None).await;
        }
        false
    }

    async fn on_shutdown(mut self, runtime: &Runtime, deadline: Instant) {
        self.flush(runtime, Some(deadline)).await;
    }
}

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
