//! `policyctl policy publish --repo <git dir> [--rev REV]`: validate the corpus at a Git
//! revision and emit a PolicyChange (the diff since the last published sha) for the reindex
//! workers. An invalid corpus is refused here and never reaches a worker.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use policy_app::settings::TopicSettings;
use policy_kafka::KafkaConfig;
use policy_settings::Settings;

#[derive(Subcommand)]
pub(crate) enum PolicyCommand {
    /// Validate the corpus at a Git revision and publish the change to the reindex workers.
    Publish(PublishArgs),
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
