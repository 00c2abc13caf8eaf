//! Where a message came from, and errors that always say so.

use std::fmt;

use policy_avro::DecodeError;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Coordinates {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
}

impl fmt::Display for Coordinates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}@{}", self.topic, self.partition, self.offset)
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum MessageError {
    #[error("{at}: message has no value (tombstone)")]
    NoValue { at: Coordinates },
    #[error("{at}: cannot decode: {source}")]
    Decode {
        at: Coordinates,
        source: DecodeError,
    },
}

impl MessageError {
    pub fn coordinates(&self) -> &Coordinates {
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
    let at = Coordinates {
        topic: message.topic().to_string(),
        partition: message.partition(),
        offset: message.offset(),
    };
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
        let at = Coordinates {
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
