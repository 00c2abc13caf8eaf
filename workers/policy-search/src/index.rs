//! The embedded search index: tantivy (BM25) for the lexical leg and a flat vector store for
//! exact dot-product search, both persisted under one directory. Versions are replaced whole,
//! and readers see either the old or the new state of a version, never half of it.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use policy_core::ClauseStatus;
use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, STORED, STRING,
};
use tantivy::{doc, Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("search index at {path}: {reason}")]
    Storage { path: String, reason: String },
    #[error("tantivy: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
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

#[derive(Clone, Copy)]
struct Fields {
    chunk_id: Field,
    version_id: Field,
    region: Field,
    title: Field,
    text: Field,
}

/// Chunks and their vectors, grouped by version so the vector leg only ever touches one version.
#[derive(Default)]
pub(crate) struct VectorStore {
    pub(crate) chunks: Vec<ChunkRecord>,
    pub(crate) vectors: Vec<f32>,
    pub(crate) dimension: usize,
    pub(crate) by_version: HashMap<String, Vec<usize>>,
    pub(crate) by_chunk_id: HashMap<String, usize>,
    /// Fingerprint of the content each version was indexed from: reindexing identical content is a no-op.
    pub(crate) fingerprints: BTreeMap<String, String>,
}

impl VectorStore {
    fn build(
        chunks: Vec<ChunkRecord>,
        vectors: Vec<f32>,
        dimension: usize,
        fingerprints: BTreeMap<String, String>,
    ) -> Self {
        let mut by_version: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_chunk_id = HashMap::new();
        for (i, chunk) in chunks.iter().enumerate() {
            by_version
                .entry(chunk.version_id.clone())
                .or_default()
                .push(i);
            by_chunk_id.insert(chunk.chunk_id.clone(), i);
        }
        VectorStore {
            chunks,
            vectors,
            dimension,
            by_version,
            by_chunk_id,
            fingerprints,
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
    fields: Fields,
    index: Index,
    reader: IndexReader,
    /// None when opened read-only: serving workers share the directory a reindex worker writes.
    writer: Option<Mutex<IndexWriter>>,
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

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let stemmed = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer("en_stem")
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields = Fields {
        chunk_id: builder.add_text_field("chunk_id", STRING | STORED),
        version_id: builder.add_text_field("version_id", STRING),
        region: builder.add_text_field("region", STRING),
        title: builder.add_text_field("title", stemmed.clone()),
        text: builder.add_text_field("text", stemmed),
    };
    (builder.build(), fields)
}

impl EmbeddedIndex {
    /// Opens the index under `dir`, creating it when empty. If a crash left the lexical index
    /// and the vector store out of step, the lexical index is rebuilt from the store.
    pub fn open(dir: &Path) -> Result<EmbeddedIndex, IndexError> {
        let tantivy_dir = dir.join("tantivy");
        std::fs::create_dir_all(&tantivy_dir).map_err(|e| storage(&tantivy_dir, e))?;
        let (schema, fields) = schema();
        let directory = tantivy::directory::MmapDirectory::open(&tantivy_dir)
            .map_err(|e| storage(&tantivy_dir, e))?;
        let index = Index::open_or_create(directory, schema)?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let writer = index.writer(50_000_000)?;
        let store = load_store(dir)?;
        let this = EmbeddedIndex {
            dir: dir.to_path_buf(),
            fields,
            index,
            reader,
            writer: Some(Mutex::new(writer)),
            store: RwLock::new(Arc::new(store)),
        };
        if this.reader.searcher().num_docs() as usize != this.snapshot().chunks.len() {
            tracing::warn!(dir = %dir.display(), "lexical index out of step with the vector store; rebuilding it");
            this.rebuild_lexical()?;
        }
        Ok(this)
    }

    /// Opens an index another process writes (the reindex worker), without taking the writer
    /// lock. [`EmbeddedIndex::refresh`] picks up what the writer committed since.
    pub fn open_read_only(dir: &Path) -> Result<EmbeddedIndex, IndexError> {
        let tantivy_dir = dir.join("tantivy");
        let (_, fields) = schema();
        let directory = tantivy::directory::MmapDirectory::open(&tantivy_dir)
            .map_err(|e| storage(&tantivy_dir, e))?;
        let index = Index::open(directory)?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let store = load_store(dir)?;
        Ok(EmbeddedIndex {
            dir: dir.to_path_buf(),
            fields,
            index,
            reader,
            writer: None,
            store: RwLock::new(Arc::new(store)),
        })
    }

    /// Reloads the vector store and the lexical reader from disk (a read-only index follows
    /// its writer this way). On a failed load the previous state stays in service.
    pub fn refresh(&self) -> Result<(), IndexError> {
        let store = load_store(&self.dir)?;
        self.reader.reload()?;
        *self.store.write().expect("store lock") = Arc::new(store);
        Ok(())
    }

    fn writer(&self) -> Result<std::sync::MutexGuard<'_, IndexWriter>, IndexError> {
        self.writer
            .as_ref()
            .map(|w| w.lock().expect("writer lock"))
            .ok_or_else(|| storage(&self.dir, "opened read-only"))
    }

    pub(crate) fn snapshot(&self) -> Arc<VectorStore> {
        self.store.read().expect("store lock").clone()
    }

    pub(crate) fn searcher(&self) -> tantivy::Searcher {
        self.reader.searcher()
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

    /// Replaces every chunk of each given version (idempotent: the same input gives the same
    /// index). `vectors[i]` belongs to `chunks[i]`.
    pub fn replace_versions(&self, batches: Vec<VersionBatch>) -> Result<(), IndexError> {
        let mut writer = self.writer()?;
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
            writer.delete_term(Term::from_field_text(self.fields.version_id, &version_id));
            for (chunk, vector) in new_chunks.into_iter().zip(new_vectors) {
                dimension = vector.len();
                writer.add_document(self.document(&chunk))?;
                chunks.push(chunk);
                vectors.extend(vector);
            }
            fingerprints.insert(version_id, fingerprint);
        }
        let store = VectorStore::build(chunks, vectors, dimension, fingerprints);
        // Vectors first, then the lexical commit: after a crash between the two, open() sees the
        // mismatch and rebuilds the lexical index from the vectors' chunk records.
        save_store(&self.dir, &store)?;
        writer.commit()?;
        self.reader.reload()?;
        *self.store.write().expect("store lock") = Arc::new(store);
        Ok(())
    }

    fn document(&self, chunk: &ChunkRecord) -> TantivyDocument {
        doc!(
            self.fields.chunk_id => chunk.chunk_id.as_str(),
            self.fields.version_id => chunk.version_id.as_str(),
            self.fields.region => chunk.region.as_str(),
            self.fields.title => chunk.title.as_str(),
            self.fields.text => chunk.text.as_str(),
        )
    }

    fn rebuild_lexical(&self) -> Result<(), IndexError> {
        let mut writer = self.writer()?;
        writer.delete_all_documents()?;
        for chunk in &self.snapshot().chunks {
            writer.add_document(self.document(chunk))?;
        }
        writer.commit()?;
        self.reader.reload()?;
        Ok(())
    }

    /// BM25 over title and text, restricted to one (region, version) by constant-score filters
    /// so that the filter decides membership and BM25 alone decides order.
    pub(crate) fn lexical(
        &self,
        text: &str,
        region: &str,
        version_id: &str,
        limit: usize,
    ) -> Result<Vec<(usize, f32)>, IndexError> {
        let mut analyzer = self
            .index
            .tokenizers()
            .get("en_stem")
            .expect("en_stem is built in");
        let mut terms = Vec::new();
        let mut stream = analyzer.token_stream(text);
        while let Some(token) = stream.next() {
            terms.push(token.text.clone());
        }
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for term in &terms {
            for field in [self.fields.title, self.fields.text] {
                let query = TermQuery::new(
                    Term::from_field_text(field, term),
                    IndexRecordOption::WithFreqs,
                );
                should.push((Occur::Should, Box::new(query)));
            }
        }
        let filter = |field: Field, value: &str| -> Box<dyn Query> {
            Box::new(ConstScoreQuery::new(
                Box::new(TermQuery::new(
                    Term::from_field_text(field, value),
                    IndexRecordOption::Basic,
                )),
                0.0,
            ))
        };
        let query = BooleanQuery::new(vec![
            (Occur::Must, filter(self.fields.region, region)),
            (Occur::Must, filter(self.fields.version_id, version_id)),
            (Occur::Must, Box::new(BooleanQuery::new(should))),
        ]);
        let searcher = self.searcher();
        let store = self.snapshot();
        let top = searcher.search(&query, &TopDocs::with_limit(limit).order_by_score())?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let document: TantivyDocument = searcher.doc(address)?;
            let chunk_id = document
                .get_first(self.fields.chunk_id)
                .and_then(|v| v.as_str())
                .unwrap_or_default();
            if let Some(i) = store.by_chunk_id.get(chunk_id) {
                hits.push((*i, score));
            }
        }
        Ok(hits)
    }
}

const CHUNKS_FILE: &str = "chunks.jsonl";
const VECTORS_FILE: &str = "vectors.f32";
const META_FILE: &str = "meta.json";

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
    Ok(VectorStore::build(
        chunks,
        vectors,
        meta.dimension,
        meta.fingerprints,
    ))
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
