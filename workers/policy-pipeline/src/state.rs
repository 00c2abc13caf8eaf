//! A turn's typed states on its way through the stages. A stage takes exactly the state it needs
//! (`Turn<Retrieved>` for the generator), so it cannot be handed a turn that lacks a part; the
//! wire keeps one Avro `TurnState` with optional parts, converted in [`crate::wire`].

use std::collections::BTreeMap;

use policy_avro::{ChatTurn, Draft, Enrichment, InputCoordinates};
use policy_core::{QueryExpansion, RetrievedClause, Tier};

/// One chat turn and what the stages it went through added, in state `S`.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn<S> {
    /// The turn exactly as received.
    pub turn: ChatTurn,
    /// Where it was read (topic, partition, offset): for the audit and for replay.
    pub input: InputCoordinates,
    /// Registry id of the schema the turn was written with, when it came from a topic.
    pub input_schema_id: Option<i32>,
    pub received_at: i64,
    /// Milliseconds per stage, filled in by the chain.
    pub stage_latency_ms: BTreeMap<String, f64>,
    pub state: S,
}

/// Nothing but the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Received;

/// Guardrails passed, region and version resolved, manifest pinned.
#[derive(Debug, Clone, PartialEq)]
pub struct Enriched {
    pub enrichment: Enrichment,
}

/// The clauses of exactly the resolved (region, version), reranked, with a confidence.
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieved {
    pub enrichment: Enrichment,
    pub retrieval: Retrieval,
}

/// An answer written, not yet judged.
#[derive(Debug, Clone, PartialEq)]
pub struct Drafted {
    pub enrichment: Enrichment,
    pub retrieval: Retrieval,
    pub draft: Draft,
}

/// What retrieval found for a turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Retrieval {
    pub clauses: Vec<RetrievedClause>,
    pub confidence: f64,
    pub tier: Tier,
    /// Which backend served it (`embedded`, `elasticsearch`, or `decision` for the rule
    /// clauses a decision used).
    pub backend: String,
    /// The question's words as the version knows them (what a quote must cover).
    pub expansion: QueryExpansion,
}

/// The optional view of a state's parts, for code that works at any stage (escalations).
pub trait StateParts {
    fn enrichment(&self) -> Option<&Enrichment> {
        None
    }
    fn retrieval(&self) -> Option<&Retrieval> {
        None
    }
    fn draft(&self) -> Option<&Draft> {
        None
    }
}

impl StateParts for Received {}

impl StateParts for Enriched {
    fn enrichment(&self) -> Option<&Enrichment> {
        Some(&self.enrichment)
    }
}

impl StateParts for Retrieved {
    fn enrichment(&self) -> Option<&Enrichment> {
        Some(&self.enrichment)
    }
    fn retrieval(&self) -> Option<&Retrieval> {
        Some(&self.retrieval)
    }
}

impl StateParts for Drafted {
    fn enrichment(&self) -> Option<&Enrichment> {
        Some(&self.enrichment)
    }
    fn retrieval(&self) -> Option<&Retrieval> {
        Some(&self.retrieval)
    }
    fn draft(&self) -> Option<&Draft> {
        Some(&self.draft)
    }
}

impl Turn<Received> {
    pub fn new(turn: ChatTurn, input: InputCoordinates, received_at: i64) -> Turn<Received> {
        Turn {
            turn,
            input,
            input_schema_id: None,
            received_at,
            stage_latency_ms: BTreeMap::new(),
            state: Received,
        }
    }

    /// The turn as decoded from a framed message written with schema `id`.
    pub fn with_input_schema_id(mut self, id: u32) -> Turn<Received> {
        self.input_schema_id = i32::try_from(id).ok();
        self
    }
}

impl<S> Turn<S> {
    /// The same turn in the next state.
    pub fn advance<T>(self, state: T) -> Turn<T> {
        Turn {
            turn: self.turn,
            input: self.input,
            input_schema_id: self.input_schema_id,
            received_at: self.received_at,
            stage_latency_ms: self.stage_latency_ms,
            state,
        }
    }

    pub fn turn_id(&self) -> &str {
        &self.turn.turn_id
    }

    /// The turn's fields as received, for its outcome.
    pub fn received(&self) -> policy_avro::ReceivedTurn {
        policy_avro::ReceivedTurn::of(&self.turn, self.input_schema_id)
    }
}

impl Turn<Enriched> {
    pub fn enrichment(&self) -> &Enrichment {
        &self.state.enrichment
    }
}
