//! Every record type survives a trip through its own schema, with optional fields both set and
//! unset; and data written with an older schema resolves into the current record.

use std::collections::BTreeMap;

use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::writer::datum::GenericDatumWriter;
use apache_avro::Schema;
use policy_avro::*;
use serde::de::DeserializeOwned;
use serde::Serialize;

fn roundtrip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(
    name: SchemaName,
    record: T,
) {
    let bytes = GenericDatumWriter::builder(name.schema())
        .build()
        .unwrap()
        .write_ser_to_vec(&record)
        .unwrap();
    let reader = GenericDatumReader::builder(name.schema()).build().unwrap();
    let back: T = reader.read_deser(&mut bytes.as_slice()).unwrap();
    assert_eq!(back, record, "{name:?}");
    // The generic (Value) path used for foreign writer schemas must agree.
    let value = GenericDatumReader::builder(name.schema())
        .reader_schema(name.schema())
        .build()
        .unwrap()
        .read_value(&mut bytes.as_slice())
        .unwrap();
    assert_eq!(
        apache_avro::from_value::<T>(&value).unwrap(),
        record,
        "{name:?} via Value"
    );
}

fn turn() -> ChatTurn {
    ChatTurn {
        conversation_id: "c-1".into(),
        turn_id: "t-1".into(),
        user_id: Some("u-1".into()),
        question: "What is my return window?".into(),
        locale: Some("en-IE".into()),
        channel: None,
        session_region: Some("eu".into()),
        billing_region: None,
        ip_region: Some("us".into()),
        purchase_at: Some(1_768_471_200_000),
        order_id: None,
        employee_id: None,
        sent_at: 1_779_000_000_000,
        order_facts: Some(BTreeMap::from([(
            "item_category".into(),
            "electronics".into(),
        )])),
    }
}

fn coordinates() -> InputCoordinates {
    InputCoordinates {
        topic: "policy.turns".into(),
        partition: 3,
        offset: 42,
    }
}

#[test]
fn chat_turn() {
    roundtrip(SchemaName::ChatTurn, turn());
    roundtrip(
        SchemaName::ChatTurn,
        ChatTurn {
            sent_at: 1,
            ..Default::default()
        },
    );
}

#[test]
fn turn_state_at_every_stage() {
    let mut state = TurnState {
        turn: turn(),
        input: coordinates(),
        received_at: 5,
        ..Default::default()
    };
    roundtrip(SchemaName::TurnState, state.clone());
    state.stage_latency_ms.insert("enrich".into(), 0.25);
    state.enrichment = Some(Enrichment {
        sanitized_question: "What is my return window?".into(),
        region: "eu".into(),
        region_source: "session".into(),
        region_disagreement: true,
        region_low_confidence: true,
        version_id: "eu-v3".into(),
        effective_at: Some(1_768_471_200_000),
        ambiguous_cutover_at: None,
        banner: None,
        shadow_review: false,
        manifest_sha: "abc".into(),
        manifest_git_sha: Some("def".into()),
        pii_types: vec!["email".into()],
        injection_score: 0.1,
        guardrail_flags: vec![],
        intent: "return_eligibility".into(),
        subject: Some(policy_avro::Subject {
            kind: "order".into(),
            id: "o-1".into(),
            source: "policy.orders".into(),
            fields: BTreeMap::from([("placed_at".into(), "2026-01-15T10:00:00Z".into())]),
            conflicts: vec!["placed_at: stated 2026-01-20".into()],
        }),
    });
    state.retrieval = Some(Retrieval {
        clauses: vec![RetrievedClause {
            clause_id: "eu-v3#sec-3.2".into(),
            version_id: "eu-v3".into(),
            title: "Return window".into(),
            text: "14 days".into(),
            score: 0.8,
            lexical_rank: Some(1),
            vector_rank: None,
            status: "retired".into(),
            sentence_scores: vec![0.5, 0.25],
        }],
        confidence: 0.8,
        tier: "answer".into(),
        backend: "embedded".into(),
        query_terms: vec![policy_avro::QueryTerm {
            word: "hoodie".into(),
            in_version: false,
            equivalents: vec!["apparel".into()],
            phrase: false,
            nearest_cosine: 0.66,
        }],
    });
    state.draft = Some(Draft {
        text: "x".into(),
        generator: "extractive".into(),
        attempts: 2,
        disclaimer: None,
        fallback_reason: Some("llm_timeout: no answer within 15 s".into()),
        rejected: vec!["clause_not_retrieved".into()],
        llm_calls: 3,
        completion_tokens: 120,
        decision: Some(Box::new(decision())),
    });
    roundtrip(SchemaName::TurnState, state);
}

fn decision() -> policy_avro::Decision {
    policy_avro::Decision {
        kind: "return_eligibility".into(),
        eligible: true,
        reason: "delivered on 2026-01-16; 30-day window".into(),
        deadline: Some(1_771_243_200_000),
        amount: Some("129.90".into()),
        policy_refs: vec!["eu-v4#sec-3.2".into()],
        rules: vec![policy_avro::RuleUse {
            clause_id: "eu-v4#sec-3.2".into(),
            key: "return_window_days".into(),
            value: "30".into(),
        }],
        confidence: 1.0,
        requires_human_review: false,
        employee_level: None,
        subject_id: Some("o-1".into()),
        source: Some("policy.orders".into()),
        conflicts: vec![],
        offer: Some("store_credit".into()),
        offer_until: Some(1_771_848_000_000),
    }
}

#[test]
fn outcomes() {
    roundtrip(
        SchemaName::PolicyAnswer,
        PolicyAnswer {
            turn_id: "t".into(),
            citations: vec![Citation {
                clause_id: "eu-v4#sec-3.2".into(),
                version_id: "eu-v4".into(),
                effective_from: Some(1_769_904_000_000),
            }],
            topic: Some("return_window".into()),
            ip_region: Some("us".into()),
            input: coordinates(),
            judge_reasons: vec!["ok".into()],
            banner: Some("banner".into()),
            generation: Some(Generation {
                generator: "openai-compatible".into(),
                attempts: 2,
                fallback_reason: Some("llm_timeout: no answer within 15 s".into()),
                rejected_drafts: vec!["clause_not_retrieved".into()],
                llm_calls: 2,
                completion_tokens: 57,
                retrieved_clause_ids: vec!["eu-v4#sec-3.2".into()],
            }),
            intent: "return_eligibility".into(),
            decision: Some(decision()),
            ..Default::default()
        },
    );
    roundtrip(
        SchemaName::Escalation,
        Escalation {
            intent: "expense_approval".into(),
            decision: Some(decision()),
            reason_code: "prompt_injection".into(),
            context: BTreeMap::from([("region".into(), "eu".into())]),
            input: coordinates(),
            ..Default::default()
        },
    );
}

#[test]
fn dead_letter_keeps_original_bytes() {
    roundtrip(
        SchemaName::DeadLetter,
        DeadLetter {
            source_topic: "policy.turns".into(),
            source_partition: 1,
            source_offset: 7,
            key: Some(vec![0xff, 0x00]),
            stage: "enrich".into(),
            error: "magic byte".into(),
            original: vec![0xde, 0xad, 0xbe, 0xef],
            failed_at: 9,
        },
    );
    roundtrip(SchemaName::DeadLetter, DeadLetter::default());
}

#[test]
fn policy_change_and_manifest() {
    roundtrip(
        SchemaName::PolicyChange,
        PolicyChange {
            git_sha: "a".into(),
            previous_sha: None,
            changed_documents: vec![ChangedDocument {
                path: "eu/v5/returns.md".into(),
                change: "added".into(),
                ..Default::default()
            }],
            ..Default::default()
        },
    );
    roundtrip(
        SchemaName::ManifestRecord,
        ManifestRecord {
            git_sha: "a".into(),
            ..Default::default()
        },
    );
}

#[test]
fn older_writer_schema_resolves_into_current_record() {
    // ChatTurn as a producer that predates `order_facts` and `employee_id` would write it.
    let old_source = SchemaName::ChatTurn
        .source()
        .replace(r#"{"name": "employee_id", "type": ["null", "string"], "default": null},"#, "")
        .replace(
            r#",
    {"name": "order_facts", "type": ["null", {"type": "map", "values": "string"}], "default": null, "doc": "Order attributes for eligibility questions (e.g. item_category)."}"#,
            "",
        );
    let old = Schema::parse_str(&old_source).unwrap();
    assert_ne!(
        old.canonical_form(),
        SchemaName::ChatTurn.schema().canonical_form(),
        "fields removed"
    );
    #[derive(Serialize)]
    struct OldTurn {
        conversation_id: String,
        turn_id: String,
        user_id: Option<String>,
        question: String,
        locale: Option<String>,
        channel: Option<String>,
        session_region: Option<String>,
        billing_region: Option<String>,
        ip_region: Option<String>,
        purchase_at: Option<i64>,
        order_id: Option<String>,
        sent_at: i64,
    }
    let old_turn = OldTurn {
        conversation_id: "c".into(),
        turn_id: "t".into(),
        user_id: None,
        question: "q".into(),
        locale: None,
        channel: None,
        session_region: Some("jp".into()),
        billing_region: None,
        ip_region: None,
        purchase_at: None,
        order_id: None,
        sent_at: 3,
    };
    let bytes = GenericDatumWriter::builder(&old)
        .build()
        .unwrap()
        .write_ser_to_vec(&old_turn)
        .unwrap();
    let value = GenericDatumReader::builder(&old)
        .reader_schema(SchemaName::ChatTurn.schema())
        .build()
        .unwrap()
        .read_value(&mut bytes.as_slice())
        .unwrap();
    let current: ChatTurn = apache_avro::from_value(&value).unwrap();
    assert_eq!(current.session_region.as_deref(), Some("jp"));
    assert_eq!((current.employee_id, current.order_facts), (None, None));
    assert!(check_compatibility(
        CompatibilityLevel::Backward,
        SchemaName::ChatTurn.schema(),
        &[old]
    )
    .is_ok());
}

#[test]
fn a_generation_survives_an_escalation_context() {
    let generation = Generation {
        generator: "openai-compatible".into(),
        attempts: 2,
        fallback_reason: Some("llm_timeout: no answer within 15 s".into()),
        rejected_drafts: vec!["no_citation".into(), "ungrounded_fact".into()],
        llm_calls: 3,
        completion_tokens: 88,
        retrieved_clause_ids: Vec::new(),
    };
    let mut context = BTreeMap::new();
    generation.write_context(&mut context);
    assert_eq!(Generation::from_context(&context), Some(generation));
    assert_eq!(Generation::from_context(&BTreeMap::new()), None);
}
