//! Kafka plumbing shared by every worker: client configuration, the declarative topic specs
//! and their application, and message decoding that always names where a message came from.

pub mod assignment;
pub mod config;
pub mod message;
pub mod metrics;
pub mod offsets;
pub mod runtime;
pub mod topics;

pub use config::KafkaConfig;
pub use message::{decode_value, Coordinates, MessageError};
pub use topics::{apply_topics, load_topic_specs, TopicReport, TopicSpec, TopicsError};
