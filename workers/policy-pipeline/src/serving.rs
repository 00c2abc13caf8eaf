//! What the workers serve: the corpus (every indexed version) and the manifest in force.
//! A manifest change (including a rollback) swaps one `Arc` and takes effect for the next turn,
//! with no reindex. Turns in flight keep the manifest they were pinned to at enrich: the handle
//! remembers the recent serving states by sha, so a later stage (possibly in another process)
//! finds the turn's own manifest, or fails closed if it is gone.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, RwLock};

use policy_core::{ClauseRef, Corpus, Manifest};

#[derive(Debug)]
pub struct ServingState {
    pub corpus: Arc<Corpus>,
    pub manifest: Arc<Manifest>,
    /// Git sha of the corpus when published from Git, else the digest of the corpus's content
    /// (manifest and documents, [`Corpus::content_sha`]): what turns pin, and what a forensic
    /// replay finds the corpus by.
    pub manifest_sha: String,
    pub git_sha: Option<String>,
}

impl ServingState {
    pub fn from_corpus(corpus: Arc<Corpus>) -> ServingState {
        let manifest = Arc::new(corpus.manifest().clone());
        ServingState {
            manifest_sha: corpus.content_sha().to_string(),
            manifest,
            corpus,
            git_sha: None,
        }
    }

    /// A clause exists for this turn if its version is in the manifest in force and the corpus
    /// has it.
    pub fn clause_exists(&self, clause_id: &str) -> bool {
        self.manifest
            .version(ClauseRef::version_of(clause_id))
            .is_some()
            && self.corpus.clause(clause_id).is_some()
    }
}

/// Serving states kept after they were replaced, for turns pinned to them.
const RECENT_STATES: usize = 16;

/// Loads the serving state of a sha this process never served (a published snapshot, a Git
/// revision): how a replay or a late stage finds an old turn's manifest.
pub type SnapshotLoader = Box<dyn Fn(&str) -> Option<ServingState> + Send + Sync>;

#[derive(Clone)]
pub struct ServingHandle(Arc<Inner>);

struct Inner {
    current: RwLock<Arc<ServingState>>,
    recent: Mutex<VecDeque<Arc<ServingState>>>,
    loader: Option<SnapshotLoader>,
}

impl std::fmt::Debug for ServingHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServingHandle")
            .field("manifest_sha", &self.current().manifest_sha)
            .finish_non_exhaustive()
    }
}

impl ServingHandle {
    pub fn new(state: ServingState) -> ServingHandle {
        ServingHandle::with_loader(state, None)
    }

    pub fn with_loader(state: ServingState, loader: Option<SnapshotLoader>) -> ServingHandle {
        ServingHandle(Arc::new(Inner {
            current: RwLock::new(Arc::new(state)),
            recent: Mutex::new(VecDeque::new()),
            loader,
        }))
    }

    /// The state in force: what a new turn is pinned to.
    pub fn current(&self) -> Arc<ServingState> {
        self.0.current.read().expect("serving lock").clone()
    }

    pub fn replace(&self, state: ServingState) {
        tracing::info!(manifest_sha = state.manifest_sha, git_sha = ?state.git_sha, "serving a new manifest");
        let previous = std::mem::replace(
            &mut *self.0.current.write().expect("serving lock"),
            Arc::new(state),
        );
        self.remember(previous);
    }

    fn remember(&self, state: Arc<ServingState>) {
        let mut recent = self.0.recent.lock().expect("serving lock");
        recent.retain(|s| s.manifest_sha != state.manifest_sha);
        recent.push_front(state);
        recent.truncate(RECENT_STATES);
    }

    /// The state a turn was pinned to: the current one, a recent one, or one the loader can
    /// bring back. `None` means the turn must fail closed.
    pub fn pinned(&self, manifest_sha: &str) -> Option<Arc<ServingState>> {
        let current = self.current();
        if current.manifest_sha == manifest_sha {
            return Some(current);
        }
        let recent = self
            .0
            .recent
            .lock()
            .expect("serving lock")
            .iter()
            .find(|s| s.manifest_sha == manifest_sha)
            .cloned();
        if recent.is_some() {
            return recent;
        }
        let loaded = Arc::new((self.0.loader.as_ref()?)(manifest_sha)?);
        self.remember(loaded.clone());
        Some(loaded)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn state(sha: &str) -> ServingState {
        let manifest = Manifest::parse(
            r#"{"regions": {"eu": {"versions": [{"id": "eu-v1", "effective_from": "2024-01-01", "effective_to": null}]}}}"#,
        )
        .unwrap();
        ServingState {
            corpus: Arc::new(Corpus::from_documents(
                manifest.clone(),
                Vec::new(),
                BTreeMap::new(),
            )),
            manifest: Arc::new(manifest),
            manifest_sha: sha.into(),
            git_sha: Some(sha.into()),
        }
    }

    #[test]
    fn a_replaced_state_stays_available_to_the_turns_pinned_to_it() {
        let handle = ServingHandle::new(state("aaa"));
        handle.replace(state("bbb"));
        assert_eq!(handle.current().manifest_sha, "bbb");
        assert_eq!(handle.pinned("aaa").unwrap().manifest_sha, "aaa");
        assert_eq!(handle.pinned("bbb").unwrap().manifest_sha, "bbb");
        assert!(handle.pinned("ccc").is_none(), "unknown sha: fail closed");
    }

    #[test]
    fn only_the_most_recent_states_are_kept() {
        let handle = ServingHandle::new(state("s0"));
        for i in 1..=RECENT_STATES + 2 {
            handle.replace(state(&format!("s{i}")));
        }
        assert!(handle.pinned("s0").is_none());
        assert!(handle.pinned(&format!("s{}", RECENT_STATES + 1)).is_some());
    }

    #[test]
    fn a_loader_brings_back_a_sha_never_served_here() {
        let loader: SnapshotLoader = Box::new(|sha| (sha == "old").then(|| state("old")));
        let handle = ServingHandle::with_loader(state("new"), Some(loader));
        assert_eq!(handle.pinned("old").unwrap().manifest_sha, "old");
        assert!(handle.pinned("other").is_none());
    }
}
