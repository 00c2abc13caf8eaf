//! The audit sink: answers, escalations and dead letters → one ClickHouse row per turn, on the
//! runtime's batching loop ([`policy_kafka::BatchHandler`]).
//!
//! Offsets are committed only after the batch holding their rows was inserted; a crash between
//! insert and commit re-reads those records and re-inserts the same rows, which the
//! ReplacingMergeTree (keyed by turn id) collapses. A record the sink cannot decode still
//! becomes a row (`outcome = 'undecodable'`) rather than a dead letter: the dead-letter topic is
//! one of this worker's inputs.

use std::sync::Arc;

use policy_avro::{AvroCodec, DeadLetter, Escalation, PolicyAnswer};
use policy_kafka::message::{coordinates, decode_value};
use policy_kafka::metrics::WorkerMetrics;
use policy_kafka::{BatchFuture, BatchHandler, Disposition, HandleError};
use rdkafka::message::OwnedMessage;

use crate::row::{self, AuditRow};
use crate::store::AuditStore;

/// The topics the sink reads.
#[derive(Debug, Clone)]
pub struct AuditTopics {
    pub answers: String,
    pub escalations: String,
    pub dead_letters: String,
}

impl AuditTopics {
    pub fn all(&self) -> [&str; 3] {
        [&self.answers, &self.escalations, &self.dead_letters]
    }
}

#[derive(Debug)]
pub struct AuditCodecs {
    pub answers: AvroCodec<PolicyAnswer>,
    pub escalations: AvroCodec<Escalation>,
    pub dead_letters: AvroCodec<DeadLetter>,
}

#[derive(Debug)]
pub struct AuditSink {
    pub topics: AuditTopics,
    pub codecs: AuditCodecs,
    pub store: Arc<AuditStore>,
    pub metrics: Arc<WorkerMetrics>,
}

impl AuditSink {
    /// The row for one record. Only a transient failure (the schema registry is unreachable)
    /// is an error; anything undecodable is recorded as such.
    async fn row_for(&self, message: &OwnedMessage) -> Result<AuditRow, HandleError> {
        let at = coordinates(message);
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
            Ok(row) => Ok(row),
            Err(e) if e.is_transient() => Err(e.into_handle_error()),
            Err(e) => {
                tracing::warn!(error = %e, "audit input not decodable; recorded as such");
                self.metrics.dead_lettered.inc();
                Ok(row::undecodable(
                    &at,
                    &e.to_string(),
                    policy_avro::now_millis(),
                ))
            }
        }
    }
}

impl BatchHandler for AuditSink {
    type Item = AuditRow;

    fn prepare<'a>(&'a self, message: &'a OwnedMessage) -> BatchFuture<'a, AuditRow> {
        Box::pin(self.row_for(message))
    }

    fn flush<'a>(&'a self, rows: &'a [AuditRow]) -> BatchFuture<'a, ()> {
        Box::pin(async move {
            self.store
                .insert(rows)
                .await
                .map_err(|e| HandleError::Transient(e.to_string()))?;
            tracing::debug!(rows = rows.len(), "audit batch inserted");
            Ok(())
        })
    }
}
