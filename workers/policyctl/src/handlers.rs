//! Kafka message handlers: decode, run a stage (or the whole pipeline), encode the result.

use std::sync::Arc;

use policy_avro::{AvroCodec, ChatTurn, Escalation, InputCoordinates, PolicyAnswer, TurnState};
use policy_kafka::metrics::ThreadCpuTimer;
use policy_kafka::metrics::WorkerMetrics;
use policy_kafka::runtime::{HandleError, HandleFuture, MessageHandler, OutputRecord};
use policy_kafka::{decode_value, MessageError};
use policy_pipeline::{Outcome, Pipeline, StageOutcome};
use rdkafka::message::OwnedMessage;
use rdkafka::Message;

use crate::topics::TopicNames;

pub struct Codecs {
    pub turn: AvroCodec<ChatTurn>,
    pub state_enriched: AvroCodec<TurnState>,
    pub state_retrieved: AvroCodec<TurnState>,
    pub state_drafted: AvroCodec<TurnState>,
    pub answer: AvroCodec<PolicyAnswer>,
    pub escalation: AvroCodec<Escalation>,
}

impl Codecs {
    pub async fn register(
        registry: Arc<policy_avro::RegistryClient>,
        topics: &TopicNames,
    ) -> Result<Codecs, policy_avro::RegistryError> {
        use policy_avro::SchemaName::*;
        Ok(Codecs {
            turn: AvroCodec::register(registry.clone(), &topics.turns, ChatTurn).await?,
            state_enriched: AvroCodec::register(registry.clone(), &topics.enriched, TurnState)
                .await?,
            state_retrieved: AvroCodec::register(registry.clone(), &topics.retrieved, TurnState)
                .await?,
            state_drafted: AvroCodec::register(registry.clone(), &topics.drafted, TurnState)
                .await?,
            answer: AvroCodec::register(registry.clone(), &topics.answers, PolicyAnswer).await?,
            escalation: AvroCodec::register(registry, &topics.escalations, Escalation).await?,
        })
    }
}

fn decode_error(e: MessageError) -> HandleError {
    if e.is_transient() {
        HandleError::Transient(e.to_string())
    } else {
        HandleError::Poison(e.to_string())
    }
}

fn encode_error(e: impl std::fmt::Display) -> HandleError {
    HandleError::Poison(format!("cannot encode output: {e}"))
}

fn coordinates(message: &OwnedMessage) -> InputCoordinates {
    InputCoordinates {
        topic: message.topic().to_string(),
        partition: message.partition(),
        offset: message.offset(),
    }
}

/// The final record of a turn, keyed by conversation.
fn outcome_record(
    codecs: &Codecs,
    topics: &TopicNames,
    metrics: &WorkerMetrics,
    outcome: &Outcome,
) -> Result<OutputRecord, HandleError> {
    let (topic, payload) = match outcome {
        Outcome::Answer(a) => {
            metrics.answered.inc();
            (
                &topics.answers,
                codecs.answer.encode(a).map_err(encode_error)?,
            )
        }
        Outcome::Escalate(e) => {
            metrics.escalated.inc();
            (
                &topics.escalations,
                codecs.escalation.encode(e).map_err(encode_error)?,
            )
        }
    };
    Ok(OutputRecord {
        topic: topic.clone(),
        key: outcome.conversation_id().as_bytes().to_vec(),
        payload,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// All stages in one process: turns in, outcomes out.
    All,
    Enrich,
    Retrieve,
    Generate,
    Judge,
}

pub struct StageHandler {
    pub stage: Stage,
    pub pipeline: Arc<Pipeline>,
    pub codecs: Arc<Codecs>,
    pub topics: TopicNames,
    pub metrics: Arc<WorkerMetrics>,
}

impl StageHandler {
    pub fn input_topic(&self) -> &str {
        match self.stage {
            Stage::All | Stage::Enrich => &self.topics.turns,
            Stage::Retrieve => &self.topics.enriched,
            Stage::Generate => &self.topics.retrieved,
            Stage::Judge => &self.topics.drafted,
        }
    }

    fn next(
        &self,
        state: &TurnState,
        codec: &AvroCodec<TurnState>,
        topic: &str,
    ) -> Result<OutputRecord, HandleError> {
        let payload = codec.encode(state).map_err(encode_error)?;
        Ok(OutputRecord {
            topic: topic.to_string(),
            key: state.turn.conversation_id.as_bytes().to_vec(),
            payload,
        })
    }

    async fn run(&self, message: &OwnedMessage) -> Result<Vec<OutputRecord>, HandleError> {
        let transient = |e: &dyn std::fmt::Display| HandleError::Transient(e.to_string());
        match self.stage {
            Stage::All => {
                let (steps, cpu) = (&self.metrics.steps, &self.metrics.cpu);
                let (started, timer) = (std::time::Instant::now(), ThreadCpuTimer::start());
                let turn = decode_value(&self.codecs.turn, message)
                    .await
                    .map_err(decode_error)?;
                steps.add("decode", started.elapsed().as_secs_f64());
                timer.finish(cpu, "decode");
                let timer = ThreadCpuTimer::start();
                let outcome = self
                    .pipeline
                    .process(turn, coordinates(message))
                    .await
                    .map_err(|e| transient(&e))?;
                timer.finish(cpu, "pipeline");
                for (stage, ms) in outcome.stage_latency_ms() {
                    steps.add(stage, ms / 1000.0);
                }
                let (started, timer) = (std::time::Instant::now(), ThreadCpuTimer::start());
                let record = outcome_record(&self.codecs, &self.topics, &self.metrics, &outcome)?;
                steps.add("encode", started.elapsed().as_secs_f64());
                timer.finish(cpu, "encode");
                Ok(vec![record])
            }
            Stage::Enrich => {
                let turn = decode_value(&self.codecs.turn, message)
                    .await
                    .map_err(decode_error)?;
                let state = TurnState {
                    turn,
                    input: coordinates(message),
                    received_at: policy_pipeline::outcome::now_millis(),
                    ..Default::default()
                };
                let serving = self.pipeline.serving().current();
                match self.pipeline.enrich(&serving, state) {
                    StageOutcome::Final(outcome) => Ok(vec![outcome_record(
                        &self.codecs,
                        &self.topics,
                        &self.metrics,
                        &outcome,
                    )?]),
                    StageOutcome::Continue(state) => Ok(vec![self.next(
                        &state,
                        &self.codecs.state_enriched,
                        &self.topics.enriched,
                    )?]),
                }
            }
            Stage::Retrieve => {
                let state = decode_value(&self.codecs.state_enriched, message)
                    .await
                    .map_err(decode_error)?;
                require(&state, state.enrichment.is_some(), "enrichment")?;
                let state = self
                    .pipeline
                    .retrieve_stage()
                    .retrieve(state)
                    .await
                    .map_err(|e| transient(&e))?;
                Ok(vec![self.next(
                    &state,
                    &self.codecs.state_retrieved,
                    &self.topics.retrieved,
                )?])
            }
            Stage::Generate => {
                let state = decode_value(&self.codecs.state_retrieved, message)
                    .await
                    .map_err(decode_error)?;
                require(
                    &state,
                    state.enrichment.is_some() && state.retrieval.is_some(),
                    "enrichment and retrieval",
                )?;
                let state = self
                    .pipeline
                    .generate(state)
                    .await
                    .map_err(|e| transient(&e))?;
                Ok(vec![self.next(
                    &state,
                    &self.codecs.state_drafted,
                    &self.topics.drafted,
                )?])
            }
            Stage::Judge => {
                let state = decode_value(&self.codecs.state_drafted, message)
                    .await
                    .map_err(decode_error)?;
                require(
                    &state,
                    state.enrichment.is_some()
                        && state.retrieval.is_some()
                        && state.draft.is_some(),
                    "enrichment, retrieval and draft",
                )?;
                let serving = self.pipeline.serving().current();
                let outcome = self
                    .pipeline
                    .judge_turn(&serving, state)
                    .await
                    .map_err(|e| transient(&e))?;
                Ok(vec![outcome_record(
                    &self.codecs,
                    &self.topics,
                    &self.metrics,
                    &outcome,
                )?])
            }
        }
    }
}

/// A stage input that lacks an earlier stage's part is invalid: dead-letter it with the reason.
fn require(state: &TurnState, present: bool, what: &str) -> Result<(), HandleError> {
    if present {
        Ok(())
    } else {
        Err(HandleError::Poison(format!(
            "turn {} arrived without {what}",
            state.turn.turn_id
        )))
    }
}

impl MessageHandler for StageHandler {
    fn handle<'a>(&'a self, message: &'a OwnedMessage) -> HandleFuture<'a> {
        Box::pin(self.run(message))
    }
}
