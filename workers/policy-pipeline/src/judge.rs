//! Judge: every answer passes the deterministic rules of `policy_core::judge` or becomes an
//! escalation. An LLM answer that fails gets one stricter retry first.

use std::convert::Infallible;
use std::sync::Arc;

use policy_avro::{Citation, Draft, Generation, PolicyAnswer};
use policy_core::judge::{judge, JudgeInput, JudgeReason, Verdict};
use policy_core::{ClauseRef, JudgeVerdict};

use crate::decide::{data_facts, decision_problems};
use crate::generate::{GenerateError, GenerationRequest, Generator};
use crate::outcome::{now_millis, Outcome};
use crate::serving::ServingState;
use crate::stage::{Stage, StageError, StageFuture, StageName, Step, TurnContext};
use crate::state::{Drafted, Retrieval, Turn};

#[derive(Debug)]
pub struct JudgeStage {
    generator: Arc<dyn Generator>,
    escalate_below: f64,
}

/// The judge's rules applied to a drafted turn, against the serving state it was pinned to.
pub fn verdict_for(turn: &Turn<Drafted>, serving: &ServingState, escalate_below: f64) -> Verdict {
    let Drafted {
        enrichment,
        retrieval,
        draft,
    } = &turn.state;
    let data_facts = data_facts(enrichment.subject.as_ref(), draft.decision.as_deref());
    let mut verdict = judge(&JudgeInput {
        answer: &draft.text,
        resolved_version: &enrichment.version_id,
        retrieved: &retrieval.clauses,
        clause_exists: &|id| serving.clause_exists(id),
        confidence: retrieval.confidence,
        escalate_below,
        data_facts: &data_facts,
    });
    if let Some(decision) = &draft.decision {
        verdict.reasons.extend(
            decision_problems(serving, &enrichment.version_id, decision, &draft.text)
                .into_iter()
                .map(|problem| JudgeReason::DecisionUnsupported { problem }),
        );
    }
    verdict
}

impl JudgeStage {
    pub fn new(generator: Arc<dyn Generator>, escalate_below: f64) -> JudgeStage {
        JudgeStage {
            generator,
            escalate_below,
        }
    }

    /// Confidence below which the judge refuses an answer.
    pub fn escalate_below(&self) -> f64 {
        self.escalate_below
    }

    async fn judge(
        &self,
        serving: &ServingState,
        mut turn: Turn<Drafted>,
    ) -> Result<Outcome, StageError> {
        let mut verdict = verdict_for(&turn, serving, self.escalate_below);
        // A decision is never rewritten by a model: its rejection stands.
        let retry = self.generator.retries_on_rejection() && turn.state.draft.decision.is_none();
        if !verdict.passed() && retry {
            let Drafted {
                enrichment,
                retrieval,
                ..
            } = &turn.state;
            let retried = self
                .generator
                .generate(GenerationRequest::new(enrichment, retrieval, true))
                .await;
            let generated = match retried {
                Ok(generated) => generated,
                // The LLM gave up on the retry: the first draft's rejection stands.
                Err(GenerateError::GaveUp(reason)) => {
                    tracing::debug!(reason, "strict retry gave up");
                    return Ok(outcome(turn, &verdict, serving));
                }
                Err(e) => return Err(StageError::new(StageName::Judge, e)),
            };
            let draft = &mut turn.state.draft;
            draft.rejected.extend(
                verdict
                    .reasons
                    .iter()
                    .map(|r| r.code().as_str().to_string()),
            );
            draft.text = generated.text;
            draft.attempts += 1;
            draft.llm_calls += generated.llm_calls as i32;
            draft.completion_tokens += generated.completion_tokens as i32;
            if generated.fallback_reason.is_some() {
                draft.fallback_reason = generated.fallback_reason;
            }
            verdict = verdict_for(&turn, serving, self.escalate_below);
        }
        Ok(outcome(turn, &verdict, serving))
    }
}

/// How a drafted turn's text was produced, for the answer and the audit row.
fn generation(retrieval: &Retrieval, draft: &Draft) -> Generation {
    Generation {
        generator: draft.generator.clone(),
        attempts: draft.attempts,
        fallback_reason: draft.fallback_reason.clone(),
        rejected_drafts: draft.rejected.clone(),
        llm_calls: draft.llm_calls,
        completion_tokens: draft.completion_tokens,
        retrieved_clause_ids: retrieval.clauses.iter().map(|c| c.clause_id()).collect(),
    }
}

/// The outcome a verdict gives a drafted turn: the answer, or an escalation carrying every
/// reason and what the rejected draft cited.
pub fn outcome(turn: Turn<Drafted>, verdict: &Verdict, serving: &ServingState) -> Outcome {
    match verdict.reasons.first() {
        None => answer(turn, verdict, serving),
        Some(first) => {
            let reasons = verdict.reasons.iter().map(ToString::to_string).collect();
            let mut outcome = turn.escalate(first.code(), reasons);
            if let Outcome::Escalate(escalation) = &mut outcome {
                escalation.topic = drafted_topic(&turn, verdict, serving);
                // What the rejected draft cited: the audit measures grounding on every draft,
                // not only on the answers that passed.
                escalation
                    .context
                    .insert("draft_citations".into(), verdict.cited.join(","));
                let generation = generation(&turn.state.retrieval, &turn.state.draft);
                generation.write_context(&mut escalation.context);
                escalation.decision = turn.state.draft.decision.as_deref().cloned();
            }
            outcome
        }
    }
}

impl Stage for JudgeStage {
    type Input = Drafted;
    type Output = Infallible;

    fn name(&self) -> StageName {
        StageName::Judge
    }

    fn run<'a>(&'a self, ctx: &'a TurnContext, turn: Turn<Drafted>) -> StageFuture<'a, Infallible> {
        Box::pin(async move {
            let outcome = self.judge(&ctx.serving, turn).await?;
            Ok(Step::Done(Box::new(outcome)))
        })
    }
}

/// The topic a rejected draft was about: its first known citation, else the top retrieved clause.
fn drafted_topic(
    turn: &Turn<Drafted>,
    verdict: &Verdict,
    serving: &ServingState,
) -> Option<String> {
    let top_retrieved = turn.state.retrieval.clauses.first().map(|c| c.clause_id());
    verdict
        .cited
        .iter()
        .cloned()
        .chain(top_retrieved)
        .find_map(|id| serving.corpus.clause(&id).and_then(|c| c.topic.clone()))
}

fn answer(turn: Turn<Drafted>, verdict: &Verdict, serving: &ServingState) -> Outcome {
    let received = Some(turn.received());
    let Drafted {
        enrichment,
        retrieval,
        draft,
    } = turn.state;
    let citations = verdict
        .cited
        .iter()
        .map(|id| Citation {
            clause_id: id.clone(),
            version_id: ClauseRef::version_of(id).to_string(),
            effective_from: serving
                .corpus
                .clause(id)
                .map(|c| c.effective_from.timestamp_millis()),
        })
        .collect();
    let topic = verdict
        .cited
        .iter()
        .find_map(|id| serving.corpus.clause(id).and_then(|c| c.topic.clone()));
    let generation = Some(generation(&retrieval, &draft));
    Outcome::Answer(PolicyAnswer {
        conversation_id: turn.turn.conversation_id,
        turn_id: turn.turn.turn_id,
        user_id: turn.turn.user_id,
        question: enrichment.sanitized_question,
        answer_text: draft.text,
        citations,
        resolved_region: enrichment.region,
        region_source: enrichment.region_source,
        region_disagreement: enrichment.region_disagreement,
        resolved_version: enrichment.version_id,
        effective_at: enrichment.effective_at,
        manifest_sha: enrichment.manifest_sha,
        confidence: retrieval.confidence,
        tier: retrieval.tier.as_str().to_string(),
        disclaimer: draft.disclaimer,
        banner: enrichment.banner,
        judge_verdict: JudgeVerdict::Pass.as_str().into(),
        judge_reasons: Vec::new(),
        input: turn.input,
        stage_latency_ms: turn.stage_latency_ms,
        answered_at: now_millis(),
        topic,
        ip_region: turn.turn.ip_region,
        generation,
        received,
        intent: enrichment.intent,
        decision: draft.decision.map(|d| *d),
    })
}
