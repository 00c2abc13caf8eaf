use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

#[derive(Subcommand)]
pub(crate) enum ManifestCommand {
    /// Validate a manifest and publish it on the compacted manifest topic: every worker serves it
    /// for its next turn. Publishing an older manifest is a rollback (no reindex).
    Publish {
        /// The manifest.json to publish.
        manifest: PathBuf,
        /// Git sha the manifest comes from (recorded with every turn it serves).
        #[arg(long)]
        git_sha: String,
        #[command(flatten)]
        topics: policy_app::settings::TopicSettings,
        #[command(flatten)]
        kafka: policy_kafka::KafkaConfig,
    },
    /// Check manifest rules, version directories and clauses of a corpus directory.
    Check {
        /// Corpus root holding manifest.json and {region}/v{N}/*.md.
        #[arg(default_value = "golden/policies")]
        dir: PathBuf,
    },
}

pub(crate) async fn run(command: ManifestCommand) -> anyhow::Result<ExitCode> {
    match command {
        ManifestCommand::Publish {
            manifest,
            git_sha,
            topics,
            kafka,
        } => publish(&manifest, &git_sha, &topics, &kafka).await,
        ManifestCommand::Check { dir } => {
            let corpus = match policy_core::load_dir(&dir) {
                Ok(corpus) => corpus,
                Err(e) => {
                    eprintln!("{}: {e}", dir.display());
                    return Ok(ExitCode::FAILURE);
                }
            };
            for (version, reason) in corpus.failed_versions() {
                eprintln!("{}: version `{version}` unusable: {reason}", dir.display());
            }
            for (clause, sentences) in corpus.quarantined() {
                for sentence in sentences {
                    eprintln!(
                        "{}: warning: {clause}: an instruction to the assistant is not served: {sentence:?}",
                        dir.display()
                    );
                }
            }
            let manifest = corpus.manifest();
            for region in manifest.regions() {
                let versions = manifest.region_versions(region).unwrap_or_default();
                let ids: Vec<String> = versions
                    .iter()
                    .map(|v| {
                        format!(
                            "{} ({} clauses)",
                            v.id,
                            corpus.version_clauses(&v.id).count()
                        )
                    })
                    .collect();
                println!("{region}: {}", ids.join(", "));
            }
            if !corpus.failed_versions().is_empty() {
                return Ok(ExitCode::FAILURE);
            }
            println!(
                "ok: {} versions, {} clauses, manifest sha {}",
                manifest.versions().count(),
                corpus.clauses().len(),
                manifest.content_sha()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

async fn publish(
    path: &std::path::Path,
    git_sha: &str,
    topics: &policy_app::settings::TopicSettings,
    kafka: &policy_kafka::KafkaConfig,
) -> anyhow::Result<ExitCode> {
    policy_settings::Settings::validate(kafka)?;
    let names = topics.names();
    match policy_app::publish::publish_manifest(kafka, &names, path, git_sha).await {
        Ok((manifest, offset)) => {
            println!(
                "published manifest {} (git {git_sha}) to {} at offset {offset}",
                manifest.content_sha(),
                names.manifest
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("{e:#}");
            Ok(ExitCode::FAILURE)
        }
    }
}
