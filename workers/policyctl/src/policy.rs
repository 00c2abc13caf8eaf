//! `policyctl policy publish --repo <git dir> [--rev REV]`: validate the corpus at a Git
//! revision and emit a PolicyChange (the diff since the last published sha) for the reindex
//! workers. An invalid corpus is refused here and never reaches a worker.
//! `policyctl policy impact --repo <git dir> --rev CANDIDATE [--since 30d]`: what publishing it
//! would change (golden regressions, in-flight answers); exit 4 when it would break either.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use policy_app::settings::TopicSettings;
use policy_app::AppSettings;
use policy_audit::AuditConfig;
use policy_kafka::KafkaConfig;
use policy_settings::Settings;

#[derive(Subcommand)]
pub(crate) enum PolicyCommand {
    /// Validate the corpus at a Git revision and publish the change to the reindex workers.
    Publish(PublishArgs),
    /// Before publishing: the golden set under the candidate vs the served corpus, and recent
    /// real turns (audit store) under the candidate vs what was served to them. Exit 4 when a
    /// golden case regresses or an in-flight answer would change.
    Impact(Box<ImpactArgs>),
}

/// Exit code of `policy impact` when the candidate breaks a golden case or an in-flight answer.
const IMPACT_FAILED_EXIT_CODE: u8 = 4;

#[derive(Args)]
pub(crate) struct ImpactArgs {
    /// The Git repository holding the policy corpus.
    #[arg(long)]
    repo: PathBuf,
    /// The candidate revision (a pull request's head).
    #[arg(long)]
    rev: String,
    /// Directory of the corpus inside the repository (manifest.json and {region}/v{N}/).
    #[arg(long, default_value = ".")]
    path: String,
    /// Recent turns to re-run under the candidate: audit rows processed since this instant or
    /// for this long (`30d`, `12h`, `2026-11-01`).
    #[arg(long, default_value = "30d")]
    since: String,
    /// Skip the recent turns (no audit store needed): the golden set only.
    #[arg(long)]
    golden_only: bool,
    /// The golden cases (a .jsonl file or a directory of them).
    #[arg(long, default_value = "golden/cases")]
    golden: PathBuf,
    /// Per-turn diff records of the recent turns (JSONL).
    #[arg(long, default_value = ".run/impact.jsonl")]
    out: PathBuf,
    /// The recent turns' summary as a self-contained HTML page.
    #[arg(long)]
    html: Option<PathBuf>,
    /// No progress line on standard error.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    thresholds: crate::eval::ThresholdArgs,
    #[command(flatten)]
    app: AppSettings,
    #[command(flatten)]
    audit: AuditConfig,
}

#[derive(Args)]
pub(crate) struct PublishArgs {
    /// The Git repository holding the policy corpus.
    #[arg(long)]
    repo: PathBuf,
    /// Revision to publish (a rollback is an older revision published again).
    #[arg(long, default_value = "HEAD")]
    rev: String,
    /// Directory of the corpus inside the repository (manifest.json and {region}/v{N}/).
    #[arg(long, default_value = ".")]
    path: String,
    /// Send every document, not the diff since the last published sha.
    #[arg(long)]
    full: bool,
    #[command(flatten)]
    topics: TopicSettings,
    #[command(flatten)]
    kafka: KafkaConfig,
}

pub(crate) async fn run(command: PolicyCommand) -> anyhow::Result<ExitCode> {
    match command {
        PolicyCommand::Impact(args) => {
            args.app.validate()?;
            let options = policy_app::impact::ImpactOptions {
                repo: args.repo,
                rev: args.rev,
                path: args.path,
                since: (!args.golden_only).then_some(args.since),
                golden: args.golden,
                thresholds: args.thresholds.thresholds(),
                out: Some(args.out),
                html: args.html,
                progress: !args.quiet,
            };
            if options.since.is_some() {
                args.audit.validate()?;
            }
            let stop = crate::replay::stop_on_ctrl_c();
            let report = policy_app::impact::run(&args.app, &args.audit, &options, stop).await?;
            print!("{}", report.render_text());
            Ok(if report.passed() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(IMPACT_FAILED_EXIT_CODE)
            })
        }
        PolicyCommand::Publish(args) => {
            args.kafka.validate()?;
            let published = match policy_app::publish::publish(
                &args.kafka,
                &args.topics.names(),
                &args.repo,
                &args.rev,
                &args.path,
                args.full,
            )
            .await
            {
                Ok(published) => published,
                Err(e) => {
                    eprintln!("{e:#}");
                    return Ok(ExitCode::FAILURE);
                }
            };
            println!(
                "published {} ({} document change(s) since {}) to {} at offset {}",
                published.sha,
                published.documents,
                published
                    .previous
                    .as_deref()
                    .unwrap_or("nothing: full corpus"),
                published.topic,
                published.offset
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
