//! Where replay results go: never into the live topics. One JSONL record per turn, written as
//! the turn is replayed, and with `--write-clickhouse` a row per turn in the `replays` table,
//! inserted in batches.

use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use policy_audit::{AuditStore, ReplayRow};

use super::diff::Diff;

/// Rows per insert into `replays`.
const BATCH: usize = 1000;

/// What identifies one replay in the `replays` table.
#[derive(Debug, Clone)]
pub struct ReplayRun {
    pub replay_id: String,
    pub started_at_ms: i64,
    pub mode: String,
    /// The parameters as JSON.
    pub parameters: String,
}

/// The code that ran a replay: the crate version and the Git commit it was built from.
pub fn code_version() -> String {
    format!(
        "{} ({})",
        env!("CARGO_PKG_VERSION"),
        option_env!("POLICY_BUILD_COMMIT").unwrap_or("unknown commit")
    )
}

pub struct Sinks {
    jsonl: Option<std::io::BufWriter<std::fs::File>>,
    clickhouse: Option<(Arc<AuditStore>, ReplayRun, Vec<ReplayRow>)>,
}

impl std::fmt::Debug for Sinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sinks")
            .field("jsonl", &self.jsonl.is_some())
            .field("clickhouse", &self.clickhouse.is_some())
            .finish()
    }
}

impl Sinks {
    pub fn open(
        jsonl: Option<&Path>,
        clickhouse: Option<(Arc<AuditStore>, ReplayRun)>,
    ) -> anyhow::Result<Sinks> {
        let jsonl = jsonl
            .map(|path| {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
                }
                std::fs::File::create(path)
                    .with_context(|| path.display().to_string())
                    .map(std::io::BufWriter::new)
            })
            .transpose()?;
        Ok(Sinks {
            jsonl,
            clickhouse: clickhouse.map(|(store, run)| (store, run, Vec::new())),
        })
    }

    pub async fn write(&mut self, diff: &Diff) -> anyhow::Result<()> {
        if let Some(file) = &mut self.jsonl {
            serde_json::to_writer(&mut *file, diff)?;
            file.write_all(b"\n")?;
        }
        if let Some((_, run, rows)) = &mut self.clickhouse {
            rows.push(replay_row(run, diff));
            if rows.len() >= BATCH {
                self.flush_clickhouse().await?;
            }
        }
        Ok(())
    }

    async fn flush_clickhouse(&mut self) -> anyhow::Result<()> {
        if let Some((store, _, rows)) = &mut self.clickhouse {
            if !rows.is_empty() {
                store
                    .insert_replays(rows)
                    .await
                    .context("writing the replays table")?;
                rows.clear();
            }
        }
        Ok(())
    }

    /// Writes out what is buffered (also after an interruption: what was replayed is kept).
    pub async fn finish(&mut self) -> anyhow::Result<()> {
        if let Some(file) = &mut self.jsonl {
            file.flush()?;
        }
        self.flush_clickhouse().await
    }
}

fn replay_row(run: &ReplayRun, diff: &Diff) -> ReplayRow {
    let (region, version, topic) = diff.group();
    let served = diff.recorded.clone().unwrap_or_default();
    let rerun = diff.rerun.clone().unwrap_or_default();
    let verdicts = diff.verdicts.clone();
    ReplayRow {
        replay_id: run.replay_id.clone(),
        started_at: (run.started_at_ms / 1000).max(0) as u32,
        mode: run.mode.clone(),
        parameters: run.parameters.clone(),
        code_version: code_version(),
        turn_id: diff.turn_id.clone(),
        conversation_id: diff.conversation_id.clone(),
        input_topic: diff.input.topic.clone(),
        input_partition: diff.input.partition,
        input_offset: diff.input.offset,
        read_from: diff.read_from.to_string(),
        change: diff.change.as_str().to_string(),
        region,
        version,
        topic,
        served_outcome: served.outcome,
        served_clause_ids: served.cited_clause_ids,
        served_text: served.text,
        served_manifest_sha: served.manifest_sha,
        rerun_outcome: rerun.outcome,
        rerun_version: rerun.resolved_version,
        rerun_clause_ids: rerun.cited_clause_ids,
        rerun_text: rerun.text,
        rerun_manifest_sha: rerun.manifest_sha,
        verdict_then: verdicts
            .as_ref()
            .map(|v| v.then.clone())
            .unwrap_or_default(),
        verdict_now: verdicts.as_ref().map(|v| v.now.clone()).unwrap_or_default(),
        reasons_now: verdicts.map(|v| v.reasons_now).unwrap_or_default(),
        error: diff.error.clone().unwrap_or_default(),
        recorded_at_ms: chrono::Utc::now().timestamp_millis().max(0) as u64,
    }
}
