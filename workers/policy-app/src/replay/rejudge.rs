//! Re-judge: the current judge (and the corpus being served, or a candidate given with
//! `--policies`) over the answers that were actually served, with the clauses retrieved for
//! them, read from the audit store: no retrieval, no generation. Which verdicts would change,
//! and why ("our judge had a gap until last week: were there answers it should have blocked?").

use policy_audit::AuditRow;
use policy_core::judge::{judge, JudgeInput};
use policy_core::text::numeric_facts;
use policy_core::{JudgeVerdict, RetrievedClause};
use policy_pipeline::ServingState;

use super::diff::Verdicts;

/// The judge's rules over one served answer: its text, the clauses retrieved for it as they
/// stand in `serving`'s corpus, its recorded confidence. A decision's dates and amounts were its
/// subject's data: the numbers of its recorded reason, amount and deadline count as grounded.
pub fn rejudge_row(row: &AuditRow, serving: &ServingState, escalate_below: f64) -> Verdicts {
    // Rows written before the retrieved ids were kept: the cited clauses were retrieved.
    let retrieved_ids = if row.retrieved_clause_ids.is_empty() {
        &row.cited_clause_ids
    } else {
        &row.retrieved_clause_ids
    };
    let retrieved: Vec<RetrievedClause> = retrieved_ids
        .iter()
        .filter_map(|id| serving.corpus.clause(id))
        .map(|c| RetrievedClause::new(&c.clause_id, &c.text, 1.0))
        .collect();
    let mut data = format!("{} {}", row.decision_reason, row.decision_amount);
    if let Some(deadline) = chrono::DateTime::from_timestamp_millis(row.decision_deadline_ms)
        .filter(|_| row.decision_deadline_ms > 0)
    {
        data.push_str(&deadline.format(" %Y-%m-%d ").to_string());
    }
    let data_facts = if row.decision_kind.is_empty() {
        Default::default()
    } else {
        numeric_facts(&data)
    };
    let verdict = judge(&JudgeInput {
        answer: &row.answer_text,
        resolved_version: &row.resolved_version,
        retrieved: &retrieved,
        clause_exists: &|id| serving.clause_exists(id),
        confidence: row.confidence,
        escalate_below,
        data_facts: &data_facts,
    });
    Verdicts {
        then: row.judge_verdict.clone(),
        now: if verdict.passed() {
            JudgeVerdict::Pass
        } else {
            JudgeVerdict::Reject
        }
        .as_str()
        .to_string(),
        reasons_now: verdict.reasons.iter().map(ToString::to_string).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served(text: &str, cited: &str) -> AuditRow {
        AuditRow {
            turn_id: "t-1".into(),
            outcome: "answer".into(),
            resolved_version: "eu-v2".into(),
            cited_clause_ids: vec![cited.into()],
            judge_verdict: "pass".into(),
            confidence: 0.9,
            answer_text: text.into(),
            ..Default::default()
        }
    }

    #[test]
    fn an_answer_the_current_rules_reject_is_flagged_with_the_reason() {
        let serving = ServingState::from_corpus(policy_pipeline::fakes::tiny_corpus());
        let kept = rejudge_row(
            &served(
                "You may return most items within 30 days of delivery. [clause: eu-v2#sec-3.2]",
                "eu-v2#sec-3.2",
            ),
            &serving,
            0.5,
        );
        assert_eq!(kept.now, kept.then, "{kept:?}");
        // Served saying 45 days, which eu-v2's clause does not state.
        let flagged = rejudge_row(
            &served(
                "You may return most items within 45 days of delivery. [clause: eu-v2#sec-3.2]",
                "eu-v2#sec-3.2",
            ),
            &serving,
            0.5,
        );
        assert_eq!(flagged.now, "reject");
        assert!(
            flagged.reasons_now[0].starts_with("ungrounded_fact: `45`"),
            "{flagged:?}"
        );
    }
}
