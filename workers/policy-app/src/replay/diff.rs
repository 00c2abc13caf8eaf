//! What a turn's outcome said (as recorded in its audit row, or as a re-run produces it) and how
//! the two differ: one record per replayed turn.

use policy_audit::AuditRow;
use policy_avro::InputCoordinates;
use policy_pipeline::Outcome;
use serde::Serialize;

/// What a turn's outcome said.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Said {
    pub outcome: String,
    pub resolved_region: String,
    pub resolved_version: String,
    pub cited_clause_ids: Vec<String>,
    pub reason_code: String,
    pub text: String,
    pub manifest_sha: String,
    /// The topic tag of the clause the answer is about (empty when unknown).
    pub topic: String,
}

impl Said {
    pub fn from_outcome(outcome: &Outcome) -> Said {
        match outcome {
            Outcome::Answer(a) => Said {
                outcome: "answer".into(),
                resolved_region: a.resolved_region.clone(),
                resolved_version: a.resolved_version.clone(),
                cited_clause_ids: a.citations.iter().map(|c| c.clause_id.clone()).collect(),
                reason_code: String::new(),
                text: a.answer_text.clone(),
                manifest_sha: a.manifest_sha.clone(),
                topic: a.topic.clone().unwrap_or_default(),
            },
            Outcome::Escalate(e) => Said {
                outcome: "escalate".into(),
                resolved_region: e.resolved_region.clone().unwrap_or_default(),
                resolved_version: e.resolved_version.clone().unwrap_or_default(),
                cited_clause_ids: Vec::new(),
                reason_code: e.reason_code.clone(),
                text: e.summary.clone(),
                manifest_sha: e.manifest_sha.clone().unwrap_or_default(),
                topic: e.topic.clone().unwrap_or_default(),
            },
        }
    }

    pub fn from_row(row: &AuditRow) -> Said {
        Said {
            cited_clause_ids: if row.outcome == "answer" {
                row.cited_clause_ids.clone()
            } else {
                // An escalation's row lists what a rejected draft cited: nothing was served.
                Vec::new()
            },
            outcome: row.outcome.clone(),
            resolved_region: row.resolved_region.clone(),
            resolved_version: row.resolved_version.clone(),
            reason_code: row.reason_code.clone(),
            text: row.answer_text.clone(),
            manifest_sha: row.manifest_sha.clone(),
            topic: row.topic.clone(),
        }
    }
}

/// How a replayed turn differs from what was served, most serious first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Answer where an escalation was served, or the reverse.
    OutcomeChanged,
    VersionChanged,
    CitationsChanged,
    /// Same outcome and citations, other words; or another escalation reason.
    TextChanged,
    /// Re-judged: the current judge's verdict differs from the one recorded.
    VerdictChanged,
    Same,
    /// No audit row for the turn: nothing to compare with.
    NotRecorded,
    /// The message at these coordinates is not a decodable turn, or the audit row cannot
    /// rebuild it.
    Unreadable,
    /// The turn could not be run again (its pinned corpus is not in any archive, a backend
    /// failed): a finding in itself.
    Failed,
}

impl Change {
    pub const ALL: [Change; 9] = [
        Change::OutcomeChanged,
        Change::VersionChanged,
        Change::CitationsChanged,
        Change::TextChanged,
        Change::VerdictChanged,
        Change::Same,
        Change::NotRecorded,
        Change::Unreadable,
        Change::Failed,
    ];

    pub fn between(recorded: &Said, rerun: &Said) -> Change {
        if recorded.outcome != rerun.outcome {
            Change::OutcomeChanged
        } else if recorded.resolved_version != rerun.resolved_version {
            Change::VersionChanged
        } else if recorded.cited_clause_ids != rerun.cited_clause_ids {
            Change::CitationsChanged
        } else if recorded.text != rerun.text || recorded.reason_code != rerun.reason_code {
            Change::TextChanged
        } else {
            Change::Same
        }
    }

    /// The re-run says something other than what was served.
    pub fn is_change(self) -> bool {
        self < Change::Same
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Change::OutcomeChanged => "outcome_changed",
            Change::VersionChanged => "version_changed",
            Change::CitationsChanged => "citations_changed",
            Change::TextChanged => "text_changed",
            Change::VerdictChanged => "verdict_changed",
            Change::Same => "same",
            Change::NotRecorded => "not_recorded",
            Change::Unreadable => "unreadable",
            Change::Failed => "failed",
        }
    }
}

/// The judge's verdict on a served answer, then and now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdicts {
    pub then: String,
    pub now: String,
    /// Every reason of the current judge (empty when it passes).
    pub reasons_now: Vec<String>,
}

/// One replayed turn.
#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    pub turn_id: String,
    pub conversation_id: String,
    pub input: InputCoordinates,
    /// `topic` or `audit`: where the turn was read back from.
    pub read_from: &'static str,
    pub change: Change,
    pub recorded: Option<Said>,
    pub rerun: Option<Said>,
    /// Re-judge mode: the verdicts.
    pub verdicts: Option<Verdicts>,
    /// Why the turn could not be replayed.
    pub error: Option<String>,
}

impl Diff {
    /// What the turn is grouped by: region, version and topic of what was served (of the
    /// re-run when nothing was recorded).
    pub fn group(&self) -> (String, String, String) {
        let said = self.recorded.as_ref().or(self.rerun.as_ref());
        said.map(|s| {
            (
                s.resolved_region.clone(),
                s.resolved_version.clone(),
                s.topic.clone(),
            )
        })
        .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(outcome: &str, version: &str, cited: &[&str], text: &str) -> Said {
        Said {
            outcome: outcome.into(),
            resolved_region: "eu".into(),
            resolved_version: version.into(),
            cited_clause_ids: cited.iter().map(|s| s.to_string()).collect(),
            reason_code: String::new(),
            text: text.into(),
            manifest_sha: "sha".into(),
            topic: "return_window".into(),
        }
    }

    #[test]
    fn changes_are_ranked_most_serious_first() {
        let served = said("answer", "eu-v4", &["eu-v4#sec-3.2"], "30 days");
        assert_eq!(Change::between(&served, &served.clone()), Change::Same);
        let cases = [
            (
                said("escalate", "eu-v4", &[], "handed over"),
                Change::OutcomeChanged,
            ),
            (
                said("answer", "eu-v3", &["eu-v3#sec-3.2"], "14 days"),
                Change::VersionChanged,
            ),
            (
                said("answer", "eu-v4", &["eu-v4#sec-3.3"], "30 days"),
                Change::CitationsChanged,
            ),
            (
                said("answer", "eu-v4", &["eu-v4#sec-3.2"], "thirty days"),
                Change::TextChanged,
            ),
        ];
        for (rerun, expected) in cases {
            assert_eq!(Change::between(&served, &rerun), expected);
            assert!(expected.is_change());
        }
        assert!(Change::OutcomeChanged < Change::Same && Change::Same < Change::NotRecorded);
        assert!(!Change::Failed.is_change() && !Change::Same.is_change());
        assert!(Change::VerdictChanged.is_change());
    }
}
