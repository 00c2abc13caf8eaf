//! `policyctl worker <stage>`: run one stage (or all of them), the reindex or the audit worker
//! as a consumer-group member until SIGTERM.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use policy_app::settings::{AppSettings, RunSettings};
use policy_app::stage_worker::Role;
use policy_audit::AuditConfig;
use policy_settings::Settings;

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum StageArg {
    All,
    Enrich,
    Retrieve,
    Generate,
    Judge,
    /// Outcomes and dead letters → ClickHouse audit rows.
    Audit,
    /// Policy changes from Git → index and corpus snapshots in `--data-dir` → manifest topic.
    Reindex,
}

#[derive(Args)]
pub(crate) struct WorkerArgs {
    #[arg(value_enum)]
    stage: StageArg,
    #[command(flatten)]
    app: AppSettings,
    #[command(flatten)]
    run: RunSettings,
    #[command(flatten)]
    audit: AuditConfig,
}

pub(crate) async fn run(args: WorkerArgs) -> anyhow::Result<ExitCode> {
    args.app.validate()?;
    args.run.validate()?;
    let shutdown = policy_app::shutdown_signal();
    let role = match args.stage {
        StageArg::Audit => {
            args.audit.validate()?;
            policy_app::audit::run(
                &args.app.kafka,
                &args.audit,
                &args.app.topics,
                &args.run,
                shutdown,
            )
            .await?;
            return Ok(ExitCode::SUCCESS);
        }
        StageArg::Reindex => {
            policy_app::reindex::run(&args.app, &args.run, shutdown).await?;
            return Ok(ExitCode::SUCCESS);
        }
        StageArg::All => Role::All,
        StageArg::Enrich => Role::Enrich,
        StageArg::Retrieve => Role::Retrieve,
        StageArg::Generate => Role::Generate,
        StageArg::Judge => Role::Judge,
    };
    policy_app::worker::run(role, &args.app, &args.run, shutdown).await?;
    Ok(ExitCode::SUCCESS)
}
