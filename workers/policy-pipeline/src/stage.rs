//! One small trait for every stage: it takes a turn in the state it needs and either hands it on
//! in the next state or ends it with its final outcome. The chain ([`crate::chain`]) composes
//! stages and does everything around them (span, latency, CPU, metrics) in one place.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::outcome::Outcome;
use crate::serving::ServingState;
use crate::state::Turn;

/// The stages, in the order a turn meets them. `Decide` replaces retrieve and generate for the
/// turns whose intent is a decision (eligibility, approvals).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StageName {
    Enrich,
    Retrieve,
    Decide,
    Generate,
    Judge,
}

impl StageName {
    pub const ALL: &'static [StageName] = &[
        StageName::Enrich,
        StageName::Retrieve,
        StageName::Decide,
        StageName::Generate,
        StageName::Judge,
    ];

    /// The name in metrics, logs, `stage_latency_ms` and the audit's latency columns.
    pub fn as_str(self) -> &'static str {
        match self {
            StageName::Enrich => "enrich",
            StageName::Retrieve => "retrieve",
            StageName::Decide => "decide",
            StageName::Generate => "generate",
            StageName::Judge => "judge",
        }
    }
}

impl fmt::Display for StageName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a stage hands on. The turn travels by value: a step is moved once per stage, and
/// boxing it would allocate on every stage to save a copy nobody makes.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Step<S> {
    /// The turn, in the next state.
    Next(Turn<S>),
    /// The turn's final outcome (an escalation, or the judge's answer).
    Done(Box<Outcome>),
}

/// A failure that says nothing about the turn itself (a backend or model is down): the worker
/// retries the message later. Anything the turn itself causes ends in an escalation instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{stage}: {reason}")]
pub struct StageError {
    pub stage: StageName,
    pub reason: String,
}

impl StageError {
    pub fn new(stage: StageName, reason: impl fmt::Display) -> StageError {
        StageError {
            stage,
            reason: reason.to_string(),
        }
    }
}

/// What every stage of one turn shares: the serving state (corpus and manifest) pinned to the
/// turn at enrich.
#[derive(Debug, Clone)]
pub struct TurnContext {
    pub serving: Arc<ServingState>,
}

pub type StageFuture<'a, T> =
    Pin<Box<dyn Future<Output = Result<Step<T>, StageError>> + Send + 'a>>;

/// One stage of the pipeline. Implementations hold their settings and backends; the chain
/// passes the turn and its context.
pub trait Stage: Send + Sync {
    type Input: Send + 'static;
    type Output: Send + 'static;

    fn name(&self) -> StageName;

    fn run<'a>(
        &'a self,
        ctx: &'a TurnContext,
        turn: Turn<Self::Input>,
    ) -> StageFuture<'a, Self::Output>;
}
