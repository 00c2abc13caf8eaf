//! Typed Avro codec for one topic: encodes with the schema registered at startup, decodes any
//! payload whose writer schema the registry knows, resolving it to this binary's schema.

use std::marker::PhantomData;
use std::sync::Arc;

use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::writer::datum::GenericDatumWriter;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::registry::{value_subject, RegistryClient, RegistryError};
use crate::schemas::SchemaName;
use crate::wire::{frame, unframe, WireError};

#[derive(Debug, Clone, thiserror::Error)]
pub enum DecodeError {
    #[error("{0}")]
    Wire(#[from] WireError),
    #[error("writer schema {id}: {source}")]
    Schema { id: u32, source: RegistryError },
    #[error("payload does not match writer schema {id}: {reason}")]
    Datum { id: u32, reason: String },
}

impl DecodeError {
    /// Transient failures (registry down) are retried; everything else is a poison message.
    pub fn is_transient(&self) -> bool {
        matches!(self, DecodeError::Schema { source, .. } if source.is_transient())
    }
}

#[derive(Debug, Clone, thiserror::Error)]
#[error("cannot encode {schema:?}: {reason}")]
pub struct EncodeError {
    pub schema: SchemaName,
    pub reason: String,
}

pub struct AvroCodec<T> {
    name: SchemaName,
    schema_id: u32,
    /// Resolves writer schemas by id; `None` for a codec built offline (tests, tools), which
    /// reads only payloads written with its own schema.
    registry: Option<Arc<RegistryClient>>,
    writer: GenericDatumWriter<'static>,
    _record: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for AvroCodec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AvroCodec")
            .field("schema", &self.name)
            .field("schema_id", &self.schema_id)
            .field("registry", &self.registry.is_some())
            .finish()
    }
}

impl<T: Serialize + DeserializeOwned> AvroCodec<T> {
    /// Registers the value schema of `topic` (TopicNameStrategy) and returns a codec using it.
    pub async fn register(
        registry: Arc<RegistryClient>,
        topic: &str,
        name: SchemaName,
    ) -> Result<Self, RegistryError> {
        let schema_id = registry.register(&value_subject(topic), name).await?;
        AvroCodec::build(name, schema_id, Some(registry))
    }

    /// A codec for `name` framed with `schema_id`, without a registry: it encodes, and decodes
    /// what was written with its own schema (the fast test tier, offline tools).
    pub fn offline(name: SchemaName, schema_id: u32) -> Result<Self, RegistryError> {
        AvroCodec::build(name, schema_id, None)
    }

    fn build(
        name: SchemaName,
        schema_id: u32,
        registry: Option<Arc<RegistryClient>>,
    ) -> Result<Self, RegistryError> {
        let writer = GenericDatumWriter::builder(name.schema())
            .build()
            .map_err(|e| RegistryError::InvalidSchema {
                id: schema_id,
                reason: e.to_string(),
            })?;
        Ok(AvroCodec {
            name,
            schema_id,
            registry,
            writer,
            _record: PhantomData,
        })
    }

    pub fn schema_id(&self) -> u32 {
        self.schema_id
    }

    pub fn encode(&self, record: &T) -> Result<Vec<u8>, EncodeError> {
        let datum = self
            .writer
            .write_ser_to_vec(record)
            .map_err(|e| EncodeError {
                schema: self.name,
                reason: e.to_string(),
            })?;
        Ok(frame(self.schema_id, &datum))
    }

    pub async fn decode(&self, payload: &[u8]) -> Result<T, DecodeError> {
        let (id, mut datum) = unframe(payload)?;
        let datum_error = |e: apache_avro::Error| DecodeError::Datum {
            id,
            reason: e.to_string(),
        };
        if id == self.schema_id {
            // Written with our own schema: deserialise straight into the record.
            let reader = GenericDatumReader::builder(self.name.schema())
                .build()
                .map_err(datum_error)?;
            let record = reader.read_deser(&mut datum).map_err(datum_error)?;
            return ensure_consumed(id, datum, record);
        }
        let Some(registry) = &self.registry else {
            return Err(DecodeError::Schema {
                id,
                source: RegistryError::Refused(format!(
                    "schema id {id} is not this offline codec's {}",
                    self.schema_id
                )),
            });
        };
        let writer = registry
            .writer_schema(id)
            .await
            .map_err(|source| DecodeError::Schema { id, source })?;
        let reader = GenericDatumReader::builder(&writer)
            .reader_schema(self.name.schema())
            .build()
            .map_err(datum_error)?;
        let value = reader.read_value(&mut datum).map_err(datum_error)?;
        let record = apache_avro::from_value(&value).map_err(datum_error)?;
        ensure_consumed(id, datum, record)
    }
}

/// Trailing bytes mean the payload was not written with the schema its header names.
fn ensure_consumed<T>(id: u32, rest: &[u8], record: T) -> Result<T, DecodeError> {
    if rest.is_empty() {
        Ok(record)
    } else {
        Err(DecodeError::Datum {
            id,
            reason: format!("{} trailing byte(s) after the record", rest.len()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::ChatTurn;

    #[tokio::test]
    async fn an_offline_codec_round_trips_its_own_payloads_and_refuses_others() {
        let codec = AvroCodec::<ChatTurn>::offline(SchemaName::ChatTurn, 7).unwrap();
        let turn = ChatTurn {
            conversation_id: "c".into(),
            turn_id: "t".into(),
            question: "What is the return window?".into(),
            sent_at: 1,
            ..Default::default()
        };
        let payload = codec.encode(&turn).unwrap();
        assert_eq!(&payload[1..5], &7u32.to_be_bytes());
        assert_eq!(codec.decode(&payload).await.unwrap(), turn);
        let other = AvroCodec::<ChatTurn>::offline(SchemaName::ChatTurn, 8).unwrap();
        let err = other.decode(&payload).await.unwrap_err();
        assert!(!err.is_transient(), "{err}");
        assert!(err.to_string().contains("schema id 7"), "{err}");
    }
}
