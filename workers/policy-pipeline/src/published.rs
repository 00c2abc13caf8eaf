//! The published data directory a reindex worker writes and serving workers read:
//!
//! ```text
//! <data>/index/               the search index (one writer: the reindex worker)
//! <data>/corpus/<git_sha>/    the corpus exactly as published at that sha
//! <data>/corpus/CURRENT       the sha published last
//! ```
//!
//! Snapshots are immutable once complete (written to a temporary directory, then renamed), so
//! a serving worker can switch to any published sha (a rollback included) without reindexing:
//! every version ever published stays in the index.

use std::path::{Path, PathBuf};

use std::sync::Arc;

use policy_avro::PolicyChange;
use policy_core::Corpus;

use crate::serving::ServingState;

#[derive(Debug, thiserror::Error)]
pub enum PublishedError {
    #[error("{path}: {reason}")]
    Io { path: String, reason: String },
    #[error(
        "the change from {previous} to {sha} is a diff, but the snapshot of {previous} is not in \
         {dir}: republish with `policyctl policy publish --full`"
    )]
    MissingPrevious {
        sha: String,
        previous: String,
        dir: String,
    },
    #[error("refusing document path {0:?}: it must stay inside the corpus")]
    UnsafePath(String),
    #[error("git sha {0:?} is not a plain hex sha")]
    BadSha(String),
}

fn io(path: &Path, e: impl std::fmt::Display) -> PublishedError {
    PublishedError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    }
}

pub fn index_dir(data: &Path) -> PathBuf {
    data.join("index")
}

pub fn snapshot_dir(data: &Path, sha: &str) -> PathBuf {
    data.join("corpus").join(sha)
}

fn check_sha(sha: &str) -> Result<(), PublishedError> {
    let plain = !sha.is_empty() && sha.len() <= 64 && sha.chars().all(|c| c.is_ascii_hexdigit());
    if plain {
        Ok(())
    } else {
        Err(PublishedError::BadSha(sha.to_string()))
    }
}

/// A relative path with no `..`, no root, no empty component.
fn safe_relative(path: &str) -> Result<PathBuf, PublishedError> {
    let p = Path::new(path);
    let ok = !path.is_empty()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    if ok {
        Ok(p.to_path_buf())
    } else {
        Err(PublishedError::UnsafePath(path.to_string()))
    }
}

/// Copies a directory tree (a snapshot, an index to start another from).
pub fn copy_tree(from: &Path, to: &Path) -> Result<(), PublishedError> {
    std::fs::create_dir_all(to).map_err(|e| io(to, e))?;
    for entry in std::fs::read_dir(from).map_err(|e| io(from, e))? {
        let entry = entry.map_err(|e| io(from, e))?;
        let target = to.join(entry.file_name());
        if entry
            .file_type()
            .map_err(|e| io(&entry.path(), e))?
            .is_dir()
        {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).map_err(|e| io(&target, e))?;
        }
    }
    Ok(())
}

/// Materialises the corpus of `change` under `<data>/corpus/<git_sha>`: the previous snapshot
/// plus the diff (or only the documents, for a full publish), then the manifest.
pub fn write_snapshot(data: &Path, change: &PolicyChange) -> Result<PathBuf, PublishedError> {
    check_sha(&change.git_sha)?;
    let target = snapshot_dir(data, &change.git_sha);
    let staging =
        data.join("corpus")
            .join(format!(".{}.{}.tmp", change.git_sha, std::process::id()));
    if staging.exists() {
        std::fs::remove_dir_all(&staging).map_err(|e| io(&staging, e))?;
    }
    if let Some(previous) = &change.previous_sha {
        check_sha(previous)?;
        let from = snapshot_dir(data, previous);
        if !from.is_dir() {
            return Err(PublishedError::MissingPrevious {
                sha: change.git_sha.clone(),
                previous: previous.clone(),
                dir: data.display().to_string(),
            });
        }
        copy_tree(&from, &staging)?;
    }
    std::fs::create_dir_all(&staging).map_err(|e| io(&staging, e))?;
    for document in &change.changed_documents {
        let path = staging.join(safe_relative(&document.path)?);
        match (document.change.as_str(), &document.content) {
            ("deleted", _) => match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io(&path, e)),
            },
            (_, Some(content)) => {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
                }
                std::fs::write(&path, content).map_err(|e| io(&path, e))?;
            }
            (_, None) => {}
        }
    }
    let manifest = staging.join("manifest.json");
    std::fs::write(&manifest, &change.manifest_json).map_err(|e| io(&manifest, e))?;
    remove_empty_dirs(&staging);
    if target.exists() {
        // Re-publishing a sha (a rollback) rebuilds the same content: replace it whole.
        std::fs::remove_dir_all(&target).map_err(|e| io(&target, e))?;
    }
    std::fs::rename(&staging, &target).map_err(|e| io(&target, e))?;
    Ok(target)
}

/// Version directories emptied by deletions would fail the corpus load as unlisted.
fn remove_empty_dirs(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                remove_empty_dirs(&entry.path());
                let _ = std::fs::remove_dir(entry.path()); // only succeeds when empty
            }
        }
    }
}

/// Records `sha` as the last published snapshot (atomically).
pub fn set_current(data: &Path, sha: &str) -> Result<(), PublishedError> {
    check_sha(sha)?;
    let dir = data.join("corpus");
    let tmp = dir.join(format!(".CURRENT.{}", std::process::id()));
    let path = dir.join("CURRENT");
    std::fs::write(&tmp, sha)
        .and_then(|_| std::fs::rename(&tmp, &path))
        .map_err(|e| io(&path, e))
}

/// The last published sha, if anything was published.
pub fn current(data: &Path) -> Option<String> {
    std::fs::read_to_string(data.join("corpus").join("CURRENT"))
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The serving state of the snapshot published at `git_sha`, if there is one: its corpus and
/// manifest, after `refresh_index` brought the shared index up to date with what the reindex
/// worker wrote for it.
pub fn serving_state_at(
    data: &Path,
    git_sha: &str,
    refresh_index: impl FnOnce(),
) -> Option<ServingState> {
    if check_sha(git_sha).is_err() {
        return None;
    }
    let dir = snapshot_dir(data, git_sha);
    if !dir.is_dir() {
        return None;
    }
    refresh_index();
    match crate::embedded::load_corpus(&dir) {
        Ok(corpus) => Some(published_state(corpus, git_sha)),
        Err(e) => {
            tracing::error!(git_sha, error = %e, "published snapshot unreadable");
            None
        }
    }
}

/// A published corpus served under its Git sha.
pub fn published_state(corpus: Arc<Corpus>, git_sha: &str) -> ServingState {
    let mut state = ServingState::from_corpus(corpus);
    state.manifest_sha = git_sha.to_string();
    state.git_sha = Some(git_sha.to_string());
    state
}

#[cfg(test)]
mod tests {
    use policy_avro::ChangedDocument;

    use super::*;

    fn doc(path: &str, change: &str, content: Option<&str>) -> ChangedDocument {
        ChangedDocument {
            path: path.into(),
            change: change.into(),
            content: content.map(str::to_string),
            ..Default::default()
        }
    }

    fn change(sha: &str, previous: Option<&str>, docs: Vec<ChangedDocument>) -> PolicyChange {
        PolicyChange {
            git_sha: sha.into(),
            previous_sha: previous.map(str::to_string),
            manifest_json: format!("{{\"sha\": \"{sha}\"}}"),
            changed_documents: docs,
            ..Default::default()
        }
    }

    fn read(dir: &Path, rel: &str) -> Option<String> {
        std::fs::read_to_string(dir.join(rel)).ok()
    }

    #[test]
    fn a_diff_applies_on_top_of_the_previous_snapshot() {
        let data = tempfile::tempdir().unwrap();
        let a = write_snapshot(
            data.path(),
            &change(
                "aaa1",
                None,
                vec![
                    doc("eu/v1/returns.md", "added", Some("14 days")),
                    doc("eu/v1/shipping.md", "added", Some("free")),
                    doc("eu/v2/old.md", "added", Some("gone soon")),
                ],
            ),
        )
        .unwrap();
        let b = write_snapshot(
            data.path(),
            &change(
                "bbb2",
                Some("aaa1"),
                vec![
                    doc("eu/v1/returns.md", "modified", Some("30 days")),
                    doc("eu/v2/old.md", "deleted", None),
                ],
            ),
        )
        .unwrap();
        assert_eq!(
            read(&a, "eu/v1/returns.md").as_deref(),
            Some("14 days"),
            "immutable"
        );
        assert_eq!(read(&b, "eu/v1/returns.md").as_deref(), Some("30 days"));
        assert_eq!(
            read(&b, "eu/v1/shipping.md").as_deref(),
            Some("free"),
            "carried over"
        );
        assert!(
            !b.join("eu/v2").exists(),
            "an emptied version directory is removed"
        );
        assert_eq!(read(&b, "manifest.json").unwrap(), "{\"sha\": \"bbb2\"}");
    }

    #[test]
    fn a_diff_without_its_previous_snapshot_asks_for_a_full_publish() {
        let data = tempfile::tempdir().unwrap();
        let err = write_snapshot(data.path(), &change("bbb2", Some("aaa1"), vec![])).unwrap_err();
        assert!(err.to_string().contains("--full"), "{err}");
    }

    #[test]
    fn paths_and_shas_cannot_escape_the_data_directory() {
        let data = tempfile::tempdir().unwrap();
        let escape = change("ccc3", None, vec![doc("../evil.md", "added", Some("x"))]);
        assert!(matches!(
            write_snapshot(data.path(), &escape),
            Err(PublishedError::UnsafePath(_))
        ));
        let absolute = change("ccc3", None, vec![doc("/etc/x", "added", Some("x"))]);
        assert!(write_snapshot(data.path(), &absolute).is_err());
        assert!(matches!(
            write_snapshot(data.path(), &change("../x", None, vec![])),
            Err(PublishedError::BadSha(_))
        ));
    }

    #[test]
    fn current_is_the_last_recorded_sha() {
        let data = tempfile::tempdir().unwrap();
        assert_eq!(current(data.path()), None);
        std::fs::create_dir_all(data.path().join("corpus")).unwrap();
        set_current(data.path(), "abc123").unwrap();
        set_current(data.path(), "def456").unwrap();
        assert_eq!(current(data.path()).as_deref(), Some("def456"));
    }
}
