//! Helpers for tests against the real broker and registry started by `infra/start.sh`
//! (`make test` starts them; addresses come from the same env vars the workers read).
#![allow(dead_code)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use policy_avro::RegistryClient;
use policy_kafka::KafkaConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::OwnedMessage;
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::Message;

pub fn config() -> KafkaConfig {
    KafkaConfig::from_env()
}

pub fn registry() -> Arc<RegistryClient> {
    Arc::new(RegistryClient::new(&config().schema_registry_url).expect("registry client"))
}

/// A fresh topic per test so tests never see each other's messages.
pub async fn fresh_topic(prefix: &str, partitions: i32) -> String {
    let name = format!("test.{prefix}.{}", uuid::Uuid::new_v4().simple());
    let admin: AdminClient<DefaultClientContext> =
        config().client().create().expect("admin client");
    let topic = NewTopic::new(&name, partitions, TopicReplication::Fixed(1));
    let results = admin
        .create_topics(
            [&topic],
            &AdminOptions::new().operation_timeout(Some(Duration::from_secs(10))),
        )
        .await
        .unwrap_or_else(|e| {
            panic!(
                "cannot reach the broker at {} (run `make up`): {e}",
                config().bootstrap
            )
        });
    for result in results {
        result.unwrap_or_else(|(topic, code)| panic!("create {topic}: {code}"));
    }
    name
}

pub fn producer() -> FutureProducer {
    config().producer().create().expect("producer")
}

pub async fn produce(
    producer: &FutureProducer,
    topic: &str,
    key: &[u8],
    payload: &[u8],
) -> (i32, i64) {
    let delivery = producer
        .send(
            FutureRecord::to(topic).key(key).payload(payload),
            Duration::from_secs(10),
        )
        .await
        .unwrap_or_else(|(e, _)| panic!("produce to {topic}: {e}"));
    (delivery.partition, delivery.offset)
}

/// Reads `count` messages from the start of every partition of `topic` (no group commit).
pub fn read_all(topic: &str, count: usize) -> Vec<OwnedMessage> {
    let consumer: BaseConsumer = config()
        .consumer(&format!("reader-{}", uuid::Uuid::new_v4().simple()))
        .create()
        .expect("consumer");
    consumer.subscribe(&[topic]).expect("subscribe");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut messages = Vec::new();
    while messages.len() < count && Instant::now() < deadline {
        if let Some(result) = consumer.poll(Duration::from_millis(200)) {
            messages.push(result.expect("consume").detach());
        }
    }
    assert_eq!(
        messages.len(),
        count,
        "messages read from {topic} within 60 s"
    );
    messages.sort_by_key(|m| (m.partition(), m.offset()));
    messages
}

pub fn python() -> String {
    std::env::var("POLICY_PYTHON").unwrap_or_else(|_| {
        let cache = std::env::var("POLICY_CACHE_DIR").unwrap_or_else(|_| {
            format!(
                "{}/.cache/policy-workers",
                std::env::var("HOME").expect("HOME")
            )
        });
        format!("{cache}/py-venv-v1/bin/python")
    })
}
