use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

#[derive(Subcommand)]
pub enum ManifestCommand {
    /// Validate a manifest and publish it on the compacted manifest topic: every worker serves it
    /// for its next turn. Publishing an older manifest is a rollback (no reindex).
    Publish {
        /// The manifest.json to publish.
        manifest: PathBuf,
        /// Git sha the manifest comes from (recorded with every turn it serves).
        #[arg(long)]
        git_sha: String,
        #[arg(long, env = "POLICY_TOPIC_PREFIX", default_value = "policy")]
        topic_prefix: String,
    },
    /// Check manifest rules, version directories and clauses of a corpus directory.
    Check {
        /// Corpus root holding manifest.json and {region}/v{N}/*.md.
        #[arg(default_value = "golden/policies")]
        dir: PathBuf,
    },
}

pub async fn run(command: ManifestCommand) -> anyhow::Result<ExitCode> {
    match command {
        ManifestCommand::Publish {
            manifest,
            git_sha,
            topic_prefix,
        } => publish(&manifest, &git_sha, &topic_prefix).await,
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

async fn publish(path: &std::path::Path, git_sha: &str, prefix: &str) -> anyhow::Result<ExitCode> {
    use anyhow::Context;
    let json = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    // An invalid manifest never reaches the workers.
    let manifest = match policy_core::Manifest::parse(&json) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{}: refused: {e}", path.display());
            return Ok(ExitCode::FAILURE);
        }
    };
    let kafka = policy_kafka::KafkaConfig::from_env();
    let topic = crate::topics::TopicNames::with_prefix(prefix).manifest;
    let registry = std::sync::Arc::new(policy_avro::RegistryClient::new(
        &kafka.schema_registry_url,
    )?);
    let codec = policy_avro::AvroCodec::<policy_avro::ManifestRecord>::register(
        registry,
        &topic,
        policy_avro::SchemaName::ManifestRecord,
    )
    .await?;
    let record = policy_avro::ManifestRecord {
        git_sha: git_sha.to_string(),
        manifest_json: json,
        manifest_sha: manifest.content_sha().to_string(),
        published_at: policy_avro::now_millis(),
    };
    let producer: rdkafka::producer::FutureProducer = kafka.producer().create()?;
    // One key: compaction keeps exactly the manifest in force.
    let delivery = producer
        .send(
            rdkafka::producer::FutureRecord::to(&topic)
                .key("manifest")
                .payload(&codec.encode(&record)?),
            std::time::Duration::from_secs(10),
        )
        .await
        .map_err(|(e, _)| e)?;
    println!(
        "published manifest {} (git {git_sha}) to {topic} at offset {}",
        manifest.content_sha(),
        delivery.offset
    );
    Ok(ExitCode::SUCCESS)
}
