//! `policyctl replay`: turns read back from the turns topic, run again, compared with what was
//! served. Exit 1 on errors; with `--fail-on-change`, exit 3 when a re-run differs.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use policy_app::replay::{PartitionRange, ReplayOptions, Source};
use policy_app::AppSettings;
use policy_audit::AuditConfig;
use policy_settings::Settings;

/// Exit code when `--fail-on-change` is set and a re-run differs from what was served.
const CHANGED_EXIT_CODE: u8 = 3;

#[derive(Args)]
#[command(group = clap::ArgGroup::new("source").required(true).multiple(false)
    .args(["topic_range", "from_time", "turn_id", "audit_where"]))]
pub(crate) struct ReplayArgs {
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
    /// Turns by id, located through the audit table's input coordinates; repeatable.
    #[arg(long = "turn-id")]
    turn_id: Vec<String>,
    /// Turns rebuilt from the audit rows matching this condition on `turns` (any age, beyond
    /// the topic's retention), e.g. "resolved_region = 'eu' AND judge_verdict = 'pass'".
    #[arg(long)]
    audit_where: Option<String>,
    /// Per-turn diff records (JSONL: what was served, what the re-run says, what changed).
    #[arg(long, default_value = ".run/replay.jsonl")]
    out: PathBuf,
    /// How long reading may wait on the broker.
    #[arg(long, default_value_t = 60)]
    timeout_secs: u64,
    /// Exit with status 3 when any re-run differs from what was served.
    #[arg(long)]
    fail_on_change: bool,
    /// Instead of re-running: the current judge (and corpus, or `--policies`) over the answers
    /// that were served, with the clauses retrieved for them (from the audit store; select with
    /// --audit-where or --turn-id): which verdicts would change, and why.
    #[arg(long)]
    rejudge: bool,
    #[command(flatten)]
    app: AppSettings,
    #[command(flatten)]
    audit: AuditConfig,
}

pub(crate) async fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    args.app.validate()?;
    args.audit.validate()?;
    let source = source(&args)?;
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
    }
    if args.rejudge {
        let report =
            policy_app::rejudge::run(&args.app, &args.audit, &source, Some(&args.out)).await?;
        print!("{}", report.render_text());
        println!("\nrejudge records: {}", args.out.display());
        return Ok(if args.fail_on_change && report.changed() > 0 {
            ExitCode::from(CHANGED_EXIT_CODE)
        } else {
            ExitCode::SUCCESS
        });
    }
    let options = ReplayOptions {
        source,
        out: Some(args.out.clone()),
        timeout: Duration::from_secs(args.timeout_secs),
    };
    let report = policy_app::replay::run(&args.app, &args.audit, &options).await?;
    print!("{}", report.render_text());
    println!("\ndiff records: {}", args.out.display());
    Ok(if args.fail_on_change && report.changed() > 0 {
        ExitCode::from(CHANGED_EXIT_CODE)
    } else {
        ExitCode::SUCCESS
    })
}

fn source(args: &ReplayArgs) -> anyhow::Result<Source> {
    if !args.topic_range.is_empty() {
        return Ok(Source::Ranges(args.topic_range.clone()));
    }
    if !args.turn_id.is_empty() {
        return Ok(Source::TurnIds(args.turn_id.clone()));
    }
    if let Some(condition) = &args.audit_where {
        return Ok(Source::AuditWhere(condition.clone()));
    }
    let at = |raw: &Option<String>| -> anyhow::Result<i64> {
        let raw = raw.as_deref().unwrap_or_default();
        Ok(policy_core::parse_instant(raw)
            .with_context(|| format!("--from-time/--to-time `{raw}`"))?
            .timestamp_millis())
    };
    let (from_ms, to_ms) = (at(&args.from_time)?, at(&args.to_time)?);
    anyhow::ensure!(from_ms < to_ms, "--from-time must be before --to-time");
    Ok(Source::Times { from_ms, to_ms })
}
