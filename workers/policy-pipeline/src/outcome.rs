//! Final outcomes: exactly one per turn, an answer or an escalation, keyed by conversation and
//! carrying the turn id so that consumers can de-duplicate re-deliveries.

use std::collections::BTreeMap;

use policy_avro::{Enrichment, Escalation, PolicyAnswer};
use policy_core::{Intent, ReasonCode};

use crate::state::{Retrieval, StateParts, Turn};

// An outcome is built once per turn and moved to its sink, never held in bulk: boxing the
// answer would cost an allocation per turn for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Answer(PolicyAnswer),
    Escalate(Escalation),
}

impl Outcome {
    pub fn turn_id(&self) -> &str {
        match self {
            Outcome::Answer(a) => &a.turn_id,
            Outcome::Escalate(e) => &e.turn_id,
        }
    }

    pub fn conversation_id(&self) -> &str {
        match self {
            Outcome::Answer(a) => &a.conversation_id,
            Outcome::Escalate(e) => &e.conversation_id,
        }
    }

    /// What the turn asked for (`policy_core::Intent` spelling).
    pub fn intent(&self) -> &str {
        match self {
            Outcome::Answer(a) => &a.intent,
            Outcome::Escalate(e) => &e.intent,
        }
    }

    /// The escalation's reason, `None` for an answer.
    pub fn reason_code(&self) -> Option<ReasonCode> {
        match self {
            Outcome::Answer(_) => None,
            Outcome::Escalate(e) => e.reason_code.parse().ok(),
        }
    }

    /// Milliseconds spent in each stage the turn went through.
    pub fn stage_latency_ms(&self) -> &BTreeMap<String, f64> {
        match self {
            Outcome::Answer(a) => &a.stage_latency_ms,
            Outcome::Escalate(e) => &e.stage_latency_ms,
        }
    }

    pub fn stage_latency_ms_mut(&mut self) -> &mut BTreeMap<String, f64> {
        match self {
            Outcome::Answer(a) => &mut a.stage_latency_ms,
            Outcome::Escalate(e) => &mut e.stage_latency_ms,
        }
    }
}

pub use policy_avro::now_millis;

impl<S: StateParts> Turn<S> {
    /// The escalation ticket for this turn, with whatever its state knows.
    pub fn escalate(&self, code: ReasonCode, reasons: Vec<String>) -> Outcome {
        escalation(
            self,
            self.state.enrichment(),
            self.state.retrieval(),
            code,
            reasons,
        )
    }
}

/// The escalation ticket for a turn that stopped at any stage, with the parts known so far
/// (enrich escalates with a partial enrichment before its state exists).
pub fn escalation<S>(
    turn: &Turn<S>,
    enrichment: Option<&Enrichment>,
    retrieval: Option<&Retrieval>,
    code: ReasonCode,
    reasons: Vec<String>,
) -> Outcome {
    let mut context = BTreeMap::new();
    if let Some(e) = enrichment {
        context.insert("region_source".into(), e.region_source.clone());
        context.insert(
            "region_disagreement".into(),
            e.region_disagreement.to_string(),
        );
        if let Some(at) = e.effective_at {
            context.insert("effective_at_ms".into(), at.to_string());
        }
        if !e.guardrail_flags.is_empty() {
            context.insert("guardrail_flags".into(), e.guardrail_flags.join(","));
        }
    }
    if let Some(r) = retrieval {
        context.insert("confidence".into(), format!("{:.3}", r.confidence));
        let top: Vec<String> = r.clauses.iter().take(3).map(|c| c.clause_id()).collect();
        context.insert("top_clauses".into(), top.join(","));
    }
    let question = enrichment
        .map(|e| e.sanitized_question.clone())
        .unwrap_or_else(|| turn.turn.question.clone());
    let region = enrichment
        .map(|e| e.region.as_str())
        .filter(|r| !r.is_empty())
        .unwrap_or("unknown region");
    // The gate's finding is the turn's intent: the question is outside what the corpus covers.
    let intent = match (code, enrichment) {
        (ReasonCode::OutOfScope, _) => Intent::OutOfScope.as_str().to_string(),
        (_, Some(e)) if !e.intent.is_empty() => e.intent.clone(),
        _ => Intent::PolicyFaq.as_str().to_string(),
    };
    let summary = format!(
        "Customer question needs a human agent ({code}); region {region}: \"{}\"",
        question.chars().take(200).collect::<String>()
    );
    Outcome::Escalate(Escalation {
        conversation_id: turn.turn.conversation_id.clone(),
        turn_id: turn.turn.turn_id.clone(),
        user_id: turn.turn.user_id.clone(),
        question,
        reason_code: code.as_str().to_string(),
        reasons,
        summary,
        resolved_region: enrichment.map(|e| e.region.clone()),
        resolved_version: enrichment
            .map(|e| e.version_id.clone())
            .filter(|v| !v.is_empty()),
        manifest_sha: enrichment.map(|e| e.manifest_sha.clone()),
        context,
        input: turn.input.clone(),
        stage_latency_ms: turn.stage_latency_ms.clone(),
        escalated_at: now_millis(),
        topic: None,
        ip_region: turn.turn.ip_region.clone(),
        received: Some(turn.received()),
        intent,
        decision: None,
    })
}
