//! Confluent wire format: magic byte 0, big-endian 4-byte schema id, then the Avro datum.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("empty payload")]
    Empty,
    #[error("payload of {0} byte(s) is too short for the Confluent header (5 bytes)")]
    TooShort(usize),
    #[error("magic byte is {0:#04x}, expected 0x00: not Confluent-framed Avro")]
    BadMagic(u8),
}

pub fn frame(schema_id: u32, datum: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(5 + datum.len());
    out.push(0);
    out.extend_from_slice(&schema_id.to_be_bytes());
    out.extend_from_slice(datum);
    out
}

pub fn unframe(payload: &[u8]) -> Result<(u32, &[u8]), WireError> {
    match payload {
        [] => Err(WireError::Empty),
        [0, a, b, c, d, datum @ ..] => Ok((u32::from_be_bytes([*a, *b, *c, *d]), datum)),
        [0, ..] => Err(WireError::TooShort(payload.len())),
        [magic, ..] => Err(WireError::BadMagic(*magic)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip() {
        let framed = frame(258, b"datum");
        assert_eq!(framed, [0, 0, 0, 1, 2, b'd', b'a', b't', b'u', b'm']);
        assert_eq!(unframe(&framed), Ok((258, &b"datum"[..])));
    }

    #[test]
    fn header_only_is_an_empty_datum() {
        assert_eq!(unframe(&[0, 0, 0, 0, 7]), Ok((7, &b""[..])));
    }

    #[test]
    fn errors() {
        assert_eq!(unframe(b""), Err(WireError::Empty));
        assert_eq!(unframe(&[0, 1, 2]), Err(WireError::TooShort(3)));
        assert_eq!(unframe(b"{\"json\": 1}"), Err(WireError::BadMagic(b'{')));
    }
}
