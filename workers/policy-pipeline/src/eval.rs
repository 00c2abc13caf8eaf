//! Golden-set metrics from (case, outcome) pairs: pure arithmetic, shared by the in-process and
//! the via-Kafka evaluation.

use std::collections::BTreeMap;

use policy_core::golden::ExpectedOutcome;
use policy_core::{GoldenCase, ReasonCode};
use serde::Serialize;

use crate::outcome::Outcome;

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Counts {
    pub cases: usize,
    pub outcome_correct: usize,
    pub answered: usize,
    pub expected_answer: usize,
    pub expected_escalate: usize,
    pub escalated_correctly: usize,
    pub answered_expected_answer: usize,
    pub version_correct: usize,
    pub expected_clause_cited: usize,
    pub citations: usize,
    pub citations_with_facts: usize,
    pub grounded_answers: usize,
    pub wrong_version_answers: usize,
    pub facts_contained: usize,
    /// Cases expecting a decision (`expected_eligible`), and those decided as expected.
    pub decisions_expected: usize,
    pub decisions_correct: usize,
    /// Decisions served as eligible / approved that the case did not expect to be: the alarm.
    pub false_approvals: usize,
}

fn ratio(n: usize, d: usize) -> f64 {
    if d == 0 {
        1.0
    } else {
        n as f64 / d as f64
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Metrics {
    pub cases: usize,
    pub outcome_accuracy: f64,
    /// Of answers to answerable cases: cited the expected version.
    pub version_accuracy: f64,
    /// Of answerable cases answered: the expected clause is among the citations.
    pub expected_clause_citation_rate: f64,
    /// Of all citations: the cited clause contains the facts the answer states.
    pub citation_precision: f64,
    /// Of answers: every citation is from the resolved version.
    pub citation_grounding_rate: f64,
    pub wrong_version_answers: usize,
    /// Of answerable cases answered: every expected fact appears in the answer.
    pub facts_contained_rate: f64,
    /// Share of all turns answered without a human.
    pub deflection_rate: f64,
    pub escalation_precision: f64,
    pub escalation_recall: f64,
    /// Of cases expecting a decision: decided as expected.
    pub decision_accuracy: f64,
    pub false_approvals: usize,
}

impl Counts {
    pub fn metrics(&self) -> Metrics {
        let escalated = self.cases - self.answered;
        Metrics {
            cases: self.cases,
            outcome_accuracy: ratio(self.outcome_correct, self.cases),
            version_accuracy: ratio(self.version_correct, self.answered_expected_answer),
            expected_clause_citation_rate: ratio(
                self.expected_clause_cited,
                self.answered_expected_answer,
            ),
            citation_precision: ratio(self.citations_with_facts, self.citations),
            citation_grounding_rate: ratio(self.grounded_answers, self.answered),
            wrong_version_answers: self.wrong_version_answers,
            facts_contained_rate: ratio(self.facts_contained, self.answered_expected_answer),
            deflection_rate: ratio(self.answered, self.cases),
            escalation_precision: ratio(self.escalated_correctly, escalated),
            escalation_recall: ratio(self.escalated_correctly, self.expected_escalate),
            decision_accuracy: ratio(self.decisions_correct, self.decisions_expected),
            false_approvals: self.false_approvals,
        }
    }
}

/// Splits an answer into (cited clause, the text before its tag) pairs.
pub fn cited_segments(answer: &str) -> Vec<(String, String)> {
    let mut segments = Vec::new();
    let mut rest = answer;
    while let Some(open) = rest.find("[clause:") {
        let Some(close) = rest[open..].find(']') else {
            break;
        };
        let id = rest[open + "[clause:".len()..open + close]
            .trim()
            .to_string();
        segments.push((id, rest[..open].to_string()));
        rest = &rest[open + close + 1..];
    }
    segments
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Failure {
    pub case_id: String,
    pub expected: String,
    pub got: String,
}

/// One case as evaluated: what was expected, what happened, and why.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CaseResult {
    pub case_id: String,
    pub tags: Vec<String>,
    pub expected: String,
    pub expected_reason: Option<String>,
    /// `answer` or `escalate`.
    pub outcome: String,
    /// The escalation's reason code (answers: none).
    pub reason: Option<String>,
    pub correct: bool,
    pub cited: Vec<String>,
    /// Of an expected answer that was answered: every expected fact is in the answer.
    pub facts_contained: Option<bool>,
    pub confidence: Option<f64>,
    pub intent: String,
    /// A decision's eligible / approved.
    pub eligible: Option<bool>,
}

/// Escalations that say "the policy in force does not answer this": the answerability gate.
pub const ANSWERABILITY_REASONS: &[ReasonCode] = &[
    ReasonCode::NotCoveredInVersion,
    ReasonCode::OutOfScope,
    ReasonCode::NotAnswered,
];

/// How the answerability gate did: it fired on `fired` turns, `correct` of which should have
/// escalated; `expected` turns expected one of its reasons, `caught` of which were escalated.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct Answerability {
    pub fired: usize,
    pub correct: usize,
    pub expected: usize,
    pub caught: usize,
    /// Expected one of its reasons and got exactly that reason.
    pub reason_matched: usize,
}

impl Answerability {
    pub fn precision(&self) -> f64 {
        ratio(self.correct, self.fired)
    }
    pub fn recall(&self) -> f64 {
        ratio(self.caught, self.expected)
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Evaluation {
    pub overall: Counts,
    pub by_region: BTreeMap<String, Counts>,
    pub by_version: BTreeMap<String, Counts>,
    pub by_decay_class: BTreeMap<String, Counts>,
    /// Per case tag (`injection`, `cutover`, `paraphrase`...): a case counts under each tag.
    pub by_tag: BTreeMap<String, Counts>,
    /// Per intent: the case's expected intent, else the one the pipeline detected.
    pub by_intent: BTreeMap<String, Counts>,
    /// Escalations per reason code.
    pub by_reason: BTreeMap<String, usize>,
    pub answerability: Answerability,
    pub cases: Vec<CaseResult>,
    pub failures: Vec<Failure>,
}

fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Answer(a) => {
            let cited: Vec<&str> = a.citations.iter().map(|c| c.clause_id.as_str()).collect();
            format!(
                "answer citing {}: {}",
                cited.join(","),
                a.answer_text.chars().take(120).collect::<String>()
            )
        }
        Outcome::Escalate(e) => format!("escalate ({}): {}", e.reason_code, e.reasons.join("; ")),
    }
}

impl Evaluation {
    /// Scores one case. `clause_text` looks up a clause's text in the corpus.
    pub fn record(
        &mut self,
        case: &GoldenCase,
        outcome: &Outcome,
        clause_text: &dyn Fn(&str) -> Option<String>,
    ) {
        let mut c = Counts {
            cases: 1,
            ..Default::default()
        };
        let expected_answer = case.expected_outcome == ExpectedOutcome::Answer;
        c.expected_answer = expected_answer as usize;
        c.expected_escalate = (!expected_answer) as usize;
        let mut failure = None;
        match outcome {
            Outcome::Escalate(_) => {
                c.outcome_correct = (!expected_answer) as usize;
                c.escalated_correctly = (!expected_answer) as usize;
                if expected_answer {
                    failure = Some(format!(
                        "answer from {}",
                        case.expected_clause_id.as_deref().unwrap_or("?")
                    ));
                }
            }
            Outcome::Answer(a) => {
                c.answered = 1;
                c.outcome_correct = expected_answer as usize;
                let grounded = a
                    .citations
                    .iter()
                    .all(|cit| cit.version_id == a.resolved_version);
                c.grounded_answers = grounded as usize;
                if !grounded {
                    c.wrong_version_answers = 1;
                }
                // A decision states its subject's dates and amounts next to the rule's clause;
                // the judge checks those against the data, so precision looks at answers only.
                let segments = match &a.decision {
                    Some(_) => Vec::new(),
                    None => cited_segments(&a.answer_text),
                };
                for (clause_id, segment) in segments {
                    // A citation is precise when the clause it names states every fact of the
                    // text attached to it.
                    let clause_facts = clause_text(&clause_id)
                        .map(|t| policy_core::text::numeric_facts(&t))
                        .unwrap_or_default();
                    c.citations += 1;
                    c.citations_with_facts += policy_core::text::numeric_facts(&segment)
                        .is_subset(&clause_facts)
                        as usize;
                }
                if expected_answer {
                    c.answered_expected_answer = 1;
                    let version_ok = case.expected_version_id.as_deref()
                        == Some(a.resolved_version.as_str())
                        && a.citations.iter().all(|cit| {
                            Some(cit.version_id.as_str()) == case.expected_version_id.as_deref()
                        });
                    c.version_correct = version_ok as usize;
                    if !version_ok
                        && a.citations.iter().any(|cit| {
                            Some(cit.version_id.as_str()) != case.expected_version_id.as_deref()
                        })
                    {
                        c.wrong_version_answers = 1;
                    }
                    let cited = a
                        .citations
                        .iter()
                        .any(|cit| Some(&cit.clause_id) == case.expected_clause_id.as_ref());
                    c.expected_clause_cited = cited as usize;
                    let text = a.answer_text.to_lowercase();
                    let contained = case
                        .expected_answer_contains
                        .iter()
                        .all(|f| text.contains(&f.to_lowercase()));
                    c.facts_contained = contained as usize;
                    if !cited || !version_ok {
                        failure = Some(format!(
                            "{} citing {}",
                            case.expected_version_id.as_deref().unwrap_or("?"),
                            case.expected_clause_id.as_deref().unwrap_or("?")
                        ));
                    }
                } else {
                    failure = Some("escalate".into());
                }
            }
        }
        let decision = match outcome {
            Outcome::Answer(a) => a.decision.as_ref(),
            Outcome::Escalate(_) => None,
        };
        if let Some(expected) = case.expected_eligible {
            c.decisions_expected = 1;
            let decided = decision.map(|d| d.eligible);
            c.decisions_correct = (expected_answer && decided == Some(expected)) as usize;
            // An answer that is not the expected decision (another decision, or a policy answer
            // where a decision was due) is a wrong outcome.
            if c.answered == 1 && expected_answer && decided != Some(expected) {
                c.outcome_correct = 0;
                failure = Some(format!("decision eligible={expected}"));
            }
        }
        let expected_eligible = expected_answer && case.expected_eligible == Some(true);
        c.false_approvals = (decision.is_some_and(|d| d.eligible) && !expected_eligible) as usize;
        if c.false_approvals == 1 && failure.is_none() {
            failure = Some("no approval".into());
        }
        let reason = outcome.reason_code();
        self.record_answerability(case, reason);
        if let Some(reason) = reason {
            *self
                .by_reason
                .entry(reason.as_str().to_string())
                .or_default() += 1;
        }
        self.cases.push(CaseResult {
            case_id: case.id.clone(),
            tags: case.tags.clone(),
            expected: match case.expected_outcome {
                ExpectedOutcome::Answer => "answer",
                ExpectedOutcome::Escalate => "escalate",
            }
            .into(),
            expected_reason: case.expected_reason.clone(),
            outcome: match outcome {
                Outcome::Answer(_) => "answer",
                Outcome::Escalate(_) => "escalate",
            }
            .into(),
            reason: reason.map(|r| r.as_str().to_string()),
            correct: failure.is_none(),
            cited: match outcome {
                Outcome::Answer(a) => a.citations.iter().map(|c| c.clause_id.clone()).collect(),
                Outcome::Escalate(_) => Vec::new(),
            },
            facts_contained: (c.answered_expected_answer == 1).then_some(c.facts_contained == 1),
            confidence: match outcome {
                Outcome::Answer(a) => Some(a.confidence),
                Outcome::Escalate(e) => e.context.get("confidence").and_then(|c| c.parse().ok()),
            },
            intent: outcome.intent().to_string(),
            eligible: decision.map(|d| d.eligible),
        });
        if let Some(expected) = failure {
            self.failures.push(Failure {
                case_id: case.id.clone(),
                expected,
                got: describe(outcome),
            });
        }
        let region = case
            .expected_version_id
            .as_deref()
            .and_then(|v| v.split('-').next())
            .or(case.region.as_deref())
            .unwrap_or("none")
            .to_string();
        let version = case
            .expected_version_id
            .clone()
            .unwrap_or_else(|| "(escalation)".into());
        for bucket in [
            &mut self.overall,
            self.by_region.entry(region).or_default(),
            self.by_version.entry(version).or_default(),
            self.by_decay_class
                .entry(case.decay_class.clone())
                .or_default(),
        ] {
            bucket.add(&c);
        }
        for tag in &case.tags {
            self.by_tag.entry(tag.clone()).or_default().add(&c);
        }
        let intent = case
            .expected_intent
            .clone()
            .unwrap_or_else(|| outcome.intent().to_string());
        self.by_intent.entry(intent).or_default().add(&c);
    }

    fn record_answerability(&mut self, case: &GoldenCase, reason: Option<ReasonCode>) {
        let fired = reason.is_some_and(|r| ANSWERABILITY_REASONS.contains(&r));
        let expected_reason = case
            .expected_reason
            .as_deref()
            .and_then(|r| r.parse::<ReasonCode>().ok())
            .filter(|r| ANSWERABILITY_REASONS.contains(r));
        let a = &mut self.answerability;
        if fired {
            a.fired += 1;
            a.correct += (case.expected_outcome == ExpectedOutcome::Escalate) as usize;
        }
        if let Some(expected) = expected_reason {
            a.expected += 1;
            a.caught += reason.is_some() as usize;
            a.reason_matched += (reason == Some(expected)) as usize;
        }
    }
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.cases += o.cases;
        self.outcome_correct += o.outcome_correct;
        self.answered += o.answered;
        self.expected_answer += o.expected_answer;
        self.expected_escalate += o.expected_escalate;
        self.escalated_correctly += o.escalated_correctly;
        self.answered_expected_answer += o.answered_expected_answer;
        self.version_correct += o.version_correct;
        self.expected_clause_cited += o.expected_clause_cited;
        self.citations += o.citations;
        self.citations_with_facts += o.citations_with_facts;
        self.grounded_answers += o.grounded_answers;
        self.wrong_version_answers += o.wrong_version_answers;
        self.facts_contained += o.facts_contained;
        self.decisions_expected += o.decisions_expected;
        self.decisions_correct += o.decisions_correct;
        self.false_approvals += o.false_approvals;
    }
}
