//! Generate: a [`Generator`] writes the answer from the retrieved clauses. The default is the
//! deterministic extractive generator; an OpenAI-compatible chat-completions endpoint
//! ([`crate::llm`]) is the optional alternative. Either way the judge checks the result.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use policy_avro::{Draft, Enrichment};
use policy_core::extract::extract_answer;
use policy_core::judge::REFUSAL;
use policy_core::{QueryExpansion, ReasonCode, RetrievedClause, Tier};

use crate::config::PipelineConfig;
use crate::decide::{decide, to_wire};
use crate::stage::{Stage, StageError, StageFuture, StageName, Step, TurnContext};
use crate::state::{Drafted, Retrieval, Retrieved, Turn};

#[derive(Debug, Clone, Copy)]
pub struct GenerationRequest<'a> {
    pub question: &'a str,
    /// The question's words as the version knows them.
    pub expansion: &'a QueryExpansion,
    pub version_id: &'a str,
    pub clauses: &'a [RetrievedClause],
    /// Second attempt after the judge rejected the first: the prompt insists harder.
    pub strict: bool,
}

impl<'a> GenerationRequest<'a> {
    /// The request for an enriched and retrieved turn.
    pub fn new(
        enrichment: &'a Enrichment,
        retrieval: &'a Retrieval,
        strict: bool,
    ) -> GenerationRequest<'a> {
        GenerationRequest {
            question: &enrichment.sanitized_question,
            expansion: &retrieval.expansion,
            version_id: &enrichment.version_id,
            clauses: &retrieval.clauses,
            strict,
        }
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum GenerateError {
    /// Worth retrying later (5xx, connection refused): the turn is retried as a transient
    /// stage error. The LLM generator never returns it: it retries within its own budget.
    #[error("generator unavailable: {0}")]
    Unavailable(String),
    /// The generator gave up within its budget and was told to escalate rather than fall back:
    /// the turn escalates with `generator_unavailable`.
    #[error("generator gave up: {0}")]
    GaveUp(String),
    #[error("generator failed: {0}")]
    Failed(String),
}

/// A generator's text and how it came about.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GeneratedText {
    pub text: String,
    /// Why the configured generator's own text was not used (the extractive one answered).
    pub fallback_reason: Option<String>,
    /// Requests made to an LLM endpoint, retries included.
    pub llm_calls: u32,
    pub completion_tokens: u32,
}

impl GeneratedText {
    pub fn plain(text: String) -> GeneratedText {
        GeneratedText {
            text,
            ..GeneratedText::default()
        }
    }
}

pub type GenerateFuture<'a> =
    Pin<Box<dyn Future<Output = Result<GeneratedText, GenerateError>> + Send + 'a>>;

pub trait Generator: Send + Sync + std::fmt::Debug {
    fn name(&self) -> &str;
    /// LLM answers get one stricter retry when the judge rejects them; extractive ones cannot
    /// improve by retrying.
    fn retries_on_rejection(&self) -> bool;
    fn generate<'a>(&'a self, request: GenerationRequest<'a>) -> GenerateFuture<'a>;
}

#[derive(Debug, Clone, Copy)]
pub struct ExtractiveGenerator {
    /// The runner-up clause is quoted too when its score is this close to the top one.
    pub runner_up_margin: f64,
}

impl Generator for ExtractiveGenerator {
    fn name(&self) -> &str {
        "extractive"
    }

    fn retries_on_rejection(&self) -> bool {
        false
    }

    fn generate<'a>(&'a self, request: GenerationRequest<'a>) -> GenerateFuture<'a> {
        let text = extract_answer(
            request.question,
            request.expansion,
            request.clauses,
            self.runner_up_margin,
        )
        .map(|e| e.answer_text())
        .unwrap_or_else(|| REFUSAL.to_string());
        Box::pin(async move { Ok(GeneratedText::plain(text)) })
    }
}

/// Generate: a draft from the retrieved clauses, with the disclaimer its tier calls for.
#[derive(Debug)]
pub struct GenerateStage {
    generator: Arc<dyn Generator>,
    disclaimer_text: String,
    region_disclaimer_text: String,
}

impl GenerateStage {
    pub fn new(generator: Arc<dyn Generator>, config: &PipelineConfig) -> GenerateStage {
        GenerateStage {
            generator,
            disclaimer_text: config.disclaimer_text.clone(),
            region_disclaimer_text: config.region_disclaimer_text.clone(),
        }
    }

    pub fn generator(&self) -> &Arc<dyn Generator> {
        &self.generator
    }

    /// A decision is stated by [`crate::decide`], never by a language model: its numbers come
    /// from the rules and the subject's data only.
    fn draft_decision(&self, ctx: &TurnContext, turn: Turn<Retrieved>) -> Step<Drafted> {
        let Retrieved {
            enrichment,
            retrieval,
        } = &turn.state;
        let decision = match decide(&ctx.serving, enrichment, retrieval, turn.turn.sent_at) {
            Ok(decision) => decision,
            Err(undecided) => {
                return Step::Done(Box::new(
                    turn.escalate(undecided.code, vec![undecided.reason]),
                ))
            }
        };
        let subject = enrichment.subject.clone().unwrap_or_default();
        let draft = Draft {
            text: decision.text.clone(),
            generator: "decision".into(),
            attempts: 1,
            decision: Some(Box::new(to_wire(&decision, &subject))),
            ..Draft::default()
        };
        let Retrieved {
            enrichment,
            retrieval,
        } = turn.state.clone();
        Step::Next(turn.advance(Drafted {
            enrichment,
            retrieval,
            draft,
        }))
    }

    async fn generate(
        &self,
        ctx: &TurnContext,
        turn: Turn<Retrieved>,
    ) -> Result<Step<Drafted>, StageError> {
        if turn.state.enrichment.subject.is_some() {
            return Ok(self.draft_decision(ctx, turn));
        }
        let Retrieved {
            enrichment,
            retrieval,
        } = &turn.state;
        let generated = match self
            .generator
            .generate(GenerationRequest::new(enrichment, retrieval, false))
            .await
        {
            Ok(generated) => generated,
            Err(GenerateError::GaveUp(reason)) => {
                return Ok(Step::Done(Box::new(
                    turn.escalate(ReasonCode::GeneratorUnavailable, vec![reason]),
                )))
            }
            Err(e) => return Err(StageError::new(StageName::Generate, e)),
        };
        let disclaimer = (retrieval.tier == Tier::Disclaimer).then(|| {
            if enrichment.region_low_confidence {
                self.region_disclaimer_text.clone()
            } else {
                self.disclaimer_text.clone()
            }
        });
        let draft = Draft {
            text: generated.text,
            generator: self.generator.name().to_string(),
            attempts: 1,
            disclaimer,
            fallback_reason: generated.fallback_reason,
            rejected: Vec::new(),
            llm_calls: generated.llm_calls as i32,
            completion_tokens: generated.completion_tokens as i32,
            decision: None,
        };
        let Retrieved {
            enrichment,
            retrieval,
        } = turn.state.clone();
        Ok(Step::Next(turn.advance(Drafted {
            enrichment,
            retrieval,
            draft,
        })))
    }
}

impl Stage for GenerateStage {
    type Input = Retrieved;
    type Output = Drafted;

    fn name(&self) -> StageName {
        StageName::Generate
    }

    fn run<'a>(&'a self, ctx: &'a TurnContext, turn: Turn<Retrieved>) -> StageFuture<'a, Drafted> {
        Box::pin(self.generate(ctx, turn))
    }
}

#[cfg(test)]
#[path = "generate_tests.rs"]
mod tests;
