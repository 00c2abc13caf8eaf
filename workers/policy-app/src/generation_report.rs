//! How the answers of an evaluation were generated and what the judge stopped: drafts rejected
//! per reason, LLM requests and fallbacks, tokens and latency, and the two numbers that must
//! stay 0 whatever the generator: answers served that cite a wrong version or a clause that was
//! not retrieved for the turn.

use std::collections::BTreeMap;

use policy_avro::{Generation, PolicyAnswer};
use policy_core::ReasonCode;
use policy_pipeline::Outcome;
use serde::Serialize;

#[derive(Debug, Clone, Default, Serialize)]
pub struct GenerationReport {
    /// Turns that reached the generator (answers, and escalations of a drafted turn).
    pub drafted_turns: usize,
    pub answers_served: usize,
    /// Drafted turns per generator name.
    pub by_generator: BTreeMap<String, usize>,
    /// Drafts the judge rejected, per reason code (a turn can have several reasons per draft).
    pub rejected_by_reason: BTreeMap<String, usize>,
    /// Turns whose first draft was rejected and that were drafted again (stricter prompt).
    pub redrafts: usize,
    /// Requests made to the LLM endpoint, retries included.
    pub llm_requests: usize,
    /// Turns answered by the extractive fallback, per reason kind (`llm_timeout`, ...).
    pub fallbacks: BTreeMap<String, usize>,
    /// Turns escalated because the LLM gave up and the policy is to escalate.
    pub generator_unavailable: usize,
    pub served_citing_wrong_version: usize,
    pub served_citing_unretrieved_clause: usize,
    /// Mean tokens the LLM generated per turn that called it.
    pub completion_tokens_per_llm_turn: f64,
    /// Generate + judge latency per drafted turn.
    pub draft_latency_p50_ms: f64,
    pub draft_latency_p95_ms: f64,
}

impl GenerationReport {
    pub fn from_outcomes(outcomes: &[Outcome]) -> GenerationReport {
        let mut report = GenerationReport::default();
        let mut latencies = Vec::new();
        let (mut tokens, mut llm_turns) = (0usize, 0usize);
        for outcome in outcomes {
            let generation = match outcome {
                Outcome::Answer(answer) => {
                    report.answers_served += 1;
                    report.count_served(answer);
                    answer.generation.clone()
                }
                Outcome::Escalate(escalation) => {
                    if escalation.reason_code == ReasonCode::GeneratorUnavailable.as_str() {
                        report.generator_unavailable += 1;
                    }
                    // The judge rejected the last draft too: its reasons are the escalation's.
                    let generation = Generation::from_context(&escalation.context);
                    if generation.is_some() {
                        for reason in &escalation.reasons {
                            *report
                                .rejected_by_reason
                                .entry(reason_kind(reason))
                                .or_default() += 1;
                        }
                    }
                    generation
                }
            };
            // Escalations without a generation never reached a generator.
            let Some(g) = generation else {
                continue;
            };
            report.count_draft(&g);
            latencies.push(draft_latency(outcome.stage_latency_ms()));
            if g.llm_calls > 0 {
                llm_turns += 1;
                tokens += g.completion_tokens.max(0) as usize;
            }
        }
        report.completion_tokens_per_llm_turn = tokens as f64 / llm_turns.max(1) as f64;
        latencies.sort_by(f64::total_cmp);
        report.draft_latency_p50_ms = crate::loadtest::percentile(&latencies, 0.5);
        report.draft_latency_p95_ms = crate::loadtest::percentile(&latencies, 0.95);
        report
    }

    /// What an answer served cites, against its version and its retrieved clauses.
    fn count_served(&mut self, answer: &PolicyAnswer) {
        self.served_citing_wrong_version += answer
            .citations
            .iter()
            .any(|c| c.version_id != answer.resolved_version)
            as usize;
        if let Some(g) = &answer.generation {
            self.served_citing_unretrieved_clause += answer
                .citations
                .iter()
                .any(|c| !g.retrieved_clause_ids.contains(&c.clause_id))
                as usize;
        }
    }

    /// A drafted turn, answered or escalated: its generator, earlier rejected drafts, LLM
    /// requests and fallback.
    fn count_draft(&mut self, g: &Generation) {
        self.drafted_turns += 1;
        *self.by_generator.entry(g.generator.clone()).or_default() += 1;
        for code in &g.rejected_drafts {
            *self.rejected_by_reason.entry(code.clone()).or_default() += 1;
        }
        self.redrafts += (g.attempts > 1) as usize;
        self.llm_requests += g.llm_calls.max(0) as usize;
        if let Some(reason) = &g.fallback_reason {
            *self.fallbacks.entry(reason_kind(reason)).or_default() += 1;
        }
    }

    pub fn render_text(&self, out: &mut String) {
        use std::fmt::Write as _;
        let join = |map: &BTreeMap<String, usize>| {
            let parts: Vec<String> = map.iter().map(|(k, n)| format!("{k} {n}")).collect();
            if parts.is_empty() {
                "none".to_string()
            } else {
                parts.join(", ")
            }
        };
        let _ = writeln!(out, "\n  generation");
        for (name, value) in [
            ("drafted turns", self.drafted_turns.to_string()),
            ("by generator", join(&self.by_generator)),
            (
                "drafts rejected by the judge",
                join(&self.rejected_by_reason),
            ),
            ("redrafts (strict retry)", self.redrafts.to_string()),
            ("LLM requests", self.llm_requests.to_string()),
            ("fallbacks to extractive", join(&self.fallbacks)),
            (
                "escalated: generator unavailable",
                self.generator_unavailable.to_string(),
            ),
            ("answers served", self.answers_served.to_string()),
            (
                "served citing a wrong version",
                self.served_citing_wrong_version.to_string(),
            ),
            (
                "served citing a non-retrieved clause",
                self.served_citing_unretrieved_clause.to_string(),
            ),
            (
                "completion tokens per LLM turn",
                format!("{:.1}", self.completion_tokens_per_llm_turn),
            ),
            (
                "generate+judge latency p50 / p95",
                format!(
                    "{:.0} ms / {:.0} ms",
                    self.draft_latency_p50_ms, self.draft_latency_p95_ms
                ),
            ),
        ] {
            let _ = writeln!(out, "    {name:<38} {value}");
        }
    }
}

/// `llm_timeout` of `llm_timeout: no answer within 15 s`.
fn reason_kind(reason: &str) -> String {
    reason
        .split(':')
        .next()
        .unwrap_or(reason)
        .trim()
        .to_string()
}

fn draft_latency(stage_latency_ms: &BTreeMap<String, f64>) -> f64 {
    ["generate", "judge"]
        .iter()
        .filter_map(|s| stage_latency_ms.get(*s))
        .sum()
}

#[cfg(test)]
mod tests {
    use policy_avro::{Citation, Escalation};

    use super::*;

    fn answer(cited: &str, retrieved: &[&str], fallback: Option<&str>) -> Outcome {
        Outcome::Answer(PolicyAnswer {
            resolved_version: "eu-v4".into(),
            citations: vec![Citation {
                clause_id: cited.into(),
                version_id: cited.split('#').next().unwrap().into(),
                effective_from: None,
            }],
            generation: Some(Generation {
                generator: "openai-compatible".into(),
                attempts: 2,
                fallback_reason: fallback.map(str::to_string),
                rejected_drafts: vec!["clause_not_retrieved".into()],
                llm_calls: 2,
                completion_tokens: 40,
                retrieved_clause_ids: retrieved.iter().map(|s| s.to_string()).collect(),
            }),
            ..PolicyAnswer::default()
        })
    }

    #[test]
    fn counts_rejections_fallbacks_and_unsafe_answers() {
        let mut rejected = Escalation {
            reason_code: "version_mismatch".into(),
            reasons: vec!["version_mismatch: cites eu-v3#sec-1".into()],
            ..Escalation::default()
        };
        for (k, v) in [
            ("generator", "openai-compatible"),
            ("attempts", "2"),
            ("rejected_drafts", "unknown_clause"),
            ("llm_calls", "2"),
            ("completion_tokens", "20"),
        ] {
            rejected.context.insert(k.into(), v.into());
        }
        let outcomes = vec![
            answer("eu-v4#sec-3.2", &["eu-v4#sec-3.2"], None),
            answer(
                "eu-v4#sec-3.2",
                &["eu-v4#sec-3.2"],
                Some("llm_timeout: no answer within 15 s"),
            ),
            // Would be a defect: cites a clause that was not retrieved, and another version.
            answer("eu-v3#sec-9", &["eu-v4#sec-3.2"], None),
            Outcome::Escalate(rejected),
            Outcome::Escalate(Escalation {
                reason_code: "low_confidence".into(),
                ..Escalation::default()
            }),
        ];
        let report = GenerationReport::from_outcomes(&outcomes);
        assert_eq!(report.drafted_turns, 4);
        assert_eq!(report.answers_served, 3);
        assert_eq!(report.rejected_by_reason["clause_not_retrieved"], 3);
        assert_eq!(report.rejected_by_reason["unknown_clause"], 1);
        assert_eq!(report.rejected_by_reason["version_mismatch"], 1);
        assert_eq!(report.redrafts, 4);
        assert_eq!(report.llm_requests, 8);
        assert_eq!(report.fallbacks["llm_timeout"], 1);
        assert_eq!(report.served_citing_wrong_version, 1);
        assert_eq!(report.served_citing_unretrieved_clause, 1);
        assert_eq!(report.completion_tokens_per_llm_turn, 35.0);
    }
}
