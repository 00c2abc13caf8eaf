//! The one retry policy of every worker and the one mapping from failures to what the runtime
//! does with a message: retry it later (transient) or dead-letter it (poison).

use std::time::Duration;

use backon::ExponentialBuilder;

use crate::message::MessageError;

/// What a handler reports when a message could not be processed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandleError {
    /// The message may succeed later (a backend is down): retry.
    #[error("transient: {0}")]
    Transient(String),
    /// The message itself is the problem: dead-letter it.
    #[error("{0}")]
    Poison(String),
}

impl HandleError {
    pub fn is_transient(&self) -> bool {
        matches!(self, HandleError::Transient(_))
    }
}

/// An error that knows whether retrying can help.
pub trait Disposition: std::fmt::Display {
    fn is_transient(&self) -> bool;

    fn into_handle_error(self) -> HandleError
    where
        Self: Sized,
    {
        if self.is_transient() {
            HandleError::Transient(self.to_string())
        } else {
            HandleError::Poison(self.to_string())
        }
    }
}

impl Disposition for MessageError {
    fn is_transient(&self) -> bool {
        MessageError::is_transient(self)
    }
}

impl From<MessageError> for HandleError {
    fn from(error: MessageError) -> HandleError {
        error.into_handle_error()
    }
}

/// Exponential backoff with jitter from 50 ms to 5 s; `max_times: None` retries until the
/// caller's own deadline (a sink that must not lose a batch).
pub fn backoff(max_times: Option<usize>) -> ExponentialBuilder {
    let builder = ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(50))
        .with_max_delay(Duration::from_secs(5))
        .with_jitter();
    match max_times {
        Some(times) => builder.with_max_times(times),
        None => builder.without_max_times(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::MessageError;
    use policy_avro::{DecodeError, InputCoordinates, RegistryError, WireError};

    fn at() -> InputCoordinates {
        InputCoordinates {
            topic: "t".into(),
            partition: 0,
            offset: 1,
        }
    }

    #[test]
    fn a_bad_payload_is_poison_and_an_unreachable_registry_transient() {
        let bad = MessageError::Decode {
            at: at(),
            source: DecodeError::Wire(WireError::BadMagic(1)),
        };
        assert!(matches!(HandleError::from(bad), HandleError::Poison(_)));
        let down = MessageError::Decode {
            at: at(),
            source: DecodeError::Schema {
                id: 7,
                source: RegistryError::Unavailable("connection refused".into()),
            },
        };
        assert!(HandleError::from(down).is_transient());
        assert!(matches!(
            HandleError::from(MessageError::NoValue { at: at() }),
            HandleError::Poison(_)
        ));
    }
}
