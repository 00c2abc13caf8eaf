//! `policyctl forensics bundle --audit-where ... --out DIR`: an evidence bundle per turn, with
//! SHA-256 digests of every file; `policyctl forensics verify DIR` checks one later. Exit 1 when
//! a bundle does not verify.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};
use policy_app::forensics::{self, BundleOptions};
use policy_app::AppSettings;
use policy_audit::AuditConfig;
use policy_settings::Settings;

use crate::replay::{RepoArgs, SourceArgs};

#[derive(Subcommand)]
pub(crate) enum ForensicsCommand {
    /// Write an evidence bundle for the turns selected from the audit store: the turn as
    /// received, region and version with their sources, the manifest at the recorded sha, the
    /// cited clauses as they stood, the answer and verdict then, the current judge's verdict, a
    /// pinned re-run, and SHA-256 digests of every file.
    Bundle(Box<BundleArgs>),
    /// Check a bundle against its digests (also: `sha256sum -c SHA256SUMS` in the bundle).
    Verify {
        /// The bundle's directory.
        dir: PathBuf,
    },
}

#[derive(Args)]
pub(crate) struct BundleArgs {
    #[command(flatten)]
    source: SourceArgs,
    /// A new directory for the bundle.
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    repo: RepoArgs,
    /// Skip the pinned re-run (no model needed): the judge's verdicts only.
    #[arg(long)]
    no_rerun: bool,
    /// How long reading may wait on the broker.
    #[arg(long, default_value_t = 60)]
    timeout_secs: u64,
    /// No progress line on standard error.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    app: AppSettings,
    #[command(flatten)]
    audit: AuditConfig,
}

pub(crate) async fn run(command: ForensicsCommand) -> anyhow::Result<ExitCode> {
    match command {
        ForensicsCommand::Bundle(args) => {
            args.app.validate()?;
            args.audit.validate()?;
            let options = BundleOptions {
                source: args.source.source()?,
                out: args.out.clone(),
                archive: args.repo.archive(&args.app),
                rerun: !args.no_rerun,
                timeout: Duration::from_secs(args.timeout_secs),
                progress: !args.quiet,
            };
            let report = forensics::write_bundle(&args.app, &args.audit, &options).await?;
            println!(
                "bundle {}: {} turn(s), {} file(s) with SHA-256 digests",
                args.out.display(),
                report.turns,
                report.files
            );
            if options.rerun {
                println!(
                    "pinned re-run reproduced {} of {} turn(s){}",
                    report.reproduced,
                    report.turns,
                    if report.not_reproduced.is_empty() {
                        String::new()
                    } else {
                        format!("; NOT reproduced: {}", report.not_reproduced.join(", "))
                    }
                );
            }
            if !report.rejected_now.is_empty() {
                println!(
                    "the current judge would reject: {}",
                    report.rejected_now.join(", ")
                );
            }
            println!(
                "verify later: policyctl forensics verify {}",
                args.out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        ForensicsCommand::Verify { dir } => {
            let report = forensics::verify(&dir)?;
            if report.ok() {
                println!("{}: {} file(s) verified", dir.display(), report.checked);
                return Ok(ExitCode::SUCCESS);
            }
            for path in &report.changed {
                println!("CHANGED  {path}");
            }
            for path in &report.missing {
                println!("MISSING  {path}");
            }
            for path in &report.unlisted {
                println!("UNLISTED {path}");
            }
            Ok(ExitCode::FAILURE)
        }
    }
}
