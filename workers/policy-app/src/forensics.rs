//! Evidence bundles: what a regulator asks for about a turn, in files that can be checked later.
//! For each turn selected from the audit store: the turn as received, how its region and version
//! were resolved, the manifest at the recorded sha, the cited clauses' text as it stood in that
//! version, the answer served with the verdict then, the current judge's verdict, and whether a
//! pinned re-run reproduces the answer. `SHA256SUMS` (the `sha256sum -c` format) and
//! `INDEX.json` list the SHA-256 of every file, so any later change to the bundle is detected
//! ([`verify`]).
//!
//! ```text
//! <out>/INDEX.json                      what was asked, the code version, every turn, every file's digest
//! <out>/SHA256SUMS                      every file but itself
//! <out>/turns/<turn>/turn.json          the turn as received, its coordinates and schema id
//! <out>/turns/<turn>/resolution.json    region and version with their sources, the version's period
//! <out>/turns/<turn>/manifest.json      the manifest at the recorded sha, byte for byte
//! <out>/turns/<turn>/clauses/<id>.md    each cited clause as it stood in that version
//! <out>/turns/<turn>/served.json        what was said, the verdict and reasons then
//! <out>/turns/<turn>/judge_now.json     the current judge over the same answer and clauses
//! <out>/turns/<turn>/rerun.json         a pinned re-run: what it says, and whether it reproduces
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use policy_audit::{AuditConfig, AuditRow, AuditStore};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::replay::source::{Item, Reader, Served, Source};
use crate::replay::{rejudge, rerun, Archive, Change, Corpora, Pipelines};
use crate::settings::AppSettings;

#[derive(Debug, Clone)]
pub struct BundleOptions {
    /// An audit source: a condition, named filters, turn or conversation ids.
    pub source: Source,
    pub out: PathBuf,
    /// Where the corpora of recorded shas are kept.
    pub archive: Archive,
    /// Also re-run each turn pinned to its sha (needs the model; off: judge only).
    pub rerun: bool,
    pub timeout: Duration,
    /// A progress line with rate and ETA on standard error.
    pub progress: bool,
}

/// What went into a bundle.
#[derive(Debug, Clone, Default)]
pub struct BundleReport {
    pub turns: usize,
    /// Pinned re-runs that reproduced the served outcome byte for byte.
    pub reproduced: usize,
    /// Turns whose pinned re-run said something else (each a finding), or could not run.
    pub not_reproduced: Vec<String>,
    /// Answers the current judge would reject.
    pub rejected_now: Vec<String>,
    pub files: usize,
}

/// The files of a bundle and their digests, written as they come.
struct Files {
    root: PathBuf,
    digests: BTreeMap<String, String>,
}

impl Files {
    fn write(&mut self, relative: &str, bytes: &[u8]) -> anyhow::Result<()> {
        let path = self.root.join(relative);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
        }
        std::fs::write(&path, bytes).with_context(|| path.display().to_string())?;
        self.digests
            .insert(relative.to_string(), hex::encode(Sha256::digest(bytes)));
        Ok(())
    }

    fn json(&mut self, relative: &str, value: &serde_json::Value) -> anyhow::Result<()> {
        let mut text = serde_json::to_string_pretty(value)?;
        text.push('\n');
        self.write(relative, text.as_bytes())
    }
}

/// A file name for an id (`eu-v4#sec-3.2` → `eu-v4_sec-3.2`).
fn file_name(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn instant(ms: i64) -> serde_json::Value {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| json!(t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)))
        .unwrap_or(serde_json::Value::Null)
}

/// Writes the bundle of every turn `options.source` selects.
pub async fn write_bundle(
    settings: &AppSettings,
    audit: &AuditConfig,
    options: &BundleOptions,
) -> anyhow::Result<BundleReport> {
    anyhow::ensure!(
        !matches!(options.source, Source::Ranges(_) | Source::Times { .. }),
        "an evidence bundle is built from the audit store: select turns with --audit-where, \
         --filter, --turn-id or --conversation-id"
    );
    if options.out.exists() {
        anyhow::ensure!(
            std::fs::read_dir(&options.out)?.next().is_none(),
            "{} is not empty: a bundle is written into a new directory",
            options.out.display()
        );
    }
    let store = Arc::new(AuditStore::connect(audit).await?);
    let corpora = Arc::new(Corpora::new(settings, Some(options.archive.clone()))?);
    let scratch = tempfile::tempdir()?;
    let pipelines = match options.rerun {
        true => Some(Pipelines::build(settings, corpora.clone(), scratch.path()).await?),
        false => None,
    };
    let mut reader = Reader::open(
        settings,
        store,
        audit,
        &options.source,
        Served::Outcomes,
        options.timeout,
        Arc::new(AtomicBool::new(false)),
    )
    .await?;
    let mut files = Files {
        root: options.out.clone(),
        digests: BTreeMap::new(),
    };
    let mut report = BundleReport::default();
    let mut index_turns = Vec::new();
    let mut progress = crate::replay::progress::Progress::new(options.progress, reader.total());
    while let Some(page) = reader.next_page().await? {
        for item in page {
            let entry = turn_files(
                &mut files,
                &corpora,
                pipelines.as_ref(),
                item,
                settings.pipeline.disclaimer_threshold,
                &mut report,
            )
            .await?;
            index_turns.push(entry);
        }
        progress.update(reader.position(), report.turns as u64);
    }
    progress.finish();
    let index = json!({
        "created_at": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "code_version": crate::replay::sink::code_version(),
        "selection": format!("{:?}", options.source),
        "archive": format!("{:?}", options.archive),
        "turns": index_turns,
        "files": files.digests,
    });
    files.json("INDEX.json", &index)?;
    let sums: String = files
        .digests
        .iter()
        .map(|(path, digest)| format!("{digest}  {path}\n"))
        .collect();
    std::fs::write(options.out.join("SHA256SUMS"), sums)?;
    report.files = files.digests.len();
    Ok(report)
}

async fn turn_files(
    files: &mut Files,
    corpora: &Corpora,
    pipelines: Option<&Pipelines>,
    item: Item,
    escalate_below: f64,
    report: &mut BundleReport,
) -> anyhow::Result<serde_json::Value> {
    let row: AuditRow = item.recorded.clone().context("an audit item has its row")?;
    report.turns += 1;
    let dir = format!("turns/{}", file_name(&row.turn_id));
    let turn = item.turn.as_ref().ok();
    files.json(
        &format!("{dir}/turn.json"),
        &json!({
            "turn": turn,
            "unreadable": item.turn.as_ref().err(),
            "read_from": item.read_from,
            "input": {"topic": row.input_topic, "partition": row.input_partition, "offset": row.input_offset},
            "input_schema_id": row.input_schema_id,
            "sent_at": instant(row.sent_at_ms),
            "purchase_at": (row.has_purchase_at == 1).then(|| instant(row.purchase_at_ms)),
        }),
    )?;
    let sha = row.manifest_sha.clone();
    let state = corpora.state_for(Some(&row));
    let found = corpora.dir_for(&sha);
    let version = state
        .as_ref()
        .ok()
        .and_then(|s| s.manifest.version(&row.resolved_version).cloned());
    files.json(
        &format!("{dir}/resolution.json"),
        &json!({
            "resolved_region": row.resolved_region,
            "region_source": row.region_source,
            "region_disagreement": row.region_disagreement == 1,
            "signals": {"session": row.session_region, "billing": row.billing_region, "ip": row.ip_region},
            "resolved_version": row.resolved_version,
            "effective_at": (row.has_effective_at == 1).then(|| instant(i64::from(row.effective_at) * 1000)),
            "version_in_force": version.as_ref().map(|v| json!({
                "from": v.effective_from.to_rfc3339(),
                "to": v.effective_to.map(|t| t.to_rfc3339()),
            })),
            "manifest_sha": sha,
            "corpus": match &found { Ok(f) => json!(f.origin), Err(e) => json!({"unavailable": e}) },
        }),
    )?;
    if let Ok(found) = &found {
        let manifest = std::fs::read(found.dir.join("manifest.json"))?;
        files.write(&format!("{dir}/manifest.json"), &manifest)?;
    }
    if let Ok(state) = &state {
        for id in &row.cited_clause_ids {
            let Some(clause) = state.corpus.clause(id) else {
                continue;
            };
            let text = format!(
                "<!-- {} as it stood at {sha}, file {} -->\n{}\n\n{}\n",
                clause.clause_id, clause.source_file, clause.title, clause.text
            );
            files.write(
                &format!("{dir}/clauses/{}.md", file_name(id)),
                text.as_bytes(),
            )?;
        }
    }
    files.json(
        &format!("{dir}/served.json"),
        &json!({
            "outcome": row.outcome,
            "tier": row.tier,
            "confidence": row.confidence,
            "answer_text": row.answer_text,
            "cited_clause_ids": row.cited_clause_ids,
            "retrieved_clause_ids": row.retrieved_clause_ids,
            "reason_code": row.reason_code,
            "judge_verdict": row.judge_verdict,
            "judge_reasons": row.judge_reasons,
            "intent": row.intent,
            "decision": (!row.decision_kind.is_empty()).then(|| json!({
                "kind": row.decision_kind, "eligible": row.decision_eligible == 1,
                "reason": row.decision_reason, "amount": row.decision_amount,
                "deadline": (row.decision_deadline_ms > 0).then(|| instant(row.decision_deadline_ms)),
            })),
            "processed_at": instant(row.processed_at_ms as i64),
        }),
    )?;
    let judged = (row.outcome == "answer").then(|| {
        rejudge(
            corpora,
            Item {
                turn: Err(String::new()),
                ..item.clone()
            },
            escalate_below,
        )
    });
    if let Some(judged) = &judged {
        files.json(
            &format!("{dir}/judge_now.json"),
            &json!({"verdicts": judged.verdicts, "error": judged.error}),
        )?;
        if judged.verdicts.as_ref().is_some_and(|v| v.now != "pass") {
            report.rejected_now.push(row.turn_id.clone());
        }
    }
    let rerun_diff = match pipelines {
        Some(pipelines) => Some(rerun(pipelines, item).await),
        None => None,
    };
    if let Some(diff) = &rerun_diff {
        let reproduced = diff.change == Change::Same;
        if reproduced {
            report.reproduced += 1;
        } else {
            report.not_reproduced.push(row.turn_id.clone());
        }
        files.json(
            &format!("{dir}/rerun.json"),
            &json!({
                "reproduced": reproduced,
                "change": diff.change,
                "rerun": diff.rerun,
                "error": diff.error,
            }),
        )?;
    }
    Ok(json!({
        "turn_id": row.turn_id,
        "dir": dir,
        "resolved_version": row.resolved_version,
        "manifest_sha": sha,
        "outcome": row.outcome,
        "verdict_then": row.judge_verdict,
        "verdict_now": judged.as_ref().and_then(|d| d.verdicts.as_ref()).map(|v| v.now.clone()),
        "reproduced": rerun_diff.as_ref().map(|d| d.change == Change::Same),
    }))
}

/// What checking a bundle against its digests found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verification {
    pub checked: usize,
    /// Files whose content no longer has the recorded digest.
    pub changed: Vec<String>,
    pub missing: Vec<String>,
    /// Files in the bundle that no digest covers.
    pub unlisted: Vec<String>,
}

impl Verification {
    pub fn ok(&self) -> bool {
        self.changed.is_empty() && self.missing.is_empty() && self.unlisted.is_empty()
    }
}

/// Checks every file of the bundle at `dir` against `SHA256SUMS`, and `SHA256SUMS` against the
/// digests in `INDEX.json` (which it covers itself).
pub fn verify(dir: &Path) -> anyhow::Result<Verification> {
    let sums = std::fs::read_to_string(dir.join("SHA256SUMS"))
        .with_context(|| format!("{}: no SHA256SUMS, not a bundle", dir.display()))?;
    let mut listed = BTreeMap::new();
    for line in sums.lines().filter(|l| !l.trim().is_empty()) {
        let (digest, path) = line
            .split_once("  ")
            .with_context(|| format!("SHA256SUMS: malformed line `{line}`"))?;
        listed.insert(path.to_string(), digest.to_string());
    }
    let mut report = Verification::default();
    for (path, digest) in &listed {
        match std::fs::read(dir.join(path)) {
            Ok(bytes) => {
                report.checked += 1;
                if hex::encode(Sha256::digest(&bytes)) != *digest {
                    report.changed.push(path.clone());
                }
            }
            Err(_) => report.missing.push(path.clone()),
        }
    }
    // The index's own list must agree with SHA256SUMS (a swapped list is a change too).
    let index: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("INDEX.json"))?)?;
    if let Some(files) = index["files"].as_object() {
        for (path, digest) in files {
            if listed.get(path).map(String::as_str) != digest.as_str() {
                report
                    .changed
                    .push(format!("{path} (INDEX.json disagrees with SHA256SUMS)"));
            }
        }
    }
    let mut present = Vec::new();
    crate::publish::all_files(dir, dir, &mut present)?;
    for path in present {
        if path != "SHA256SUMS" && !listed.contains_key(&path) {
            report.unlisted.push(path);
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let mut files = Files {
            root: dir.path().to_path_buf(),
            digests: BTreeMap::new(),
        };
        files
            .write("turns/t-1/served.json", b"{\"answer\": 1}\n")
            .unwrap();
        files
            .write("turns/t-1/clauses/eu-v4_sec-3.2.md", b"30 days\n")
            .unwrap();
        let index = json!({"files": files.digests});
        files.json("INDEX.json", &index).unwrap();
        let sums: String = files
            .digests
            .iter()
            .map(|(p, d)| format!("{d}  {p}\n"))
            .collect();
        std::fs::write(dir.path().join("SHA256SUMS"), sums).unwrap();
        dir
    }

    #[test]
    fn an_untouched_bundle_verifies() {
        let dir = bundle();
        let report = verify(dir.path()).unwrap();
        assert!(report.ok(), "{report:?}");
        assert_eq!(report.checked, 3);
    }

    #[test]
    fn an_edited_missing_or_added_file_is_named() {
        let dir = bundle();
        std::fs::write(
            dir.path().join("turns/t-1/clauses/eu-v4_sec-3.2.md"),
            b"45 days\n",
        )
        .unwrap();
        std::fs::remove_file(dir.path().join("turns/t-1/served.json")).unwrap();
        std::fs::write(dir.path().join("turns/t-1/extra.txt"), b"?").unwrap();
        let report = verify(dir.path()).unwrap();
        assert_eq!(report.changed, ["turns/t-1/clauses/eu-v4_sec-3.2.md"]);
        assert_eq!(report.missing, ["turns/t-1/served.json"]);
        assert_eq!(report.unlisted, ["turns/t-1/extra.txt"]);
        assert!(!report.ok());
    }

    #[test]
    fn clause_ids_become_plain_file_names() {
        assert_eq!(file_name("eu-v4#sec-3.2"), "eu-v4_sec-3.2");
        assert_eq!(file_name("../x"), ".._x");
    }
}
