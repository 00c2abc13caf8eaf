//! Deterministic synthetic audit rows for the insert/query benchmark (`policyctl bench audit`).

use crate::row::AuditRow;
use policy_core::{JudgeVerdict, OutcomeKind, Tier};

const REGIONS: &[&str] = &["us", "eu", "jp", "br"];
const TOPICS: &[&str] = &[
    "return_window",
    "refund_timing",
    "free_shipping",
    "gift_cards",
    "auto_renewal",
    "warranty_period",
    "delete_account",
    "order_cancel",
];
const ESCALATION_REASONS: &[&str] = &[
    "low_confidence",
    "version_mismatch",
    "prompt_injection",
    "missing_purchase_date",
];

/// A small xorshift generator: the same seed gives the same rows on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Rows `start..start + count`, spread over `span_seconds` of processing time from `from`.
pub fn rows(start: u64, count: usize, from: u32, span_seconds: u32) -> Vec<AuditRow> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ start.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1);
    (0..count as u64)
        .map(|i| {
            let n = start + i;
            let region = REGIONS[rng.below(REGIONS.len())];
            let topic = TOPICS[rng.below(TOPICS.len())];
            let version_n = 1 + rng.below(3);
            let version = format!("{region}-v{version_n}");
            let escalate = rng.below(20) == 0;
            let processed_at = from + (n % span_seconds.max(1) as u64) as u32;
            let effective_at = processed_at.saturating_sub(rng.below(400 * 86_400) as u32);
            let cited = format!("{version}#sec-{}.{}", 1 + rng.below(10), 1 + rng.below(5));
            let mut row = AuditRow {
                turn_id: format!("synthetic-{n}"),
                conversation_id: format!("conv-{}", n / 3),
                outcome: if escalate {
                    OutcomeKind::Escalate
                } else {
                    OutcomeKind::Answer
                }
                .as_str()
                .into(),
                question: format!("synthetic question about {topic}"),
                resolved_region: region.into(),
                region_source: "session".into(),
                region_disagreement: (rng.below(50) == 0).into(),
                ip_region: REGIONS[rng.below(REGIONS.len())].into(),
                resolved_version: version.clone(),
                effective_at,
                has_effective_at: 1,
                manifest_sha: "synthetic".into(),
                topic: topic.into(),
                tier: Tier::Answer.as_str().into(),
                confidence: 0.5 + rng.below(50) as f64 / 100.0,
                judge_verdict: if escalate {
                    JudgeVerdict::Reject
                } else {
                    JudgeVerdict::Pass
                }
                .as_str()
                .into(),
                latency_enrich_ms: 0.2 + rng.below(100) as f64 / 100.0,
                latency_retrieve_ms: 1.0 + rng.below(300) as f64 / 100.0,
                latency_generate_ms: 0.1 + rng.below(50) as f64 / 100.0,
                latency_judge_ms: 0.1 + rng.below(20) as f64 / 100.0,
                input_topic: "policy.turns".into(),
                input_partition: (n % 6) as i32,
                input_offset: (n / 6) as i64,
                source_topic: "policy.answers".into(),
                source_partition: (n % 6) as i32,
                source_offset: (n / 6) as i64,
                processed_at,
                processed_at_ms: processed_at as u64 * 1000,
                ..Default::default()
            };
            row.latency_total_ms = row.latency_enrich_ms
                + row.latency_retrieve_ms
                + row.latency_generate_ms
                + row.latency_judge_ms;
            if escalate {
                row.reason_code = ESCALATION_REASONS[rng.below(ESCALATION_REASONS.len())].into();
            } else {
                row.cited_clause_ids = vec![cited];
                row.cited_versions = vec![version];
                row.cited_effective_from =
                    vec![effective_at.saturating_sub(rng.below(700) as u32 * 86_400)];
                row.answer_text = format!(
                    "{topic} answer variant {} [clause: {}]",
                    rng.below(3),
                    row.cited_clause_ids[0]
                );
            }
            row
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_unique_and_within_the_span() {
        let a = rows(0, 500, 1_790_000_000, 3600);
        assert_eq!(a, rows(0, 500, 1_790_000_000, 3600));
        let ids: std::collections::BTreeSet<&str> = a.iter().map(|r| r.turn_id.as_str()).collect();
        assert_eq!(ids.len(), 500);
        assert!(a
            .iter()
            .all(|r| (1_790_000_000..1_790_003_600).contains(&r.processed_at)));
        let escalations = a
            .iter()
            .filter(|r| r.outcome == OutcomeKind::Escalate.as_str())
            .count();
        assert!((5..60).contains(&escalations), "about 5%: {escalations}");
        assert_ne!(rows(500, 1, 0, 10)[0].turn_id, a[0].turn_id);
    }
}
