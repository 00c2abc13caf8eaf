//! The embedded search index: the chunks of every version with their vectors (exact
//! dot-product search) and, per version, a BM25 lexicon with that version's own statistics
//! ([`crate::lexical`]); persisted under one directory. Versions are replaced whole, and
//! readers see either the old or the new state of a version, never half of it. One process
//! writes a directory (an advisory lock); any number read it.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use policy_core::ClauseStatus;
use serde::{Deserialize, Serialize};

use crate::lexical::Lexicon;
use crate::vocabulary::{
    expand, missing_words, NearestCache, QueryExpansion, VersionVocabulary, WordVectors,
};

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("search index at {path}: {reason}")]
    Storage { path: String, reason: String },
    #[error("{got} vectors for {chunks} chunks of version {version_id}")]
    VectorCount {
        version_id: String,
        chunks: usize,
        got: usize,
    },
}

/// One indexed piece of a clause. `clause_text` is the whole clause, carried so that a hit can
/// be quoted and checked without another lookup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkRecord {
    pub chunk_id: String,
    pub clause_id: String,
    pub version_id: String,
    pub region: String,
    pub title: String,
    pub text: String,
    pub clause_text: String,
    /// Retired for the stub clauses of versions past their retention.
    pub status: ClauseStatus,
}

/// Chunks and their vectors, grouped by version so both legs only ever touch one version.
#[derive(Debug, Default, Clone)]
pub(crate) struct VectorStore {
    pub(crate) chunks: Vec<ChunkRecord>,
    pub(crate) vectors: Vec<f32>,
    pub(crate) dimension: usize,
    /// The chunks of each version, in index order.
    pub(crate) by_version: HashMap<String, Vec<usize>>,
    /// Each version's BM25 lexicon; its documents are `by_version`'s chunks, in that order.
    pub(crate) lexicons: HashMap<String, Lexicon>,
    /// Each version's words, for the vocabulary expansion.
    pub(crate) vocabularies: HashMap<String, VersionVocabulary>,
    /// Vectors of every indexed word (persisted apart: they are not derived from the chunks).
    pub(crate) words: Arc<WordVectors>,
    /// Fingerprint of the content each version was indexed from: reindexing identical content is a no-op.
    pub(crate) fingerprints: BTreeMap<String, String>,
    /// Nearest words found so far, for this snapshot's words and vectors.
    pub(crate) nearest: Arc<NearestCache>,
}

impl VectorStore {
    fn build(
        chunks: Vec<ChunkRecord>,
        vectors: Vec<f32>,
        dimension: usize,
        fingerprints: BTreeMap<String, String>,
    ) -> Self {
        let mut by_version: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, chunk) in chunks.iter().enumerate() {
            by_version
                .entry(chunk.version_id.clone())
                .or_default()
                .push(i);
        }
        let mut lexicons = HashMap::new();
        let mut vocabularies = HashMap::new();
        for (version, ids) in &by_version {
            let texts: Vec<String> = ids
                .iter()
                .map(|i| format!("{} {}", chunks[*i].title, chunks[*i].text))
                .collect();
            lexicons.insert(
                version.clone(),
                Lexicon::build(texts.iter().map(String::as_str)),
            );
            vocabularies.insert(
                version.clone(),
                VersionVocabulary::of(texts.iter().map(String::as_str)),
            );
        }
        VectorStore {
            chunks,
            vectors,
            dimension,
            by_version,
            lexicons,
            vocabularies,
            words: Arc::new(WordVectors::default()),
            fingerprints,
            nearest: Arc::default(),
        }
    }

    pub(crate) fn vector(&self, i: usize) -> &[f32] {
        &self.vectors[i * self.dimension..(i + 1) * self.dimension]
    }
}

#[derive(Serialize, Deserialize)]
struct StoreMeta {
    dimension: usize,
    fingerprints: BTreeMap<String, String>,
}

/// Everything needed to (re)place one version in the index. `vectors[i]` belongs to `chunks[i]`.
#[derive(Debug, Clone)]
pub struct VersionBatch {
    pub version_id: String,
    pub fingerprint: String,
    pub chunks: Vec<ChunkRecord>,
    pub vectors: Vec<Vec<f32>>,
}

pub struct EmbeddedIndex {
    dir: PathBuf,
    /// The advisory lock that makes this process the directory's one writer; `None` when
    /// opened read-only (serving workers share the directory a reindex worker writes).
    writer: Option<Mutex<File>>,
    store: RwLock<Arc<VectorStore>>,
}

impl std::fmt::Debug for EmbeddedIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedIndex")
            .field("dir", &self.dir)
            .field("chunks", &self.chunk_count())
            .field("read_only", &self.writer.is_none())
            .finish_non_exhaustive()
    }
}

fn storage(path: &Path, e: impl std::fmt::Display) -> IndexError {
    IndexError::Storage {
        path: path.display().to_string(),
        reason: e.to_string(),
    }
}

const LOCK_FILE: &str = "writer.lock";

/// Takes the directory's writer lock (released when the process ends, however it ends).
fn lock_writer(dir: &Path) -> Result<File, IndexError> {
    use std::os::fd::AsRawFd;
    let path = dir.join(LOCK_FILE);
    let file = File::create(&path).map_err(|e| storage(&path, e))?;
    // SAFETY: flock only reads the descriptor, which `file` keeps open.
    let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if locked != 0 {
        return Err(storage(
            dir,
            "another process writes this index (open it read-only to serve from it)",
        ));
    }
    Ok(file)
}

impl EmbeddedIndex {
    /// The directory the index lives in (also where example libraries' vectors are cached).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Opens the index under `dir` as its writer, creating it when empty.
    pub fn open(dir: &Path) -> Result<EmbeddedIndex, IndexError> {
        std::fs::create_dir_all(dir).map_err(|e| storage(dir, e))?;
        let writer = lock_writer(dir)?;
        Ok(EmbeddedIndex {
            dir: dir.to_path_buf(),
            writer: Some(Mutex::new(writer)),
            store: RwLock::new(Arc::new(load_store(dir)?)),
        })
    }

    /// Opens an index another process writes (the reindex worker).
    /// [`EmbeddedIndex::refresh`] picks up what the writer saved since.
    pub fn open_read_only(dir: &Path) -> Result<EmbeddedIndex, IndexError> {
        Ok(EmbeddedIndex {
            dir: dir.to_path_buf(),
            writer: None,
            store: RwLock::new(Arc::new(load_store(dir)?)),
        })
    }

    /// Reloads the store from disk (a read-only index follows its writer this way). On a
    /// failed load the previous state stays in service.
    pub fn refresh(&self) -> Result<(), IndexError> {
        let store = load_store(&self.dir)?;
        *self.store.write().expect("store lock") = Arc::new(store);
        Ok(())
    }

    pub(crate) fn snapshot(&self) -> Arc<VectorStore> {
        self.store.read().expect("store lock").clone()
    }

    pub fn chunk_count(&self) -> usize {
        self.snapshot().chunks.len()
    }

    /// Versions present in the index with the fingerprint of the content they were built from.
    pub fn indexed_versions(&self) -> BTreeMap<String, String> {
        self.snapshot().fingerprints.clone()
    }

    pub fn version_chunks(&self, version_id: &str) -> Vec<ChunkRecord> {
        let store = self.snapshot();
        store
            .by_version
            .get(version_id)
            .map(|ids| ids.iter().map(|i| store.chunks[*i].clone()).collect())
            .unwrap_or_default()
    }

    /// The vectors of a version's chunks, in [`EmbeddedIndex::version_chunks`] order.
    pub fn version_vectors(&self, version_id: &str) -> Vec<Vec<f32>> {
        let store = self.snapshot();
        store
            .by_version
            .get(version_id)
            .map(|ids| ids.iter().map(|i| store.vector(*i).to_vec()).collect())
            .unwrap_or_default()
    }

    /// The writer's lock: one writer at a time; an index opened read-only has none.
    fn write_lock(&self) -> Result<std::sync::MutexGuard<'_, File>, IndexError> {
        self.writer
            .as_ref()
            .map(|w| w.lock().expect("writer lock"))
            .ok_or_else(|| storage(&self.dir, "opened read-only"))
    }

    /// Replaces every chunk of each given version (idempotent: the same input gives the same
    /// index). `vectors[i]` belongs to `chunks[i]`.
    pub fn replace_versions(&self, batches: Vec<VersionBatch>) -> Result<(), IndexError> {
        let _writer = self.write_lock()?;
        let old = self.snapshot();
        let replaced: std::collections::HashSet<&str> =
            batches.iter().map(|b| b.version_id.as_str()).collect();
        let mut chunks = Vec::with_capacity(old.chunks.len());
        let mut vectors = Vec::with_capacity(old.vectors.len());
        let mut dimension = old.dimension;
        for (i, chunk) in old.chunks.iter().enumerate() {
            if !replaced.contains(chunk.version_id.as_str()) {
                chunks.push(chunk.clone());
                vectors.extend_from_slice(old.vector(i));
            }
        }
        let mut fingerprints = old.fingerprints.clone();
        for VersionBatch {
            version_id,
            fingerprint,
            chunks: new_chunks,
            vectors: new_vectors,
        } in batches
        {
            if new_chunks.len() != new_vectors.len() {
                return Err(IndexError::VectorCount {
                    version_id,
                    chunks: new_chunks.len(),
                    got: new_vectors.len(),
                });
            }
            for (chunk, vector) in new_chunks.into_iter().zip(new_vectors) {
                dimension = vector.len();
                chunks.push(chunk);
                vectors.extend(vector);
            }
            fingerprints.insert(version_id, fingerprint);
        }
        let mut store = VectorStore::build(chunks, vectors, dimension, fingerprints);
        store.words = old.words.clone();
        save_store(&self.dir, &store)?;
        *self.store.write().expect("store lock") = Arc::new(store);
        Ok(())
    }

    /// Words of the indexed versions that have no vector yet.
    pub fn missing_words(&self) -> Vec<String> {
        let store = self.snapshot();
        missing_words(store.vocabularies.values(), &store.words)
    }

    /// Adds word vectors (from the same model as the chunks) and saves them.
    pub fn add_word_vectors(&self, added: Vec<(String, Vec<f32>)>) -> Result<(), IndexError> {
        let _writer = self.write_lock()?;
        let old = self.snapshot();
        let mut words = (*old.words).clone();
        words.vectors.extend(added);
        save_words(&self.dir, &words)?;
        let store = VectorStore {
            words: Arc::new(words),
            nearest: Arc::default(),
            ..VectorStore::clone(&old)
        };
        *self.store.write().expect("store lock") = Arc::new(store);
        Ok(())
    }

    /// Whether the index has a vector for this word.
    pub fn has_word_vector(&self, word: &str) -> bool {
        self.snapshot().words.get(word).is_some()
    }

    /// The question's words as `version_id` knows them ([`crate::vocabulary`]); `word_vector`
    /// embeds a word the index has no vector for.
    pub fn expand(
        &self,
        question: &str,
        version_id: &str,
        word_vector: impl FnMut(&str) -> Option<Vec<f32>>,
    ) -> QueryExpansion {
        let store = self.snapshot();
        let Some(vocabulary) = store.vocabularies.get(version_id) else {
            return QueryExpansion::default();
        };
        let words = store.words.clone();
        let mut word_vector = word_vector;
        expand(question, vocabulary, |text, skip, floor| {
            store.nearest.get_or(version_id, text, floor, || {
                words
                    .get(text)
                    .map(<[f32]>::to_vec)
                    .or_else(|| word_vector(text))
                    .map(|v| words.nearest(&v, vocabulary, skip, floor))
                    .unwrap_or_default()
            })
        })
    }

    /// Words of `question` that may misspell `version_id`'s words ([`crate::spelling::suspects`]).
    pub fn spelling_suspects(
        &self,
        question: &str,
        version_id: &str,
        knows_word: impl Fn(&str) -> Option<bool>,
    ) -> Vec<String> {
        let store = self.snapshot();
        // A word another version uses is a word of the corpus, not a misspelling: it may name
        // a topic the version in force dropped ("instalment").
        let used = |word: &str| store.vocabularies.values().any(|v| v.uses(word));
        if !store.vocabularies.contains_key(version_id) {
            return Vec::new();
        }
        crate::spelling::suspects(question, used, knows_word)
    }

    /// The word of `version_id` that `word` misspells, if one is closest.
    pub fn spelling_of(&self, word: &str, version_id: &str) -> Option<String> {
        let store = self.snapshot();
        crate::spelling::correct(word, store.vocabularies.get(version_id)?)
    }

    /// BM25 over the chunks of one (region, version) with that version's own statistics:
    /// (position in the store, score), best first.
    pub(crate) fn lexical(
        store: &VectorStore,
        text: &str,
        region: &str,
        version_id: &str,
        limit: usize,
    ) -> Vec<(usize, f32)> {
        let (Some(ids), Some(lexicon)) = (
            store.by_version.get(version_id),
            store.lexicons.get(version_id),
        ) else {
            return Vec::new();
        };
        lexicon
            .search(text, limit)
            .into_iter()
            .map(|(doc, score)| (ids[doc], score))
            .filter(|(i, _)| store.chunks[*i].region == region)
            .collect()
    }
}

const CHUNKS_FILE: &str = "chunks.jsonl";
const VECTORS_FILE: &str = "vectors.f32";
const META_FILE: &str = "meta.json";
const WORDS_FILE: &str = "words.txt";
const WORD_VECTORS_FILE: &str = "words.f32";

/// Word vectors, when the index has them (an index written before they existed has none:
/// the indexer adds them).
fn load_words(dir: &Path, dimension: usize) -> Result<WordVectors, IndexError> {
    let words_path = dir.join(WORDS_FILE);
    let text = match std::fs::read_to_string(&words_path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(WordVectors::default()),
        Err(e) => return Err(storage(&words_path, e)),
    };
    let vectors_path = dir.join(WORD_VECTORS_FILE);
    let bytes = std::fs::read(&vectors_path).map_err(|e| storage(&vectors_path, e))?;
    let floats: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let words: Vec<&str> = text.lines().collect();
    if dimension == 0 || floats.len() != words.len() * dimension {
        return Ok(WordVectors::default());
    }
    Ok(WordVectors {
        vectors: words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                (
                    w.to_string(),
                    floats[i * dimension..(i + 1) * dimension].to_vec(),
                )
            })
            .collect(),
    })
}

fn save_words(dir: &Path, words: &WordVectors) -> Result<(), IndexError> {
    let mut sorted: Vec<(&String, &Vec<f32>)> = words.vectors.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let text: String = sorted.iter().map(|(w, _)| format!("{w}\n")).collect();
    let floats: Vec<u8> = sorted
        .iter()
        .flat_map(|(_, v)| v.iter().flat_map(|x| x.to_le_bytes()))
        .collect();
    // Vectors first: a crash in between leaves a word list that does not match them, which
    // loads as "no word vectors" and is rebuilt.
    write_atomic(dir, WORD_VECTORS_FILE, &floats)?;
    write_atomic(dir, WORDS_FILE, text.as_bytes())
}

fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), IndexError> {
    let path = dir.join(name);
    let tmp = dir.join(format!("{name}.tmp"));
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, &path))
        .map_err(|e| storage(&path, e))
}

fn load_store(dir: &Path) -> Result<VectorStore, IndexError> {
    let meta_path = dir.join(META_FILE);
    let meta: StoreMeta = match std::fs::read(&meta_path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| storage(&meta_path, e))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(VectorStore::default()),
        Err(e) => return Err(storage(&meta_path, e)),
    };
    let chunks_path = dir.join(CHUNKS_FILE);
    let text = std::fs::read_to_string(&chunks_path).map_err(|e| storage(&chunks_path, e))?;
    let chunks: Vec<ChunkRecord> = text
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .map_err(|e| storage(&chunks_path, e))?;
    let vectors_path = dir.join(VECTORS_FILE);
    let bytes = std::fs::read(&vectors_path).map_err(|e| storage(&vectors_path, e))?;
    let vectors: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    if vectors.len() != chunks.len() * meta.dimension {
        return Err(storage(
            &vectors_path,
            format!(
                "{} floats for {} chunks of dimension {}",
                vectors.len(),
                chunks.len(),
                meta.dimension
            ),
        ));
    }
    let mut store = VectorStore::build(chunks, vectors, meta.dimension, meta.fingerprints);
    store.words = Arc::new(load_words(dir, meta.dimension)?);
    Ok(store)
}

fn save_store(dir: &Path, store: &VectorStore) -> Result<(), IndexError> {
    let write = |name: &str, bytes: &[u8]| -> Result<(), IndexError> {
        let path = dir.join(name);
        let tmp = dir.join(format!("{name}.tmp"));
        std::fs::write(&tmp, bytes)
            .and_then(|_| std::fs::rename(&tmp, &path))
            .map_err(|e| storage(&path, e))
    };
    let mut chunks = String::new();
    for chunk in &store.chunks {
        chunks.push_str(&serde_json::to_string(chunk).expect("serialisable"));
        chunks.push('\n');
    }
    let vectors: Vec<u8> = store.vectors.iter().flat_map(|v| v.to_le_bytes()).collect();
    write(CHUNKS_FILE, chunks.as_bytes())?;
    write(VECTORS_FILE, &vectors)?;
    // The meta file is written last: it is what marks the other two as complete.
    let meta = StoreMeta {
        dimension: store.dimension,
        fingerprints: store.fingerprints.clone(),
    };
    write(META_FILE, &serde_json::to_vec(&meta).expect("serialisable"))
}
