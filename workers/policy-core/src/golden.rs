//! Golden cases: ground truth keyed by (question, region, effective date), and the check that
//! the golden set agrees with the corpus it is judged against.

use std::collections::BTreeSet;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::corpus::Corpus;
use crate::instant::parse_instant;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpectedOutcome {
    Answer,
    Escalate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GoldenCase {
    pub id: String,
    pub question: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_region: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing_region: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip_region: Option<String>,
    /// Date or RFC 3339 timestamp (any offset: normalised to UTC); `None` tests the
    /// missing-date path.
    pub effective_date: Option<String>,
    /// When the turn is sent (pinned, never `now()`); needed when `effective_date` is missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_at: Option<String>,
    pub expected_outcome: ExpectedOutcome,
    pub expected_version_id: Option<String>,
    pub expected_clause_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_answer_template: Option<String>,
    #[serde(default)]
    pub expected_answer_contains: Vec<String>,
    pub decay_class: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub employee_level: Option<String>,
    /// The order a decision is about (looked up in the order source, never taken from `order`,
    /// which holds what the customer states).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_id: Option<String>,
    /// The employee asking (looked up in the employee directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub employee_id: Option<String>,
    /// The intent the turn should be detected as (`return_eligibility`, `expense_approval`...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_intent: Option<String>,
    /// For a decision: returnable / refundable / approved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_eligible: Option<bool>,
    /// For an escalation: the reason code expected (`not_covered_in_version`, `out_of_scope`,
    /// ...), checked as a secondary figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_reason: Option<String>,
    /// Free-form labels (`cutover`, `injection`, `renumbered`...) for per-slice metrics.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

/// Pinned default send time for cases that do not set `sent_at`.
pub const DEFAULT_SENT_AT: &str = "2026-11-01T12:00:00Z";

impl GoldenCase {
    /// The session region, falling back to `region` (the simple form of a case).
    pub fn session_signal(&self) -> Option<&str> {
        self.session_region.as_deref().or(self.region.as_deref())
    }

    pub fn effective_instant(&self) -> Result<Option<DateTime<Utc>>, String> {
        self.effective_date
            .as_deref()
            .map(parse_instant)
            .transpose()
            .map_err(|e| format!("effective_date: {e}"))
    }

    pub fn sent_instant(&self) -> Result<DateTime<Utc>, String> {
        parse_instant(self.sent_at.as_deref().unwrap_or(DEFAULT_SENT_AT))
            .map_err(|e| format!("sent_at: {e}"))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{source_name}:{line}: {reason}")]
pub struct GoldenError {
    pub source_name: String,
    pub line: usize,
    pub reason: String,
}

pub fn parse_cases(jsonl: &str, source_name: &str) -> Result<Vec<GoldenCase>, GoldenError> {
    jsonl
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| GoldenError {
                source_name: source_name.to_string(),
                line: i + 1,
                reason: e.to_string(),
            })
        })
        .collect()
}

/// Reads one `.jsonl` file, or every `.jsonl` file of a directory in name order.
pub fn load_cases(path: &Path) -> Result<Vec<GoldenCase>, GoldenError> {
    let io_error = |reason: String| GoldenError {
        source_name: path.display().to_string(),
        line: 0,
        reason,
    };
    let files = if path.is_dir() {
        let mut files: Vec<_> = std::fs::read_dir(path)
            .map_err(|e| io_error(e.to_string()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("jsonl"))
            .collect();
        files.sort();
        files
    } else {
        vec![path.to_path_buf()]
    };
    let mut cases = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file)
            .map_err(|e| io_error(format!("{}: {e}", file.display())))?;
        cases.extend(parse_cases(&text, &file.display().to_string())?);
    }
    Ok(cases)
}

/// Every way a golden set can disagree with its corpus. An empty result means the ground truth
/// is consistent: expected clauses exist in the expected version and contain the expected facts.
pub fn validate_cases(corpus: &Corpus, cases: &[GoldenCase]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut ids = BTreeSet::new();
    for case in cases {
        let mut problem = |reason: String| problems.push(format!("{}: {reason}", case.id));
        if !ids.insert(case.id.as_str()) {
            problem("duplicate case id".into());
        }
        // Unusable input is a legitimate escalation case; an answer needs a question.
        if case.question.trim().is_empty() && case.expected_outcome == ExpectedOutcome::Answer {
            problem("empty question in an answer case".into());
        }
        let effective = match case.effective_instant() {
            Ok(t) => t,
            Err(e) => {
                problem(e);
                None
            }
        };
        if let Err(e) = case.sent_instant() {
            problem(e);
        }
        let has_region = [
            &case.region,
            &case.session_region,
            &case.billing_region,
            &case.ip_region,
        ]
        .iter()
        .any(|r| r.is_some());
        if !has_region && case.expected_outcome == ExpectedOutcome::Answer {
            problem("an answerable case needs a region signal".into());
        }
        match case.expected_outcome {
            ExpectedOutcome::Escalate => {
                if case.expected_clause_id.is_some() {
                    problem("escalation cases must have expected_clause_id null".into());
                }
            }
            ExpectedOutcome::Answer => {
                let (Some(version_id), Some(clause_id)) =
                    (&case.expected_version_id, &case.expected_clause_id)
                else {
                    problem("answer cases need expected_version_id and expected_clause_id".into());
                    continue;
                };
                let Some(version) = corpus.manifest().version(version_id) else {
                    problem(format!(
                        "expected version `{version_id}` is not in the manifest"
                    ));
                    continue;
                };
                let instant = match (effective, case.sent_instant()) {
                    (Some(t), _) => Some(t),
                    (None, Ok(sent)) => Some(sent),
                    (None, Err(_)) => None,
                };
                if let Some(instant) = instant.filter(|t| !version.contains(*t)) {
                    problem(format!("`{version_id}` is not in force at {instant}"));
                }
                let Some(clause) = corpus.clause(clause_id) else {
                    problem(format!("expected clause `{clause_id}` does not exist"));
                    continue;
                };
                if clause.version_id != *version_id {
                    problem(format!(
                        "clause `{clause_id}` is not in version `{version_id}`"
                    ));
                }
                let text = clause.text.to_lowercase();
                for fact in &case.expected_answer_contains {
                    if !text.contains(&fact.to_lowercase()) {
                        problem(format!("`{fact}` does not appear in `{clause_id}`"));
                    }
                }
            }
        }
    }
    problems
}

#[cfg(test)]
#[path = "golden_tests.rs"]
mod tests;
