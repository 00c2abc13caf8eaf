//! Wire compatibility with an independent client: Confluent's Python SchemaRegistryClient and
//! AvroSerializer/AvroDeserializer, against the real broker and the project's registry.

mod common;

use std::path::Path;
use std::process::Command;

use policy_avro::{AvroCodec, ChatTurn, SchemaName};
use rdkafka::Message;

fn run_python(args: &[&str]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/confluent_interop.py");
    let config = common::config();
    let output = Command::new(common::python())
        .arg(&script)
        .args(args)
        .args([
            "--bootstrap",
            &config.bootstrap,
            "--registry",
            &config.schema_registry_url,
        ])
        .output()
        .expect("python venv missing: run infra/install.sh");
    assert!(
        output.status.success(),
        "python {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8")
}

#[tokio::test(flavor = "multi_thread")]
async fn python_produces_rust_decodes() {
    let topic = common::fresh_topic("py2rs", 1).await;
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/ChatTurn.avsc");
    run_python(&[
        "produce",
        "--topic",
        &topic,
        "--turn-id",
        "py-turn-1",
        "--schema",
        schema.to_str().unwrap(),
    ]);
    let codec = AvroCodec::<ChatTurn>::register(common::registry(), &topic, SchemaName::ChatTurn)
        .await
        .unwrap();
    let message = common::read_all(&topic, 1).remove(0);
    assert_eq!(message.key(), Some(&b"py-conv-1"[..]));
    let turn = codec.decode(message.payload().unwrap()).await.unwrap();
    assert_eq!(turn.turn_id, "py-turn-1");
    assert_eq!(
        turn.question,
        "¿Cuál es el plazo de devolución? (from Python)"
    );
    assert_eq!(
        turn.purchase_at,
        Some(1_768_471_200_000),
        "2026-01-15T10:00:00Z"
    );
    assert_eq!(turn.session_region.as_deref(), Some("eu"));
    assert_eq!(turn.order_facts.unwrap()["item_category"], "electronics");
}

#[tokio::test(flavor = "multi_thread")]
async fn rust_produces_python_decodes() {
    let topic = common::fresh_topic("rs2py", 1).await;
    let codec = AvroCodec::<ChatTurn>::register(common::registry(), &topic, SchemaName::ChatTurn)
        .await
        .unwrap();
    let turn = ChatTurn {
        conversation_id: "rs-conv-1".into(),
        turn_id: "rs-turn-1".into(),
        question: "What is my return window? (from Rust)".into(),
        billing_region: Some("jp".into()),
        purchase_at: Some(1_768_471_200_000),
        sent_at: 1_793_534_400_000,
        ..Default::default()
    };
    common::produce(
        &common::producer(),
        &topic,
        b"rs-conv-1",
        &codec.encode(&turn).unwrap(),
    )
    .await;
    let printed = run_python(&["consume", "--topic", &topic, "--turn-id", "rs-turn-1"]);
    let json: serde_json::Value =
        serde_json::from_str(printed.trim()).expect("python printed JSON");
    assert_eq!(json["key"], "rs-conv-1");
    assert_eq!(
        json["value"]["question"],
        "What is my return window? (from Rust)"
    );
    assert_eq!(json["value"]["billing_region"], "jp");
    assert_eq!(json["value"]["purchase_at"], 1_768_471_200_000i64);
    assert_eq!(json["value"]["session_region"], serde_json::Value::Null);
}
