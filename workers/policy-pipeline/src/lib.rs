//! The answer pipeline: enrich, retrieve, generate, judge. Each stage implements one small
//! trait ([`stage::Stage`]) over typed turn states ([`state`]): a stage cannot be handed a turn
//! that lacks a part. [`chain::Chain`] is the one composition, run in-process
//! (`policyctl worker all`, `eval`, replay) or one stage per Kafka worker, with the same span,
//! latency and metrics either way. The wire format (`TurnState`) is converted in [`wire`].

pub mod answerability;
pub mod breaker;
pub mod chain;
pub mod config;
pub mod decide;
pub mod embedded;
pub mod enrich;
pub mod eval;
pub mod facts;
#[cfg(any(test, feature = "test-utils"))]
pub mod fakes;
pub mod generate;
pub mod golden_turn;
pub mod guard;
pub mod judge;
mod library;
pub mod llm;
pub mod observe;
pub mod out_of_domain;
pub mod outcome;
pub mod published;
pub mod retrieve;
pub mod serving;
pub mod stage;
pub mod state;
pub mod wire;

pub use chain::{Chain, Entry, Exit};
pub use config::PipelineConfig;
pub use generate::{ExtractiveGenerator, GenerateError, GenerateStage, GeneratedText, Generator};
pub use llm::{LlmSettings, OpenAiGenerator};
pub use outcome::Outcome;
pub use serving::{ServingHandle, ServingState};
pub use stage::{Stage, StageError, StageName, Step, TurnContext};
pub use state::{Drafted, Enriched, Received, Retrieval, Retrieved, Turn};
