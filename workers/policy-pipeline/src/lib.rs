//! The answer pipeline. Each stage is a small unit with one job and its own trait where a
//! backend can be swapped (retriever, reranker, generator); the judge is deterministic and
//! always runs. Stages work on [`policy_avro::TurnState`] so that they compose in-process
//! (`policyctl worker all`) or across Kafka topics (one worker per stage) unchanged.

pub mod config;
pub mod embedded;
pub mod enrich;
pub mod eval;
pub mod generate;
pub mod golden_turn;
pub mod judge;
pub mod outcome;
pub mod pipeline;
pub mod published;
pub mod retrieve;
pub mod serving;

pub use config::PipelineConfig;
pub use generate::{ExtractiveGenerator, GenerateError, Generator, OpenAiGenerator};
pub use outcome::{Outcome, StageOutcome};
pub use pipeline::Pipeline;
pub use serving::{ServingHandle, ServingState};
