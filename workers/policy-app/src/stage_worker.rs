//! A pipeline worker's message handler: decode the input into the typed entry its role
//! expects, run it through the one chain up to the role's last stage, encode what comes out
//! (the outcome, or the turn handed on to the next stage's topic).

use std::sync::Arc;
use std::time::Instant;

use policy_avro::{
    AvroCodec, ChatTurn, Escalation, PolicyAnswer, RegistryClient, RegistryError, SchemaName,
    TurnState,
};
use policy_kafka::metrics::WorkerMetrics;
use policy_kafka::{
    coordinates, decode_value, HandleError, HandleFuture, MessageHandler, OutputRecord,
};
use policy_pipeline::observe::ThreadCpuTimer;
use policy_pipeline::outcome::now_millis;
use policy_pipeline::wire::ToWire;
use policy_pipeline::{Chain, Entry, Exit, Outcome, StageName, Turn};
use rdkafka::message::OwnedMessage;

use crate::metrics::{DECODE, ENCODE};
use crate::topics::TopicNames;

/// The part of the pipeline a worker process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Every stage in one process: turns in, outcomes out.
    All,
    Enrich,
    Retrieve,
    Generate,
    Judge,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::All => "all",
            Role::Enrich => "enrich",
            Role::Retrieve => "retrieve",
            Role::Generate => "generate",
            Role::Judge => "judge",
        }
    }

    /// The last stage this role runs before handing the turn on.
    pub fn last_stage(self) -> StageName {
        match self {
            Role::Enrich => StageName::Enrich,
            Role::Retrieve => StageName::Retrieve,
            Role::Generate => StageName::Generate,
            Role::All | Role::Judge => StageName::Judge,
        }
    }

    pub fn input_topic(self, topics: &TopicNames) -> &str {
        match self {
            Role::All | Role::Enrich => &topics.turns,
            Role::Retrieve => &topics.enriched,
            Role::Generate => &topics.retrieved,
            Role::Judge => &topics.drafted,
        }
    }
}

/// The value codecs of the pipeline's topics.
#[derive(Debug)]
pub struct StageCodecs {
    pub turn: AvroCodec<ChatTurn>,
    pub enriched: AvroCodec<TurnState>,
    pub retrieved: AvroCodec<TurnState>,
    pub drafted: AvroCodec<TurnState>,
    pub answer: AvroCodec<PolicyAnswer>,
    pub escalation: AvroCodec<Escalation>,
}

impl StageCodecs {
    pub async fn register(
        registry: Arc<RegistryClient>,
        topics: &TopicNames,
    ) -> Result<StageCodecs, RegistryError> {
        use SchemaName::*;
        Ok(StageCodecs {
            turn: AvroCodec::register(registry.clone(), &topics.turns, ChatTurn).await?,
            enriched: AvroCodec::register(registry.clone(), &topics.enriched, TurnState).await?,
            retrieved: AvroCodec::register(registry.clone(), &topics.retrieved, TurnState).await?,
            drafted: AvroCodec::register(registry.clone(), &topics.drafted, TurnState).await?,
            answer: AvroCodec::register(registry.clone(), &topics.answers, PolicyAnswer).await?,
            escalation: AvroCodec::register(registry, &topics.escalations, Escalation).await?,
        })
    }

    /// Codecs without a registry (the fast test tier): schema ids 1 to 6.
    pub fn offline() -> Result<StageCodecs, RegistryError> {
        use SchemaName::*;
        Ok(StageCodecs {
            turn: AvroCodec::offline(ChatTurn, 1)?,
            enriched: AvroCodec::offline(TurnState, 2)?,
            retrieved: AvroCodec::offline(TurnState, 3)?,
            drafted: AvroCodec::offline(TurnState, 4)?,
            answer: AvroCodec::offline(PolicyAnswer, 5)?,
            escalation: AvroCodec::offline(Escalation, 6)?,
        })
    }
}

#[derive(Debug)]
pub struct StageWorker {
    pub role: Role,
    pub chain: Chain,
    pub codecs: Arc<StageCodecs>,
    pub topics: TopicNames,
    pub metrics: Arc<WorkerMetrics>,
}

fn encode_error(e: impl std::fmt::Display) -> HandleError {
    HandleError::Poison(format!("cannot encode output: {e}"))
}

/// A stage input that lacks an earlier stage's part is invalid: dead-letter it with the reason.
fn typed<T: TryFrom<TurnState, Error = policy_pipeline::wire::WireError>>(
    state: TurnState,
) -> Result<T, HandleError> {
    T::try_from(state).map_err(|e| HandleError::Poison(e.to_string()))
}

impl StageWorker {
    pub fn input_topic(&self) -> &str {
        self.role.input_topic(&self.topics)
    }

    /// The message as the entry this role's first stage takes.
    async fn decode(&self, message: &OwnedMessage) -> Result<Entry, HandleError> {
        let state = |codec| decode_value(codec, message);
        Ok(match self.role {
            Role::All | Role::Enrich => {
                let turn = decode_value(&self.codecs.turn, message).await?;
                let mut received = Turn::new(turn, coordinates(message), now_millis());
                // Decoded, so framed: the writer's schema id is in the frame.
                if let Ok((id, _)) =
                    policy_avro::unframe(rdkafka::Message::payload(message).unwrap_or_default())
                {
                    received = received.with_input_schema_id(id);
                }
                Entry::Received(received)
            }
            Role::Retrieve => Entry::Enriched(typed(state(&self.codecs.enriched).await?)?),
            Role::Generate => Entry::Retrieved(typed(state(&self.codecs.retrieved).await?)?),
            Role::Judge => Entry::Drafted(typed(state(&self.codecs.drafted).await?)?),
        })
    }

    /// The record for what left the chain, keyed by conversation.
    fn encode(&self, exit: &Exit) -> Result<OutputRecord, HandleError> {
        let (topic, payload, key) = match exit {
            Exit::Outcome(Outcome::Answer(a)) => {
                self.metrics.answered.inc();
                let payload = self.codecs.answer.encode(a).map_err(encode_error)?;
                (&self.topics.answers, payload, &a.conversation_id)
            }
            Exit::Outcome(Outcome::Escalate(e)) => {
                self.metrics.escalated.inc();
                let payload = self.codecs.escalation.encode(e).map_err(encode_error)?;
                (&self.topics.escalations, payload, &e.conversation_id)
            }
            Exit::Enriched(t) => {
                let payload = self
                    .codecs
                    .enriched
                    .encode(&t.to_wire())
                    .map_err(encode_error)?;
                (&self.topics.enriched, payload, &t.turn.conversation_id)
            }
            Exit::Retrieved(t) => {
                let payload = self
                    .codecs
                    .retrieved
                    .encode(&t.to_wire())
                    .map_err(encode_error)?;
                (&self.topics.retrieved, payload, &t.turn.conversation_id)
            }
            Exit::Drafted(t) => {
                let payload = self
                    .codecs
                    .drafted
                    .encode(&t.to_wire())
                    .map_err(encode_error)?;
                (&self.topics.drafted, payload, &t.turn.conversation_id)
            }
        };
        Ok(OutputRecord {
            topic: topic.clone(),
            key: key.as_bytes().to_vec(),
            payload,
        })
    }

    /// Time (wall and thread CPU) of a step of this worker's own, around the chain.
    fn record(&self, step: &str, started: Instant, cpu: ThreadCpuTimer) {
        self.metrics
            .steps
            .add(step, started.elapsed().as_secs_f64());
        if let Some(cpu) = cpu.finish() {
            self.metrics.cpu.add(step, cpu.as_secs_f64());
        }
    }

    pub async fn handle_message(
        &self,
        message: &OwnedMessage,
    ) -> Result<Vec<OutputRecord>, HandleError> {
        let (started, cpu) = (Instant::now(), ThreadCpuTimer::start());
        let entry = self.decode(message).await?;
        self.record(DECODE, started, cpu);
        let exit = self
            .chain
            .run(entry, self.role.last_stage())
            .await
            .map_err(|e| HandleError::Transient(e.to_string()))?;
        let (started, cpu) = (Instant::now(), ThreadCpuTimer::start());
        let record = self.encode(&exit)?;
        self.record(ENCODE, started, cpu);
        Ok(vec![record])
    }
}

impl MessageHandler for StageWorker {
    fn handle<'a>(&'a self, message: &'a OwnedMessage) -> HandleFuture<'a> {
        Box::pin(self.handle_message(message))
    }
}

#[cfg(test)]
#[path = "stage_worker_tests.rs"]
mod tests;
