//! What the workers serve: the corpus (every indexed version) and the manifest in force.
//! A manifest change (including a rollback) swaps one `Arc` and takes effect for the next turn,
//! with no reindex; turns already in flight keep the manifest they pinned.

use std::sync::{Arc, RwLock};

use policy_core::{Corpus, Manifest};

#[derive(Debug)]
pub struct ServingState {
    pub corpus: Arc<Corpus>,
    pub manifest: Arc<Manifest>,
    /// Git sha of the manifest when published from Git, else its content hash.
    pub manifest_sha: String,
    pub git_sha: Option<String>,
}

impl ServingState {
    pub fn from_corpus(corpus: Arc<Corpus>) -> ServingState {
        let manifest = Arc::new(corpus.manifest().clone());
        ServingState {
            manifest_sha: manifest.content_sha().to_string(),
            manifest,
            corpus,
            git_sha: None,
        }
    }

    /// A clause exists for this turn if its version is in the manifest in force and the corpus
    /// has it.
    pub fn clause_exists(&self, clause_id: &str) -> bool {
        let version = clause_id.split('#').next().unwrap_or_default();
        self.manifest.version(version).is_some() && self.corpus.clause(clause_id).is_some()
    }
}

#[derive(Clone)]
pub struct ServingHandle(Arc<RwLock<Arc<ServingState>>>);

impl ServingHandle {
    pub fn new(state: ServingState) -> ServingHandle {
        ServingHandle(Arc::new(RwLock::new(Arc::new(state))))
    }

    pub fn current(&self) -> Arc<ServingState> {
        self.0.read().expect("serving lock").clone()
    }

    pub fn replace(&self, state: ServingState) {
        tracing::info!(manifest_sha = state.manifest_sha, git_sha = ?state.git_sha, "serving a new manifest");
        *self.0.write().expect("serving lock") = Arc::new(state);
    }
}
