use std::collections::BTreeMap;

use policy_avro::Citation;

use super::*;

fn source() -> InputCoordinates {
    InputCoordinates {
        topic: "policy.answers".into(),
        partition: 2,
        offset: 41,
    }
}

fn input() -> InputCoordinates {
    InputCoordinates {
        topic: "policy.turns".into(),
        partition: 5,
        offset: 7,
    }
}

#[test]
fn answer_row_carries_citations_versions_and_stage_latencies() {
    let answer = PolicyAnswer {
        conversation_id: "c1".into(),
        turn_id: "t1".into(),
        question: "What is the return window?".into(),
        answer_text: "30 days [clause: eu-v4#sec-3.2]".into(),
        citations: vec![
            Citation {
                clause_id: "eu-v4#sec-3.2".into(),
                version_id: "eu-v4".into(),
                effective_from: Some(1_769_904_000_000), // 2026-02-01
            },
            Citation {
                clause_id: "eu-v4#sec-3.3".into(),
                version_id: "eu-v4".into(),
                effective_from: None,
            },
        ],
        resolved_region: "eu".into(),
        region_source: "session".into(),
        region_disagreement: true,
        resolved_version: "eu-v4".into(),
        effective_at: Some(1_773_000_000_123),
        manifest_sha: "abc".into(),
        confidence: 0.82,
        tier: "high".into(),
        judge_verdict: "pass".into(),
        input: input(),
        stage_latency_ms: BTreeMap::from([
            ("enrich".into(), 1.0),
            ("retrieve".into(), 2.5),
            ("generate".into(), 0.5),
            ("judge".into(), 0.25),
        ]),
        answered_at: 1_790_000_000_999,
        topic: Some("return_window".into()),
        ip_region: Some("us".into()),
        ..Default::default()
    };
    let row = from_answer(&answer, &source());
    assert_eq!(row.turn_id, "t1");
    assert_eq!(row.outcome, "answer");
    assert_eq!(row.region_disagreement, 1);
    assert_eq!(row.ip_region, "us");
    assert_eq!((row.effective_at, row.has_effective_at), (1_773_000_000, 1));
    assert_eq!(row.cited_clause_ids, ["eu-v4#sec-3.2", "eu-v4#sec-3.3"]);
    assert_eq!(row.cited_versions, ["eu-v4", "eu-v4"]);
    assert_eq!(row.cited_effective_from, [1_769_904_000, 0]);
    assert_eq!(row.topic, "return_window");
    assert_eq!(row.latency_retrieve_ms, 2.5);
    assert_eq!(row.latency_total_ms, 4.25);
    assert_eq!(
        (
            row.input_topic.as_str(),
            row.input_partition,
            row.input_offset
        ),
        ("policy.turns", 5, 7)
    );
    assert_eq!(
        (
            row.source_topic.as_str(),
            row.source_partition,
            row.source_offset
        ),
        ("policy.answers", 2, 41)
    );
    assert_eq!(row.processed_at, 1_790_000_000);
    assert_eq!(row.processed_at_ms, 1_790_000_000_999);
}

#[test]
fn escalation_row_reads_region_and_confidence_from_its_context() {
    let escalation = Escalation {
        conversation_id: "c2".into(),
        turn_id: "t2".into(),
        question: "q".into(),
        reason_code: "version_mismatch".into(),
        reasons: vec!["cites eu-v3 for an eu-v4 turn".into()],
        summary: "needs a human".into(),
        resolved_region: Some("eu".into()),
        resolved_version: Some("eu-v4".into()),
        manifest_sha: Some("abc".into()),
        context: BTreeMap::from([
            ("region_source".into(), "billing".into()),
            ("region_disagreement".into(), "false".into()),
            ("effective_at_ms".into(), "1773000000000".into()),
            ("confidence".into(), "0.410".into()),
            (
                "draft_citations".into(),
                "eu-v3#sec-3.2,eu-v4#sec-1.1".into(),
            ),
        ]),
        input: input(),
        escalated_at: 5_000,
        topic: Some("gift_cards".into()),
        ..Default::default()
    };
    let row = from_escalation(&escalation, &source());
    assert_eq!(row.outcome, "escalate");
    assert_eq!(row.reason_code, "version_mismatch");
    assert_eq!(row.region_source, "billing");
    assert_eq!(row.region_disagreement, 0);
    assert_eq!((row.effective_at, row.has_effective_at), (1_773_000_000, 1));
    assert_eq!(row.confidence, 0.41);
    assert_eq!(row.judge_reasons, ["cites eu-v3 for an eu-v4 turn"]);
    assert_eq!(row.cited_clause_ids, ["eu-v3#sec-3.2", "eu-v4#sec-1.1"]);
    assert_eq!(
        row.cited_versions,
        ["eu-v3", "eu-v4"],
        "what the rejected draft cited"
    );
    assert_eq!(row.topic, "gift_cards");
    assert_eq!(row.judge_verdict, "reject", "a judge rejection");
    assert_eq!(row.processed_at, 5);
}

#[test]
fn escalation_before_enrichment_has_empty_region_and_no_date() {
    let row = from_escalation(
        &Escalation {
            turn_id: "t3".into(),
            reason_code: "prompt_injection".into(),
            ..Default::default()
        },
        &source(),
    );
    assert_eq!(row.resolved_region, "");
    assert_eq!(row.has_effective_at, 0);
    assert_eq!(row.confidence, 0.0);
    assert!(row.cited_clause_ids.is_empty(), "no draft, no citations");
    assert_eq!(row.judge_verdict, "not_judged");
}

#[test]
fn dead_letter_is_identified_by_its_poison_message() {
    let letter = DeadLetter {
        source_topic: "policy.turns".into(),
        source_partition: 1,
        source_offset: 99,
        key: Some(b"conv-9".to_vec()),
        stage: "enrich".into(),
        error: "unknown magic byte".into(),
        original: vec![1, 2, 3],
        failed_at: 2_000,
    };
    let row = from_dead_letter(&letter, &source());
    assert_eq!(row.turn_id, "dead-letter:policy.turns:1:99");
    assert_eq!(row.conversation_id, "conv-9");
    assert_eq!(row.outcome, "dead_letter");
    assert_eq!(row.reason_code, "dead_letter_enrich");
    assert_eq!(row.judge_reasons, ["unknown magic byte"]);
    assert_eq!(row.input_offset, 99);
    assert_eq!(
        from_dead_letter(&letter, &source()).turn_id,
        row.turn_id,
        "stable id: a re-delivery replaces the row"
    );
}

#[test]
fn undecodable_audit_input_still_becomes_a_row() {
    let row = undecodable(&source(), "magic byte 0x7b", 3_500);
    assert_eq!(row.turn_id, "undecodable:policy.answers:2:41");
    assert_eq!(row.outcome, "undecodable");
    assert_eq!(row.judge_reasons, ["magic byte 0x7b"]);
    assert_eq!(row.processed_at, 3);
}

#[test]
fn negative_or_huge_timestamps_do_not_wrap() {
    assert_eq!(seconds(-5), 0);
    assert_eq!(seconds(i64::MAX), u32::MAX);
}

#[test]
fn the_turn_as_received_comes_back_from_its_row() {
    let turn = policy_avro::ChatTurn {
        conversation_id: "c9".into(),
        turn_id: "t9".into(),
        user_id: Some("u9".into()),
        question: "How long is the return window?".into(),
        locale: Some("de-DE".into()),
        channel: Some("web".into()),
        session_region: None,
        billing_region: Some("eu".into()),
        ip_region: Some("us".into()),
        purchase_at: Some(1_772_323_200_000),
        order_id: Some("o-1".into()),
        employee_id: None,
        sent_at: 1_790_000_000_000,
        order_facts: Some(BTreeMap::from([
            ("item_category".into(), "shoes".into()),
            ("condition".into(), "unused".into()),
        ])),
    };
    let answer = PolicyAnswer {
        conversation_id: turn.conversation_id.clone(),
        turn_id: turn.turn_id.clone(),
        question: turn.question.clone(),
        ip_region: turn.ip_region.clone(),
        received: Some(policy_avro::ReceivedTurn::of(&turn, Some(7))),
        ..Default::default()
    };
    let row = from_answer(&answer, &source());
    assert_eq!((row.has_received, row.input_schema_id), (1, 7));
    assert_eq!(received_turn(&row), Some(turn));
    // A row from before the migration has nothing to rebuild a turn from.
    let old = from_answer(
        &PolicyAnswer {
            received: None,
            ..answer
        },
        &source(),
    );
    assert_eq!(received_turn(&old), None);
}

#[test]
fn decisions_and_intents_have_their_columns() {
    let decision = policy_avro::Decision {
        kind: "expense_approval".into(),
        eligible: false,
        reason: "75.01 requested; the meals limit for level manager is 75".into(),
        amount: Some("75.01".into()),
        policy_refs: vec!["hr-v2#sec-3.1".into()],
        rules: vec![policy_avro::RuleUse {
            clause_id: "hr-v2#sec-3.1".into(),
            key: "limit.manager".into(),
            value: "75".into(),
        }],
        confidence: 0.91,
        employee_level: Some("manager".into()),
        source: Some("policy.employees".into()),
        conflicts: vec!["level: stated vp".into()],
        ..Default::default()
    };
    let answer = PolicyAnswer {
        turn_id: "t-1".into(),
        intent: "expense_approval".into(),
        decision: Some(decision.clone()),
        ..Default::default()
    };
    let row = from_answer(&answer, &source());
    assert_eq!(
        (
            row.intent.as_str(),
            row.decision_kind.as_str(),
            row.decision_eligible
        ),
        ("expense_approval", "expense_approval", 0)
    );
    assert_eq!(row.decision_rules, ["hr-v2#sec-3.1 limit.manager=75"]);
    assert_eq!(
        (row.employee_level.as_str(), row.decision_amount.as_str()),
        ("manager", "75.01")
    );
    assert_eq!(row.decision_conflicts, ["level: stated vp"]);
    let escalated = from_escalation(
        &Escalation {
            turn_id: "t-2".into(),
            intent: "return_eligibility".into(),
            reason_code: "source_unavailable".into(),
            ..Default::default()
        },
        &source(),
    );
    assert_eq!(
        (escalated.intent.as_str(), escalated.decision_kind.as_str()),
        ("return_eligibility", "")
    );
}
