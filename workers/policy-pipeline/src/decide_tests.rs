//! Decisions through the one composition, on the tiny corpus (eu: 14-day window until
//! 2026-02-01, then 30 days) with the order system in memory or over HTTP.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use policy_avro::{ChatTurn, PolicyAnswer};
use policy_core::{Corpus, Manifest, ReasonCode};

use super::*;
use crate::chain::{Chain, Entry, Exit};
use crate::facts::{FactSource, HttpSource, HttpSourceConfig, MemorySource};
use crate::fakes::{fake_chain, input, returns_document, tiny_corpus};
use crate::outcome::Outcome;
use crate::stage::StageName;
use crate::state::Turn;
use crate::wire::ToWire;

fn millis(raw: &str) -> i64 {
    policy_core::parse_instant(raw).unwrap().timestamp_millis()
}

fn orders() -> MemorySource {
    let orders = MemorySource::new("orders fixture");
    for (id, placed, delivered) in [
        // Under eu-v1 (14 days) and eu-v2 (30 days), delivered three days after the order.
        ("o-old", "2026-01-10T10:00:00Z", "2026-01-13T10:00:00Z"),
        ("o-new", "2026-02-10T10:00:00+01:00", "2026-02-13T10:00:00Z"),
    ] {
        orders.upsert(
            id.into(),
            BTreeMap::from([
                ("placed_at".into(), placed.into()),
                ("delivered_at".into(), delivered.into()),
                ("region".into(), "eu".into()),
                ("amount".into(), "59.90".into()),
            ]),
        );
    }
    orders
}

fn sources(orders: Arc<dyn FactSource>) -> Sources {
    Sources {
        orders: Some(orders),
        employees: Some(Arc::new(MemorySource::new("employees fixture"))),
    }
}

fn turn(question: &str, order: Option<&str>, sent: &str) -> ChatTurn {
    ChatTurn {
        conversation_id: "conv-1".into(),
        turn_id: format!("turn-{}", order.unwrap_or("faq")),
        question: question.into(),
        session_region: Some("us".into()),
        order_id: order.map(str::to_string),
        sent_at: millis(sent),
        purchase_at: Some(millis("2026-03-01T10:00:00Z")),
        ..Default::default()
    }
}

async fn ask(chain: &Chain, question: &str, order: Option<&str>, sent: &str) -> Outcome {
    chain
        .process(turn(question, order, sent), input(0))
        .await
        .unwrap()
}

fn answer(outcome: &Outcome) -> &PolicyAnswer {
    match outcome {
        Outcome::Answer(a) => a,
        Outcome::Escalate(e) => panic!("escalated: {} {:?}", e.reason_code, e.reasons),
    }
}

fn escalation(outcome: &Outcome) -> &policy_avro::Escalation {
    match outcome {
        Outcome::Escalate(e) => e,
        Outcome::Answer(a) => panic!("answered: {}", a.answer_text),
    }
}

const RETURN: &str = "Can I still return this order?";

#[tokio::test]
async fn the_order_decides_region_version_and_window() {
    let chain = fake_chain(tiny_corpus(), None).with_sources(sources(Arc::new(orders())));
    // o-new: placed under eu-v2 (30 days), delivered 2026-02-13; the session says us and the
    // turn's purchase instant says March: the order system wins on both.
    let inside = ask(&chain, RETURN, Some("o-new"), "2026-03-10T12:00:00Z").await;
    let a = answer(&inside);
    let decision = a.decision.as_ref().expect("a decision");
    assert_eq!(
        (a.resolved_region.as_str(), a.resolved_version.as_str()),
        ("eu", "eu-v2")
    );
    assert_eq!(a.region_source, "order");
    assert_eq!(a.intent, "return_eligibility");
    assert!(decision.eligible);
    assert_eq!(decision.policy_refs, ["eu-v2#sec-3.2"]);
    assert_eq!(decision.deadline, Some(millis("2026-03-15T10:00:00Z")));
    assert_eq!(decision.subject_id.as_deref(), Some("o-new"));
    assert!(
        a.answer_text.contains("[clause: eu-v2#sec-3.2]"),
        "{}",
        a.answer_text
    );
    assert!(
        decision
            .conflicts
            .iter()
            .any(|c| c.starts_with("purchase_at")),
        "{:?}",
        decision.conflicts
    );
    let late = ask(&chain, RETURN, Some("o-new"), "2026-03-15T10:00:01Z").await;
    assert!(!answer(&late).decision.as_ref().unwrap().eligible);
}

#[tokio::test]
async fn stage_by_stage_through_the_wire_gives_the_same_decision() {
    let chain = fake_chain(tiny_corpus(), None).with_sources(sources(Arc::new(orders())));
    let whole = ask(&chain, RETURN, Some("o-new"), "2026-03-10T12:00:00Z").await;
    let mut entry = Entry::Received(Turn::new(
        turn(RETURN, Some("o-new"), "2026-03-10T12:00:00Z"),
        input(0),
        0,
    ));
    let staged = loop {
        let last = entry.first_stage();
        entry = match chain.run(entry, last).await.unwrap() {
            Exit::Outcome(outcome) => break outcome,
            Exit::Enriched(t) => Entry::Enriched(t.to_wire().try_into().unwrap()),
            Exit::Retrieved(t) => Entry::Retrieved(t.to_wire().try_into().unwrap()),
            Exit::Drafted(t) => Entry::Drafted(t.to_wire().try_into().unwrap()),
        };
    };
    assert_eq!(answer(&staged).decision, answer(&whole).decision);
    assert_eq!(answer(&staged).answer_text, answer(&whole).answer_text);
}

/// The tiny corpus before eu-v2 was published: eu-v1 (14 days) open-ended.
fn before_the_change() -> Arc<Corpus> {
    let manifest = Manifest::parse(
        r#"{"regions": {
          "eu": {"versions": [{"id": "eu-v1", "effective_from": "2024-01-01", "effective_to": null}]},
          "us": {"versions": [{"id": "us-v1", "effective_from": "2025-01-01", "effective_to": null}]}}}"#,
    )
    .unwrap();
    let documents = vec![
        returns_document("eu-v1", 14, ""),
        returns_document("us-v1", 30, ""),
    ];
    Arc::new(Corpus::from_documents(manifest, documents, BTreeMap::new()))
}

#[tokio::test]
async fn a_change_of_window_changes_only_decisions_on_orders_after_its_cutover() {
    // 20 days after o-new's delivery: past 14 days, within 30.
    let sent = "2026-03-05T12:00:00Z";
    let decide_all = |corpus: Arc<Corpus>| async move {
        let chain = fake_chain(corpus, None).with_sources(sources(Arc::new(orders())));
        let mut decided = Vec::new();
        for order in ["o-old", "o-new"] {
            let outcome = ask(&chain, RETURN, Some(order), sent).await;
            let d = answer(&outcome).decision.clone().unwrap();
            decided.push((
                answer(&outcome).resolved_version.clone(),
                d.eligible,
                d.deadline,
            ));
        }
        decided
    };
    let before = decide_all(before_the_change()).await;
    let after = decide_all(tiny_corpus()).await;
    // The order placed before the cutover keeps eu-v1's 14 days (deadline 2026-01-27).
    assert_eq!(before[0], after[0]);
    assert_eq!(
        after[0],
        ("eu-v1".into(), false, Some(millis("2026-01-27T10:00:00Z")))
    );
    // The order placed after it moves from 14 to 30 days.
    assert_eq!(
        before[1],
        ("eu-v1".into(), false, Some(millis("2026-02-27T10:00:00Z")))
    );
    assert_eq!(
        after[1],
        ("eu-v2".into(), true, Some(millis("2026-03-15T10:00:00Z")))
    );
}

#[tokio::test]
async fn unknown_orders_and_missing_sources_escalate_with_the_reason() {
    let chain = fake_chain(tiny_corpus(), None).with_sources(sources(Arc::new(orders())));
    let unknown = ask(&chain, RETURN, Some("o-none"), "2026-03-10T12:00:00Z").await;
    let e = escalation(&unknown);
    assert_eq!(e.reason_code, ReasonCode::UnknownOrder.as_str());
    assert_eq!(e.intent, "return_eligibility");
    assert!(e.reasons[0].contains("orders fixture"), "{:?}", e.reasons);
    let unconfigured = fake_chain(tiny_corpus(), None);
    let none = ask(&unconfigured, RETURN, Some("o-new"), "2026-03-10T12:00:00Z").await;
    assert_eq!(
        escalation(&none).reason_code,
        ReasonCode::SourceUnavailable.as_str()
    );
    // A question about how returns work stays a policy question, order or not.
    let faq = ask(
        &chain,
        "How many days is the return window?",
        Some("o-new"),
        "2026-03-10T12:00:00Z",
    )
    .await;
    assert_eq!(answer(&faq).intent, "policy_faq");
    assert!(answer(&faq).decision.is_none());
}

#[tokio::test]
async fn the_judge_blocks_a_decision_its_rules_do_not_support() {
    let chain = fake_chain(tiny_corpus(), None).with_sources(sources(Arc::new(orders())));
    let entry = Entry::Received(Turn::new(
        turn(RETURN, Some("o-new"), "2026-03-10T12:00:00Z"),
        input(0),
        0,
    ));
    let Exit::Drafted(mut drafted) = chain.run(entry, StageName::Generate).await.unwrap() else {
        panic!("not drafted");
    };
    // A draft that states another window than its clause, with a rule the clause lacks.
    drafted.state.draft.text = drafted.state.draft.text.replace("30 days", "45 days");
    if let Some(d) = drafted.state.draft.decision.as_mut() {
        d.rules[0].value = "45".into();
    }
    let Exit::Outcome(outcome) = chain
        .run(Entry::Drafted(drafted), StageName::Judge)
        .await
        .unwrap()
    else {
        panic!("not judged");
    };
    let e = escalation(&outcome);
    assert!(
        e.reasons
            .iter()
            .any(|r| r.starts_with("ungrounded_fact: `45`")),
        "{:?}",
        e.reasons
    );
    assert!(
        e.reasons
            .iter()
            .any(|r| r.starts_with("decision_unsupported")),
        "{:?}",
        e.reasons
    );
    assert!(e.decision.is_some());
}

#[tokio::test]
async fn with_the_order_service_down_a_decision_escalates_after_its_retries_and_a_question_is_still_answered(
) {
    // Nothing listens on this port: every request fails at once, so the time is the backoff.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/orders");
    let http = HttpSource::new(
        "orders",
        HttpSourceConfig {
            base_url: url.clone(),
            timeout: Duration::from_millis(300),
            retries: 2,
            budget: Duration::from_secs(5),
            breaker_failures: 10,
            breaker_cooldown: Duration::from_secs(30),
        },
    )
    .unwrap();
    let chain = fake_chain(tiny_corpus(), None).with_sources(sources(Arc::new(http)));
    let started = Instant::now();
    let down = ask(&chain, RETURN, Some("o-new"), "2026-03-10T12:00:00Z").await;
    let e = escalation(&down);
    assert_eq!(e.reason_code, ReasonCode::SourceUnavailable.as_str());
    assert!(e.reasons[0].contains(&url), "{:?}", e.reasons);
    assert!(e.reasons[0].contains("after 3 attempts"), "{:?}", e.reasons);
    // Two backoffs of at least 100 ms (jitter only adds).
    assert!(
        started.elapsed() >= Duration::from_millis(200),
        "{:?}",
        started.elapsed()
    );
    let faq = ask(
        &chain,
        "How many days is the return window?",
        None,
        "2026-03-10T12:00:00Z",
    )
    .await;
    assert!(answer(&faq).answer_text.contains("days"));
}
