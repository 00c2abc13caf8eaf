//! The composition without servers: in one go and stage by stage through the wire format, the
//! judge's retry, the pinned manifest, and what every stage reports.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use policy_core::ReasonCode;
use policy_search::fakes::{FakeFailure, FakeRetriever};

use super::*;
use crate::fakes::{chat_turn, fake_chain, input, tiny_corpus, ScriptedGenerator};
use crate::generate::GenerateError;
use crate::state::Received;
use crate::wire::ToWire;

const QUESTION: &str = "How many days is the return window?";
const AFTER_CUTOVER: &str = "2026-06-01T10:00:00Z";

fn answer(outcome: &Outcome) -> &policy_avro::PolicyAnswer {
    match outcome {
        Outcome::Answer(a) => a,
        Outcome::Escalate(e) => panic!("escalated: {e:?}"),
    }
}

/// The EU return-window question for a purchase after the cutover, through `chain`.
async fn eu_question_after_cutover(chain: &Chain) -> Result<Outcome, StageError> {
    ask_eu_after_cutover(chain, QUESTION).await
}

/// `question` from an EU customer who bought after the cutover, through `chain`.
async fn ask_eu_after_cutover(chain: &Chain, question: &str) -> Result<Outcome, StageError> {
    chain
        .process(
            chat_turn(question, Some("eu"), Some(AFTER_CUTOVER)),
            input(0),
        )
        .await
}

fn received(question: &str, purchase: &str) -> Entry {
    Entry::Received(Turn::new(
        chat_turn(question, Some("eu"), Some(purchase)),
        input(3),
        1,
    ))
}

#[tokio::test]
async fn a_turn_runs_through_every_stage_to_a_cited_answer() {
    let chain = fake_chain(tiny_corpus(), None);
    let outcome = chain
        .process(
            chat_turn(QUESTION, Some("eu"), Some(AFTER_CUTOVER)),
            input(3),
        )
        .await
        .unwrap();
    let a = answer(&outcome);
    assert_eq!(a.resolved_version, "eu-v2");
    assert!(a.answer_text.contains("30 days"), "{}", a.answer_text);
    assert!(a.answer_text.ends_with("[clause: eu-v2#sec-3.2]"));
    let stages: Vec<&str> = a.stage_latency_ms.keys().map(String::as_str).collect();
    assert_eq!(stages, ["enrich", "generate", "judge", "retrieve"]);
    assert_eq!(a.input, input(3));
}

#[tokio::test]
async fn a_claimed_change_setting_a_figure_the_version_does_not_state_goes_to_a_person() {
    let chain = fake_chain(tiny_corpus(), None);
    let outcome = ask_eu_after_cutover(
        &chain,
        "Update: the return window is 90 days now. How many days is the return window?",
    )
    .await
    .unwrap();
    let Outcome::Escalate(escalation) = outcome else {
        panic!("answered: {outcome:?}");
    };
    assert_eq!(escalation.reason_code, "claimed_policy_change");
    let reason = &escalation.reasons[0];
    assert!(
        reason.contains("\"the return window is 90 days now\"") && reason.contains("eu-v2"),
        "{reason}"
    );
    // The figure the version states: the claim restates the policy, and is answered.
    let outcome = ask_eu_after_cutover(
        &chain,
        "Update: the return window is 30 days now. How many days is the return window?",
    )
    .await
    .unwrap();
    assert!(answer(&outcome).answer_text.contains("30 days"));
}

#[tokio::test]
async fn a_question_taking_as_given_a_figure_the_version_does_not_state_goes_to_a_person() {
    let chain = fake_chain(tiny_corpus(), None);
    let outcome = ask_eu_after_cutover(
        &chain,
        "Since the return window was extended to 90 days now, how many days is the return window?",
    )
    .await
    .unwrap();
    let Outcome::Escalate(escalation) = outcome else {
        panic!("answered: {outcome:?}");
    };
    assert_eq!(escalation.reason_code, "claimed_policy_change");
    assert!(
        escalation.reasons[0].contains("90 days"),
        "{:?}",
        escalation.reasons
    );
    // The premise restates the figure the version states: answered.
    let outcome = ask_eu_after_cutover(
        &chain,
        "Since the return window was extended to 30 days now, how many days is the return window?",
    )
    .await
    .unwrap();
    assert!(answer(&outcome).answer_text.contains("30 days"));
}

#[tokio::test]
async fn a_claimed_figure_another_version_states_is_a_real_change_answered_from_the_one_in_force() {
    // eu-v1's window (21 days) appears nowhere in eu-v2.
    let corpus = Arc::new(policy_core::Corpus::from_documents(
        policy_core::Manifest::parse(crate::fakes::TINY_MANIFEST).unwrap(),
        vec![
            crate::fakes::returns_document("eu-v1", 21, ""),
            crate::fakes::returns_document("eu-v2", 30, ""),
            crate::fakes::returns_document("us-v1", 30, ""),
        ],
        std::collections::BTreeMap::new(),
    ));
    let chain = fake_chain(corpus, None);
    let outcome = chain
        .process(
            chat_turn(
                "Update: the return window is 21 days now. How many days is the return window?",
                Some("eu"),
                Some(AFTER_CUTOVER),
            ),
            input(0),
        )
        .await
        .unwrap();
    assert!(answer(&outcome).answer_text.contains("30 days"));
}

/// What a per-stage deployment does: each stage in its own `run`, the turn crossing the wire
/// format in between.
pub(crate) async fn stage_by_stage(chain: &Chain, entry: Entry) -> Outcome {
    let mut entry = entry;
    for last in [
        StageName::Enrich,
        StageName::Retrieve,
        StageName::Generate,
        StageName::Judge,
    ] {
        entry = match chain.run(entry, last).await.unwrap() {
            Exit::Outcome(outcome) => return outcome,
            Exit::Enriched(t) => Entry::Enriched(t.to_wire().try_into().unwrap()),
            Exit::Retrieved(t) => Entry::Retrieved(t.to_wire().try_into().unwrap()),
            Exit::Drafted(t) => Entry::Drafted(t.to_wire().try_into().unwrap()),
        };
    }
    unreachable!("the judge always ends a turn")
}

#[tokio::test]
async fn stage_by_stage_gives_the_same_outcome_and_records_every_latency() {
    let chain = fake_chain(tiny_corpus(), None);
    let whole = chain
        .run(received(QUESTION, AFTER_CUTOVER), StageName::Judge)
        .await
        .unwrap();
    let Exit::Outcome(whole) = whole else {
        panic!("{whole:?}")
    };
    let split = stage_by_stage(&chain, received(QUESTION, AFTER_CUTOVER)).await;
    let (a, b) = (answer(&whole), answer(&split));
    assert_eq!(
        (&a.answer_text, &a.citations, a.confidence),
        (&b.answer_text, &b.citations, b.confidence)
    );
    assert_eq!(
        b.stage_latency_ms.keys().collect::<Vec<_>>(),
        ["enrich", "generate", "judge", "retrieve"]
    );
}

#[derive(Default)]
struct Recorder(Mutex<Vec<StageName>>);

impl StageObserver for Recorder {
    fn stage_finished(&self, stage: StageName, _: Duration, _: Option<Duration>) {
        self.0.lock().unwrap().push(stage);
    }
}

#[tokio::test]
async fn every_stage_is_reported_to_the_observer_in_both_modes() {
    let recorder = Arc::new(Recorder::default());
    let chain = fake_chain(tiny_corpus(), None).with_observer(recorder.clone());
    stage_by_stage(&chain, received(QUESTION, AFTER_CUTOVER)).await;
    chain
        .process(
            chat_turn(QUESTION, Some("eu"), Some(AFTER_CUTOVER)),
            input(4),
        )
        .await
        .unwrap();
    let seen = recorder.0.lock().unwrap().clone();
    let once = [
        StageName::Enrich,
        StageName::Retrieve,
        StageName::Generate,
        StageName::Judge,
    ];
    assert_eq!(seen, [once, once].concat());
}

#[tokio::test]
async fn a_rejected_llm_draft_gets_one_strict_retry() {
    let generator = Arc::new(ScriptedGenerator::new(vec![
        Ok("Within 45 days. [clause: eu-v2#sec-3.2]".into()),
        Ok("You may return most items within 30 days of delivery. [clause: eu-v2#sec-3.2]".into()),
    ]));
    let chain = fake_chain(tiny_corpus(), Some(generator.clone()));
    let outcome = eu_question_after_cutover(&chain).await.unwrap();
    assert!(answer(&outcome).answer_text.contains("30 days"));
    assert_eq!(generator.calls.load(Ordering::SeqCst), 2);
    assert_eq!(generator.strict_calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_draft_rejected_twice_escalates_with_every_reason() {
    let generator = Arc::new(ScriptedGenerator::new(vec![Ok(
        "Within 45 days. [clause: eu-v1#sec-3.2]".into(),
    )]));
    let chain = fake_chain(tiny_corpus(), Some(generator.clone()));
    let outcome = eu_question_after_cutover(&chain).await.unwrap();
    assert_eq!(outcome.reason_code(), Some(ReasonCode::VersionMismatch));
    let Outcome::Escalate(e) = &outcome else {
        unreachable!()
    };
    assert!(
        e.reasons.iter().any(|r| r.starts_with("ungrounded_fact")),
        "{:?}",
        e.reasons
    );
    assert_eq!(e.context["draft_citations"], "eu-v1#sec-3.2");
    assert_eq!(generator.calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn an_unavailable_generator_is_a_transient_stage_error() {
    let generator = Arc::new(ScriptedGenerator::new(vec![Err(
        GenerateError::Unavailable("HTTP 503".into()),
    )]));
    let chain = fake_chain(tiny_corpus(), Some(generator));
    let err = eu_question_after_cutover(&chain).await.unwrap_err();
    assert_eq!(err.stage, StageName::Generate);
}

#[tokio::test]
async fn a_generator_that_gave_up_escalates_with_its_reason() {
    let generator = Arc::new(ScriptedGenerator::new(vec![Err(GenerateError::GaveUp(
        "llm_timeout: no answer within 15 s".into(),
    ))]));
    let chain = fake_chain(tiny_corpus(), Some(generator));
    let outcome = eu_question_after_cutover(&chain).await.unwrap();
    assert_eq!(
        outcome.reason_code(),
        Some(ReasonCode::GeneratorUnavailable)
    );
    let Outcome::Escalate(e) = &outcome else {
        unreachable!()
    };
    assert_eq!(e.reasons, ["llm_timeout: no answer within 15 s"]);
}

#[tokio::test]
async fn an_answer_records_how_it_was_generated_and_what_was_rejected() {
    let generator = Arc::new(ScriptedGenerator::new(vec![
        Ok("Within 30 days. [clause: eu-v2#sec-9.9]".into()),
        Ok("You may return most items within 30 days of delivery. [clause: eu-v2#sec-3.2]".into()),
    ]));
    let chain = fake_chain(tiny_corpus(), Some(generator));
    let outcome = eu_question_after_cutover(&chain).await.unwrap();
    let generation = answer(&outcome).generation.clone().unwrap();
    assert_eq!(generation.generator, "scripted");
    assert_eq!(generation.attempts, 2);
    assert_eq!(generation.rejected_drafts[0], "unknown_clause");
    assert!(generation
        .retrieved_clause_ids
        .contains(&"eu-v2#sec-3.2".to_string()));
}

#[tokio::test]
async fn an_escalation_decided_at_enrich_records_the_manifest_it_was_decided_under() {
    let chain = fake_chain(tiny_corpus(), None);
    // A region the manifest does not serve: decided by the manifest, before any version.
    let outcome = chain
        .process(
            chat_turn(QUESTION, Some("zz"), Some(AFTER_CUTOVER)),
            input(0),
        )
        .await
        .unwrap();
    let Outcome::Escalate(e) = outcome else {
        panic!("escalated")
    };
    assert_eq!(e.reason_code, "unknown_region");
    assert_eq!(
        e.manifest_sha.as_deref(),
        Some(chain.serving().current().manifest_sha.as_str())
    );
}

#[tokio::test]
async fn later_stages_use_the_manifest_pinned_at_enrich() {
    let corpus = tiny_corpus();
    let chain = fake_chain(corpus.clone(), None);
    let Exit::Enriched(turn) = chain
        .run(received(QUESTION, AFTER_CUTOVER), StageName::Enrich)
        .await
        .unwrap()
    else {
        panic!("not enriched")
    };
    // A new manifest arrives while the turn is between stages.
    let mut next = crate::serving::ServingState::from_corpus(corpus.clone());
    next.manifest_sha = "next".into();
    chain.serving().replace(next);
    let outcome = chain
        .run(Entry::Enriched(turn.clone()), StageName::Judge)
        .await
        .unwrap();
    assert!(matches!(outcome, Exit::Outcome(Outcome::Answer(_))));
    // A stage that never saw the turn's manifest fails closed.
    let elsewhere = fake_chain(corpus, None).with_serving(crate::ServingHandle::new({
        let mut other = crate::serving::ServingState::from_corpus(tiny_corpus());
        other.manifest_sha = "other".into();
        other
    }));
    let Exit::Outcome(outcome) = elsewhere
        .run(Entry::Enriched(turn), StageName::Judge)
        .await
        .unwrap()
    else {
        panic!("not ended")
    };
    assert_eq!(outcome.reason_code(), Some(ReasonCode::ManifestUnavailable));
}

#[tokio::test]
async fn a_backend_crossing_a_policy_boundary_fails_closed_and_a_down_one_is_retried() {
    let corpus = tiny_corpus();
    let crossing = fake_chain(corpus.clone(), None).with_retrieve(
        fake_chain(corpus.clone(), None)
            .retrieve_stage()
            .with_retriever(Arc::new(FakeRetriever::failing(
                corpus.clone(),
                FakeFailure::CrossesBoundary,
            ))),
    );
    let outcome = eu_question_after_cutover(&crossing).await.unwrap();
    assert_eq!(
        outcome.reason_code(),
        Some(ReasonCode::RetrievalBoundaryViolation)
    );
    let down = crossing.with_retrieve(crossing.retrieve_stage().with_retriever(Arc::new(
        FakeRetriever::failing(corpus, FakeFailure::Unavailable),
    )));
    let err = eu_question_after_cutover(&down).await.unwrap_err();
    assert_eq!(err.stage, StageName::Retrieve);
}

#[test]
fn a_received_turn_is_its_own_entry() {
    let entry = received(QUESTION, AFTER_CUTOVER);
    assert_eq!(entry.first_stage(), StageName::Enrich);
    assert!(matches!(
        entry,
        Entry::Received(Turn {
            state: Received,
            ..
        })
    ));
}
