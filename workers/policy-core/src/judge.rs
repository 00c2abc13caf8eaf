//! The judge: runs on every answer and fails closed. An answer is served only if every claim
//! can be traced to a retrieved clause of the resolved version.

use std::collections::BTreeSet;
use std::fmt;

use crate::citation::{parse_citations, strip_citations};
use crate::codes::ReasonCode;
use crate::evidence::RetrievedClause;
use crate::guardrails::detect_pii;
use crate::text::numeric_facts;

/// The exact reply a generator gives when the clauses do not answer the question.
pub const REFUSAL: &str =
    "I can't confirm the answer for your specific situation; let me hand you to a human agent.";

#[derive(Debug, Clone, PartialEq)]
pub enum JudgeReason {
    EmptyAnswer,
    Refusal,
    NoCitation,
    MalformedCitation {
        text: String,
        reason: &'static str,
    },
    VersionMismatch {
        clause_id: String,
        resolved: String,
    },
    UnknownClause {
        clause_id: String,
    },
    NotRetrieved {
        clause_id: String,
    },
    RetiredClause {
        clause_id: String,
    },
    UngroundedFact {
        fact: String,
    },
    LowConfidence {
        confidence: f64,
        threshold: f64,
    },
    OutputPii {
        kind: &'static str,
    },
    /// A decision the rules it cites do not support.
    DecisionUnsupported {
        problem: String,
    },
}

impl JudgeReason {
    /// Stable code for metrics and the audit trail.
    pub fn code(&self) -> ReasonCode {
        match self {
            JudgeReason::EmptyAnswer => ReasonCode::EmptyAnswer,
            JudgeReason::Refusal => ReasonCode::GeneratorRefused,
            JudgeReason::NoCitation => ReasonCode::NoCitation,
            JudgeReason::MalformedCitation { .. } => ReasonCode::MalformedCitation,
            JudgeReason::VersionMismatch { .. } => ReasonCode::VersionMismatch,
            JudgeReason::UnknownClause { .. } => ReasonCode::UnknownClause,
            JudgeReason::NotRetrieved { .. } => ReasonCode::ClauseNotRetrieved,
            JudgeReason::RetiredClause { .. } => ReasonCode::RetiredVersion,
            JudgeReason::UngroundedFact { .. } => ReasonCode::UngroundedFact,
            JudgeReason::LowConfidence { .. } => ReasonCode::LowConfidence,
            JudgeReason::OutputPii { .. } => ReasonCode::OutputPii,
            JudgeReason::DecisionUnsupported { .. } => ReasonCode::DecisionUnsupported,
        }
    }
}

impl fmt::Display for JudgeReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgeReason::EmptyAnswer => write!(f, "empty_answer: the answer is empty"),
            JudgeReason::Refusal => write!(
                f,
                "generator_refused: the generator could not answer from the clauses"
            ),
            JudgeReason::NoCitation => write!(f, "no_citation: the answer cites no clause"),
            JudgeReason::MalformedCitation { text, reason } => {
                write!(f, "malformed_citation: `{text}`: {reason}")
            }
            JudgeReason::VersionMismatch {
                clause_id,
                resolved,
            } => {
                write!(
                    f,
                    "version_mismatch: cites {clause_id} but the turn resolved to {resolved}"
                )
            }
            JudgeReason::UnknownClause { clause_id } => write!(
                f,
                "unknown_clause: {clause_id} is not in the manifest's corpus"
            ),
            JudgeReason::NotRetrieved { clause_id } => write!(
                f,
                "clause_not_retrieved: {clause_id} was not among the retrieved clauses"
            ),
            JudgeReason::RetiredClause { clause_id } => write!(
                f,
                "retired_version: {clause_id} belongs to a version past its retention; its \
                 terms are no longer served"
            ),
            JudgeReason::UngroundedFact { fact } => write!(
                f,
                "ungrounded_fact: `{fact}` does not appear in any cited clause"
            ),
            JudgeReason::LowConfidence {
                confidence,
                threshold,
            } => {
                write!(f, "low_confidence: {confidence:.2} is below {threshold:.2}")
            }
            JudgeReason::OutputPii { kind } => {
                write!(f, "output_pii: the answer contains personal data ({kind})")
            }
            JudgeReason::DecisionUnsupported { problem } => {
                write!(f, "decision_unsupported: {problem}")
            }
        }
    }
}

/// What the judge looks at. (`clause_exists` is a closure: shown by name only.)
pub struct JudgeInput<'a> {
    /// The answer body, citations included, banner and disclaimer excluded.
    pub answer: &'a str,
    pub resolved_version: &'a str,
    pub retrieved: &'a [RetrievedClause],
    /// Whether the corpus behind the turn's manifest knows a clause id.
    pub clause_exists: &'a dyn Fn(&str) -> bool,
    pub confidence: f64,
    pub escalate_below: f64,
    /// Numbers a decision may state from its subject's data (an order's dates, the deadline
    /// computed from them); empty for a policy answer.
    pub data_facts: &'a BTreeSet<String>,
}

impl std::fmt::Debug for JudgeInput<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JudgeInput")
            .field("answer", &self.answer)
            .field("resolved_version", &self.resolved_version)
            .field("retrieved", &self.retrieved.len())
            .field("confidence", &self.confidence)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub reasons: Vec<JudgeReason>,
    /// Clause ids cited, in order of first appearance.
    pub cited: Vec<String>,
}

impl Verdict {
    pub fn passed(&self) -> bool {
        self.reasons.is_empty()
    }
}

pub fn judge(input: &JudgeInput<'_>) -> Verdict {
    let mut reasons = Vec::new();
    let answer = input.answer.trim();
    if answer.is_empty() {
        return Verdict {
            reasons: vec![JudgeReason::EmptyAnswer],
            cited: Vec::new(),
        };
    }
    if answer
        .trim_end_matches(|c: char| c.is_whitespace())
        .eq_ignore_ascii_case(REFUSAL)
    {
        return Verdict {
            reasons: vec![JudgeReason::Refusal],
            cited: Vec::new(),
        };
    }
    if input.confidence < input.escalate_below {
        reasons.push(JudgeReason::LowConfidence {
            confidence: input.confidence,
            threshold: input.escalate_below,
        });
    }
    let parsed = parse_citations(answer);
    for m in &parsed.malformed {
        reasons.push(JudgeReason::MalformedCitation {
            text: m.text.clone(),
            reason: m.reason,
        });
    }
    if parsed.refs.is_empty() {
        reasons.push(JudgeReason::NoCitation);
    }
    let mut grounded_facts = BTreeSet::new();
    for cited in &parsed.refs {
        let clause_id = cited.clause_id();
        if cited.version_id != input.resolved_version {
            reasons.push(JudgeReason::VersionMismatch {
                clause_id: clause_id.clone(),
                resolved: input.resolved_version.to_string(),
            });
        }
        if !(input.clause_exists)(&clause_id) {
            reasons.push(JudgeReason::UnknownClause {
                clause_id: clause_id.clone(),
            });
            continue;
        }
        match input.retrieved.iter().find(|r| r.clause == *cited) {
            Some(retrieved) if retrieved.is_retired() => reasons.push(JudgeReason::RetiredClause {
                clause_id: clause_id.clone(),
            }),
            Some(retrieved) => grounded_facts.extend(numeric_facts(&retrieved.text)),
            None => reasons.push(JudgeReason::NotRetrieved {
                clause_id: clause_id.clone(),
            }),
        }
    }
    let body = strip_citations(answer);
    for fact in numeric_facts(&body) {
        if !grounded_facts.contains(&fact) && !input.data_facts.contains(&fact) {
            reasons.push(JudgeReason::UngroundedFact { fact });
        }
    }
    // Personal data the answer did not quote from its cited clauses (a company's published
    // returns address is policy content, a customer's e-mail is not).
    let cited_text: String = parsed
        .refs
        .iter()
        .filter_map(|r| input.retrieved.iter().find(|c| c.clause == *r))
        .map(|c| c.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let mut pii_kinds: Vec<&'static str> = detect_pii(&body)
        .into_iter()
        .filter(|m| !cited_text.contains(&body[m.span.clone()]))
        .map(|m| m.kind.as_str())
        .collect();
    pii_kinds.dedup();
    reasons.extend(
        pii_kinds
            .into_iter()
            .map(|kind| JudgeReason::OutputPii { kind }),
    );
    Verdict {
        reasons,
        cited: parsed.refs.iter().map(|r| r.clause_id()).collect(),
    }
}

#[cfg(test)]
#[path = "judge_tests.rs"]
mod tests;
