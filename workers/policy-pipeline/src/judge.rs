//! Judge: every answer passes the deterministic rules of `policy_core::judge` or becomes an
//! escalation. An LLM answer that fails gets one stricter retry first.

use std::sync::Arc;

use policy_avro::{Citation, Draft, PolicyAnswer, TurnState};
use policy_core::judge::{judge, JudgeInput, RetrievedClause, Verdict};

use crate::generate::{GenerateError, GenerationRequest, Generator};
use crate::outcome::{escalate, now_millis, Outcome};
use crate::serving::ServingState;

pub struct JudgeStage {
    generator: Arc<dyn Generator>,
    escalate_below: f64,
}

fn verdict_for(state: &TurnState, serving: &ServingState, escalate_below: f64) -> Verdict {
    let enrichment = state.enrichment.as_ref().expect("judge runs after enrich");
    let retrieval = state.retrieval.as_ref().expect("judge runs after retrieve");
    let draft = state.draft.as_ref().expect("judge runs after generate");
    let retrieved: Vec<RetrievedClause<'_>> = retrieval
        .clauses
        .iter()
        .map(|c| RetrievedClause {
            clause_id: &c.clause_id,
            text: &c.text,
            retired: c.status == policy_core::retention::RETIRED,
        })
        .collect();
    judge(&JudgeInput {
        answer: &draft.text,
        resolved_version: &enrichment.version_id,
        retrieved: &retrieved,
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

    pub async fn judge(
        &self,
        serving: &ServingState,
        mut state: TurnState,
    ) -> Result<Outcome, GenerateError> {
        let mut verdict = verdict_for(&state, serving, self.escalate_below);
        if !verdict.passed() && self.generator.retries_on_rejection() {
            let request = GenerationRequest::for_turn(&state, true);
            let text = self.generator.generate(request).await?;
            let draft = state.draft.as_mut().expect("drafted");
            draft.text = text;
            draft.attempts += 1;
            verdict = verdict_for(&state, serving, self.escalate_below);
        }
        if !verdict.passed() {
            let code = verdict.reasons[0].code();
            let reasons = verdict.reasons.iter().map(ToString::to_string).collect();
            let mut outcome = escalate(&state, code, reasons);
            if let Outcome::Escalate(escalation) = &mut outcome {
                escalation.topic = drafted_topic(&state, &verdict, serving);
                // What the rejected draft cited: the audit measures grounding on every draft,
                // not only on the answers that passed.
                escalation
                    .context
                    .insert("draft_citations".into(), verdict.cited.join(","));
            }
            return Ok(outcome);
        }
        Ok(answer(state, &verdict, serving))
    }
}

/// The topic a rejected draft was about: its first known citation, else the top retrieved clause.
fn drafted_topic(state: &TurnState, verdict: &Verdict, serving: &ServingState) -> Option<String> {
    let top_retrieved = state
        .retrieval
        .as_ref()
        .and_then(|r| r.clauses.first())
        .map(|c| c.clause_id.as_str());
    verdict
        .cited
        .iter()
        .map(String::as_str)
        .chain(top_retrieved)
        .find_map(|id| serving.corpus.clause(id).and_then(|c| c.topic.clone()))
}

fn answer(state: TurnState, verdict: &Verdict, serving: &ServingState) -> Outcome {
    let enrichment = state.enrichment.expect("enriched");
    let retrieval = state.retrieval.expect("retrieved");
    let Draft {
        text, disclaimer, ..
    } = state.draft.expect("drafted");
    let citations = verdict
        .cited
        .iter()
        .map(|id| Citation {
            clause_id: id.clone(),
            version_id: id.split('#').next().unwrap_or_default().to_string(),
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
        conversation_id: state.turn.conversation_id,
        turn_id: state.turn.turn_id,
        user_id: state.turn.user_id,
        question: enrichment.sanitized_question,
        answer_text: text,
        citations,
        resolved_region: enrichment.region,
        region_source: enrichment.region_source,
        region_disagreement: enrichment.region_disagreement,
        resolved_version: enrichment.version_id,
        effective_at: enrichment.effective_at,
        manifest_sha: enrichment.manifest_sha,
        confidence: retrieval.confidence,
        tier: retrieval.tier,
        disclaimer,
        banner: enrichment.banner,
        judge_verdict: "pass".into(),
        judge_reasons: Vec::new(),
        input: state.input,
        stage_latency_ms: state.stage_latency_ms,
        answered_at: now_millis(),
        topic,
        ip_region: state.turn.ip_region,
    })
}
