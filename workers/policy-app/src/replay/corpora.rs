//! The corpora and pipelines a replay runs turns through. Without pinning, every turn runs under
//! the corpus of the settings: the one served now, or a candidate (`--policies DIR`,
//! `--policies-rev REV`), which is a what-if. Pinned, each turn runs under the corpus of the sha
//! recorded on it, found in the published data directory's snapshots (`<data>/corpus/<sha>`) or
//! in the policy Git repository (a commit sha, or a commit whose corpus has the recorded content
//! digest, for workers that served a checkout). Each pinned corpus gets an index of its own,
//! started from a copy of the served one, so only the versions whose text differs are embedded
//! again and no other corpus's chunks can change its scores.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use policy_audit::AuditRow;
use policy_pipeline::embedded::{self, Embedded};
use policy_pipeline::{published, Chain, ExtractiveGenerator, ServingState};

use crate::publish::{export, git, Export};
use crate::settings::AppSettings;

/// Pinned pipelines kept built at once (each holds an index of its corpus).
const PINNED_PIPELINES: usize = 4;

/// Where corpora of past shas are kept.
#[derive(Debug, Clone, Default)]
pub struct Archive {
    /// A published data directory (`<data>/corpus/<sha>/`).
    pub data_dir: Option<PathBuf>,
    /// The policy Git repository, and the corpus's directory inside it.
    pub repo: Option<(PathBuf, String)>,
}

/// A corpus found for a sha.
#[derive(Debug)]
pub struct Found {
    pub dir: PathBuf,
    /// The sha turns were pinned to when this corpus was published from Git; `None` for a
    /// corpus identified by its content digest.
    pub published_sha: Option<String>,
    /// Where it was found, for the record.
    pub origin: String,
    _export: Option<Export>,
}

impl Archive {
    pub fn is_empty(&self) -> bool {
        self.data_dir.is_none() && self.repo.is_none()
    }

    /// The corpus recorded under `sha`: a published snapshot, a commit, or a commit whose
    /// corpus has that content digest.
    pub fn find(
        &self,
        sha: &str,
        digests: &Mutex<Option<HashMap<String, String>>>,
    ) -> anyhow::Result<Option<Found>> {
        let hex = !sha.is_empty() && sha.chars().all(|c| c.is_ascii_hexdigit());
        if !hex {
            return Ok(None);
        }
        if let Some(data) = &self.data_dir {
            let dir = published::snapshot_dir(data, sha);
            if dir.is_dir() {
                return Ok(Some(Found {
                    dir,
                    published_sha: Some(sha.to_string()),
                    origin: format!("snapshot {}", data.display()),
                    _export: None,
                }));
            }
        }
        let Some((repo, path)) = &self.repo else {
            return Ok(None);
        };
        if sha.len() == 40 && git(repo, &["cat-file", "-e", &format!("{sha}^{{commit}}")]).is_ok() {
            let exported = export(repo, sha, path)?;
            return Ok(Some(Found {
                dir: exported.root.clone(),
                published_sha: Some(sha.to_string()),
                origin: format!("git {} {sha}", repo.display()),
                _export: Some(exported),
            }));
        }
        // A worker serving a checkout pins the corpus's content digest: find the commit.
        let mut digests = digests.lock().unwrap_or_else(|e| e.into_inner());
        if digests.is_none() {
            *digests = Some(content_digests(repo, path)?);
        }
        let Some(commit) = digests.as_ref().and_then(|d| d.get(sha)).cloned() else {
            return Ok(None);
        };
        let exported = export(repo, &commit, path)?;
        Ok(Some(Found {
            dir: exported.root.clone(),
            published_sha: None,
            origin: format!("git {} {commit} (content {sha})", repo.display()),
            _export: Some(exported),
        }))
    }
}

/// The content digest of the corpus at every commit that touched it.
fn content_digests(repo: &Path, path: &str) -> anyhow::Result<HashMap<String, String>> {
    let mut args = vec!["log", "--format=%H"];
    let path = path.trim_matches('/');
    if !path.is_empty() && path != "." {
        args.extend(["--", path]);
    }
    let commits = String::from_utf8(git(repo, &args)?)?;
    let mut digests = HashMap::new();
    for commit in commits.lines().map(str::trim).filter(|c| !c.is_empty()) {
        let exported = export(repo, commit, path)?;
        // A commit whose corpus does not load was never served.
        if let Ok(corpus) = policy_core::load_dir(&exported.root) {
            digests
                .entry(corpus.content_sha().to_string())
                .or_insert_with(|| commit.to_string());
        }
    }
    tracing::info!(
        commits = digests.len(),
        "content digests of the policy repository"
    );
    Ok(digests)
}

/// The serving state of each corpus a replay needs: the served (or candidate) one, and for a
/// pinned replay the one recorded on each turn. What re-judging needs (no index, no model).
#[derive(Debug)]
pub struct Corpora {
    served: Arc<ServingState>,
    /// Where the served corpus's files are.
    served_dir: PathBuf,
    archive: Option<Archive>,
    states: Mutex<HashMap<String, Arc<ServingState>>>,
    digests: Mutex<Option<HashMap<String, String>>>,
}

impl Corpora {
    /// The corpus `settings` serve; `archive` set for a pinned replay.
    pub fn new(settings: &AppSettings, archive: Option<Archive>) -> anyhow::Result<Corpora> {
        let (served, served_dir) = match &settings.corpus.data_dir {
            Some(data) => {
                let sha = published::current(data)
                    .with_context(|| format!("nothing published in {} yet", data.display()))?;
                let dir = published::snapshot_dir(data, &sha);
                let corpus = checked_corpus(&dir)?;
                (published::published_state(Arc::new(corpus), &sha), dir)
            }
            None => {
                let dir = settings.corpus.policies.clone();
                let corpus = checked_corpus(&dir)?;
                (ServingState::from_corpus(Arc::new(corpus)), dir)
            }
        };
        Ok(Corpora {
            served: Arc::new(served),
            served_dir,
            archive,
            states: Mutex::default(),
            digests: Mutex::default(),
        })
    }

    pub fn served(&self) -> &Arc<ServingState> {
        &self.served
    }

    pub fn pinned(&self) -> bool {
        self.archive.is_some()
    }

    /// The corpus a turn runs under: the served one, or pinned, the one of its recorded sha.
    pub fn state_for(&self, recorded: Option<&AuditRow>) -> Result<Arc<ServingState>, String> {
        if !self.pinned() {
            return Ok(self.served.clone());
        }
        let sha = pinned_sha(recorded)?;
        if sha == self.served.manifest_sha {
            return Ok(self.served.clone());
        }
        if let Some(state) = self
            .states
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(sha)
        {
            return Ok(state.clone());
        }
        let found = self.find(sha)?;
        let corpus = checked_corpus(&found.dir).map_err(|e| format!("{e:#}"))?;
        let state = Arc::new(match &found.published_sha {
            Some(sha) => published::published_state(Arc::new(corpus), sha),
            None => ServingState::from_corpus(Arc::new(corpus)),
        });
        self.states
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(sha.to_string(), state.clone());
        Ok(state)
    }

    /// The files of the corpus of `sha` (the served one's too): what an evidence bundle copies.
    pub fn dir_for(&self, sha: &str) -> Result<Found, String> {
        if sha == self.served.manifest_sha {
            return Ok(Found {
                dir: self.served_dir.clone(),
                published_sha: self.served.git_sha.clone(),
                origin: format!("served {}", self.served_dir.display()),
                _export: None,
            });
        }
        self.find(sha)
    }

    /// The corpus directory kept for `sha`, or why there is none.
    pub fn find(&self, sha: &str) -> Result<Found, String> {
        let archive = self.archive.as_ref().ok_or("not a pinned replay")?;
        archive
            .find(sha, &self.digests)
            .map_err(|e| format!("looking up the corpus of {sha}: {e:#}"))?
            .ok_or_else(|| {
                format!(
                    "the corpus pinned on this turn ({sha}) is in no archive given: pass the \
                     published --data-dir or the policy --repo that served it"
                )
            })
    }
}

fn pinned_sha(recorded: Option<&AuditRow>) -> Result<&str, String> {
    recorded
        .map(|r| r.manifest_sha.as_str())
        .filter(|sha| !sha.is_empty())
        .ok_or_else(|| {
            "no manifest sha was recorded for this turn: it cannot be pinned".to_string()
        })
}

/// The corpus at `policies`, refused when its rules disagree with its text: it would serve
/// without those versions, and `policy publish` would refuse it too.
pub fn checked_corpus(policies: &Path) -> anyhow::Result<policy_core::Corpus> {
    let corpus = policy_core::load_dir(policies)
        .map_err(|e| anyhow::anyhow!("{}: {e}", policies.display()))?;
    let problems: Vec<&String> = corpus.rule_problems().values().flatten().collect();
    anyhow::ensure!(
        problems.is_empty(),
        "{}: refused: {}",
        policies.display(),
        problems
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    );
    Ok(corpus)
}

/// The chains turns are re-run through: the served (or candidate) pipeline, and for a pinned
/// replay one pipeline per recorded sha, built on first use.
pub struct Pipelines {
    settings: AppSettings,
    served: Embedded,
    corpora: Arc<Corpora>,
    /// Where pinned pipelines keep their indexes.
    index_root: PathBuf,
    pinned: tokio::sync::Mutex<VecDeque<(String, Chain)>>,
}

impl std::fmt::Debug for Pipelines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipelines")
            .field("index_root", &self.index_root)
            .finish_non_exhaustive()
    }
}

impl Pipelines {
    /// Builds the served (or candidate) pipeline, indexing into the settings' index directory
    /// (else under `scratch`, where pinned pipelines keep their indexes too).
    pub async fn build(
        settings: &AppSettings,
        corpora: Arc<Corpora>,
        scratch: &Path,
    ) -> anyhow::Result<Pipelines> {
        let index_dir = settings
            .corpus
            .index_dir
            .clone()
            .unwrap_or_else(|| scratch.join("served"));
        let (served, _) = crate::assemble::pipeline(settings, &index_dir).await?;
        Ok(Pipelines {
            settings: settings.clone(),
            served,
            corpora,
            index_root: scratch.join("pinned"),
            pinned: tokio::sync::Mutex::new(VecDeque::new()),
        })
    }

    /// The chain a turn runs through.
    pub async fn chain_for(&self, recorded: Option<&AuditRow>) -> Result<Chain, String> {
        if !self.corpora.pinned() {
            return Ok(self.served.chain.clone());
        }
        let sha = pinned_sha(recorded)?;
        if sha == self.served.chain.serving().current().manifest_sha {
            return Ok(self.served.chain.clone());
        }
        let mut pinned = self.pinned.lock().await;
        if let Some(at) = pinned.iter().position(|(s, _)| s == sha) {
            let entry = pinned.remove(at).expect("position found");
            let chain = entry.1.clone();
            pinned.push_front(entry);
            return Ok(chain);
        }
        let found = self.corpora.find(sha)?;
        // Retention as it stood when the turn was served.
        let served_at = recorded
            .and_then(|r| chrono::DateTime::from_timestamp_millis(r.processed_at_ms as i64))
            .filter(|t| t.timestamp() > 0)
            .unwrap_or_else(chrono::Utc::now);
        let chain = tokio::task::block_in_place(|| self.build_pinned(sha, &found, served_at))
            .map_err(|e| format!("building the pipeline of {sha} ({}): {e:#}", found.origin))?;
        tracing::info!(sha, origin = found.origin, "pinned pipeline ready");
        pinned.push_front((sha.to_string(), chain.clone()));
        pinned.truncate(PINNED_PIPELINES);
        Ok(chain)
    }

    fn build_pinned(
        &self,
        sha: &str,
        found: &Found,
        served_at: chrono::DateTime<chrono::Utc>,
    ) -> anyhow::Result<Chain> {
        let index_dir = self.index_root.join(sha);
        if !index_dir.exists() {
            // Started from the served index: versions whose text is the same are not embedded
            // again (the index keeps each version's fingerprint).
            let staging = self.index_root.join(format!(".{sha}.tmp"));
            let _ = std::fs::remove_dir_all(&staging);
            published::copy_tree(self.served.index.dir(), &staging)?;
            std::fs::rename(&staging, &index_dir)?;
        }
        let generator = self.settings.llm.generator(ExtractiveGenerator {
            runner_up_margin: self.settings.pipeline.runner_up_margin,
        })?;
        let built = embedded::build_with(
            &found.dir,
            &index_dir,
            self.served.embedder.clone(),
            self.settings.pipeline.clone(),
            generator,
            served_at,
            found.published_sha.as_deref(),
        )?;
        Ok(built.chain.with_sources(self.settings.sources.offline()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = r#"{"regions": {"eu": {"versions": [
      {"id": "eu-v1", "effective_from": "2025-01-01", "effective_to": null}]}}}"#;

    fn run_git(repo: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(repo)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    fn commit_corpus(repo: &Path, window: &str) -> String {
        let dir = repo.join("policies");
        std::fs::create_dir_all(dir.join("eu/v1")).unwrap();
        std::fs::write(dir.join("manifest.json"), MANIFEST).unwrap();
        std::fs::write(
            dir.join("eu/v1/returns.md"),
            format!("## 1 Returns\nWithin {window} days.\n"),
        )
        .unwrap();
        run_git(repo, &["add", "-A"]);
        run_git(repo, &["commit", "-q", "-m", window]);
        run_git(repo, &["rev-parse", "HEAD"])
    }

    fn clause_text(found: &Found) -> String {
        policy_core::load_dir(&found.dir)
            .unwrap()
            .clause("eu-v1#sec-1")
            .unwrap()
            .text
            .clone()
    }

    #[test]
    fn a_recorded_sha_is_found_as_a_commit_a_content_digest_or_a_snapshot() {
        let repo = tempfile::tempdir().unwrap();
        run_git(repo.path(), &["init", "-q"]);
        let first = commit_corpus(repo.path(), "14");
        let second = commit_corpus(repo.path(), "30");
        let archive = Archive {
            data_dir: None,
            repo: Some((repo.path().to_path_buf(), "policies".into())),
        };
        let digests = Mutex::default();
        // Published from Git: turns pinned the commit sha.
        let found = archive.find(&first, &digests).unwrap().unwrap();
        assert_eq!(found.published_sha.as_deref(), Some(first.as_str()));
        assert!(clause_text(&found).contains("14 days"));
        // Served from a checkout: turns pinned the corpus's content digest.
        let at_first = policy_core::load_dir(&found.dir).unwrap();
        let by_content = archive
            .find(at_first.content_sha(), &digests)
            .unwrap()
            .unwrap();
        assert_eq!(by_content.published_sha, None);
        assert!(clause_text(&by_content).contains("14 days"));
        let latest = archive.find(&second, &digests).unwrap().unwrap();
        assert!(clause_text(&latest).contains("30 days"));
        assert!(archive.find(&"ab".repeat(32), &digests).unwrap().is_none());
        assert!(archive.find("not-a-sha", &digests).unwrap().is_none());

        // A published data directory is searched first.
        let data = tempfile::tempdir().unwrap();
        let snapshot = published::snapshot_dir(data.path(), &first);
        published::copy_tree(&repo.path().join("policies"), &snapshot).unwrap();
        let archive = Archive {
            data_dir: Some(data.path().to_path_buf()),
            ..archive
        };
        let found = archive.find(&first, &digests).unwrap().unwrap();
        assert_eq!(found.dir, snapshot);
        assert!(found.origin.starts_with("snapshot"));
    }
}
