//! Re-judge: the current judge (and the corpus being served, or a candidate given with
//! `--policies`) over the answers that were actually served, with the clauses retrieved for
//! them, read from the audit store: no retrieval, no generation. Which verdicts would change,
//! and why ("our judge had a gap until last week: were there answers it should have blocked?").

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use policy_audit::{AuditConfig, AuditRow, AuditStore};
use policy_core::judge::{judge, JudgeInput};
use policy_core::text::numeric_facts;
use policy_core::{JudgeVerdict, RetrievedClause};
use policy_pipeline::ServingState;
use serde::Serialize;

use crate::replay::{audit_row, checked_corpus, sql_list, Source};
use crate::settings::AppSettings;

/// One served answer, judged again.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rejudged {
    pub turn_id: String,
    pub resolved_version: String,
    pub cited_clause_ids: Vec<String>,
    /// The verdict recorded when it was served, and the current judge's.
    pub verdict_then: String,
    pub verdict_now: String,
    /// Every reason of the current judge (empty when it passes).
    pub reasons_now: Vec<String>,
    pub text: String,
}

impl Rejudged {
    pub fn changed(&self) -> bool {
        self.verdict_then != self.verdict_now
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct RejudgeReport {
    pub rejudged: Vec<Rejudged>,
}

impl RejudgeReport {
    pub fn changed(&self) -> usize {
        self.rejudged.iter().filter(|r| r.changed()).count()
    }

    pub fn render_text(&self) -> String {
        let mut by_reason: BTreeMap<String, usize> = BTreeMap::new();
        let mut by_version: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for r in &self.rejudged {
            let entry = by_version.entry(r.resolved_version.as_str()).or_default();
            entry.0 += 1;
            if r.changed() {
                entry.1 += 1;
                for reason in &r.reasons_now {
                    let code = reason.split(':').next().unwrap_or(reason).to_string();
                    *by_reason.entry(code).or_default() += 1;
                }
            }
        }
        let mut out = format!(
            "rejudged {} served answer(s): {} verdict(s) would change\n",
            self.rejudged.len(),
            self.changed()
        );
        for (version, (answers, changed)) in &by_version {
            out.push_str(&format!(
                "  {version:<10} {answers:>6} answers {changed:>6} changed\n"
            ));
        }
        for (code, n) in &by_reason {
            out.push_str(&format!("  reason {code}: {n}\n"));
        }
        for r in self.rejudged.iter().filter(|r| r.changed()).take(20) {
            out.push_str(&format!(
                "  {} ({}): {} -> {}: {}\n",
                r.turn_id,
                r.resolved_version,
                r.verdict_then,
                r.verdict_now,
                r.reasons_now.join("; ")
            ));
        }
        out
    }
}

/// The served answers of `source` (audit condition or turn ids), judged again against the
/// corpus of `settings`.
pub async fn run(
    settings: &AppSettings,
    audit: &AuditConfig,
    source: &Source,
    out: Option<&Path>,
) -> anyhow::Result<RejudgeReport> {
    let selection = match source {
        Source::AuditWhere(condition) => {
            anyhow::ensure!(
                !condition.contains(';'),
                "--audit-where takes a condition, not statements"
            );
            format!("({condition})")
        }
        Source::TurnIds(ids) => format!("turn_id IN ({})", sql_list(ids)?),
        _ => anyhow::bail!(
            "--rejudge reads what was served from the audit store: select it with --audit-where or --turn-id"
        ),
    };
    let corpus = Arc::new(checked_corpus(&settings.corpus.policies)?);
    let serving = ServingState::from_corpus(corpus);
    let store = AuditStore::connect(audit).await?;
    let rows = store
        .query_json(
            "rejudge",
            &format!(
                "SELECT * FROM {}.turns FINAL WHERE outcome = 'answer' AND {selection} ORDER BY turn_id",
                audit.database
            ),
        )
        .await?;
    let rejudged: Vec<Rejudged> = rows
        .iter()
        .map(|json| {
            rejudge_row(
                &audit_row(json),
                &serving,
                settings.pipeline.disclaimer_threshold,
            )
        })
        .collect();
    if let Some(path) = out {
        let lines: Vec<String> = rejudged
            .iter()
            .map(serde_json::to_string)
            .collect::<Result<_, _>>()?;
        std::fs::write(path, lines.join("\n") + "\n")?;
    }
    Ok(RejudgeReport { rejudged })
}

/// The judge's rules over one served answer: its text, the clauses retrieved for it as they
/// stand in `serving`'s corpus, its recorded confidence. A decision's dates and amounts were its
/// subject's data: the numbers of its recorded reason, amount and deadline count as grounded.
pub fn rejudge_row(row: &AuditRow, serving: &ServingState, escalate_below: f64) -> Rejudged {
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
    Rejudged {
        turn_id: row.turn_id.clone(),
        resolved_version: row.resolved_version.clone(),
        cited_clause_ids: row.cited_clause_ids.clone(),
        verdict_then: row.judge_verdict.clone(),
        verdict_now: if verdict.passed() {
            JudgeVerdict::Pass
        } else {
            JudgeVerdict::Reject
        }
        .as_str()
        .to_string(),
        reasons_now: verdict.reasons.iter().map(ToString::to_string).collect(),
        text: row.answer_text.clone(),
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
        assert!(!kept.changed(), "{kept:?}");
        // Served saying 45 days, which eu-v2's clause does not state.
        let flagged = rejudge_row(
            &served(
                "You may return most items within 45 days of delivery. [clause: eu-v2#sec-3.2]",
                "eu-v2#sec-3.2",
            ),
            &serving,
            0.5,
        );
        assert!(flagged.changed());
        assert_eq!(flagged.verdict_now, "reject");
        assert!(
            flagged.reasons_now[0].starts_with("ungrounded_fact: `45`"),
            "{flagged:?}"
        );
    }
}
