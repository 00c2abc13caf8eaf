//! Replay for incident forensics. Turns are read back (from the turns topic by offsets or time,
//! or from the audit store by a condition, named filters, turn or conversation ids: any age) and
//! either run again through the one stage composition (`rerun`: under the corpus served now, a
//! candidate, or pinned to the corpus recorded on each turn) or judged again (`rejudge`: the
//! current judge over what was actually said, with what was retrieved for it). Each turn is
//! compared with what was served (its audit row).
//!
//! One loop, streaming: pages of turns in, one diff per turn out to a JSONL file (and the
//! `replays` table), counts and a bounded sample into the summary. Reading never joins or commits
//! a consumer group, and nothing is written to a live topic. Stopping (Ctrl-C) finishes the page
//! in hand, writes out what was replayed and says how far it got.

pub mod corpora;
pub mod diff;
pub mod progress;
pub mod rejudge;
pub mod sink;
pub mod source;
pub mod summary;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use futures::StreamExt;
use policy_audit::{AuditConfig, AuditStore};

pub use corpora::{checked_corpus, Archive, Corpora, Pipelines};
pub use diff::{Change, Diff, Said, Verdicts};
pub use source::{NamedFilter, PartitionRange, Source};
pub use summary::Summary;

use crate::settings::AppSettings;
use progress::Progress;
use sink::{ReplayRun, Sinks};
use source::{Item, Reader, Served};

/// What a replay does with each turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Through the whole pipeline again.
    Rerun,
    /// The current judge over the recorded answer and its recorded retrieval (no retrieval, no
    /// generation).
    Rejudge,
}

#[derive(Debug, Clone)]
pub struct ReplayOptions {
    pub source: Source,
    pub mode: Mode,
    /// Pinned: each turn under the corpus of the sha recorded on it, found in these archives.
    pub pinned: Option<Archive>,
    /// Per-turn diff records (JSONL).
    pub out: Option<PathBuf>,
    /// The summary as a self-contained HTML page.
    pub html: Option<PathBuf>,
    /// One row per turn in the audit database's `replays` table.
    pub write_clickhouse: bool,
    /// How long reading may wait on the broker.
    pub timeout: Duration,
    /// Turns re-run at once (new questions share the model's batches).
    pub concurrency: usize,
    /// A progress line with rate and ETA on standard error.
    pub progress: bool,
    /// Recorded with the results: what the corpus is when it is not the served one (a
    /// candidate revision, say).
    pub parameters: serde_json::Map<String, serde_json::Value>,
}

impl ReplayOptions {
    pub fn new(source: Source, mode: Mode) -> ReplayOptions {
        ReplayOptions {
            source,
            mode,
            pinned: None,
            out: None,
            html: None,
            write_clickhouse: false,
            timeout: Duration::from_secs(60),
            concurrency: 8,
            progress: false,
            parameters: serde_json::Map::new(),
        }
    }

    fn label(&self) -> String {
        let mode = match self.mode {
            Mode::Rerun => "rerun",
            Mode::Rejudge => "rejudge",
        };
        match &self.pinned {
            Some(_) => format!("{mode} --pinned"),
            None => mode.to_string(),
        }
    }

    fn parameters_json(&self, settings: &AppSettings) -> String {
        let mut p = self.parameters.clone();
        p.insert("mode".into(), self.label().into());
        p.insert("source".into(), format!("{:?}", self.source).into());
        p.insert(
            "policies".into(),
            settings.corpus.policies.display().to_string().into(),
        );
        if let Some(data) = &settings.corpus.data_dir {
            p.insert("data_dir".into(), data.display().to_string().into());
        }
        if let Some(archive) = &self.pinned {
            p.insert("pinned".into(), format!("{archive:?}").into());
        }
        serde_json::Value::Object(p).to_string()
    }
}

/// Replays the turns of `options.source` and compares each with what was served. `stop` ends it
/// early (Ctrl-C); `observe` sees every diff as it is made (`policy impact` tallies with it).
pub async fn run(
    settings: &AppSettings,
    audit: &AuditConfig,
    options: &ReplayOptions,
    stop: Arc<AtomicBool>,
    observe: &mut (dyn FnMut(&Diff) + Send),
) -> anyhow::Result<Summary> {
    let started = Instant::now();
    let store = Arc::new(
        AuditStore::connect(audit)
            .await
            .context("the audit store (what was served is read from it)")?,
    );
    if options.mode == Mode::Rejudge {
        anyhow::ensure!(
            !matches!(options.source, Source::Ranges(_) | Source::Times { .. }),
            "--rejudge reads what was served from the audit store: select it with \
             --audit-where, --filter, --turn-id or --conversation-id"
        );
    }
    let corpora = Arc::new(Corpora::new(settings, options.pinned.clone())?);
    let scratch = tempfile::tempdir()?;
    let pipelines = match options.mode {
        Mode::Rerun => Some(Pipelines::build(settings, corpora.clone(), scratch.path()).await?),
        Mode::Rejudge => None,
    };
    let served = match options.mode {
        Mode::Rerun => Served::Outcomes,
        Mode::Rejudge => Served::Answers,
    };
    let mut reader = Reader::open(
        settings,
        store.clone(),
        audit,
        &options.source,
        served,
        options.timeout,
        stop.clone(),
    )
    .await?;
    let run = ReplayRun {
        replay_id: uuid::Uuid::new_v4().simple().to_string(),
        started_at_ms: chrono::Utc::now().timestamp_millis(),
        mode: options.label(),
        parameters: options.parameters_json(settings),
    };
    let mut sinks = Sinks::open(
        options.out.as_deref(),
        options
            .write_clickhouse
            .then(|| (store.clone(), run.clone())),
    )?;
    let mut summary = Summary::new(&options.label());
    if options.write_clickhouse {
        summary.replay_id = Some(run.replay_id.clone());
    }
    let mut progress = Progress::new(options.progress, reader.total());
    // The last offset replayed per partition: where a stopped replay can resume.
    let mut reached: BTreeMap<i32, i64> = BTreeMap::new();
    let threshold = settings.pipeline.disclaimer_threshold;
    while let Some(page) = reader.next_page().await? {
        let diffs: Vec<Diff> = match &pipelines {
            Some(pipelines) => {
                futures::stream::iter(page)
                    .map(|item| rerun(pipelines, item))
                    .buffered(options.concurrency.max(1))
                    .collect()
                    .await
            }
            None => page
                .into_iter()
                .map(|item| rejudge(&corpora, item, threshold))
                .collect(),
        };
        for diff in &diffs {
            summary.add(diff);
            observe(diff);
            sinks.write(diff).await?;
            let at = reached
                .entry(diff.input.partition)
                .or_insert(diff.input.offset);
            *at = (*at).max(diff.input.offset);
        }
        progress.update(reader.position(), summary.turns);
        if stop.load(Ordering::Relaxed) {
            let positions: Vec<String> = reached
                .iter()
                .map(|(p, o)| format!("partition {p} offset {o}"))
                .collect();
            summary.interrupted = Some(format!(
                "stopped after {} of {} turn(s); furthest replayed: {}",
                summary.turns,
                reader
                    .total()
                    .map(|t| t.to_string())
                    .unwrap_or_else(|| "?".into()),
                if positions.is_empty() {
                    "none".to_string()
                } else {
                    positions.join(", ")
                }
            ));
            break;
        }
    }
    progress.finish();
    sinks.finish().await?;
    summary.seconds = started.elapsed().as_secs_f64();
    if let Some(path) = &options.html {
        let page = summary.render_html("Policy answers: forensic replay", &run.parameters);
        std::fs::write(path, page).with_context(|| path.display().to_string())?;
    }
    Ok(summary)
}

/// The skeleton of a turn's diff: who it is, where it came from, what was served.
fn diff_of(item: &Item) -> Diff {
    let recorded = item.recorded.as_ref();
    Diff {
        turn_id: item
            .turn
            .as_ref()
            .map(|t| t.turn_id.clone())
            .ok()
            .or_else(|| recorded.map(|r| r.turn_id.clone()))
            .unwrap_or_default(),
        conversation_id: item
            .turn
            .as_ref()
            .map(|t| t.conversation_id.clone())
            .ok()
            .or_else(|| recorded.map(|r| r.conversation_id.clone()))
            .unwrap_or_default(),
        input: item.input.clone(),
        read_from: item.read_from,
        change: Change::Unreadable,
        recorded: recorded.map(Said::from_row),
        rerun: None,
        verdicts: None,
        error: None,
    }
}

pub(crate) async fn rerun(pipelines: &Pipelines, item: Item) -> Diff {
    let mut diff = diff_of(&item);
    let turn = match item.turn {
        Ok(turn) => turn,
        Err(e) => {
            diff.error = Some(e);
            return diff;
        }
    };
    let chain = match pipelines.chain_for(item.recorded.as_ref()).await {
        Ok(chain) => chain,
        Err(e) => {
            diff.change = Change::Failed;
            diff.error = Some(e);
            return diff;
        }
    };
    match chain.process(turn, item.input).await {
        Ok(outcome) => {
            let now = Said::from_outcome(&outcome);
            diff.change = match &diff.recorded {
                Some(was) => Change::between(was, &now),
                None => Change::NotRecorded,
            };
            diff.rerun = Some(now);
        }
        Err(e) => {
            diff.change = Change::Failed;
            diff.error = Some(e.to_string());
        }
    }
    diff
}

pub(crate) fn rejudge(corpora: &Corpora, item: Item, escalate_below: f64) -> Diff {
    let mut diff = diff_of(&item);
    let Some(row) = &item.recorded else {
        diff.change = Change::NotRecorded;
        return diff;
    };
    match corpora.state_for(Some(row)) {
        Ok(state) => {
            let verdicts = rejudge::rejudge_row(row, &state, escalate_below);
            diff.change = if verdicts.then == verdicts.now {
                Change::Same
            } else {
                Change::VerdictChanged
            };
            diff.verdicts = Some(verdicts);
        }
        Err(e) => {
            diff.change = Change::Failed;
            diff.error = Some(e);
        }
    }
    diff
}
