//! Rust mirrors of the `.avsc` records. Field names match the schemas exactly; timestamps are
//! epoch milliseconds (Avro `timestamp-millis`), always UTC.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Now, as the epoch milliseconds every record timestamp uses (UTC).
pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or_default()
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatTurn {
    pub conversation_id: String,
    pub turn_id: String,
    pub user_id: Option<String>,
    pub question: String,
    pub locale: Option<String>,
    pub channel: Option<String>,
    pub session_region: Option<String>,
    pub billing_region: Option<String>,
    pub ip_region: Option<String>,
    pub purchase_at: Option<i64>,
    pub order_id: Option<String>,
    pub employee_id: Option<String>,
    pub sent_at: i64,
    pub order_facts: Option<BTreeMap<String, String>>,
}

/// Where a message was read: topic, partition, offset. The one coordinates type of the
/// project (errors, audit rows, replay), written `topic/partition@offset`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct InputCoordinates {
    pub topic: String,
    pub partition: i32,
    pub offset: i64,
}

impl std::fmt::Display for InputCoordinates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}@{}", self.topic, self.partition, self.offset)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnState {
    pub turn: ChatTurn,
    pub input: InputCoordinates,
    pub received_at: i64,
    pub stage_latency_ms: BTreeMap<String, f64>,
    pub enrichment: Option<Enrichment>,
    pub retrieval: Option<Retrieval>,
    #[serde(default)]
    pub input_schema_id: Option<i32>,
    pub draft: Option<Draft>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Enrichment {
    pub sanitized_question: String,
    pub region: String,
    pub region_source: String,
    pub region_disagreement: bool,
    pub region_low_confidence: bool,
    pub version_id: String,
    pub effective_at: Option<i64>,
    pub ambiguous_cutover_at: Option<i64>,
    pub banner: Option<String>,
    pub shadow_review: bool,
    pub manifest_sha: String,
    pub manifest_git_sha: Option<String>,
    pub pii_types: Vec<String>,
    pub injection_score: f64,
    pub guardrail_flags: Vec<String>,
    /// What the turn asks for (`policy_core::Intent` spelling).
    #[serde(default = "policy_faq")]
    pub intent: String,
    /// The order or employee a decision is about, from its authoritative source.
    #[serde(default)]
    pub subject: Option<Subject>,
}

fn policy_faq() -> String {
    "policy_faq".into()
}

/// An order or employee as its source of truth knows it (`Enrichment.subject`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subject {
    /// `order` or `employee`.
    pub kind: String,
    pub id: String,
    pub source: String,
    #[serde(default)]
    pub fields: BTreeMap<String, String>,
    /// Facts the user stated that the source contradicts.
    #[serde(default)]
    pub conflicts: Vec<String>,
}

/// One rule a decision used and the clause carrying it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleUse {
    pub clause_id: String,
    pub key: String,
    pub value: String,
}

/// A decision made from authoritative data and the rules of the version in force.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub kind: String,
    /// Returnable / refundable; for an expense: approved.
    pub eligible: bool,
    pub reason: String,
    pub deadline: Option<i64>,
    pub amount: Option<String>,
    #[serde(default)]
    pub policy_refs: Vec<String>,
    #[serde(default)]
    pub rules: Vec<RuleUse>,
    pub confidence: f64,
    pub requires_human_review: bool,
    pub employee_level: Option<String>,
    pub subject_id: Option<String>,
    pub source: Option<String>,
    #[serde(default)]
    pub conflicts: Vec<String>,
    /// Offered instead of what was asked (`store_credit` just past a return window), and until.
    #[serde(default)]
    pub offer: Option<String>,
    #[serde(default)]
    pub offer_until: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Retrieval {
    pub clauses: Vec<RetrievedClause>,
    pub confidence: f64,
    pub tier: String,
    pub backend: String,
    #[serde(default)]
    pub query_terms: Vec<QueryTerm>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QueryTerm {
    pub word: String,
    pub in_version: bool,
    #[serde(default)]
    pub equivalents: Vec<String>,
    #[serde(default)]
    pub phrase: bool,
    #[serde(default)]
    pub nearest_cosine: f32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RetrievedClause {
    pub clause_id: String,
    pub version_id: String,
    pub title: String,
    pub text: String,
    pub score: f64,
    pub lexical_rank: Option<i32>,
    pub vector_rank: Option<i32>,
    /// `active`, or `retired` for the stub of a version past retention.
    #[serde(default = "active")]
    pub status: String,
    /// Cosine of the question with each sentence of the clause (empty when unknown).
    #[serde(default)]
    pub sentence_scores: Vec<f32>,
}

fn active() -> String {
    "active".into()
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    pub text: String,
    pub generator: String,
    pub attempts: i32,
    pub disclaimer: Option<String>,
    /// Why the configured generator's text was not used (the extractive one answered).
    #[serde(default)]
    pub fallback_reason: Option<String>,
    /// Judge reason codes of this turn's earlier, rejected drafts.
    #[serde(default)]
    pub rejected: Vec<String>,
    #[serde(default)]
    pub llm_calls: i32,
    #[serde(default)]
    pub completion_tokens: i32,
    /// The decision this draft states, for a decision intent (boxed: most drafts have none).
    #[serde(default)]
    pub decision: Option<Box<Decision>>,
}

impl Generation {
    /// Into an escalation's context, which has no `generation` field: how a rejected draft was
    /// produced (the clauses retrieved are in the context's `top_clauses`).
    pub fn write_context(&self, context: &mut BTreeMap<String, String>) {
        context.insert("generator".into(), self.generator.clone());
        context.insert("attempts".into(), self.attempts.to_string());
        if let Some(reason) = &self.fallback_reason {
            context.insert("generation_fallback".into(), reason.clone());
        }
        if !self.rejected_drafts.is_empty() {
            context.insert("rejected_drafts".into(), self.rejected_drafts.join(","));
        }
        context.insert("llm_calls".into(), self.llm_calls.to_string());
        context.insert(
            "completion_tokens".into(),
            self.completion_tokens.to_string(),
        );
    }

    /// Back from an escalation's context; `None` when the turn never reached a generator.
    pub fn from_context(context: &BTreeMap<String, String>) -> Option<Generation> {
        let generator = context.get("generator")?.clone();
        let get = |key: &str| context.get(key).map(String::as_str).unwrap_or_default();
        Some(Generation {
            generator,
            attempts: get("attempts").parse().unwrap_or(1),
            fallback_reason: context.get("generation_fallback").cloned(),
            rejected_drafts: get("rejected_drafts")
                .split(',')
                .filter(|code| !code.is_empty())
                .map(str::to_string)
                .collect(),
            llm_calls: get("llm_calls").parse().unwrap_or(0),
            completion_tokens: get("completion_tokens").parse().unwrap_or(0),
            retrieved_clause_ids: Vec::new(),
        })
    }
}

/// A turn's fields as received, on its outcome (`received`): with the outcome's own fields
/// (ids, sanitized question) they rebuild the turn for a replay from the audit store.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReceivedTurn {
    pub user_id: Option<String>,
    pub locale: Option<String>,
    pub channel: Option<String>,
    pub session_region: Option<String>,
    pub billing_region: Option<String>,
    pub ip_region: Option<String>,
    pub purchase_at: Option<i64>,
    pub sent_at: i64,
    pub order_id: Option<String>,
    pub employee_id: Option<String>,
    pub order_facts: Option<BTreeMap<String, String>>,
    pub input_schema_id: Option<i32>,
}

impl ReceivedTurn {
    pub fn of(turn: &ChatTurn, input_schema_id: Option<i32>) -> ReceivedTurn {
        ReceivedTurn {
            user_id: turn.user_id.clone(),
            locale: turn.locale.clone(),
            channel: turn.channel.clone(),
            session_region: turn.session_region.clone(),
            billing_region: turn.billing_region.clone(),
            ip_region: turn.ip_region.clone(),
            purchase_at: turn.purchase_at,
            sent_at: turn.sent_at,
            order_id: turn.order_id.clone(),
            employee_id: turn.employee_id.clone(),
            order_facts: turn.order_facts.clone(),
            input_schema_id,
        }
    }

    /// The turn again, with the ids and the question its outcome carries.
    pub fn turn(&self, conversation_id: &str, turn_id: &str, question: &str) -> ChatTurn {
        ChatTurn {
            conversation_id: conversation_id.to_string(),
            turn_id: turn_id.to_string(),
            user_id: self.user_id.clone(),
            question: question.to_string(),
            locale: self.locale.clone(),
            channel: self.channel.clone(),
            session_region: self.session_region.clone(),
            billing_region: self.billing_region.clone(),
            ip_region: self.ip_region.clone(),
            purchase_at: self.purchase_at,
            order_id: self.order_id.clone(),
            employee_id: self.employee_id.clone(),
            sent_at: self.sent_at,
            order_facts: self.order_facts.clone(),
        }
    }
}

/// How an answer's text was produced (`PolicyAnswer.generation`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Generation {
    pub generator: String,
    pub attempts: i32,
    pub fallback_reason: Option<String>,
    pub rejected_drafts: Vec<String>,
    pub llm_calls: i32,
    pub completion_tokens: i32,
    pub retrieved_clause_ids: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Citation {
    pub clause_id: String,
    pub version_id: String,
    pub effective_from: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PolicyAnswer {
    pub conversation_id: String,
    pub turn_id: String,
    pub user_id: Option<String>,
    pub question: String,
    pub answer_text: String,
    pub citations: Vec<Citation>,
    pub resolved_region: String,
    pub region_source: String,
    pub region_disagreement: bool,
    pub resolved_version: String,
    pub effective_at: Option<i64>,
    pub manifest_sha: String,
    pub confidence: f64,
    pub tier: String,
    pub disclaimer: Option<String>,
    pub banner: Option<String>,
    pub judge_verdict: String,
    pub judge_reasons: Vec<String>,
    pub input: InputCoordinates,
    pub stage_latency_ms: BTreeMap<String, f64>,
    pub answered_at: i64,
    pub topic: Option<String>,
    pub ip_region: Option<String>,
    #[serde(default)]
    pub generation: Option<Generation>,
    #[serde(default)]
    pub received: Option<ReceivedTurn>,
    #[serde(default = "policy_faq")]
    pub intent: String,
    #[serde(default)]
    pub decision: Option<Decision>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Escalation {
    pub conversation_id: String,
    pub turn_id: String,
    pub user_id: Option<String>,
    pub question: String,
    pub reason_code: String,
    pub reasons: Vec<String>,
    pub summary: String,
    pub resolved_region: Option<String>,
    pub resolved_version: Option<String>,
    pub manifest_sha: Option<String>,
    pub context: BTreeMap<String, String>,
    pub input: InputCoordinates,
    pub stage_latency_ms: BTreeMap<String, f64>,
    pub escalated_at: i64,
    pub topic: Option<String>,
    pub ip_region: Option<String>,
    #[serde(default)]
    pub received: Option<ReceivedTurn>,
    #[serde(default = "policy_faq")]
    pub intent: String,
    #[serde(default)]
    pub decision: Option<Decision>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeadLetter {
    pub source_topic: String,
    pub source_partition: i32,
    pub source_offset: i64,
    #[serde(with = "apache_avro::serde::bytes_opt")]
    pub key: Option<Vec<u8>>,
    pub stage: String,
    pub error: String,
    #[serde(with = "apache_avro::serde::bytes")]
    pub original: Vec<u8>,
    pub failed_at: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedDocument {
    pub path: String,
    pub change: String,
    pub region: Option<String>,
    pub version_id: Option<String>,
    pub content: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyChange {
    pub git_sha: String,
    pub previous_sha: Option<String>,
    pub manifest_json: String,
    pub manifest_sha: String,
    pub changed_documents: Vec<ChangedDocument>,
    pub published_at: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestRecord {
    pub git_sha: String,
    pub manifest_json: String,
    pub manifest_sha: String,
    pub published_at: i64,
}

/// An order or employee on its compacted topic (`<prefix>.orders`, `<prefix>.employees`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FactRecord {
    pub id: String,
    pub fields: BTreeMap<String, String>,
    #[serde(default)]
    pub updated_at: i64,
}
