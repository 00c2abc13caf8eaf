//! `policyctl policy publish --repo <git dir> [--rev REV]`: validate the corpus at a Git
//! revision and emit a PolicyChange (the diff since the last published sha) for the reindex
//! workers. An invalid manifest is refused here and never reaches a worker.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use policy_avro::{
    AvroCodec, ChangedDocument, ManifestRecord, PolicyChange, RegistryClient, SchemaName,
};
use policy_kafka::KafkaConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::{Message, Offset, TopicPartitionList};

use crate::topics::TopicNames;

#[derive(Subcommand)]
pub enum PolicyCommand {
    /// Validate the corpus at a Git revision and publish the change to the reindex workers.
    Publish(PublishArgs),
}

#[derive(Args)]
pub struct PublishArgs {
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
    #[arg(long, env = "POLICY_TOPIC_PREFIX", default_value = "policy")]
    topic_prefix: String,
}

pub async fn run(command: PolicyCommand) -> anyhow::Result<ExitCode> {
    match command {
        PolicyCommand::Publish(args) => publish(args).await,
    }
}

fn git(repo: &Path, args: &[&str]) -> anyhow::Result<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .output()
        .context("running git")?;
    if !out.status.success() {
        bail!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out.stdout)
}

/// `{region}/v{N}/file.md` → (region, `{region}-v{N}`).
pub fn version_of(relative: &str) -> (Option<String>, Option<String>) {
    let mut parts = relative.split('/');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(region), Some(v), Some(_))
            if v.len() > 1 && v.starts_with('v') && v[1..].chars().all(|c| c.is_ascii_digit()) =>
        {
            (Some(region.to_string()), Some(format!("{region}-{v}")))
        }
        _ => (None, None),
    }
}

/// Parses `git diff --name-status --no-renames` output into (change, path) pairs.
pub fn parse_name_status(output: &str) -> Vec<(&'static str, String)> {
    output
        .lines()
        .filter_map(|line| {
            let (status, path) = line.split_once('\t')?;
            let change = match status.chars().next()? {
                'A' => "added",
                'D' => "deleted",
                _ => "modified",
            };
            Some((change, path.to_string()))
        })
        .collect()
}

/// The last manifest record on the compacted topic (what the workers serve now).
fn last_published(kafka: &KafkaConfig, topic: &str) -> anyhow::Result<Option<Vec<u8>>> {
    let consumer: BaseConsumer = kafka
        .client()
        .set("group.id", format!("policy-publish-{}", std::process::id()))
        .set("enable.auto.commit", "false")
        .create()?;
    let (_, high) = consumer.fetch_watermarks(topic, 0, Duration::from_secs(10))?;
    if high == 0 {
        return Ok(None);
    }
    let mut assignment = TopicPartitionList::new();
    assignment.add_partition_offset(topic, 0, Offset::Offset(high - 1))?;
    consumer.assign(&assignment)?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Some(message) = consumer.poll(Duration::from_millis(200)) {
            let message = message?;
            if let Some(payload) = message.payload() {
                return Ok(Some(payload.to_vec()));
            }
        }
    }
    bail!("could not read the last record of {topic} within 10 s")
}

fn all_files(root: &Path, dir: &Path, out: &mut Vec<String>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            all_files(root, &entry.path(), out)?;
        } else {
            let relative = entry.path().strip_prefix(root)?.to_path_buf();
            out.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
    Ok(())
}

async fn publish(args: PublishArgs) -> anyhow::Result<ExitCode> {
    let sha = String::from_utf8(git(
        &args.repo,
        &["rev-parse", &format!("{}^{{commit}}", args.rev)],
    )?)?
    .trim()
    .to_string();
    let corpus_path = args.path.trim_matches('/');
    let prefix = if corpus_path.is_empty() || corpus_path == "." {
        String::new()
    } else {
        format!("{corpus_path}/")
    };

    // The corpus exactly as committed, validated like a worker would load it.
    let export = tempfile::tempdir()?;
    let archive = git(&args.repo, &["archive", "--format=tar", &sha])?;
    let mut tar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(export.path())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .context("running tar")?;
    std::io::Write::write_all(tar.stdin.as_mut().expect("piped"), &archive)?;
    if !tar.wait()?.success() {
        bail!("extracting {sha} failed");
    }
    let root = export.path().join(&prefix);
    let corpus = match policy_core::load_dir(&root) {
        Ok(corpus) => corpus,
        Err(e) => {
            eprintln!("{sha}: refused: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    for (version, reason) in corpus.failed_versions() {
        eprintln!("warning: {version} will not be served: {reason}");
    }
    let manifest_json = std::fs::read_to_string(root.join("manifest.json"))?;

    let kafka = KafkaConfig::from_env();
    let topics = TopicNames::with_prefix(&args.topic_prefix);
    let registry = Arc::new(RegistryClient::new(&kafka.schema_registry_url)?);
    let manifests = AvroCodec::<ManifestRecord>::register(
        registry.clone(),
        &topics.manifest,
        SchemaName::ManifestRecord,
    )
    .await?;
    let last = match tokio::task::block_in_place(|| last_published(&kafka, &topics.manifest))? {
        Some(payload) => Some(manifests.decode(&payload).await?.git_sha),
        None => None,
    };
    let known = |s: &str| git(&args.repo, &["cat-file", "-e", &format!("{s}^{{commit}}")]).is_ok();
    let previous = last.filter(|s| !args.full && known(s));
    let changes: Vec<(&str, String)> = match &previous {
        Some(previous) => {
            let mut diff_args = vec![
                "diff",
                "--no-renames",
                "--name-status",
                previous.as_str(),
                &sha,
            ];
            if !prefix.is_empty() {
                diff_args.extend(["--", corpus_path]);
            }
            let out = String::from_utf8(git(&args.repo, &diff_args)?)?;
            parse_name_status(&out)
                .into_iter()
                .filter_map(|(c, p)| p.strip_prefix(&prefix).map(|r| (c, r.to_string())))
                .collect()
        }
        None => {
            let mut files = Vec::new();
            all_files(&root, &root, &mut files)?;
            files.sort();
            files.into_iter().map(|f| ("added", f)).collect()
        }
    };
    let mut changed_documents = Vec::new();
    for (change, relative) in changes {
        let (region, version_id) = version_of(&relative);
        let content = match change {
            "deleted" => None,
            _ => Some(
                std::fs::read_to_string(root.join(&relative))
                    .with_context(|| format!("{relative} at {sha} is not UTF-8 text"))?,
            ),
        };
        changed_documents.push(ChangedDocument {
            path: relative,
            change: change.to_string(),
            region,
            version_id,
            content,
        });
    }
    let record = PolicyChange {
        git_sha: sha.clone(),
        previous_sha: previous.clone(),
        manifest_json,
        manifest_sha: corpus.manifest().content_sha().to_string(),
        changed_documents,
        published_at: policy_avro::now_millis(),
    };
    let codec =
        AvroCodec::<PolicyChange>::register(registry, &topics.changes, SchemaName::PolicyChange)
            .await?;
    let producer: FutureProducer = kafka.producer().create()?;
    let delivery = producer
        .send(
            FutureRecord::to(&topics.changes)
                .key(sha.as_bytes())
                .payload(&codec.encode(&record)?),
            Duration::from_secs(10),
        )
        .await
        .map_err(|(e, _)| e)?;
    println!(
        "published {sha} ({} document change(s) since {}) to {} at offset {}",
        record.changed_documents.len(),
        previous.as_deref().unwrap_or("nothing: full corpus"),
        topics.changes,
        delivery.offset
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_come_from_the_path() {
        assert_eq!(
            version_of("eu/v4/02-returns.md"),
            (Some("eu".into()), Some("eu-v4".into()))
        );
        assert_eq!(version_of("manifest.json"), (None, None));
        assert_eq!(version_of("eu/notes.md"), (None, None));
        assert_eq!(version_of("eu/vx/a.md"), (None, None));
    }

    #[test]
    fn name_status_lines_become_changes() {
        let out = "A\teu/v4/a.md\nM\tmanifest.json\nD\teu/v1/b.md\nT\tx\n\n";
        assert_eq!(
            parse_name_status(out),
            [
                ("added", "eu/v4/a.md".to_string()),
                ("modified", "manifest.json".to_string()),
                ("deleted", "eu/v1/b.md".to_string()),
                ("modified", "x".to_string()),
            ]
        );
    }
}
