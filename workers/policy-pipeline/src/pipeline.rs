//! The stages composed in-process: what `policyctl worker all` and `policyctl eval` run.

use std::sync::Arc;
use std::time::Instant;

use policy_avro::{ChatTurn, Draft, InputCoordinates, TurnState};
use policy_search::{SearchError, Tier};
use tracing::Instrument;

use crate::config::PipelineConfig;
use crate::enrich::Enricher;
use crate::generate::{GenerateError, GenerationRequest, Generator};
use crate::judge::JudgeStage;
use crate::outcome::{now_millis, Outcome, StageOutcome};
use crate::retrieve::RetrieveStage;
use crate::serving::{ServingHandle, ServingState};

/// Failures that say nothing about the turn itself (a backend down): retry later.
#[derive(Debug, thiserror::Error)]
pub enum TransientError {
    #[error("retrieval: {0}")]
    Search(#[from] SearchError),
    #[error("generation: {0}")]
    Generate(#[from] GenerateError),
}

pub struct Pipeline {
    serving: ServingHandle,
    enricher: Enricher,
    retrieve: RetrieveStage,
    generator: Arc<dyn Generator>,
    judge: JudgeStage,
    config: PipelineConfig,
}

fn elapsed_ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

impl Pipeline {
    pub fn new(
        serving: ServingHandle,
        retrieve: RetrieveStage,
        generator: Arc<dyn Generator>,
        config: PipelineConfig,
    ) -> Pipeline {
        Pipeline {
            enricher: Enricher::new(&config),
            judge: JudgeStage::new(generator.clone(), config.disclaimer_threshold),
            serving,
            retrieve,
            generator,
            config,
        }
    }

    /// The same pipeline (serving state, generator, settings) retrieving from another backend.
    pub fn with_retriever(&self, retriever: Arc<dyn policy_search::Retriever>) -> Pipeline {
        Pipeline::new(
            self.serving.clone(),
            self.retrieve.with_retriever(retriever),
            self.generator.clone(),
            self.config.clone(),
        )
    }

    pub fn search_backend(&self) -> &str {
        self.retrieve.backend()
    }

    pub fn serving(&self) -> &ServingHandle {
        &self.serving
    }

    /// Enrich stage on its own (the per-stage workers).
    pub fn enrich(&self, serving: &ServingState, state: TurnState) -> StageOutcome {
        self.enricher.enrich(serving, state)
    }

    pub fn retrieve_stage(&self) -> &RetrieveStage {
        &self.retrieve
    }

    /// Runs one turn through every stage. The manifest is read once and pinned for the turn.
    pub async fn process(
        &self,
        turn: ChatTurn,
        input: InputCoordinates,
    ) -> Result<Outcome, TransientError> {
        let span = tracing::info_span!("turn", turn_id = %turn.turn_id, region = tracing::field::Empty, version = tracing::field::Empty);
        self.process_in(turn, input).instrument(span).await
    }

    async fn process_in(
        &self,
        turn: ChatTurn,
        input: InputCoordinates,
    ) -> Result<Outcome, TransientError> {
        let serving = self.serving.current();
        let state = TurnState {
            turn,
            input,
            received_at: now_millis(),
            ..Default::default()
        };
        let start = Instant::now();
        let mut state = match self.enricher.enrich(&serving, state) {
            StageOutcome::Final(outcome) => return Ok(*outcome),
            StageOutcome::Continue(state) => *state,
        };
        state
            .stage_latency_ms
            .insert("enrich".into(), elapsed_ms(start));
        if let Some(e) = &state.enrichment {
            tracing::Span::current()
                .record("region", e.region.as_str())
                .record("version", e.version_id.as_str());
        }
        let start = Instant::now();
        let mut state = self.retrieve.retrieve(state).await?;
        state
            .stage_latency_ms
            .insert("retrieve".into(), elapsed_ms(start));
        let start = Instant::now();
        let state = self.generate(state).await?;
        let mut state = state;
        state
            .stage_latency_ms
            .insert("generate".into(), elapsed_ms(start));
        let start = Instant::now();
        let outcome = self.judge_turn(&serving, state).await?;
        let outcome = match outcome {
            Outcome::Answer(mut a) => {
                a.stage_latency_ms.insert("judge".into(), elapsed_ms(start));
                Outcome::Answer(a)
            }
            Outcome::Escalate(mut e) => {
                e.stage_latency_ms.insert("judge".into(), elapsed_ms(start));
                Outcome::Escalate(e)
            }
        };
        match &outcome {
            Outcome::Answer(a) => {
                tracing::debug!(tier = a.tier, cited = ?a.citations.iter().map(|c| &c.clause_id).collect::<Vec<_>>(), "answered")
            }
            Outcome::Escalate(e) => tracing::debug!(reason = e.reason_code, "escalated"),
        }
        Ok(outcome)
    }

    /// Generate stage: fills `state.draft`, with the disclaimer the tier calls for.
    pub async fn generate(&self, mut state: TurnState) -> Result<TurnState, GenerateError> {
        let text = self
            .generator
            .generate(GenerationRequest::for_turn(&state, false))
            .await?;
        let enrichment = state.enrichment.as_ref().expect("enriched");
        let retrieval = state.retrieval.as_ref().expect("retrieved");
        let disclaimer = (retrieval.tier == Tier::Disclaimer.as_str()).then(|| {
            if enrichment.region_low_confidence {
                self.config.region_disclaimer_text.clone()
            } else {
                self.config.disclaimer_text.clone()
            }
        });
        state.draft = Some(Draft {
            text,
            generator: self.generator.name().to_string(),
            attempts: 1,
            disclaimer,
        });
        Ok(state)
    }

    pub async fn judge_turn(
        &self,
        serving: &ServingState,
        state: TurnState,
    ) -> Result<Outcome, GenerateError> {
        self.judge.judge(serving, state).await
    }
}
