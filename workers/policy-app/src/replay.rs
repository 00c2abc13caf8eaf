//! Replay for incident forensics: turns read back from the turns topic (by partition offsets,
//! by time, or by turn id located through the audit table), run again through the one stage
//! composition, and compared with what was served (the audit rows). Reading never joins or
//! commits a consumer group: partitions are assigned by hand and nothing is committed, so the
//! live workers' progress is untouched. Results go to a JSONL file and a summary, never to the
//! live topics.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use policy_audit::{AuditConfig, AuditStore};
use policy_avro::{ChatTurn, InputCoordinates};
use policy_pipeline::Outcome;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{Message, Offset, TopicPartitionList};
use serde::Serialize;

use crate::client::ClientCodecs;
use crate::settings::AppSettings;

/// Offsets `from..=to` of one partition of the turns topic (`P:FROM-TO`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionRange {
    pub partition: i32,
    pub from: i64,
    pub to: i64,
}

impl FromStr for PartitionRange {
    type Err = String;

    fn from_str(raw: &str) -> Result<PartitionRange, String> {
        let bad = || format!("`{raw}`: expected PARTITION:FROM-TO, e.g. 0:100-250");
        let (partition, range) = raw.split_once(':').ok_or_else(bad)?;
        let (from, to) = range.split_once('-').ok_or_else(bad)?;
        let range = PartitionRange {
            partition: partition.trim().parse().map_err(|_| bad())?,
            from: from.trim().parse().map_err(|_| bad())?,
            to: to.trim().parse().map_err(|_| bad())?,
        };
        if range.partition < 0 || range.from < 0 || range.to < range.from {
            return Err(bad());
        }
        Ok(range)
    }
}

/// Which turns to replay.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    Ranges(Vec<PartitionRange>),
    /// Every partition between two instants (milliseconds since the epoch), through the
    /// broker's time index.
    Times {
        from_ms: i64,
        to_ms: i64,
    },
    /// Turns located through the audit table's input coordinates.
    TurnIds(Vec<String>),
    /// Turns rebuilt from the audit rows matching a condition on the `turns` table (any age:
    /// beyond the topic's retention too), e.g. `resolved_region = 'eu' AND outcome = 'answer'`.
    AuditWhere(String),
}

#[derive(Debug, Clone)]
pub struct ReplayOptions {
    pub source: Source,
    /// Where the per-turn diff records go (JSONL).
    pub out: Option<PathBuf>,
    /// How long to wait for the broker while reading.
    pub timeout: Duration,
}

/// What a turn's outcome said, as recorded in the audit row or produced by the re-run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Said {
    pub outcome: String,
    pub resolved_region: String,
    pub resolved_version: String,
    pub cited_clause_ids: Vec<String>,
    pub reason_code: String,
    pub text: String,
    pub manifest_sha: String,
}

impl Said {
    fn from_outcome(outcome: &Outcome) -> Said {
        match outcome {
            Outcome::Answer(a) => Said {
                outcome: "answer".into(),
                resolved_region: a.resolved_region.clone(),
                resolved_version: a.resolved_version.clone(),
                cited_clause_ids: a.citations.iter().map(|c| c.clause_id.clone()).collect(),
                reason_code: String::new(),
                text: a.answer_text.clone(),
                manifest_sha: a.manifest_sha.clone(),
            },
            Outcome::Escalate(e) => Said {
                outcome: "escalate".into(),
                resolved_region: e.resolved_region.clone().unwrap_or_default(),
                resolved_version: e.resolved_version.clone().unwrap_or_default(),
                cited_clause_ids: Vec::new(),
                reason_code: e.reason_code.clone(),
                text: e.summary.clone(),
                manifest_sha: e.manifest_sha.clone().unwrap_or_default(),
            },
        }
    }

    fn from_row(row: &policy_audit::AuditRow) -> Said {
        Said {
            cited_clause_ids: if row.outcome == "answer" {
                row.cited_clause_ids.clone()
            } else {
                // An escalation's row lists what a rejected draft cited: nothing was served.
                Vec::new()
            },
            outcome: row.outcome.clone(),
            resolved_region: row.resolved_region.clone(),
            resolved_version: row.resolved_version.clone(),
            reason_code: row.reason_code.clone(),
            text: row.answer_text.clone(),
            manifest_sha: row.manifest_sha.clone(),
        }
    }
}

/// How a re-run differs from what was served, most serious first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Answer where an escalation was served, or the reverse.
    OutcomeChanged,
    VersionChanged,
    CitationsChanged,
    /// Same outcome and citations, other words; or another escalation reason.
    TextChanged,
    Same,
    /// No audit row for the turn: nothing to compare with.
    NotRecorded,
    /// The message at these coordinates is not a decodable turn.
    Unreadable,
}

impl Change {
    pub fn between(recorded: &Said, rerun: &Said) -> Change {
        if recorded.outcome != rerun.outcome {
            Change::OutcomeChanged
        } else if recorded.resolved_version != rerun.resolved_version {
            Change::VersionChanged
        } else if recorded.cited_clause_ids != rerun.cited_clause_ids {
            Change::CitationsChanged
        } else if recorded.text != rerun.text || recorded.reason_code != rerun.reason_code {
            Change::TextChanged
        } else {
            Change::Same
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Change::OutcomeChanged => "outcome_changed",
            Change::VersionChanged => "version_changed",
            Change::CitationsChanged => "citations_changed",
            Change::TextChanged => "text_changed",
            Change::Same => "same",
            Change::NotRecorded => "not_recorded",
            Change::Unreadable => "unreadable",
        }
    }
}

/// One replayed turn.
#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    pub turn_id: String,
    pub input: InputCoordinates,
    pub change: Change,
    pub recorded: Option<Said>,
    pub rerun: Option<Said>,
    /// Why the message could not be replayed (undecodable, pipeline error).
    pub error: Option<String>,
}

#[derive(Debug, Default, Serialize)]
pub struct ReplayReport {
    pub turns: usize,
    pub by_change: BTreeMap<String, usize>,
    /// (region, recorded version) → change kind → turns.
    pub by_region_version: BTreeMap<String, BTreeMap<String, usize>>,
    #[serde(skip)]
    pub diffs: Vec<Diff>,
}

impl ReplayReport {
    fn from_diffs(diffs: Vec<Diff>) -> ReplayReport {
        let mut report = ReplayReport {
            turns: diffs.len(),
            ..ReplayReport::default()
        };
        for diff in &diffs {
            *report
                .by_change
                .entry(diff.change.as_str().into())
                .or_default() += 1;
            // Grouped by what was served (the re-run's when nothing was recorded).
            let said = diff.recorded.as_ref().or(diff.rerun.as_ref());
            let (region, version) = said
                .map(|s| (s.resolved_region.as_str(), s.resolved_version.as_str()))
                .unwrap_or_default();
            *report
                .by_region_version
                .entry(format!("{region} {version}"))
                .or_default()
                .entry(diff.change.as_str().into())
                .or_default() += 1;
        }
        report.diffs = diffs;
        report
    }

    /// Turns whose re-run differs from what was served.
    pub fn changed(&self) -> usize {
        self.diffs
            .iter()
            .filter(|d| d.change < Change::Same)
            .count()
    }

    pub fn render_text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let _ = writeln!(out, "replayed {} turn(s)", self.turns);
        for (change, n) in &self.by_change {
            let _ = writeln!(out, "  {change:<20} {n:>6}");
        }
        let _ = writeln!(out, "\n  {:<24} changes", "region version");
        for (key, changes) in &self.by_region_version {
            let parts: Vec<String> = changes.iter().map(|(c, n)| format!("{c} {n}")).collect();
            let _ = writeln!(out, "  {key:<24} {}", parts.join(", "));
        }
        for diff in self
            .diffs
            .iter()
            .filter(|d| d.change < Change::Same)
            .take(20)
        {
            let _ = writeln!(
                out,
                "\n  {} ({}:{}@{}): {}",
                diff.turn_id,
                diff.input.topic,
                diff.input.partition,
                diff.input.offset,
                diff.change.as_str()
            );
            if let (Some(was), Some(now)) = (&diff.recorded, &diff.rerun) {
                let _ = writeln!(
                    out,
                    "    served: {} {} | {}",
                    was.outcome, was.resolved_version, was.text
                );
                let _ = writeln!(
                    out,
                    "    re-run: {} {} | {}",
                    now.outcome, now.resolved_version, now.text
                );
            }
        }
        out
    }
}

/// Replays the turns of `options.source` through the pipeline `settings` describe (the served
/// corpus, or another one given with `--policies`: a what-if) and compares each outcome with its
/// audit row.
pub async fn run(
    settings: &AppSettings,
    audit: &AuditConfig,
    options: &ReplayOptions,
) -> anyhow::Result<ReplayReport> {
    let topics = settings.topics.names();
    let store = AuditStore::connect(audit)
        .await
        .context("the audit store (served outcomes are read from it)")?;
    let source = match &options.source {
        Source::TurnIds(ids) => {
            Source::Ranges(locate_turns(&store, audit, &topics.turns, ids).await?)
        }
        other => other.clone(),
    };
    let turns = match &source {
        Source::AuditWhere(condition) => audit_turns(&store, audit, condition).await?,
        _ => {
            let codecs = ClientCodecs::register(&settings.kafka, &topics).await?;
            let messages = tokio::task::block_in_place(|| {
                read_turn_messages(settings, &topics.turns, &source, options.timeout)
            })?;
            let mut turns = Vec::with_capacity(messages.len());
            for (input, payload) in messages {
                let decoded = codecs.turns.decode(&payload).await;
                turns.push((input, decoded.map_err(|e| format!("undecodable: {e}"))));
            }
            turns
        }
    };
    if settings.corpus.data_dir.is_none() {
        checked_corpus(&settings.corpus.policies)?;
    }
    let scratch = tempfile::tempdir()?;
    let index_dir = settings
        .corpus
        .index_dir
        .clone()
        .unwrap_or_else(|| scratch.path().to_path_buf());
    let (assembled, _) = crate::assemble::pipeline(settings, &index_dir).await?;
    let mut reruns = Vec::with_capacity(turns.len());
    for (input, turn) in turns {
        let rerun = match turn {
            Ok(turn) => {
                let turn_id = turn.turn_id.clone();
                let outcome = assembled
                    .chain
                    .process(turn, input.clone())
                    .await
                    .map_err(|e| e.to_string());
                (input, Some(turn_id), outcome)
            }
            Err(e) => (input, None, Err(e)),
        };
        reruns.push(rerun);
    }
    let ids: Vec<String> = reruns.iter().filter_map(|r| r.1.clone()).collect();
    let recorded = recorded_outcomes(&store, audit, &ids).await?;
    let diffs = reruns
        .into_iter()
        .map(|(input, turn_id, outcome)| diff(input, turn_id, outcome, &recorded))
        .collect();
    let report = ReplayReport::from_diffs(diffs);
    if let Some(path) = &options.out {
        write_jsonl(path, &report.diffs)?;
    }
    Ok(report)
}

/// The corpus at `policies`, refused when its rules disagree with its text: it would serve
/// without those versions, and `policy publish` would refuse it too.
pub(crate) fn checked_corpus(policies: &std::path::Path) -> anyhow::Result<policy_core::Corpus> {
    let corpus = policy_core::load_dir(policies)
        .map_err(|e| anyhow::anyhow!("{}: {e}", policies.display()))?;
    let problems: Vec<&String> = corpus.rule_problems().values().flatten().collect();
    anyhow::ensure!(
        problems.is_empty(),
        "{}: refused: {}",
        policies.display(),
        problems
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    );
    Ok(corpus)
}

fn diff(
    input: InputCoordinates,
    turn_id: Option<String>,
    outcome: Result<Outcome, String>,
    recorded: &HashMap<String, Said>,
) -> Diff {
    let turn_id = turn_id.unwrap_or_default();
    let recorded = recorded.get(&turn_id).cloned();
    let (rerun, error) = match outcome {
        Ok(outcome) => (Some(Said::from_outcome(&outcome)), None),
        Err(e) => (None, Some(e)),
    };
    let change = match (&recorded, &rerun) {
        (_, None) => Change::Unreadable,
        (None, Some(_)) => Change::NotRecorded,
        (Some(was), Some(now)) => Change::between(was, now),
    };
    Diff {
        turn_id,
        input,
        change,
        recorded,
        rerun,
        error,
    }
}

fn write_jsonl(path: &std::path::Path, diffs: &[Diff]) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut file = std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| path.display().to_string())?,
    );
    for diff in diffs {
        serde_json::to_writer(&mut file, diff)?;
        file.write_all(b"\n")?;
    }
    file.flush()?;
    Ok(())
}

/// Turn ids are free text: only ids made of safe characters are queried (no quoting games).
pub(crate) fn sql_list(ids: &[String]) -> anyhow::Result<String> {
    let safe = |id: &String| {
        id.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:@".contains(c))
    };
    if let Some(bad) = ids.iter().find(|id| !safe(id)) {
        anyhow::bail!("turn id `{bad}` has characters a turn id never has");
    }
    Ok(ids
        .iter()
        .map(|id| format!("'{id}'"))
        .collect::<Vec<_>>()
        .join(","))
}

/// The turns of the audit rows matching `condition`, rebuilt from their columns, with the
/// coordinates they were read from. A row written before the turn was kept (migration 0003)
/// cannot be rebuilt: it comes back as an error.
async fn audit_turns(
    store: &AuditStore,
    audit: &AuditConfig,
    condition: &str,
) -> anyhow::Result<Vec<(InputCoordinates, Result<ChatTurn, String>)>> {
    // One condition, not a statement: the tool reads, it never writes.
    anyhow::ensure!(
        !condition.contains(';'),
        "--audit-where takes a condition, not statements"
    );
    let rows = store
        .query_json(
            "audit where",
            &format!(
                "SELECT * FROM {}.turns FINAL WHERE outcome IN ('answer', 'escalate') AND ({condition}) \
                 ORDER BY input_topic, input_partition, input_offset",
                audit.database
            ),
        )
        .await?;
    Ok(rows
        .iter()
        .map(|json| {
            let row = audit_row(json);
            let input = InputCoordinates {
                topic: row.input_topic.clone(),
                partition: row.input_partition,
                offset: row.input_offset,
            };
            let turn = policy_audit::row::received_turn(&row).ok_or_else(|| {
                format!(
                    "turn {} was audited before turns were kept whole (migration 0003)",
                    row.turn_id
                )
            });
            (input, turn)
        })
        .collect())
}

/// The columns replay reads (what was served, and what rebuilds the turn), from a
/// `JSONEachRow` row.
pub(crate) fn audit_row(
    json: &serde_json::Map<String, serde_json::Value>,
) -> policy_audit::AuditRow {
    use policy_audit::analytics::Table;
    let text = |k: &str| Table::text(json, k).to_string();
    let number = |k: &str| Table::number(json, k).unwrap_or(0.0);
    let list = |k: &str| -> Vec<String> {
        json.get(k)
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    // 64-bit integers arrive quoted; parse them exactly, not through f64.
    let int = |k: &str| -> i64 {
        match json.get(k) {
            Some(serde_json::Value::String(s)) => s.parse().unwrap_or(0),
            Some(serde_json::Value::Number(n)) => n.as_i64().unwrap_or(0),
            _ => 0,
        }
    };
    policy_audit::AuditRow {
        turn_id: text("turn_id"),
        conversation_id: text("conversation_id"),
        outcome: text("outcome"),
        question: text("question"),
        resolved_region: text("resolved_region"),
        resolved_version: text("resolved_version"),
        manifest_sha: text("manifest_sha"),
        cited_clause_ids: list("cited_clause_ids"),
        reason_code: text("reason_code"),
        answer_text: text("answer_text"),
        ip_region: text("ip_region"),
        input_topic: text("input_topic"),
        input_partition: number("input_partition") as i32,
        input_offset: int("input_offset"),
        has_received: number("has_received") as u8,
        user_id: text("user_id"),
        locale: text("locale"),
        channel: text("channel"),
        session_region: text("session_region"),
        billing_region: text("billing_region"),
        purchase_at_ms: int("purchase_at_ms"),
        has_purchase_at: number("has_purchase_at") as u8,
        sent_at_ms: int("sent_at_ms"),
        order_id: text("order_id"),
        employee_id: text("employee_id"),
        order_fact_keys: list("order_fact_keys"),
        order_fact_values: list("order_fact_values"),
        input_schema_id: number("input_schema_id") as u32,
        confidence: number("confidence"),
        judge_verdict: text("judge_verdict"),
        retrieved_clause_ids: list("retrieved_clause_ids"),
        decision_kind: text("decision_kind"),
        decision_reason: text("decision_reason"),
        decision_amount: text("decision_amount"),
        decision_deadline_ms: int("decision_deadline_ms"),
        ..Default::default()
    }
}

/// Where each turn was read from (its audit row's input coordinates), as one-offset ranges.
async fn locate_turns(
    store: &AuditStore,
    audit: &AuditConfig,
    turns_topic: &str,
    ids: &[String],
) -> anyhow::Result<Vec<PartitionRange>> {
    let rows = store
        .query_json(
            "locate turns",
            &format!(
                "SELECT turn_id, input_partition, input_offset FROM {}.turns FINAL \
                 WHERE turn_id IN ({}) AND input_topic = '{}'",
                audit.database,
                sql_list(ids)?,
                turns_topic.replace('\'', "")
            ),
        )
        .await?;
    let found: HashMap<String, (i32, i64)> = rows
        .iter()
        .map(|json| {
            let row = audit_row(json);
            (row.turn_id, (row.input_partition, row.input_offset))
        })
        .collect();
    let missing: Vec<&String> = ids.iter().filter(|id| !found.contains_key(*id)).collect();
    anyhow::ensure!(
        missing.is_empty(),
        "no audit row read from {turns_topic} for turn(s) {missing:?}"
    );
    Ok(found
        .values()
        .map(|&(partition, offset)| PartitionRange {
            partition,
            from: offset,
            to: offset,
        })
        .collect())
}

/// What was served for each turn id, from its audit row.
async fn recorded_outcomes(
    store: &AuditStore,
    audit: &AuditConfig,
    ids: &[String],
) -> anyhow::Result<HashMap<String, Said>> {
    let mut recorded = HashMap::new();
    // Queried in slices: a long IN list is one HTTP request.
    for chunk in ids.chunks(500) {
        let rows = store
            .query_json(
                "recorded outcomes",
                &format!(
                    "SELECT turn_id, outcome, resolved_version, cited_clause_ids, reason_code, \
                     answer_text, manifest_sha, resolved_region FROM {}.turns FINAL WHERE turn_id IN ({})",
                    audit.database,
                    sql_list(chunk)?
                ),
            )
            .await?;
        for json in &rows {
            let row = audit_row(json);
            recorded.insert(row.turn_id.clone(), Said::from_row(&row));
        }
    }
    Ok(recorded)
}

/// The raw messages of the source, in offset order per partition. A consumer with a group id of
/// its own that is never used: partitions are assigned, nothing is committed.
fn read_turn_messages(
    settings: &AppSettings,
    topic: &str,
    source: &Source,
    timeout: Duration,
) -> anyhow::Result<Vec<(InputCoordinates, Vec<u8>)>> {
    let consumer: BaseConsumer = settings
        .kafka
        .consumer(&format!("replay-{}", uuid::Uuid::new_v4().simple()))
        .create()?;
    let (ranges, window) = match source {
        Source::Ranges(ranges) => (ranges.clone(), None),
        Source::Times { from_ms, to_ms } => (
            ranges_between(&consumer, topic, *from_ms, *to_ms, timeout)?,
            Some(*from_ms..*to_ms),
        ),
        Source::TurnIds(_) | Source::AuditWhere(_) => {
            anyhow::bail!("turn ids and audit rows are not read from the topic")
        }
    };
    let mut messages = Vec::new();
    for range in ranges {
        let (low, high) = consumer.fetch_watermarks(topic, range.partition, timeout)?;
        let (from, to) = (range.from.max(low), range.to.min(high - 1));
        if from > to {
            continue;
        }
        let mut assignment = TopicPartitionList::new();
        assignment.add_partition_offset(topic, range.partition, Offset::Offset(from))?;
        consumer.assign(&assignment)?;
        let deadline = std::time::Instant::now() + timeout;
        let mut next = from;
        while next <= to {
            anyhow::ensure!(
                std::time::Instant::now() < deadline,
                "{topic}:{} stopped at offset {next} of {from}-{to}",
                range.partition
            );
            let Some(message) = consumer.poll(Duration::from_millis(200)) else {
                continue;
            };
            let message = message?;
            if message.offset() < next {
                continue;
            }
            next = message.offset() + 1;
            let stamped = message.timestamp().to_millis();
            if let (Some(window), Some(at)) = (&window, stamped) {
                if !window.contains(&at) {
                    continue;
                }
            }
            messages.push((
                InputCoordinates {
                    topic: topic.to_string(),
                    partition: range.partition,
                    offset: message.offset(),
                },
                message.payload().unwrap_or_default().to_vec(),
            ));
        }
    }
    consumer.unassign()?;
    Ok(messages)
}

/// Per partition, the offsets that can hold messages timestamped in `[from_ms, to_ms)`. The
/// broker's time index only narrows the scan: a broker may answer with an earlier offset than
/// asked (tansu 0.6 answers 0 for every instant), so the reader also filters on each message's
/// own timestamp.
fn ranges_between(
    consumer: &BaseConsumer,
    topic: &str,
    from_ms: i64,
    to_ms: i64,
    timeout: Duration,
) -> anyhow::Result<Vec<PartitionRange>> {
    let metadata = consumer.fetch_metadata(Some(topic), timeout)?;
    let partitions: Vec<i32> = metadata
        .topics()
        .iter()
        .flat_map(|t| t.partitions().iter().map(|p| p.id()))
        .collect();
    let at = |ms: i64| -> anyhow::Result<HashMap<i32, Offset>> {
        let mut query = TopicPartitionList::new();
        for &p in &partitions {
            query.add_partition_offset(topic, p, Offset::Offset(ms))?;
        }
        let found = consumer.offsets_for_times(query, timeout)?;
        Ok(found
            .elements()
            .iter()
            .map(|e| (e.partition(), e.offset()))
            .collect())
    };
    let (starts, ends) = (at(from_ms)?, at(to_ms)?);
    // The reader clamps every range to the partition's watermarks: 0 and "to the end" need no
    // lookup here.
    let mut ranges = Vec::new();
    for &p in &partitions {
        let from = match starts.get(&p) {
            Some(Offset::Offset(o)) => *o,
            // Nothing at or after `from_ms` in this partition.
            Some(Offset::End) => continue,
            _ => 0,
        };
        // An end the broker places at or before the start is no bound: scan to the end.
        let to = match ends.get(&p) {
            Some(Offset::Offset(o)) if *o > from => *o - 1,
            _ => i64::MAX,
        };
        ranges.push(PartitionRange {
            partition: p,
            from,
            to,
        });
    }
    Ok(ranges)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_ranges_parse_and_refuse_nonsense() {
        assert_eq!(
            "2:100-250".parse::<PartitionRange>(),
            Ok(PartitionRange {
                partition: 2,
                from: 100,
                to: 250
            })
        );
        for bad in ["2", "2:100", "x:1-2", "1:5-2", "-1:0-1", "1:a-b"] {
            assert!(bad.parse::<PartitionRange>().is_err(), "{bad}");
        }
    }

    fn said(outcome: &str, version: &str, cited: &[&str], text: &str) -> Said {
        Said {
            outcome: outcome.into(),
            resolved_region: "eu".into(),
            resolved_version: version.into(),
            cited_clause_ids: cited.iter().map(|s| s.to_string()).collect(),
            reason_code: String::new(),
            text: text.into(),
            manifest_sha: "sha".into(),
        }
    }

    #[test]
    fn changes_are_ranked_most_serious_first() {
        let served = said("answer", "eu-v4", &["eu-v4#sec-3.2"], "30 days");
        assert_eq!(Change::between(&served, &served.clone()), Change::Same);
        let cases = [
            (
                said("escalate", "eu-v4", &[], "handed over"),
                Change::OutcomeChanged,
            ),
            (
                said("answer", "eu-v3", &["eu-v3#sec-3.2"], "14 days"),
                Change::VersionChanged,
            ),
            (
                said("answer", "eu-v4", &["eu-v4#sec-3.3"], "30 days"),
                Change::CitationsChanged,
            ),
            (
                said("answer", "eu-v4", &["eu-v4#sec-3.2"], "thirty days"),
                Change::TextChanged,
            ),
        ];
        for (rerun, expected) in cases {
            assert_eq!(Change::between(&served, &rerun), expected);
        }
        assert!(Change::OutcomeChanged < Change::Same && Change::Same < Change::NotRecorded);
    }

    #[test]
    fn turn_ids_with_quotes_are_refused_before_any_query() {
        assert!(sql_list(&["gt-eu-1".into(), "conv_2:3".into()]).is_ok());
        assert!(sql_list(&["x' OR 1=1 --".into()]).is_err());
    }
}
