//! A development schema registry: the subset of the Confluent Schema Registry REST API that
//! producers, consumers and admin tools use, persisted to one JSON file so ids survive restarts.
//!
//! Production points `SCHEMA_REGISTRY_URL` at Confluent Schema Registry, Karapace, Redpanda or
//! Apicurio instead; nothing in the workers depends on this implementation.

pub mod http;
pub mod store;

pub use http::{router, serve};
pub use store::{RegistryStore, StoreError};
