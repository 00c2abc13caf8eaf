//! Final outcomes: exactly one per turn, an answer or an escalation, keyed by conversation and
//! carrying the turn id so that consumers can de-duplicate re-deliveries.

use std::collections::BTreeMap;

use policy_avro::{Escalation, PolicyAnswer, TurnState};

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

    /// Milliseconds spent in each stage the turn went through.
    pub fn stage_latency_ms(&self) -> impl Iterator<Item = (&str, f64)> {
        let latencies = match self {
            Outcome::Answer(a) => &a.stage_latency_ms,
            Outcome::Escalate(e) => &e.stage_latency_ms,
        };
        latencies.iter().map(|(stage, ms)| (stage.as_str(), *ms))
    }
}

/// What a stage hands on: the turn for the next stage, or the turn's final outcome.
#[derive(Debug, Clone, PartialEq)]
pub enum StageOutcome {
    Continue(Box<TurnState>),
    Final(Box<Outcome>),
}

pub use policy_avro::now_millis;

/// Builds the escalation ticket for a turn at whatever stage it stopped.
pub fn escalate(state: &TurnState, reason_code: &str, reasons: Vec<String>) -> Outcome {
    let enrichment = state.enrichment.as_ref();
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
    if let Some(r) = &state.retrieval {
        context.insert("confidence".into(), format!("{:.3}", r.confidence));
        let top: Vec<&str> = r
            .clauses
            .iter()
            .take(3)
            .map(|c| c.clause_id.as_str())
            .collect();
        context.insert("top_clauses".into(), top.join(","));
    }
    let question = enrichment
        .map(|e| e.sanitized_question.clone())
        .unwrap_or_else(|| state.turn.question.clone());
    let region = enrichment
        .map(|e| e.region.as_str())
        .unwrap_or("unknown region");
    let summary = format!(
        "Customer question needs a human agent ({reason_code}); region {region}: \"{}\"",
        question.chars().take(200).collect::<String>()
    );
    Outcome::Escalate(Escalation {
        conversation_id: state.turn.conversation_id.clone(),
        turn_id: state.turn.turn_id.clone(),
        user_id: state.turn.user_id.clone(),
        question,
        reason_code: reason_code.to_string(),
        reasons,
        summary,
        resolved_region: enrichment.map(|e| e.region.clone()),
        resolved_version: enrichment
            .map(|e| e.version_id.clone())
            .filter(|v| !v.is_empty()),
        manifest_sha: enrichment.map(|e| e.manifest_sha.clone()),
        context,
        input: state.input.clone(),
        stage_latency_ms: state.stage_latency_ms.clone(),
        escalated_at: now_millis(),
        topic: None,
        ip_region: state.turn.ip_region.clone(),
    })
}
