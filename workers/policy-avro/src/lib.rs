//! Avro on the wire: the record types of every topic, their schemas (the `.avsc` files under
//! `schemas/`, embedded at build time), the Confluent framing (`0x00`, 4-byte schema id, Avro
//! datum), and a codec that registers schemas at startup and resolves writer schemas by id.

pub mod codec;
pub mod compat;
pub mod records;
pub mod registry;
pub mod schemas;
pub mod wire;

pub use codec::{AvroCodec, DecodeError, EncodeError};
pub use compat::{check_compatibility, CompatibilityLevel};
pub use records::*;
pub use registry::{RegistryClient, RegistryError};
pub use schemas::SchemaName;
pub use wire::{frame, unframe, WireError};
