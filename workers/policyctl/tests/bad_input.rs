//! Garbage and foreign payloads on a real topic are reported with a clear error naming
//! topic/partition/offset; good messages around them still decode.

mod common;

use policy_avro::{frame, AvroCodec, ChatTurn, DecodeError, SchemaName, WireError};
use policy_kafka::{decode_value, MessageError};

#[tokio::test(flavor = "multi_thread")]
async fn bad_payloads_name_their_coordinates() {
    let topic = common::fresh_topic("badinput", 1).await;
    let codec = AvroCodec::<ChatTurn>::register(common::registry(), &topic, SchemaName::ChatTurn)
        .await
        .unwrap();
    let producer = common::producer();
    let good = ChatTurn {
        conversation_id: "c".into(),
        turn_id: "t".into(),
        question: "q".into(),
        sent_at: 1,
        ..Default::default()
    };
    common::produce(&producer, &topic, b"c", &codec.encode(&good).unwrap()).await;
    common::produce(&producer, &topic, b"c", b"\xde\xad\xbe\xef garbage").await;
    common::produce(&producer, &topic, b"c", &frame(987_654, b"\x02x")).await;
    common::produce(&producer, &topic, b"c", &frame(codec.schema_id(), b"\x02")).await;

    let messages = common::read_all(&topic, 4);
    let first = decode_value(&codec, &messages[0]).await.unwrap();
    assert_eq!(first, good);

    let garbage = decode_value(&codec, &messages[1]).await.unwrap_err();
    assert!(matches!(
        &garbage,
        MessageError::Decode {
            source: DecodeError::Wire(WireError::BadMagic(0xde)),
            ..
        }
    ));
    assert_eq!(garbage.to_string(), format!("{topic}/0@1: cannot decode: magic byte is 0xde, expected 0x00: not Confluent-framed Avro"));

    let unknown = decode_value(&codec, &messages[2]).await.unwrap_err();
    let text = unknown.to_string();
    assert!(
        text.starts_with(&format!(
            "{topic}/0@2: cannot decode: writer schema 987654: schema registry refused"
        )),
        "{text}"
    );
    assert!(
        !unknown.is_transient(),
        "an unknown schema id is permanent: dead letter, not retry"
    );

    let truncated = decode_value(&codec, &messages[3]).await.unwrap_err();
    assert!(
        truncated.to_string().starts_with(&format!(
            "{topic}/0@3: cannot decode: payload does not match writer schema"
        )),
        "{truncated}"
    );
}
