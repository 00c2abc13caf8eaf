//! Judge: every answer passes the deterministic rules of `policy_core::judge` or becomes an
//! escalation. An LLM answer that fails gets one stricter retry first.

use std::convert::Infallible;
use std::sync::Arc;

use policy_avro::{Citation, PolicyAnswer};
use policy_core::judge::{judge, JudgeInput, Verdict};
use policy_core::{ClauseRef, JudgeVerdict};

use crate::generate::{GenerationRequest, Generator};
use crate::outcome::{now_millis, Outcome};
use crate::serving::ServingState;
use crate::stage::{Stage, StageError, StageFuture, StageName, Step, TurnContext};
use crate::state::{Drafted, Turn};

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
    judge(&JudgeInput {
        answer: &draft.text,
        resolved_version: &enrichment.version_id,
        retrieved: &retrieval.clauses,
        clause_exists: &|id| serving.clause_exists(id),
        confidence: retrieval.confidence,
        escalate_below,
    })
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
        if !verdict.passed() && self.generator.retries_on_rejection() {
            let Drafted {
                enrichment,
                retrieval,
                ..
            } = &turn.state;
            let text = self
                .generator
                .generate(GenerationRequest::new(enrichment, retrieval, true))
                .await
                .map_err(|e| StageError::new(StageName::Judge, e))?;
            turn.state.draft.text = text;
            turn.state.draft.attempts += 1;
            verdict = verdict_for(&turn, serving, self.escalate_below);
        }
        Ok(outcome(turn, &verdict, serving))
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
    })
}
