//! Decisions in the one composition: enrich looks the order or employee up in its source of
//! truth ([`crate::facts`]) and resolves the version by the order's own date, retrieve hands over
//! the clauses carrying rules, generate states the decision ([`policy_core::decision`]) and the
//! judge checks it against those rules like any answer. Conversions between the domain decision
//! and the wire record live here.

use std::collections::BTreeSet;

use chrono::DateTime;
use policy_avro::{ChatTurn, Decision as WireDecision, Enrichment, RuleUse as WireRule, Subject};
use policy_core::decision::{
    decide_expense, decide_return, parse_cents, Decision, OrderFacts, RuleUse, Undecided,
};
use policy_core::text::numeric_facts;
use policy_core::{Clause, Intent, ReasonCode, RetrievedClause};

use crate::facts::{Fields, SourceError, Sources};
use crate::serving::ServingState;
use crate::state::Retrieval;

/// What a decision is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubjectKind {
    Order,
    Employee,
}

impl SubjectKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SubjectKind::Order => "order",
            SubjectKind::Employee => "employee",
        }
    }

    pub fn of(intent: Intent) -> Option<SubjectKind> {
        match intent {
            Intent::ReturnEligibility | Intent::RefundEligibility => Some(SubjectKind::Order),
            Intent::ExpenseApproval => Some(SubjectKind::Employee),
            _ => None,
        }
    }

    /// The kind of a subject on the wire (`Subject.kind`).
    pub fn of_subject(subject: &Subject) -> Option<SubjectKind> {
        match subject.kind.as_str() {
            "order" => Some(SubjectKind::Order),
            "employee" => Some(SubjectKind::Employee),
            _ => None,
        }
    }

    /// The record's field naming the region whose policy applies, and the `region_source` it
    /// gives: an order ships under its own region's policy, an employee works under the one
    /// the directory names.
    pub fn region_field(self) -> (&'static str, &'static str) {
        match self {
            SubjectKind::Order => ("region", "order"),
            SubjectKind::Employee => ("policy_region", "directory"),
        }
    }
}

/// A source's answer about the turn's subject, fetched before the pure part of enrich.
#[derive(Debug, Clone)]
pub struct SubjectLookup {
    pub kind: SubjectKind,
    pub id: String,
    pub source: String,
    pub result: Result<Option<Fields>, SourceError>,
}

/// Asks the source for the subject of a decision intent.
pub async fn look_up(intent: Intent, turn: &ChatTurn, sources: &Sources) -> Option<SubjectLookup> {
    let kind = SubjectKind::of(intent)?;
    let id = match kind {
        SubjectKind::Order => turn.order_id.clone(),
        SubjectKind::Employee => turn.employee_id.clone(),
    }?;
    let source = match kind {
        SubjectKind::Order => sources.orders.as_ref(),
        SubjectKind::Employee => sources.employees.as_ref(),
    };
    let Some(source) = source else {
        return Some(SubjectLookup {
            kind,
            id,
            source: "none".into(),
            result: Err(SourceError::Unavailable {
                source_name: format!("{} source", kind.as_str()),
                reason: "no source is configured".into(),
            }),
        });
    };
    let result = source.lookup(&id).await;
    Some(SubjectLookup {
        kind,
        id,
        source: source.name().to_string(),
        result,
    })
}

/// The subject as the source knows it, or the escalation when it cannot be had.
pub fn subject_of(lookup: SubjectLookup, turn: &ChatTurn) -> Result<Subject, (ReasonCode, String)> {
    let SubjectLookup {
        kind,
        id,
        source,
        result,
    } = lookup;
    let fields = match result {
        Ok(Some(fields)) => fields,
        Ok(None) => {
            let code = match kind {
                SubjectKind::Order => ReasonCode::UnknownOrder,
                SubjectKind::Employee => ReasonCode::UnknownEmployee,
            };
            return Err((
                code,
                format!("{} `{id}` is not known to {source}", kind.as_str()),
            ));
        }
        Err(e) => return Err((ReasonCode::SourceUnavailable, e.to_string())),
    };
    let conflicts = match kind {
        SubjectKind::Order => order_conflicts(turn, &fields),
        SubjectKind::Employee => Vec::new(),
    };
    if !conflicts.is_empty() {
        tracing::info!(
            subject = id,
            ?conflicts,
            "stated facts contradict the source"
        );
    }
    Ok(Subject {
        kind: kind.as_str().into(),
        id,
        source,
        fields,
        conflicts,
    })
}

/// Facts the turn states (its `order_facts`, its purchase instant) that the order system
/// contradicts. The source wins; the conflict is recorded.
fn order_conflicts(turn: &ChatTurn, fields: &Fields) -> Vec<String> {
    let mut conflicts: Vec<String> = turn
        .order_facts
        .iter()
        .flatten()
        .filter_map(|(key, stated)| {
            let known = fields.get(key)?;
            (!same_fact(stated, known))
                .then(|| format!("{key}: stated `{stated}`, source `{known}`"))
        })
        .collect();
    let placed = fields
        .get("placed_at")
        .and_then(|p| policy_core::parse_instant(p).ok());
    if let (Some(stated), Some(placed)) = (
        turn.purchase_at.and_then(DateTime::from_timestamp_millis),
        placed,
    ) {
        if stated.date_naive() != placed.date_naive() {
            conflicts.push(format!(
                "purchase_at: stated {}, source placed_at {}",
                stated.to_rfc3339(),
                placed.to_rfc3339()
            ));
        }
    }
    conflicts
}

fn same_fact(stated: &str, known: &str) -> bool {
    let instants = (
        policy_core::parse_instant(stated),
        policy_core::parse_instant(known),
    );
    if let (Ok(a), Ok(b)) = instants {
        return a == b;
    }
    stated.trim().eq_ignore_ascii_case(known.trim())
}

/// The clauses of `version` that carry rules, as retrieval evidence for a decision.
pub fn rule_evidence(serving: &ServingState, version: &str) -> Vec<RetrievedClause> {
    serving
        .corpus
        .version_clauses(version)
        .filter(|c| !c.rules.is_empty())
        .map(|c| {
            let mut evidence = RetrievedClause::new(&c.clause_id, &c.text, 1.0);
            evidence.title = c.title.clone();
            evidence
        })
        .collect()
}

/// The decision for a turn whose subject is known, from the rule clauses of its version:
/// what retrieval handed over (every rule clause for an order, the ranked search hits for an
/// expense request, of which the best match carrying an `expense` rule decides).
pub fn decide(
    serving: &ServingState,
    enrichment: &Enrichment,
    retrieval: &Retrieval,
    as_of_millis: i64,
) -> Result<Decision, Undecided> {
    let version = enrichment.version_id.as_str();
    let intent: Intent = enrichment.intent.parse().unwrap_or(Intent::PolicyFaq);
    let (question, confidence, evidence) = (
        enrichment.sanitized_question.as_str(),
        retrieval.confidence,
        &retrieval.clauses,
    );
    let Some(subject) = &enrichment.subject else {
        return Err(Undecided {
            code: ReasonCode::HumanReviewRequired,
            reason: "a decision without its order or employee".into(),
        });
    };
    let clauses: Vec<&Clause> = evidence
        .iter()
        .filter_map(|e| serving.corpus.clause(&e.clause_id()))
        .filter(|c| c.version_id == version)
        .collect();
    match intent {
        Intent::ExpenseApproval => {
            let level = subject
                .fields
                .get("level")
                .map(String::as_str)
                .unwrap_or("");
            if level.is_empty() {
                return Err(Undecided {
                    code: ReasonCode::HumanReviewRequired,
                    reason: format!(
                        "employee `{}` has no level in {}",
                        subject.id, subject.source
                    ),
                });
            }
            let ranked: Vec<&Clause> = clauses
                .into_iter()
                .filter(|c| c.rules.contains_key("expense"))
                .collect();
            decide_expense(question, level, &ranked, confidence)
        }
        Intent::ReturnEligibility | Intent::RefundEligibility => {
            let order =
                OrderFacts::from_fields(&subject.id, &subject.fields).map_err(|e| Undecided {
                    code: ReasonCode::SourceUnavailable,
                    reason: format!("order `{}` from {}: {e}", subject.id, subject.source),
                })?;
            let as_of = DateTime::from_timestamp_millis(as_of_millis).unwrap_or_default();
            decide_return(intent, &order, &clauses, as_of)
        }
        other => Err(Undecided {
            code: ReasonCode::HumanReviewRequired,
            reason: format!("{other} is not a decision"),
        }),
    }
}

fn money(cents: i64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

/// The wire record of a decision.
pub fn to_wire(decision: &Decision, subject: &Subject) -> WireDecision {
    WireDecision {
        kind: decision.kind.as_str().into(),
        eligible: decision.eligible,
        reason: decision.reason.clone(),
        deadline: decision.deadline.map(|d| d.timestamp_millis()),
        amount: decision.amount_cents.map(money),
        policy_refs: decision.policy_refs(),
        rules: decision
            .rules
            .iter()
            .map(|r| WireRule {
                clause_id: r.clause_id.clone(),
                key: r.key.clone(),
                value: r.value.clone(),
            })
            .collect(),
        confidence: decision.confidence,
        requires_human_review: decision.requires_human_review,
        employee_level: decision.employee_level.clone(),
        subject_id: Some(subject.id.clone()),
        source: Some(subject.source.clone()),
        conflicts: subject.conflicts.clone(),
        offer: decision.offer.clone(),
        offer_until: decision.offer_until.map(|d| d.timestamp_millis()),
    }
}

/// The domain decision a wire record states (for the judge's check); `None` for an unknown kind.
pub fn from_wire(wire: &WireDecision, text: &str) -> Option<Decision> {
    Some(Decision {
        kind: wire.kind.parse().ok()?,
        eligible: wire.eligible,
        reason: wire.reason.clone(),
        deadline: wire.deadline.and_then(DateTime::from_timestamp_millis),
        amount_cents: wire.amount.as_deref().and_then(parse_cents),
        rules: wire
            .rules
            .iter()
            .map(|r| RuleUse {
                clause_id: r.clause_id.clone(),
                key: r.key.clone(),
                value: r.value.clone(),
            })
            .collect(),
        confidence: wire.confidence,
        requires_human_review: wire.requires_human_review,
        employee_level: wire.employee_level.clone(),
        offer: wire.offer.clone(),
        offer_until: wire.offer_until.and_then(DateTime::from_timestamp_millis),
        text: text.to_string(),
    })
}

/// Numbers a decision may state beyond its clauses: the subject's own data (its dates, its
/// amount) and what was computed from it (the deadline, the amount concerned).
pub fn data_facts(subject: Option<&Subject>, decision: Option<&WireDecision>) -> BTreeSet<String> {
    let mut text = String::new();
    if let Some(s) = subject {
        text.push_str(&s.id);
        text.push(' ');
        for value in s.fields.values() {
            text.push_str(value);
            text.push(' ');
        }
        for value in s
            .fields
            .values()
            .filter_map(|v| policy_core::parse_instant(v).ok())
        {
            text.push_str(&value.format(" %Y-%m-%d ").to_string());
        }
    }
    if let Some(d) = decision {
        for instant in [d.deadline, d.offer_until]
            .into_iter()
            .flatten()
            .filter_map(DateTime::from_timestamp_millis)
        {
            text.push_str(&instant.format(" %Y-%m-%d ").to_string());
        }
        if let Some(amount) = &d.amount {
            text.push_str(&format!(" {amount} "));
        }
    }
    numeric_facts(&text)
}

/// What is wrong with a drafted decision against the rules of its version (empty: it stands).
pub fn decision_problems(
    serving: &ServingState,
    version: &str,
    wire: &WireDecision,
    text: &str,
) -> Vec<String> {
    let Some(decision) = from_wire(wire, text) else {
        return vec![format!("`{}` is not a decision kind", wire.kind)];
    };
    let clause = |id: &str| {
        serving
            .corpus
            .clause(id)
            .filter(|c| c.version_id == version)
            .cloned()
    };
    policy_core::decision::check_decision(&decision, &clause)
}

#[cfg(test)]
#[path = "decide_tests.rs"]
mod tests;
