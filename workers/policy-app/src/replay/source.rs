//! Where replayed turns come from, read as a stream of pages so that memory stays bounded however
//! large the range: the turns topic (by partition offsets or by time) through a consumer that
//! assigns partitions by hand and never commits, or the audit store (a condition, named filters,
//! turn or conversation ids), which keeps every turn whole long after the topic dropped it.
//! Every item carries the audit row of what was served, when there is one.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use policy_audit::{AuditConfig, AuditRow, AuditStore};
use policy_avro::{ChatTurn, InputCoordinates};
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{Message, Offset, TopicPartitionList};

use crate::client::ClientCodecs;
use crate::settings::AppSettings;

/// Rows read from the audit store per query, and messages decoded per page.
const PAGE: usize = 500;

/// The columns of an audit row as [`audit_row`] reads them (a `DateTime` arrives as text, so
/// the effective instant also comes as seconds).
pub(crate) const ROW_COLUMNS: &str = "*, toUnixTimestamp(effective_at) AS effective_at_s";

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

/// Conditions on the audit table with a name, for the questions asked most often.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NamedFilter {
    /// Turns that were answered.
    Answered,
    /// Turns that were escalated.
    Escalated,
    /// Answers citing a version other than the one resolved for the turn.
    CitedOtherVersion,
    /// Turns whose draft the judge rejected.
    JudgeRejected,
    /// Turns whose region signals disagreed (session, billing, IP).
    RegionDisagreement,
    /// Decisions (return, refund, expense) made from the subject's data.
    Decisions,
    /// Turns where the LLM gave up and the extractive generator answered.
    LlmFallback,
}

impl NamedFilter {
    /// The condition on `turns` the name stands for.
    pub fn condition(self) -> &'static str {
        match self {
            NamedFilter::Answered => "outcome = 'answer'",
            NamedFilter::Escalated => "outcome = 'escalate'",
            NamedFilter::CitedOtherVersion => {
                "outcome = 'answer' AND arrayExists(v -> v != resolved_version, cited_versions)"
            }
            NamedFilter::JudgeRejected => "judge_verdict = 'reject'",
            NamedFilter::RegionDisagreement => "region_disagreement = 1",
            NamedFilter::Decisions => "decision_kind != ''",
            NamedFilter::LlmFallback => "generation_fallback != ''",
        }
    }
}

/// Which turns to replay.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// Offsets of the turns topic.
    Ranges(Vec<PartitionRange>),
    /// Every partition between two instants (milliseconds since the epoch), through the
    /// broker's time index.
    Times { from_ms: i64, to_ms: i64 },
    /// Turns by id, located through the audit table: read from the turns topic while it still
    /// holds them, rebuilt from the audit row after.
    TurnIds(Vec<String>),
    /// Every turn of these conversations, likewise.
    ConversationIds(Vec<String>),
    /// Turns rebuilt from the audit rows matching a condition on `turns` (any age: beyond the
    /// topic's retention too), e.g. `resolved_region = 'eu' AND outcome = 'answer'`.
    AuditWhere(String),
}

impl Source {
    /// The source with named filters added to it (only the audit store knows them).
    pub fn audit_condition(
        condition: Option<&str>,
        filters: &[NamedFilter],
    ) -> anyhow::Result<Source> {
        let mut parts: Vec<String> = filters
            .iter()
            .map(|f| format!("({})", f.condition()))
            .collect();
        if let Some(condition) = condition {
            // One condition, not a statement: the tool reads, it never writes.
            anyhow::ensure!(
                !condition.contains(';'),
                "--audit-where takes a condition, not statements"
            );
            parts.push(format!("({condition})"));
        }
        anyhow::ensure!(
            !parts.is_empty(),
            "an audit source needs --audit-where or --filter"
        );
        Ok(Source::AuditWhere(parts.join(" AND ")))
    }

    fn reads_topic(&self) -> bool {
        matches!(self, Source::Ranges(_) | Source::Times { .. })
    }
}

/// `processed_at` at or after `raw`: a duration back from `now` (`30d`, `12h`, `90m`) or an
/// instant (RFC 3339 with any offset, or YYYY-MM-DD, UTC).
pub fn since_condition(raw: &str, now: chrono::DateTime<chrono::Utc>) -> anyhow::Result<String> {
    let raw = raw.trim();
    let unit = |c: char| match c {
        'd' => Some(86_400),
        'h' => Some(3_600),
        'm' => Some(60),
        's' => Some(1),
        _ => None,
    };
    let since = match raw.chars().last().and_then(unit) {
        Some(seconds) if raw[..raw.len() - 1].parse::<i64>().is_ok() => {
            let n: i64 = raw[..raw.len() - 1].parse()?;
            now - chrono::Duration::seconds(n * seconds)
        }
        _ => policy_core::parse_instant(raw)
            .map_err(|e| anyhow::anyhow!("--since `{raw}`: {e} (or a duration: 30d, 12h, 90m)"))?,
    };
    Ok(format!(
        "processed_at >= toDateTime({})",
        since.timestamp().max(0)
    ))
}

/// One turn to replay.
#[derive(Debug, Clone)]
pub struct Item {
    /// Where the turn was read from by the workers (its input coordinates).
    pub input: InputCoordinates,
    /// The turn, or why it cannot be had.
    pub turn: Result<ChatTurn, String>,
    /// What was served for it (`None`: no audit row).
    pub recorded: Option<AuditRow>,
    /// `topic` when the original bytes were read back from the turns topic, `audit` when the
    /// turn was rebuilt from its audit row.
    pub read_from: &'static str,
}

/// Which rows of the audit store a mode reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    /// Answers and escalations (what a re-run compares with).
    Outcomes,
    /// Answers only (what the judge can judge again).
    Answers,
}

impl Served {
    fn condition(self) -> &'static str {
        match self {
            Served::Outcomes => "outcome IN ('answer', 'escalate')",
            Served::Answers => "outcome = 'answer'",
        }
    }
}

/// A stream of pages of turns.
pub struct Reader {
    inner: Inner,
    total: Option<u64>,
    /// Messages or rows read so far (a time range scans more messages than it keeps).
    position: Arc<AtomicU64>,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("total", &self.total)
            .finish_non_exhaustive()
    }
}

/// Boxed: both hold settings and codecs, and one reader lives per replay.
enum Inner {
    Topic(Box<TopicPages>),
    Audit(Box<AuditPages>),
}

impl Reader {
    /// Opens `source`; `stop` ends the reading early (Ctrl-C).
    pub async fn open(
        settings: &AppSettings,
        store: Arc<AuditStore>,
        audit: &AuditConfig,
        source: &Source,
        served: Served,
        timeout: Duration,
        stop: Arc<AtomicBool>,
    ) -> anyhow::Result<Reader> {
        let position = Arc::new(AtomicU64::new(0));
        let turns_topic = settings.topics.names().turns;
        if source.reads_topic() {
            let codecs = ClientCodecs::register(&settings.kafka, &settings.topics.names()).await?;
            let (scan, total) = {
                let (settings, topic, source) =
                    (settings.clone(), turns_topic.clone(), source.clone());
                tokio::task::spawn_blocking(move || plan_scan(&settings, &topic, &source, timeout))
                    .await??
            };
            let messages = spawn_scan(
                settings.clone(),
                turns_topic,
                scan,
                timeout,
                stop,
                position.clone(),
            );
            return Ok(Reader {
                inner: Inner::Topic(Box::new(TopicPages {
                    messages,
                    codecs,
                    store,
                    database: audit.database.clone(),
                })),
                total: Some(total),
                position,
            });
        }
        let condition = match source {
            Source::AuditWhere(condition) => condition.clone(),
            Source::TurnIds(ids) => format!("turn_id IN ({})", sql_list(ids)?),
            Source::ConversationIds(ids) => format!("conversation_id IN ({})", sql_list(ids)?),
            Source::Ranges(_) | Source::Times { .. } => unreachable!("topic sources read above"),
        };
        let condition = format!("{} AND ({condition})", served.condition());
        let shas = store
            .query_json(
                "replay plan",
                &format!(
                    "SELECT manifest_sha, count() AS turns FROM {}.turns FINAL WHERE {condition} \
                     GROUP BY manifest_sha ORDER BY manifest_sha",
                    audit.database
                ),
            )
            .await?;
        let mut total = 0;
        let shas: Vec<String> = shas
            .iter()
            .map(|row| {
                total += policy_audit::analytics::Table::number(row, "turns").unwrap_or(0.0) as u64;
                policy_audit::analytics::Table::text(row, "manifest_sha").to_string()
            })
            .collect();
        // Turn and conversation ids name few turns: their original bytes are read back from the
        // topic while it holds them.
        let topic = matches!(source, Source::TurnIds(_) | Source::ConversationIds(_))
            .then(|| TopicLookup::new(settings, &turns_topic, timeout));
        Ok(Reader {
            inner: Inner::Audit(Box::new(AuditPages {
                store,
                database: audit.database.clone(),
                condition,
                shas,
                last_turn_id: None,
                topic,
            })),
            total: Some(total),
            position,
        })
    }

    /// How many messages or rows the source holds, when known.
    pub fn total(&self) -> Option<u64> {
        self.total
    }

    /// Messages or rows read so far.
    pub fn position(&self) -> u64 {
        self.position.load(Ordering::Relaxed)
    }

    /// The next page of turns; `None` once the source is exhausted (or stopped).
    pub async fn next_page(&mut self) -> anyhow::Result<Option<Vec<Item>>> {
        match &mut self.inner {
            Inner::Topic(pages) => pages.next().await,
            Inner::Audit(pages) => {
                let page = pages.next().await?;
                if let Some(items) = &page {
                    self.position
                        .fetch_add(items.len() as u64, Ordering::Relaxed);
                }
                Ok(page)
            }
        }
    }
}

/// The partitions and offsets a topic source scans, clamped to what the topic still holds.
type Scan = (Vec<PartitionRange>, Option<std::ops::Range<i64>>);

fn plan_scan(
    settings: &AppSettings,
    topic: &str,
    source: &Source,
    timeout: Duration,
) -> anyhow::Result<(Scan, u64)> {
    let consumer = reader_consumer(settings)?;
    let (ranges, window) = match source {
        Source::Ranges(ranges) => (ranges.clone(), None),
        Source::Times { from_ms, to_ms } => (
            ranges_between(&consumer, topic, *from_ms, *to_ms, timeout)?,
            Some(*from_ms..*to_ms),
        ),
        _ => anyhow::bail!("only offsets and times are read from the topic"),
    };
    let mut clamped = Vec::new();
    let mut total = 0u64;
    for range in ranges {
        let (low, high) = consumer
            .fetch_watermarks(topic, range.partition, timeout)
            .with_context(|| format!("watermarks of {topic}:{}", range.partition))?;
        let (from, to) = (range.from.max(low), range.to.min(high - 1));
        if from <= to {
            total += (to - from + 1) as u64;
            clamped.push(PartitionRange {
                partition: range.partition,
                from,
                to,
            });
        }
    }
    Ok(((clamped, window), total))
}

/// A consumer with a group id of its own that is never used: partitions are assigned by hand
/// and nothing is committed, so the live workers' progress is untouched.
fn reader_consumer(settings: &AppSettings) -> anyhow::Result<BaseConsumer> {
    Ok(settings
        .kafka
        .consumer(&format!("replay-{}", uuid::Uuid::new_v4().simple()))
        .create()?)
}

/// One message of the turns topic.
struct Raw {
    input: InputCoordinates,
    payload: Vec<u8>,
}

/// Reads the scan on a thread of its own into a bounded channel: the reader never holds more
/// than the channel's capacity, however large the range.
fn spawn_scan(
    settings: AppSettings,
    topic: String,
    (ranges, window): Scan,
    timeout: Duration,
    stop: Arc<AtomicBool>,
    position: Arc<AtomicU64>,
) -> tokio::sync::mpsc::Receiver<anyhow::Result<Raw>> {
    let (tx, rx) = tokio::sync::mpsc::channel(PAGE * 2);
    std::thread::spawn(move || {
        let result = (|| -> anyhow::Result<()> {
            let consumer = reader_consumer(&settings)?;
            for range in ranges {
                let mut assignment = TopicPartitionList::new();
                assignment.add_partition_offset(
                    &topic,
                    range.partition,
                    Offset::Offset(range.from),
                )?;
                consumer.assign(&assignment)?;
                let mut next = range.from;
                let mut deadline = std::time::Instant::now() + timeout;
                while next <= range.to {
                    if stop.load(Ordering::Relaxed) {
                        return Ok(());
                    }
                    anyhow::ensure!(
                        std::time::Instant::now() < deadline,
                        "{topic}:{} stopped at offset {next} of {}-{}: no message within {timeout:?}",
                        range.partition,
                        range.from,
                        range.to
                    );
                    let Some(message) = consumer.poll(Duration::from_millis(200)) else {
                        continue;
                    };
                    let message = message?;
                    if message.offset() < next {
                        continue;
                    }
                    deadline = std::time::Instant::now() + timeout;
                    // Offsets a compacted or transactional topic skips count as scanned too.
                    position.fetch_add((message.offset() + 1 - next) as u64, Ordering::Relaxed);
                    next = message.offset() + 1;
                    let stamped = message.timestamp().to_millis();
                    if let (Some(window), Some(at)) = (&window, stamped) {
                        if !window.contains(&at) {
                            continue;
                        }
                    }
                    let raw = Raw {
                        input: InputCoordinates {
                            topic: topic.clone(),
                            partition: range.partition,
                            offset: message.offset(),
                        },
                        payload: message.payload().unwrap_or_default().to_vec(),
                    };
                    if tx.blocking_send(Ok(raw)).is_err() {
                        return Ok(()); // the replay stopped listening
                    }
                }
            }
            consumer.unassign()?;
            Ok(())
        })();
        if let Err(e) = result {
            let _ = tx.blocking_send(Err(e));
        }
    });
    rx
}

struct TopicPages {
    messages: tokio::sync::mpsc::Receiver<anyhow::Result<Raw>>,
    codecs: ClientCodecs,
    store: Arc<AuditStore>,
    database: String,
}

impl TopicPages {
    async fn next(&mut self) -> anyhow::Result<Option<Vec<Item>>> {
        let Some(first) = self.messages.recv().await else {
            return Ok(None);
        };
        let mut raws = vec![first?];
        while raws.len() < PAGE {
            match self.messages.try_recv() {
                Ok(raw) => raws.push(raw?),
                Err(_) => break,
            }
        }
        let mut items = Vec::with_capacity(raws.len());
        for raw in raws {
            let turn = self
                .codecs
                .turns
                .decode(&raw.payload)
                .await
                .map_err(|e| format!("undecodable: {e}"));
            items.push(Item {
                input: raw.input,
                turn,
                recorded: None,
                read_from: "topic",
            });
        }
        let ids: Vec<String> = items
            .iter()
            .filter_map(|i| i.turn.as_ref().ok().map(|t| t.turn_id.clone()))
            .collect();
        let mut recorded = recorded_rows(&self.store, &self.database, &ids).await?;
        for item in &mut items {
            if let Ok(turn) = &item.turn {
                item.recorded = recorded.remove(&turn.turn_id);
            }
        }
        Ok(Some(items))
    }
}

/// The audit rows of `ids` (what was served for each turn).
async fn recorded_rows(
    store: &AuditStore,
    database: &str,
    ids: &[String],
) -> anyhow::Result<HashMap<String, AuditRow>> {
    let mut rows = HashMap::new();
    // A turn id of characters a turn id never has cannot have a row.
    let ids: Vec<String> = ids.iter().filter(|id| safe_id(id)).cloned().collect();
    if ids.is_empty() {
        return Ok(rows);
    }
    let found = store
        .query_json(
            "recorded outcomes",
            &format!(
                "SELECT {ROW_COLUMNS} FROM {database}.turns FINAL WHERE turn_id IN ({})",
                sql_list(&ids)?
            ),
        )
        .await?;
    for json in &found {
        let row = audit_row(json);
        rows.insert(row.turn_id.clone(), row);
    }
    Ok(rows)
}

/// Pages of audit rows, one manifest sha after another (a pinned re-run then builds each sha's
/// pipeline once), keyed by turn id within a sha.
struct AuditPages {
    store: Arc<AuditStore>,
    database: String,
    condition: String,
    shas: Vec<String>,
    last_turn_id: Option<String>,
    topic: Option<TopicLookup>,
}

impl AuditPages {
    async fn next(&mut self) -> anyhow::Result<Option<Vec<Item>>> {
        loop {
            let Some(sha) = self.shas.first().cloned() else {
                return Ok(None);
            };
            let after = self
                .last_turn_id
                .as_deref()
                .map(|id| format!(" AND turn_id > {}", sql_string(id)))
                .unwrap_or_default();
            let rows = self
                .store
                .query_json(
                    "replay page",
                    &format!(
                        "SELECT {ROW_COLUMNS} FROM {}.turns FINAL WHERE {} AND manifest_sha = {}{after} \
                         ORDER BY turn_id LIMIT {PAGE}",
                        self.database,
                        self.condition,
                        sql_string(&sha)
                    ),
                )
                .await?;
            if rows.len() < PAGE {
                self.shas.remove(0);
                self.last_turn_id = None;
            } else {
                self.last_turn_id = rows.last().map(|r| audit_row(r).turn_id);
            }
            if rows.is_empty() {
                continue;
            }
            let mut items = Vec::with_capacity(rows.len());
            for json in &rows {
                let row = audit_row(json);
                items.push(self.item(row).await?);
            }
            return Ok(Some(items));
        }
    }

    async fn item(&self, row: AuditRow) -> anyhow::Result<Item> {
        let input = InputCoordinates {
            topic: row.input_topic.clone(),
            partition: row.input_partition,
            offset: row.input_offset,
        };
        if let Some(topic) = &self.topic {
            if let Some(turn) = topic.turn_at(&input).await {
                return Ok(Item {
                    input,
                    turn: Ok(turn),
                    recorded: Some(row),
                    read_from: "topic",
                });
            }
        }
        let turn = policy_audit::row::received_turn(&row).ok_or_else(|| {
            format!(
                "turn {} was audited before turns were kept whole (migration 0003) and the \
                 turns topic no longer holds it",
                row.turn_id
            )
        });
        Ok(Item {
            input,
            turn,
            recorded: Some(row),
            read_from: "audit",
        })
    }
}

/// Single messages of the turns topic by their coordinates, while the topic still holds them.
/// When the topic cannot be read at all (the broker is unreachable, the registry down), the
/// turns are rebuilt from their audit rows instead, once warned: a forensic replay does not
/// depend on Kafka being up, and each diff says where its turn came from.
struct TopicLookup {
    settings: AppSettings,
    topic: String,
    timeout: Duration,
    codecs: tokio::sync::OnceCell<ClientCodecs>,
    unreachable: AtomicBool,
}

impl TopicLookup {
    fn new(settings: &AppSettings, topic: &str, timeout: Duration) -> TopicLookup {
        TopicLookup {
            settings: settings.clone(),
            topic: topic.to_string(),
            timeout,
            codecs: tokio::sync::OnceCell::new(),
            unreachable: AtomicBool::new(false),
        }
    }

    async fn turn_at(&self, at: &InputCoordinates) -> Option<ChatTurn> {
        if at.topic != self.topic || self.unreachable.load(Ordering::Relaxed) {
            return None;
        }
        match self.read(at).await {
            Ok(turn) => turn,
            Err(e) => {
                tracing::warn!(topic = self.topic, error = %e, "the turns topic cannot be read: turns are rebuilt from their audit rows");
                self.unreachable.store(true, Ordering::Relaxed);
                None
            }
        }
    }

    async fn read(&self, at: &InputCoordinates) -> anyhow::Result<Option<ChatTurn>> {
        let (settings, topic, at_copy, timeout) = (
            self.settings.clone(),
            self.topic.clone(),
            at.clone(),
            self.timeout,
        );
        let payload =
            tokio::task::spawn_blocking(move || message_at(&settings, &topic, &at_copy, timeout))
                .await??;
        let Some(payload) = payload else {
            return Ok(None);
        };
        let codecs = self
            .codecs
            .get_or_try_init(|| async {
                ClientCodecs::register(&self.settings.kafka, &self.settings.topics.names()).await
            })
            .await?;
        Ok(codecs.turns.decode(&payload).await.ok())
    }
}

/// The payload at `at`, or `None` once retention (or compaction) removed it.
fn message_at(
    settings: &AppSettings,
    topic: &str,
    at: &InputCoordinates,
    timeout: Duration,
) -> anyhow::Result<Option<Vec<u8>>> {
    use rdkafka::error::{KafkaError, RDKafkaErrorCode};
    let consumer = reader_consumer(settings)?;
    let (low, high) = match consumer.fetch_watermarks(topic, at.partition, timeout) {
        Ok(marks) => marks,
        // The topic (or the partition) was deleted: nothing of it is held any more.
        Err(KafkaError::MetadataFetch(
            RDKafkaErrorCode::UnknownPartition
            | RDKafkaErrorCode::UnknownTopic
            | RDKafkaErrorCode::UnknownTopicOrPartition,
        )) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    if at.offset < low || at.offset >= high {
        return Ok(None);
    }
    let mut assignment = TopicPartitionList::new();
    assignment.add_partition_offset(topic, at.partition, Offset::Offset(at.offset))?;
    consumer.assign(&assignment)?;
    let deadline = std::time::Instant::now() + timeout;
    while std::time::Instant::now() < deadline {
        if let Some(message) = consumer.poll(Duration::from_millis(200)) {
            let message = message?;
            if message.offset() == at.offset {
                return Ok(Some(message.payload().unwrap_or_default().to_vec()));
            }
            if message.offset() > at.offset {
                return Ok(None); // compacted away
            }
        }
    }
    anyhow::bail!("{at}: no message within {timeout:?}")
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
    // The scan clamps every range to the partition's watermarks: 0 and "to the end" need no
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

fn safe_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:@".contains(c))
}

/// Turn and conversation ids are free text: only ids made of safe characters are queried (no
/// quoting games).
pub(crate) fn sql_list(ids: &[String]) -> anyhow::Result<String> {
    if let Some(bad) = ids.iter().find(|id| !safe_id(id)) {
        anyhow::bail!("id `{bad}` has characters a turn or conversation id never has");
    }
    anyhow::ensure!(!ids.is_empty(), "no ids given");
    Ok(ids
        .iter()
        .map(|id| format!("'{id}'"))
        .collect::<Vec<_>>()
        .join(","))
}

/// A ClickHouse string literal.
pub(crate) fn sql_string(value: &str) -> String {
    format!("'{}'", value.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The columns replay reads (what was served, and what rebuilds the turn), from a
/// `JSONEachRow` row.
pub(crate) fn audit_row(json: &serde_json::Map<String, serde_json::Value>) -> AuditRow {
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
    AuditRow {
        turn_id: text("turn_id"),
        conversation_id: text("conversation_id"),
        outcome: text("outcome"),
        question: text("question"),
        resolved_region: text("resolved_region"),
        region_source: text("region_source"),
        region_disagreement: number("region_disagreement") as u8,
        resolved_version: text("resolved_version"),
        effective_at: int("effective_at_s").max(0) as u32,
        has_effective_at: number("has_effective_at") as u8,
        manifest_sha: text("manifest_sha"),
        topic: text("topic"),
        tier: text("tier"),
        cited_clause_ids: list("cited_clause_ids"),
        cited_versions: list("cited_versions"),
        judge_reasons: list("judge_reasons"),
        reason_code: text("reason_code"),
        answer_text: text("answer_text"),
        ip_region: text("ip_region"),
        input_topic: text("input_topic"),
        input_partition: number("input_partition") as i32,
        input_offset: int("input_offset"),
        processed_at_ms: int("processed_at_ms").max(0) as u64,
        generator: text("generator"),
        generation_fallback: text("generation_fallback"),
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
        intent: text("intent"),
        decision_kind: text("decision_kind"),
        decision_eligible: number("decision_eligible") as u8,
        decision_reason: text("decision_reason"),
        decision_amount: text("decision_amount"),
        decision_deadline_ms: int("decision_deadline_ms"),
        ..Default::default()
    }
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

    #[test]
    fn ids_with_quotes_are_refused_before_any_query() {
        assert!(sql_list(&["gt-eu-1".into(), "conv_2:3".into()]).is_ok());
        assert!(sql_list(&["x' OR 1=1 --".into()]).is_err());
        assert!(sql_list(&[]).is_err());
        assert_eq!(sql_string(r"it's \ ok"), r"'it\'s \\ ok'");
    }

    #[test]
    fn since_takes_a_duration_or_an_instant_with_any_offset() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-24T12:00:00Z")
            .unwrap()
            .to_utc();
        let day = 1_795_521_600 - 86_400 * 30; // 2026-11-24T12:00Z minus 30 days
        assert_eq!(
            since_condition("30d", now).unwrap(),
            format!("processed_at >= toDateTime({day})")
        );
        assert_eq!(
            since_condition("2026-11-24T13:00:00+01:00", now).unwrap(),
            "processed_at >= toDateTime(1795521600)"
        );
        assert!(since_condition("soon", now).is_err());
    }

    #[test]
    fn named_filters_and_a_condition_combine() {
        let source = Source::audit_condition(
            Some("resolved_region = 'eu'"),
            &[NamedFilter::CitedOtherVersion],
        )
        .unwrap();
        let Source::AuditWhere(condition) = source else {
            panic!("an audit source")
        };
        assert!(condition.starts_with("(outcome = 'answer' AND arrayExists"));
        assert!(condition.ends_with("AND (resolved_region = 'eu')"));
        assert!(Source::audit_condition(Some("1; DROP TABLE x"), &[]).is_err());
        assert!(Source::audit_condition(None, &[]).is_err());
    }
}
