//! One audit row per turn, encoded from whatever final record the pipeline produced.
//! Pure: no I/O, so every mapping is unit-tested.

use clickhouse::Row;
use policy_avro::{
    DeadLetter, Decision, Escalation, Generation, InputCoordinates, PolicyAnswer, ReceivedTurn,
};
use policy_core::{ClauseRef, JudgeVerdict, OutcomeKind};
use serde::{Deserialize, Serialize};

/// Columns of `turns` (migration 0001, then the columns later migrations append), in table
/// order: RowBinary is positional.
#[derive(Debug, Clone, Default, PartialEq, Row, Serialize, Deserialize)]
pub struct AuditRow {
    pub turn_id: String,
    pub conversation_id: String,
    /// `answer`, `escalate`, `dead_letter` or `undecodable`.
    pub outcome: String,
    pub question: String,
    pub resolved_region: String,
    pub region_source: String,
    pub region_disagreement: u8,
    pub ip_region: String,
    pub resolved_version: String,
    /// Seconds since the epoch (ClickHouse `DateTime`); 0 with `has_effective_at = 0`.
    pub effective_at: u32,
    pub has_effective_at: u8,
    pub manifest_sha: String,
    pub topic: String,
    pub tier: String,
    pub confidence: f64,
    pub cited_clause_ids: Vec<String>,
    pub cited_versions: Vec<String>,
    /// Effective date of each cited clause's version (same order as `cited_clause_ids`).
    pub cited_effective_from: Vec<u32>,
    pub judge_verdict: String,
    pub judge_reasons: Vec<String>,
    pub reason_code: String,
    pub answer_text: String,
    pub latency_enrich_ms: f64,
    pub latency_retrieve_ms: f64,
    pub latency_generate_ms: f64,
    pub latency_judge_ms: f64,
    pub latency_total_ms: f64,
    pub input_topic: String,
    pub input_partition: i32,
    pub input_offset: i64,
    pub source_topic: String,
    pub source_partition: i32,
    pub source_offset: i64,
    pub processed_at: u32,
    /// Millisecond precision of `processed_at`; the ReplacingMergeTree version column.
    pub processed_at_ms: u64,
    /// Migration 0002: how the text was produced (`PolicyAnswer.generation`, or the judge's
    /// escalation context for a rejected draft).
    pub generator: String,
    pub generation_fallback: String,
    pub rejected_drafts: Vec<String>,
    pub llm_calls: u32,
    pub completion_tokens: u32,
    /// Migration 0003: the turn as received (`received` on the outcome).
    pub has_received: u8,
    pub user_id: String,
    pub locale: String,
    pub channel: String,
    pub session_region: String,
    pub billing_region: String,
    pub purchase_at_ms: i64,
    pub has_purchase_at: u8,
    pub sent_at_ms: i64,
    pub order_id: String,
    pub employee_id: String,
    pub order_fact_keys: Vec<String>,
    pub order_fact_values: Vec<String>,
    pub input_schema_id: u32,
    /// Migration 0004: the intent, and the decision made for it (answers and escalations).
    pub intent: String,
    pub decision_kind: String,
    pub decision_eligible: u8,
    pub decision_reason: String,
    pub decision_deadline_ms: i64,
    pub decision_amount: String,
    pub decision_policy_refs: Vec<String>,
    /// `clause_id key=value` per rule used.
    pub decision_rules: Vec<String>,
    pub decision_human_review: u8,
    pub employee_level: String,
    pub decision_source: String,
    pub decision_conflicts: Vec<String>,
    /// The clauses retrieved for the draft (`Generation.retrieved_clause_ids`).
    pub retrieved_clause_ids: Vec<String>,
}

/// The intent and the decision, into their columns.
fn with_decision(row: &mut AuditRow, intent: &str, decision: Option<&Decision>) {
    row.intent = intent.to_string();
    let Some(d) = decision else {
        return;
    };
    row.decision_kind = d.kind.clone();
    row.decision_eligible = d.eligible.into();
    row.decision_reason = d.reason.clone();
    row.decision_deadline_ms = d.deadline.unwrap_or(0);
    row.decision_amount = d.amount.clone().unwrap_or_default();
    row.decision_policy_refs = d.policy_refs.clone();
    row.decision_rules = d
        .rules
        .iter()
        .map(|r| format!("{} {}={}", r.clause_id, r.key, r.value))
        .collect();
    row.decision_human_review = d.requires_human_review.into();
    row.employee_level = d.employee_level.clone().unwrap_or_default();
    row.decision_source = d.source.clone().unwrap_or_default();
    row.decision_conflicts = d.conflicts.clone();
}

/// How the text was produced, into its columns (empty when no generator ran).
fn with_generation(row: &mut AuditRow, generation: Option<&Generation>) {
    let Some(g) = generation else {
        return;
    };
    row.generator = g.generator.clone();
    row.generation_fallback = g.fallback_reason.clone().unwrap_or_default();
    row.rejected_drafts = g.rejected_drafts.clone();
    row.llm_calls = g.llm_calls.max(0) as u32;
    row.completion_tokens = g.completion_tokens.max(0) as u32;
    row.retrieved_clause_ids = g.retrieved_clause_ids.clone();
}

/// The turn as received, into its columns.
fn with_received(mut row: AuditRow, received: Option<&ReceivedTurn>) -> AuditRow {
    let Some(r) = received else {
        return row;
    };
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    row.has_received = 1;
    row.user_id = text(&r.user_id);
    row.locale = text(&r.locale);
    row.channel = text(&r.channel);
    row.session_region = text(&r.session_region);
    row.billing_region = text(&r.billing_region);
    if row.ip_region.is_empty() {
        row.ip_region = text(&r.ip_region);
    }
    row.purchase_at_ms = r.purchase_at.unwrap_or(0);
    row.has_purchase_at = r.purchase_at.is_some().into();
    row.sent_at_ms = r.sent_at;
    row.order_id = text(&r.order_id);
    row.employee_id = text(&r.employee_id);
    let facts = r.order_facts.clone().unwrap_or_default();
    row.order_fact_keys = facts.keys().cloned().collect();
    row.order_fact_values = facts.into_values().collect();
    row.input_schema_id = r.input_schema_id.map_or(0, |id| id.max(0) as u32);
    row
}

/// The turn again from its audit row, or `None` for a row written before migration 0003.
pub fn received_turn(row: &AuditRow) -> Option<policy_avro::ChatTurn> {
    if row.has_received == 0 {
        return None;
    }
    let some = |v: &String| (!v.is_empty()).then(|| v.clone());
    let received = ReceivedTurn {
        user_id: some(&row.user_id),
        locale: some(&row.locale),
        channel: some(&row.channel),
        session_region: some(&row.session_region),
        billing_region: some(&row.billing_region),
        ip_region: some(&row.ip_region),
        purchase_at: (row.has_purchase_at == 1).then_some(row.purchase_at_ms),
        sent_at: row.sent_at_ms,
        order_id: some(&row.order_id),
        employee_id: some(&row.employee_id),
        order_facts: (!row.order_fact_keys.is_empty()).then(|| {
            row.order_fact_keys
                .iter()
                .cloned()
                .zip(row.order_fact_values.iter().cloned())
                .collect()
        }),
        input_schema_id: (row.input_schema_id > 0).then_some(row.input_schema_id as i32),
    };
    Some(received.turn(&row.conversation_id, &row.turn_id, &row.question))
}

/// `reason_code` of a record the audit could not decode (not a pipeline reason: nothing in the
/// pipeline escalated it).
pub const UNDECODABLE_AUDIT_INPUT: &str = "undecodable_audit_input";

fn seconds(millis: i64) -> u32 {
    (millis.max(0) / 1000).min(u32::MAX as i64) as u32
}

fn latencies(row: &mut AuditRow, stage_latency_ms: &std::collections::BTreeMap<String, f64>) {
    let get = |stage: &str| stage_latency_ms.get(stage).copied().unwrap_or(0.0);
    row.latency_enrich_ms = get("enrich");
    row.latency_retrieve_ms = get("retrieve");
    row.latency_generate_ms = get("generate");
    row.latency_judge_ms = get("judge");
    row.latency_total_ms = stage_latency_ms.values().sum();
}

fn with_coordinates(
    mut row: AuditRow,
    input: &InputCoordinates,
    source: &InputCoordinates,
) -> AuditRow {
    row.input_topic = input.topic.clone();
    row.input_partition = input.partition;
    row.input_offset = input.offset;
    row.source_topic = source.topic.clone();
    row.source_partition = source.partition;
    row.source_offset = source.offset;
    row
}

fn processed(mut row: AuditRow, at_ms: i64) -> AuditRow {
    row.processed_at = seconds(at_ms);
    row.processed_at_ms = at_ms.max(0) as u64;
    row
}

pub fn from_answer(answer: &PolicyAnswer, source: &InputCoordinates) -> AuditRow {
    let mut row = AuditRow {
        turn_id: answer.turn_id.clone(),
        conversation_id: answer.conversation_id.clone(),
        outcome: OutcomeKind::Answer.as_str().into(),
        question: answer.question.clone(),
        resolved_region: answer.resolved_region.clone(),
        region_source: answer.region_source.clone(),
        region_disagreement: answer.region_disagreement.into(),
        ip_region: answer.ip_region.clone().unwrap_or_default(),
        resolved_version: answer.resolved_version.clone(),
        effective_at: answer.effective_at.map(seconds).unwrap_or(0),
        has_effective_at: answer.effective_at.is_some().into(),
        manifest_sha: answer.manifest_sha.clone(),
        topic: answer.topic.clone().unwrap_or_default(),
        tier: answer.tier.clone(),
        confidence: answer.confidence,
        cited_clause_ids: answer
            .citations
            .iter()
            .map(|c| c.clause_id.clone())
            .collect(),
        cited_versions: answer
            .citations
            .iter()
            .map(|c| c.version_id.clone())
            .collect(),
        cited_effective_from: answer
            .citations
            .iter()
            .map(|c| c.effective_from.map(seconds).unwrap_or(0))
            .collect(),
        judge_verdict: answer.judge_verdict.clone(),
        judge_reasons: answer.judge_reasons.clone(),
        answer_text: answer.answer_text.clone(),
        ..Default::default()
    };
    with_generation(&mut row, answer.generation.as_ref());
    with_decision(&mut row, &answer.intent, answer.decision.as_ref());
    latencies(&mut row, &answer.stage_latency_ms);
    let row = with_received(row, answer.received.as_ref());
    processed(
        with_coordinates(row, &answer.input, source),
        answer.answered_at,
    )
}

pub fn from_escalation(escalation: &Escalation, source: &InputCoordinates) -> AuditRow {
    let context = |key: &str| escalation.context.get(key).cloned().unwrap_or_default();
    let effective_at = escalation
        .context
        .get("effective_at_ms")
        .and_then(|v| v.parse::<i64>().ok());
    // The judge records what a rejected draft cited; other escalations had no draft.
    let draft_citations: Vec<String> = escalation
        .context
        .get("draft_citations")
        .map(|list| {
            list.split(',')
                .filter(|id| !id.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let mut row = AuditRow {
        cited_versions: draft_citations
            .iter()
            .map(|id| ClauseRef::version_of(id).to_string())
            .collect(),
        cited_clause_ids: draft_citations,
        turn_id: escalation.turn_id.clone(),
        conversation_id: escalation.conversation_id.clone(),
        outcome: OutcomeKind::Escalate.as_str().into(),
        question: escalation.question.clone(),
        resolved_region: escalation.resolved_region.clone().unwrap_or_default(),
        region_source: context("region_source"),
        region_disagreement: (context("region_disagreement") == "true").into(),
        ip_region: escalation.ip_region.clone().unwrap_or_default(),
        resolved_version: escalation.resolved_version.clone().unwrap_or_default(),
        effective_at: effective_at.map(seconds).unwrap_or(0),
        has_effective_at: effective_at.is_some().into(),
        manifest_sha: escalation.manifest_sha.clone().unwrap_or_default(),
        topic: escalation.topic.clone().unwrap_or_default(),
        confidence: context("confidence").parse().unwrap_or(0.0),
        // The judge marks its rejections with the draft's citations; other stages escalate
        // before any draft exists.
        judge_verdict: if escalation.context.contains_key("draft_citations") {
            JudgeVerdict::Reject
        } else {
            JudgeVerdict::NotJudged
        }
        .as_str()
        .into(),
        judge_reasons: escalation.reasons.clone(),
        reason_code: escalation.reason_code.clone(),
        answer_text: escalation.summary.clone(),
        ..Default::default()
    };
    with_generation(
        &mut row,
        Generation::from_context(&escalation.context).as_ref(),
    );
    with_decision(&mut row, &escalation.intent, escalation.decision.as_ref());
    latencies(&mut row, &escalation.stage_latency_ms);
    let row = with_received(row, escalation.received.as_ref());
    processed(
        with_coordinates(row, &escalation.input, source),
        escalation.escalated_at,
    )
}

/// A dead letter has no turn id we can trust; its poison message's coordinates identify it, so a
/// re-delivered dead letter replaces its own row.
pub fn from_dead_letter(letter: &DeadLetter, source: &InputCoordinates) -> AuditRow {
    let input = InputCoordinates {
        topic: letter.source_topic.clone(),
        partition: letter.source_partition,
        offset: letter.source_offset,
    };
    let row = AuditRow {
        turn_id: format!(
            "dead-letter:{}:{}:{}",
            letter.source_topic, letter.source_partition, letter.source_offset
        ),
        conversation_id: letter
            .key
            .as_deref()
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .unwrap_or_default(),
        outcome: OutcomeKind::DeadLetter.as_str().into(),
        judge_verdict: JudgeVerdict::NotJudged.as_str().into(),
        judge_reasons: vec![letter.error.clone()],
        reason_code: format!("dead_letter_{}", letter.stage),
        ..Default::default()
    };
    processed(with_coordinates(row, &input, source), letter.failed_at)
}

/// A record the audit worker itself could not decode: still a row (never silently dropped),
/// identified by where it was read.
pub fn undecodable(source: &InputCoordinates, error: &str, now_ms: i64) -> AuditRow {
    let row = AuditRow {
        turn_id: format!(
            "undecodable:{}:{}:{}",
            source.topic, source.partition, source.offset
        ),
        outcome: OutcomeKind::Undecodable.as_str().into(),
        judge_verdict: JudgeVerdict::NotJudged.as_str().into(),
        judge_reasons: vec![error.to_string()],
        reason_code: UNDECODABLE_AUDIT_INPUT.into(),
        ..Default::default()
    };
    let input = InputCoordinates {
        topic: source.topic.clone(),
        partition: source.partition,
        offset: source.offset,
    };
    processed(with_coordinates(row, &input, source), now_ms)
}

#[cfg(test)]
#[path = "row_tests.rs"]
mod tests;
