//! Policy corpora in Git: a revision exported exactly as committed, validated as a worker
//! loads it, and published to the reindex workers as the diff since the sha served now; or a
//! manifest alone published on the compacted manifest topic (a rollback without reindex).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use policy_avro::{
    AvroCodec, ChangedDocument, ManifestRecord, PolicyChange, RegistryClient, SchemaName,
};
use policy_core::{Corpus, Manifest};
use policy_kafka::KafkaConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::{Message, Offset, TopicPartitionList};

use crate::topics::TopicNames;

pub fn git(repo: &Path, args: &[&str]) -> anyhow::Result<Vec<u8>> {
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
pub fn last_published(kafka: &KafkaConfig, topic: &str) -> anyhow::Result<Option<Vec<u8>>> {
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

/// Every file under `dir`, as paths relative to `root` with `/` separators.
pub(crate) fn all_files(root: &Path, dir: &Path, out: &mut Vec<String>) -> anyhow::Result<()> {
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

/// A corpus exported from a Git revision into a temporary directory.
#[derive(Debug)]
pub struct Export {
    pub sha: String,
    /// The corpus root (manifest.json and {region}/v{N}/) inside the export.
    pub root: PathBuf,
    _dir: tempfile::TempDir,
}

/// The full commit sha of `rev`.
pub fn resolve(repo: &Path, rev: &str) -> anyhow::Result<String> {
    Ok(
        String::from_utf8(git(repo, &["rev-parse", &format!("{rev}^{{commit}}")])?)?
            .trim()
            .to_string(),
    )
}

/// The directory of the corpus inside the repository, as a `git diff` path prefix.
fn corpus_prefix(path: &str) -> String {
    let path = path.trim_matches('/');
    if path.is_empty() || path == "." {
        String::new()
    } else {
        format!("{path}/")
    }
}

/// The corpus exactly as committed at `rev` (`git archive`), under `path` in the repository.
pub fn export(repo: &Path, rev: &str, path: &str) -> anyhow::Result<Export> {
    let sha = resolve(repo, rev)?;
    let dir = tempfile::tempdir()?;
    let archive = git(repo, &["archive", "--format=tar", &sha])?;
    let mut tar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(dir.path())
        .stdin(std::process::Stdio::piped())
        .spawn()
        .context("running tar")?;
    std::io::Write::write_all(tar.stdin.as_mut().context("tar stdin")?, &archive)?;
    if !tar.wait()?.success() {
        bail!("extracting {sha} failed");
    }
    Ok(Export {
        root: dir.path().join(corpus_prefix(path)),
        sha,
        _dir: dir,
    })
}

/// What `policy publish` sends: the change of `export` since `previous` (every document when
/// `None`).
pub fn change(
    repo: &Path,
    path: &str,
    export: &Export,
    corpus: &Corpus,
    previous: Option<String>,
) -> anyhow::Result<PolicyChange> {
    let prefix = corpus_prefix(path);
    let changes: Vec<(&str, String)> = match &previous {
        Some(previous) => {
            let mut diff_args = vec![
                "diff",
                "--no-renames",
                "--name-status",
                previous.as_str(),
                &export.sha,
            ];
            if !prefix.is_empty() {
                diff_args.extend(["--", prefix.trim_end_matches('/')]);
            }
            let out = String::from_utf8(git(repo, &diff_args)?)?;
            parse_name_status(&out)
                .into_iter()
                .filter_map(|(c, p)| p.strip_prefix(&prefix).map(|r| (c, r.to_string())))
                .collect()
        }
        None => {
            let mut files = Vec::new();
            all_files(&export.root, &export.root, &mut files)?;
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
                std::fs::read_to_string(export.root.join(&relative))
                    .with_context(|| format!("{relative} at {} is not UTF-8 text", export.sha))?,
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
    Ok(PolicyChange {
        git_sha: export.sha.clone(),
        previous_sha: previous,
        manifest_json: std::fs::read_to_string(export.root.join("manifest.json"))?,
        manifest_sha: corpus.manifest().content_sha().to_string(),
        changed_documents,
        published_at: policy_avro::now_millis(),
    })
}

/// The result of a publish, for the operator.
#[derive(Debug, Clone)]
pub struct Published {
    pub sha: String,
    pub documents: usize,
    pub previous: Option<String>,
    pub topic: String,
    pub offset: i64,
}

/// Validates the corpus at `rev` and emits its change on the changes topic. An invalid corpus
/// is an error naming why, and nothing is produced.
pub async fn publish(
    kafka: &KafkaConfig,
    topics: &TopicNames,
    repo: &Path,
    rev: &str,
    path: &str,
    full: bool,
) -> anyhow::Result<Published> {
    let export = export(repo, rev, path)?;
    let corpus = policy_core::load_dir(&export.root)
        .map_err(|e| anyhow::anyhow!("{}: refused: {e}", export.sha))?;
    // A rule that disagrees with its clause is a mistake in the pull request itself: refuse it
    // whole (an unreadable document only fails its own version, below).
    let rule_problems: Vec<&String> = corpus.rule_problems().values().flatten().collect();
    if !rule_problems.is_empty() {
        anyhow::bail!(
            "{}: refused: {}",
            export.sha,
            rule_problems
                .iter()
                .map(|p| p.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    for (version, reason) in corpus.failed_versions() {
        tracing::warn!(version, reason, "version will not be served");
    }
    let registry = Arc::new(RegistryClient::new(&kafka.schema_registry_url)?);
    let manifests = AvroCodec::<ManifestRecord>::register(
        registry.clone(),
        &topics.manifest,
        SchemaName::ManifestRecord,
    )
    .await?;
    let last = match tokio::task::block_in_place(|| last_published(kafka, &topics.manifest))? {
        Some(payload) => Some(manifests.decode(&payload).await?.git_sha),
        None => None,
    };
    let known = |s: &str| git(repo, &["cat-file", "-e", &format!("{s}^{{commit}}")]).is_ok();
    let previous = last.filter(|s| !full && known(s));
    let record = change(repo, path, &export, &corpus, previous)?;
    let codec =
        AvroCodec::<PolicyChange>::register(registry, &topics.changes, SchemaName::PolicyChange)
            .await?;
    let offset = produce(
        kafka,
        &topics.changes,
        export.sha.as_bytes(),
        &codec.encode(&record)?,
    )
    .await?;
    Ok(Published {
        sha: export.sha,
        documents: record.changed_documents.len(),
        previous: record.previous_sha,
        topic: topics.changes.clone(),
        offset,
    })
}

async fn produce(
    kafka: &KafkaConfig,
    topic: &str,
    key: &[u8],
    payload: &[u8],
) -> anyhow::Result<i64> {
    let producer: FutureProducer = kafka.producer().create()?;
    let delivery = producer
        .send(
            FutureRecord::to(topic).key(key).payload(payload),
            Duration::from_secs(10),
        )
        .await
        .map_err(|(e, _)| e)?;
    Ok(delivery.offset)
}

/// Validates a manifest and publishes it on the compacted manifest topic under `git_sha`:
/// every worker serves it for its next turn (an older one is a rollback, no reindex).
pub async fn publish_manifest(
    kafka: &KafkaConfig,
    topics: &TopicNames,
    path: &Path,
    git_sha: &str,
) -> anyhow::Result<(Manifest, i64)> {
    let json = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
    // An invalid manifest never reaches the workers.
    let manifest =
        Manifest::parse(&json).map_err(|e| anyhow::anyhow!("{}: refused: {e}", path.display()))?;
    let registry = Arc::new(RegistryClient::new(&kafka.schema_registry_url)?);
    let codec = AvroCodec::<ManifestRecord>::register(
        registry,
        &topics.manifest,
        SchemaName::ManifestRecord,
    )
    .await?;
    let record = ManifestRecord {
        git_sha: git_sha.to_string(),
        manifest_json: json,
        manifest_sha: manifest.content_sha().to_string(),
        published_at: policy_avro::now_millis(),
    };
    // One key: compaction keeps exactly the manifest in force.
    let offset = produce(
        kafka,
        &topics.manifest,
        b"manifest",
        &codec.encode(&record)?,
    )
    .await?;
    Ok((manifest, offset))
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
