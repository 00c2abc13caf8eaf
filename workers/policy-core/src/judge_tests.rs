use super::*;

const V4_WINDOW: &str = "You may return most items within 30 calendar days from the day of delivery without giving any reason.";
const V4_REFUND: &str =
    "We reimburse all payments within 14 days from the day we are informed of your decision.";
const V3_WINDOW: &str = "You may return most items within 14 calendar days from the day of delivery without giving any reason.";

fn known(id: &str) -> bool {
    [
        "eu-v4#sec-3.2",
        "eu-v4#sec-4.2",
        "eu-v4#sec-9.1",
        "eu-v3#sec-3.2",
    ]
    .contains(&id)
}

fn verdict(answer: &str, confidence: f64) -> Verdict {
    let retrieved = [
        retrieved("eu-v4#sec-3.2", V4_WINDOW, false),
        retrieved("eu-v4#sec-4.2", V4_REFUND, false),
        // A retriever bug that leaked another version must still be caught by the judge.
        retrieved("eu-v3#sec-3.2", V3_WINDOW, false),
    ];
    judge(&JudgeInput {
        answer,
        resolved_version: "eu-v4",
        retrieved: &retrieved,
        clause_exists: &known,
        confidence,
        escalate_below: 0.5,
        data_facts: &Default::default(),
    })
}

fn codes(v: &Verdict) -> Vec<&'static str> {
    v.reasons.iter().map(|r| r.code().as_str()).collect()
}

fn retrieved(clause_id: &str, text: &str, retired: bool) -> RetrievedClause {
    let mut clause = RetrievedClause::new(clause_id, text, 1.0);
    if retired {
        clause.status = crate::codes::ClauseStatus::Retired;
    }
    clause
}

#[test]
fn grounded_answer_passes() {
    let v = verdict("You may return most items within 30 calendar days from the day of delivery. [clause: eu-v4#sec-3.2]", 0.9);
    assert!(v.passed(), "{:?}", v.reasons);
    assert_eq!(v.cited, ["eu-v4#sec-3.2"]);
}

#[test]
fn two_clauses_each_grounding_their_facts_pass() {
    let v = verdict(
        "Returns: 30 days [clause: eu-v4#sec-3.2]. Refunds within 14 days [clause: eu-v4#sec-4.2].",
        0.8,
    );
    assert!(v.passed(), "{:?}", v.reasons);
}

#[test]
fn citing_the_previous_version_is_blocked() {
    let v = verdict(
        "You may return most items within 14 calendar days. [clause: eu-v3#sec-3.2]",
        0.9,
    );
    assert_eq!(codes(&v), ["version_mismatch"]);
    assert_eq!(
        v.reasons[0].to_string(),
        "version_mismatch: cites eu-v3#sec-3.2 but the turn resolved to eu-v4"
    );
}

#[test]
fn made_up_clause_is_blocked() {
    let v = verdict(
        "Returns are accepted for 30 days. [clause: eu-v4#sec-3.9]",
        0.9,
    );
    assert_eq!(codes(&v), ["unknown_clause", "ungrounded_fact"]);
}

#[test]
fn known_but_not_retrieved_clause_is_blocked() {
    let v = verdict("You can delete your account. [clause: eu-v4#sec-9.1]", 0.9);
    assert_eq!(codes(&v), ["clause_not_retrieved"]);
}

#[test]
fn wrong_number_is_blocked() {
    let v = verdict(
        "You may return most items within 60 calendar days. [clause: eu-v4#sec-3.2]",
        0.9,
    );
    assert_eq!(
        v.reasons,
        [JudgeReason::UngroundedFact { fact: "60".into() }]
    );
    // A spelled-out wrong number is a fact too.
    let v = verdict("You have sixty days. [clause: eu-v4#sec-3.2]", 0.9);
    assert_eq!(codes(&v), ["ungrounded_fact"]);
}

#[test]
fn fact_from_an_uncited_clause_is_blocked() {
    // 14 is in the refund clause, which this answer does not cite.
    let v = verdict(
        "Refunds arrive within 14 days. [clause: eu-v4#sec-3.2]",
        0.9,
    );
    assert_eq!(
        v.reasons,
        [JudgeReason::UngroundedFact { fact: "14".into() }]
    );
}

#[test]
fn missing_and_malformed_citations_are_blocked() {
    assert_eq!(
        codes(&verdict("You may return items within 30 days.", 0.9)),
        ["no_citation", "ungrounded_fact"]
    );
    let v = verdict("Within 30 days [clause: eu-v4].", 0.9);
    assert_eq!(
        codes(&v),
        ["malformed_citation", "no_citation", "ungrounded_fact"]
    );
    let v = verdict(
        "Within 30 days [clause: eu-v4#sec-3.2] (clause: eu-v4#sec-4.2)",
        0.9,
    );
    assert_eq!(codes(&v), ["malformed_citation"]);
}

#[test]
fn low_confidence_is_blocked() {
    let v = verdict(
        "You may return most items within 30 calendar days. [clause: eu-v4#sec-3.2]",
        0.3,
    );
    assert_eq!(
        v.reasons,
        [JudgeReason::LowConfidence {
            confidence: 0.3,
            threshold: 0.5
        }]
    );
}

#[test]
fn output_pii_is_blocked() {
    let v = verdict(
        "Write to jane.doe@example.com within 30 days. [clause: eu-v4#sec-3.2]",
        0.9,
    );
    assert_eq!(codes(&v), ["output_pii"]);
}

#[test]
fn contact_details_quoted_from_the_clause_are_not_personal_data() {
    let clause = "Write to returns@northwind.example within 30 days.";
    let retrieved = [retrieved("eu-v4#sec-3.2", clause, false)];
    let no_data = std::collections::BTreeSet::new();
    let input = |answer| JudgeInput {
        answer,
        resolved_version: "eu-v4",
        retrieved: &retrieved,
        clause_exists: &known,
        confidence: 0.9,
        escalate_below: 0.5,
        data_facts: &no_data,
    };
    assert!(judge(&input(
        "Write to returns@northwind.example within 30 days. [clause: eu-v4#sec-3.2]"
    ))
    .passed());
    let v = judge(&input(
        "Write to jane@example.com within 30 days. [clause: eu-v4#sec-3.2]",
    ));
    assert_eq!(codes(&v), ["output_pii"]);
}

#[test]
fn empty_and_refusal_fail_closed() {
    assert_eq!(codes(&verdict("   ", 0.9)), ["empty_answer"]);
    assert_eq!(codes(&verdict(REFUSAL, 0.9)), ["generator_refused"]);
}

#[test]
fn citing_a_retired_stub_fails_closed_even_when_otherwise_grounded() {
    let stub = "Withdrawal period: this clause belongs to policy version eu-v4, which has been retired and is no longer in effect.";
    let retrieved = [retrieved("eu-v4#sec-3.2", stub, true)];
    let v = judge(&JudgeInput {
        answer: "This policy is no longer in effect. [clause: eu-v4#sec-3.2]",
        resolved_version: "eu-v4",
        retrieved: &retrieved,
        clause_exists: &known,
        confidence: 0.95,
        escalate_below: 0.5,
        data_facts: &Default::default(),
    });
    assert_eq!(codes(&v), ["retired_version"]);
    assert!(v.reasons[0].to_string().contains("eu-v4#sec-3.2"));
}
