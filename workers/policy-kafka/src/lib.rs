//! Kafka plumbing shared by every worker: client configuration, the declarative topic specs
//! and their application, and message decoding that always names where a message came from.

pub mod assignment;
pub mod batch;
pub mod config;
pub mod lanes;
pub mod message;
pub mod metrics;
pub mod offsets;
pub mod retry;
pub mod runtime;
pub mod topics;

pub use batch::{BatchFuture, BatchHandler, BatchLimits};
pub use config::KafkaConfig;
pub use lanes::{HandleFuture, MessageHandler};
pub use message::{coordinates, decode_value, MessageError};
pub use retry::{backoff, Disposition, HandleError};
pub use runtime::{run_batch_worker, run_worker, OutputRecord, WorkerConfig, WorkerError};
pub use topics::{apply_topics, load_topic_specs, TopicReport, TopicSpec, TopicsError};
