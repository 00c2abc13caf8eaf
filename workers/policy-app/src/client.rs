//! Golden cases as real turns through the broker and the running workers: produce every case,
//! collect outcomes until each turn has one (or the timeout), count duplicates and losses.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use policy_avro::{AvroCodec, ChatTurn, Escalation, PolicyAnswer, RegistryClient, SchemaName};
use policy_kafka::KafkaConfig;
use policy_pipeline::Outcome;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::{Message, Offset, TopicPartitionList};

use crate::topics::TopicNames;

/// The codecs a client of the pipeline needs: turns out, outcomes in.
#[derive(Debug)]
pub struct ClientCodecs {
    pub turns: AvroCodec<ChatTurn>,
    pub answers: AvroCodec<PolicyAnswer>,
    pub escalations: AvroCodec<Escalation>,
}

impl ClientCodecs {
    pub async fn register(
        kafka: &KafkaConfig,
        topics: &TopicNames,
    ) -> anyhow::Result<ClientCodecs> {
        let registry = Arc::new(RegistryClient::new(&kafka.schema_registry_url)?);
        Ok(ClientCodecs {
            turns: AvroCodec::register(registry.clone(), &topics.turns, SchemaName::ChatTurn)
                .await?,
            answers: AvroCodec::register(
                registry.clone(),
                &topics.answers,
                SchemaName::PolicyAnswer,
            )
            .await?,
            escalations: AvroCodec::register(registry, &topics.escalations, SchemaName::Escalation)
                .await?,
        })
    }
}

#[derive(Debug)]
pub struct Collected {
    /// First outcome per turn id.
    pub outcomes: HashMap<String, Outcome>,
    /// Outcomes beyond the first for a turn (re-deliveries), by turn id.
    pub duplicates: HashMap<String, usize>,
    pub missing: Vec<String>,
    pub seconds: f64,
}

/// A reader positioned at the current end of the outcome topics: anything it sees was produced
/// after this call.
pub fn outcome_reader(kafka: &KafkaConfig, topics: &TopicNames) -> anyhow::Result<BaseConsumer> {
    let consumer: BaseConsumer = kafka
        .consumer(&format!("outcome-reader-{}", uuid::Uuid::new_v4().simple()))
        .create()?;
    let mut assignment = TopicPartitionList::new();
    for topic in [&topics.answers, &topics.escalations] {
        let metadata = consumer.fetch_metadata(Some(topic), Duration::from_secs(10))?;
        for partition in metadata.topics().iter().flat_map(|t| t.partitions()) {
            let (_, high) =
                consumer.fetch_watermarks(topic, partition.id(), Duration::from_secs(10))?;
            assignment.add_partition_offset(topic, partition.id(), Offset::Offset(high))?;
        }
    }
    consumer.assign(&assignment)?;
    Ok(consumer)
}

pub async fn produce_turns(
    kafka: &KafkaConfig,
    topic: &str,
    codec: &AvroCodec<ChatTurn>,
    turns: &[ChatTurn],
) -> anyhow::Result<()> {
    let producer: FutureProducer = kafka.producer().create()?;
    let payloads: Vec<Vec<u8>> = turns
        .iter()
        .map(|t| codec.encode(t))
        .collect::<Result<_, _>>()?;
    let mut pending = Vec::with_capacity(turns.len());
    for (turn, payload) in turns.iter().zip(&payloads) {
        pending.push(
            producer.send(
                FutureRecord::to(topic)
                    .key(&turn.conversation_id)
                    .payload(payload),
                Duration::from_secs(30),
            ),
        );
    }
    for delivery in pending {
        delivery
            .await
            .map_err(|(e, _)| e)
            .context("producing a turn")?;
    }
    Ok(())
}

pub async fn collect(
    reader: &BaseConsumer,
    topics: &TopicNames,
    codecs: &ClientCodecs,
    expected: &[String],
    timeout: Duration,
    started: Instant,
) -> anyhow::Result<Collected> {
    let wanted: std::collections::HashSet<&str> = expected.iter().map(String::as_str).collect();
    let mut outcomes = HashMap::new();
    let mut duplicates: HashMap<String, usize> = HashMap::new();
    let deadline = Instant::now() + timeout;
    while outcomes.len() < wanted.len() && Instant::now() < deadline {
        let Some(message) = reader.poll(Duration::from_millis(100)) else {
            continue;
        };
        let message = message?;
        let payload = message.payload().unwrap_or_default();
        let outcome = if message.topic() == topics.answers {
            Outcome::Answer(codecs.answers.decode(payload).await?)
        } else {
            Outcome::Escalate(codecs.escalations.decode(payload).await?)
        };
        let turn_id = outcome.turn_id().to_string();
        if !wanted.contains(turn_id.as_str()) {
            continue;
        }
        match outcomes.entry(turn_id) {
            std::collections::hash_map::Entry::Occupied(first) => {
                *duplicates.entry(first.key().clone()).or_default() += 1
            }
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(outcome);
            }
        }
    }
    let missing = expected
        .iter()
        .filter(|id| !outcomes.contains_key(*id))
        .cloned()
        .collect();
    Ok(Collected {
        outcomes,
        duplicates,
        missing,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Sends one turn and waits for its outcome (`None` after `timeout`).
pub async fn ask(
    kafka: &KafkaConfig,
    topics: &TopicNames,
    turn: ChatTurn,
    timeout: Duration,
) -> anyhow::Result<Option<Outcome>> {
    let codecs = ClientCodecs::register(kafka, topics).await?;
    // Position the reader at the current end of both outcome topics before sending, so the
    // outcome cannot slip past it.
    let reader = tokio::task::block_in_place(|| outcome_reader(kafka, topics))?;
    let started = Instant::now();
    produce_turns(
        kafka,
        &topics.turns,
        &codecs.turns,
        std::slice::from_ref(&turn),
    )
    .await
    .context("sending the turn")?;
    let turn_id = turn.turn_id.clone();
    let mut collected = collect(
        &reader,
        topics,
        &codecs,
        std::slice::from_ref(&turn_id),
        timeout,
        started,
    )
    .await?;
    Ok(collected.outcomes.remove(&turn_id))
}

/// Sends the turns to the workers listening on `topics` and collects an outcome for each.
pub async fn run_turns(
    kafka: &KafkaConfig,
    topics: &TopicNames,
    turns: &[ChatTurn],
    timeout: Duration,
) -> anyhow::Result<Collected> {
    let codecs = ClientCodecs::register(kafka, topics).await?;
    let reader = tokio::task::block_in_place(|| outcome_reader(kafka, topics))?;
    let started = Instant::now();
    produce_turns(kafka, &topics.turns, &codecs.turns, turns).await?;
    let expected: Vec<String> = turns.iter().map(|t| t.turn_id.clone()).collect();
    collect(&reader, topics, &codecs, &expected, timeout, started).await
}
