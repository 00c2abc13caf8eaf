//! `policyctl replay`: turns read back (turns topic or audit store), run again or judged again,
//! compared with what was served. Exit 1 on errors; with `--fail-on-change`, exit 3 when a
//! replayed turn differs; 130 when stopped with Ctrl-C (what was replayed is written out).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use policy_app::replay::{Archive, Mode, NamedFilter, PartitionRange, ReplayOptions, Source};
use policy_app::AppSettings;
use policy_audit::AuditConfig;
use policy_settings::Settings;

/// Exit code when `--fail-on-change` is set and a replayed turn differs from what was served.
pub(crate) const CHANGED_EXIT_CODE: u8 = 3;
/// Exit code of a replay stopped with Ctrl-C (128 + SIGINT, as shells report it).
pub(crate) const INTERRUPTED_EXIT_CODE: u8 = 130;

/// Which turns: one kind of source (named filters combine with `--audit-where` and `--since`).
#[derive(Args, Clone)]
#[command(group = clap::ArgGroup::new("source").required(true).multiple(true)
    .args(["topic_range", "from_time", "turn_id", "conversation_id", "audit_where", "filter", "since"]))]
pub(crate) struct SourceArgs {
    /// Offsets of the turns topic, `PARTITION:FROM-TO` (inclusive); repeatable.
    #[arg(long = "topic-range", value_name = "P:FROM-TO")]
    topic_range: Vec<PartitionRange>,
    /// Turns produced at or after this instant (RFC 3339 with any offset, or YYYY-MM-DD), on
    /// every partition, through the broker's time index.
    #[arg(long, requires = "to_time")]
    from_time: Option<String>,
    /// Turns produced before this instant.
    #[arg(long, requires = "from_time")]
    to_time: Option<String>,
    /// Turns by id, located through the audit table (read from the turns topic while it holds
    /// them, rebuilt from the audit row after); repeatable.
    #[arg(long = "turn-id")]
    turn_id: Vec<String>,
    /// Every turn of a conversation, likewise; repeatable.
    #[arg(long = "conversation-id")]
    conversation_id: Vec<String>,
    /// Turns rebuilt from the audit rows matching this condition on `turns` (any age, beyond
    /// the topic's retention), e.g. "resolved_region = 'eu' AND judge_verdict = 'pass'".
    #[arg(long)]
    audit_where: Option<String>,
    /// A named condition on the audit rows; repeatable, combined with --audit-where.
    #[arg(long, value_enum)]
    filter: Vec<NamedFilter>,
    /// Audit rows processed since this instant or for this long (`30d`, `12h`, `2026-11-01`).
    #[arg(long)]
    since: Option<String>,
}

impl SourceArgs {
    pub(crate) fn source(&self) -> anyhow::Result<Source> {
        let audit = self.audit_where.is_some() || !self.filter.is_empty() || self.since.is_some();
        let kinds = [
            !self.topic_range.is_empty(),
            self.from_time.is_some(),
            !self.turn_id.is_empty(),
            !self.conversation_id.is_empty(),
            audit,
        ];
        anyhow::ensure!(
            kinds.iter().filter(|k| **k).count() == 1,
            "choose one source: --topic-range, --from-time/--to-time, --turn-id, \
             --conversation-id, or audit rows (--audit-where, --filter, --since)"
        );
        if !self.topic_range.is_empty() {
            return Ok(Source::Ranges(self.topic_range.clone()));
        }
        if !self.turn_id.is_empty() {
            return Ok(Source::TurnIds(self.turn_id.clone()));
        }
        if !self.conversation_id.is_empty() {
            return Ok(Source::ConversationIds(self.conversation_id.clone()));
        }
        if audit {
            let since = self
                .since
                .as_deref()
                .map(|raw| policy_app::replay::source::since_condition(raw, chrono::Utc::now()))
                .transpose()?;
            let condition = match (&self.audit_where, since) {
                (Some(c), Some(s)) => Some(format!("({c}) AND {s}")),
                (Some(c), None) => Some(c.clone()),
                (None, s) => s,
            };
            return Source::audit_condition(condition.as_deref(), &self.filter);
        }
        let at = |raw: &Option<String>| -> anyhow::Result<i64> {
            let raw = raw.as_deref().unwrap_or_default();
            Ok(policy_core::parse_instant(raw)
                .with_context(|| format!("--from-time/--to-time `{raw}`"))?
                .timestamp_millis())
        };
        let (from_ms, to_ms) = (at(&self.from_time)?, at(&self.to_time)?);
        anyhow::ensure!(from_ms < to_ms, "--from-time must be before --to-time");
        Ok(Source::Times { from_ms, to_ms })
    }
}

/// Where corpora of earlier shas and candidates come from.
#[derive(Args, Clone)]
pub(crate) struct RepoArgs {
    /// The policy Git repository: where --pinned finds the corpus of a recorded sha and
    /// --policies-rev a candidate (the published data directory, --data-dir, is searched first).
    #[arg(long)]
    pub(crate) repo: Option<PathBuf>,
    /// Directory of the corpus inside the repository (manifest.json and {region}/v{N}/).
    #[arg(long = "repo-path", default_value = ".")]
    pub(crate) repo_path: String,
}

impl RepoArgs {
    pub(crate) fn archive(&self, settings: &AppSettings) -> Archive {
        Archive {
            data_dir: settings.corpus.data_dir.clone(),
            repo: self.repo.clone().map(|r| (r, self.repo_path.clone())),
        }
    }
}

#[derive(Args)]
pub(crate) struct ReplayArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// Instead of re-running: the current judge over the answers that were served, with the
    /// clauses retrieved for them (no retrieval, no generation): which verdicts would change.
    #[arg(long)]
    rejudge: bool,
    /// Each turn under the corpus of the sha recorded on it (from --data-dir snapshots or
    /// --repo): a pinned re-run reproduces what was served, byte for byte.
    #[arg(long, conflicts_with = "policies_rev")]
    pinned: bool,
    /// What-if: every turn under the corpus at this revision of --repo.
    #[arg(long, requires = "repo")]
    policies_rev: Option<String>,
    #[command(flatten)]
    repo: RepoArgs,
    /// Per-turn diff records (JSONL: what was served, what the replay says, what changed).
    #[arg(long, default_value = ".run/replay.jsonl")]
    out: PathBuf,
    /// The summary as a self-contained HTML page.
    #[arg(long)]
    html: Option<PathBuf>,
    /// Store one row per turn in the audit database's `replays` table (replay id, parameters,
    /// code version).
    #[arg(long)]
    write_clickhouse: bool,
    /// How long reading may wait on the broker.
    #[arg(long, default_value_t = 60)]
    timeout_secs: u64,
    /// Turns re-run at once.
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// No progress line on standard error.
    #[arg(long)]
    quiet: bool,
    /// Exit with status 3 when any replayed turn differs from what was served.
    #[arg(long)]
    fail_on_change: bool,
    #[command(flatten)]
    app: AppSettings,
    #[command(flatten)]
    audit: AuditConfig,
}

/// Set on Ctrl-C: the replay finishes the page in hand and stops.
pub(crate) fn stop_on_ctrl_c() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\nstopping: finishing the turns in hand (Ctrl-C again to abort)");
            flag.store(true, Ordering::Relaxed);
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(i32::from(INTERRUPTED_EXIT_CODE));
            }
        }
    });
    stop
}

pub(crate) async fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    args.app.validate()?;
    args.audit.validate()?;
    let mut app = args.app.clone();
    let mut options = ReplayOptions::new(
        args.source.source()?,
        if args.rejudge {
            Mode::Rejudge
        } else {
            Mode::Rerun
        },
    );
    // Kept alive for the whole replay: the candidate's files are in it.
    let _candidate = match &args.policies_rev {
        Some(rev) => {
            let repo = args
                .repo
                .repo
                .as_ref()
                .context("--policies-rev needs --repo")?;
            let export = policy_app::publish::export(repo, rev, &args.repo.repo_path)?;
            options.parameters.insert(
                "candidate".into(),
                format!("{} {rev} ({})", repo.display(), export.sha).into(),
            );
            app.corpus.policies = export.root.clone();
            app.corpus.data_dir = None;
            Some(export)
        }
        None => None,
    };
    if args.pinned {
        let archive = args.repo.archive(&args.app);
        anyhow::ensure!(
            !archive.is_empty(),
            "--pinned finds each turn's corpus in the published --data-dir or the policy --repo: \
             give at least one"
        );
        options.pinned = Some(archive);
    }
    options.out = Some(args.out.clone());
    options.html = args.html.clone();
    options.write_clickhouse = args.write_clickhouse;
    options.timeout = Duration::from_secs(args.timeout_secs);
    options.concurrency = args.concurrency;
    options.progress = !args.quiet;
    let stop = stop_on_ctrl_c();
    let summary =
        policy_app::replay::run(&app, &args.audit, &options, stop.clone(), &mut |_| {}).await?;
    print!("{}", summary.render_text());
    println!("\ndiff records: {}", args.out.display());
    if let Some(html) = &args.html {
        println!("summary page: {}", html.display());
    }
    Ok(if summary.interrupted.is_some() {
        ExitCode::from(INTERRUPTED_EXIT_CODE)
    } else if args.fail_on_change && summary.changed() > 0 {
        ExitCode::from(CHANGED_EXIT_CODE)
    } else {
        ExitCode::SUCCESS
    })
}
