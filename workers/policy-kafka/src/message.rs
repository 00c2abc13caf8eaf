//! Where a message came from, and errors that always say so.

use policy_avro::{DecodeError, InputCoordinates};

/// Where a message was read.
pub fn coordinates<M: rdkafka::Message>(message: &M) -> InputCoordinates {
    InputCoordinates {
        topic: message.topic().to_string(),
        partition: message.partition(),
        offset: message.offset(),
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum MessageError {
    #[error("{at}: message has no value (tombstone)")]
    NoValue { at: InputCoordinates },
    #[error("{at}: cannot decode: {source}")]
    Decode {
        at: InputCoordinates,
        source: DecodeError,
    },
}

impl MessageError {
    pub fn coordinates(&self) -> &InputCoordinates {
        match self {
            MessageError::NoValue { at } | MessageError::Decode { at, .. } => at,
        }
    }

    /// Transient errors are retried; the rest make the message a dead letter.
    pub fn is_transient(&self) -> bool {
        matches!(self, MessageError::Decode { source, .. } if source.is_transient())
    }
}

/// Decodes a message value with `codec`, naming the message's coordinates on failure.
pub async fn decode_value<T, M>(
    codec: &policy_avro::AvroCodec<T>,
    message: &M,
) -> Result<T, MessageError>
where
    T: serde::Serialize + serde::de::DeserializeOwned,
    M: rdkafka::Message,
{
    let at = coordinates(message);
    let payload = message
        .payload()
        .ok_or_else(|| MessageError::NoValue { at: at.clone() })?;
    codec
        .decode(payload)
        .await
        .map_err(|source| MessageError::Decode { at, source })
}

#[cfg(test)]
mod tests {
    use super::*;
    use policy_avro::WireError;

    #[test]
    fn errors_name_topic_partition_offset() {
        let at = InputCoordinates {
            topic: "policy.turns".into(),
            partition: 3,
            offset: 42,
        };
        let error = MessageError::Decode {
            at: at.clone(),
            source: DecodeError::Wire(WireError::BadMagic(0x7b)),
        };
        assert_eq!(
            error.to_string(),
            "policy.turns/3@42: cannot decode: magic byte is 0x7b, expected 0x00: not Confluent-framed Avro"
        );
        assert!(!error.is_transient());
        assert_eq!(error.coordinates(), &at);
        assert_eq!(
            MessageError::NoValue { at }.to_string(),
            "policy.turns/3@42: message has no value (tombstone)"
        );
    }
}
