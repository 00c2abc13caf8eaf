//! Corpus → index: chunk every clause of a version at sentence boundaries, embed the chunks in
//! batches, and replace the version in the index. Versions whose content did not change are
//! skipped, so re-running an index build is cheap and idempotent.

use std::collections::BTreeSet;
use std::time::Instant;

use policy_core::{chunk_clause, retention, ClauseStatus, Corpus};
use sha2::{Digest, Sha256};

use crate::embed::{embed_parallel, Embedder};
use crate::index::{ChunkRecord, EmbeddedIndex, VersionBatch};
use crate::retriever::SearchError;

/// Longest chunk in characters: comfortably under the model's 256-token limit.
pub const MAX_CHUNK_CHARS: usize = 700;
const EMBED_BATCH: usize = 16;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct IndexReport {
    pub indexed_versions: Vec<String>,
    pub unchanged_versions: Vec<String>,
    pub chunks: usize,
    pub seconds: f64,
}

/// Chunks of every clause of a version. A section whose text continues into sub-clauses is
/// indexed through those sub-clauses: its own intro would otherwise compete with them for
/// every question about the section. Each clause also gets a title-only chunk, because
/// customers' questions often paraphrase the heading ("lost parcel") rather than the rule.
pub fn chunk_records(corpus: &Corpus, version_id: &str, status: ClauseStatus) -> Vec<ChunkRecord> {
    corpus
        .version_clauses(version_id)
        .filter(|clause| clause.text == clause.body)
        .flat_map(|clause| {
            // "Right of withdrawal and returns: Withdrawal period" says more than the heading
            // alone, and the author's topic tag ("lost_parcel") names what the clause is about
            // in the words customers use.
            let heading = section_title(corpus, clause)
                .map(|s| format!("{s}: {}", clause.title))
                .unwrap_or_else(|| clause.title.clone());
            let context = match &clause.topic {
                Some(topic) => format!("{heading} ({})", topic.replace(['_', '-'], " ")),
                None => heading,
            };
            let title = ChunkRecord {
                chunk_id: format!("{}/title", clause.clause_id),
                clause_id: clause.clause_id.clone(),
                version_id: clause.version_id.clone(),
                region: clause.region.clone(),
                title: clause.title.clone(),
                text: context.clone(),
                clause_text: clause.text.clone(),
                status,
            };
            let body_context = context.clone();
            let body = chunk_clause(clause, MAX_CHUNK_CHARS)
                .into_iter()
                .map(move |chunk| ChunkRecord {
                    chunk_id: chunk.chunk_id,
                    clause_id: clause.clause_id.clone(),
                    version_id: clause.version_id.clone(),
                    region: clause.region.clone(),
                    title: clause.title.clone(),
                    text: format!(
                        "{body_context}. {}",
                        chunk
                            .text
                            .strip_prefix(&format!("{}. ", clause.title))
                            .unwrap_or(&chunk.text)
                    ),
                    clause_text: clause.text.clone(),
                    status,
                });
            let sentences: Vec<ChunkRecord> = {
                let parts = policy_core::text::split_sentences(&clause.body);
                if parts.len() > 1 {
                    parts
                        .iter()
                        .enumerate()
                        .map(|(n, sentence)| ChunkRecord {
                            chunk_id: format!("{}/s{n}", clause.clause_id),
                            clause_id: clause.clause_id.clone(),
                            version_id: clause.version_id.clone(),
                            region: clause.region.clone(),
                            title: clause.title.clone(),
                            text: format!("{context}. {sentence}"),
                            clause_text: clause.text.clone(),
                            status,
                        })
                        .collect()
                } else {
                    Vec::new()
                }
            };
            std::iter::once(title).chain(body).chain(sentences)
        })
        .collect()
}

/// Title of the enclosing numbered section (`3` for clause `3.2`), if any.
fn section_title<'a>(corpus: &'a Corpus, clause: &policy_core::Clause) -> Option<&'a str> {
    let number = clause.number.as_deref()?;
    let (parent, _) = number.rsplit_once('.')?;
    corpus
        .clause(&format!("{}#sec-{parent}", clause.version_id))
        .map(|c| c.title.as_str())
}

/// Identifies the exact content a version was indexed from (and the model that embedded it).
pub fn fingerprint(chunks: &[ChunkRecord], model_id: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(model_id.as_bytes());
    for chunk in chunks {
        for part in [
            chunk.chunk_id.as_str(),
            &chunk.title,
            &chunk.text,
            &chunk.clause_text,
            chunk.status.as_str(),
        ] {
            hasher.update(part.as_bytes());
            hasher.update([0]);
        }
    }
    hex::encode(hasher.finalize())
}

/// Indexes `versions` of `corpus` (chunks built by `chunks_of`), reporting progress as
/// (chunks embedded, chunks to embed).
pub fn index_versions(
    index: &EmbeddedIndex,
    embedder: &dyn Embedder,
    versions: Vec<(String, Vec<ChunkRecord>)>,
    mut progress: impl FnMut(usize, usize),
) -> Result<IndexReport, SearchError> {
    let started = Instant::now();
    let existing = index.indexed_versions();
    let mut report = IndexReport::default();
    let mut todo = Vec::new();
    for (version_id, chunks) in versions {
        let print = fingerprint(&chunks, embedder.model_id());
        if existing.get(&version_id) == Some(&print) {
            report.unchanged_versions.push(version_id);
        } else {
            todo.push((version_id, print, chunks));
        }
    }
    // Each version's chunks are embedded in batches of their own: padding and batch shape move
    // a vector in its last bits, so a batch shared with another version would make one
    // version's scores depend on what else was published (isolation, reproducible replay).
    let total: usize = todo.iter().map(|(_, _, chunks)| chunks.len()).sum();
    let mut embedded = 0;
    let mut batches = Vec::new();
    for (version_id, print, chunks) in todo {
        let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
        let vectors = embed_parallel(embedder, &texts, EMBED_BATCH, |done| {
            progress(embedded + done, total)
        })?;
        embedded += chunks.len();
        report.chunks += chunks.len();
        report.indexed_versions.push(version_id.clone());
        batches.push(VersionBatch {
            version_id,
            fingerprint: print,
            chunks,
            vectors,
        });
    }
    if !batches.is_empty() {
        index.replace_versions(batches)?;
    }
    index_words(index, embedder)?;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// Embeds the words of the indexed text that have no vector yet (the vocabulary expansion's
/// candidates). One word per batch: a word's vector must not depend on which other words were
/// missing when it was added (padding moves the last bits), and words are a few tokens each.
pub fn index_words(index: &EmbeddedIndex, embedder: &dyn Embedder) -> Result<usize, SearchError> {
    let missing = index.missing_words();
    if missing.is_empty() {
        return Ok(0);
    }
    let texts: Vec<&str> = missing.iter().map(String::as_str).collect();
    let vectors = embed_parallel(embedder, &texts, 1, |_| {})?;
    let added = missing.len();
    index.add_word_vectors(missing.into_iter().zip(vectors).collect())?;
    Ok(added)
}

/// Indexes every usable version of `corpus` (versions whose documents failed to load are left
/// out) that is not already indexed with the same content.
pub fn index_corpus(
    index: &EmbeddedIndex,
    embedder: &dyn Embedder,
    corpus: &Corpus,
    progress: impl FnMut(usize, usize),
) -> Result<IndexReport, SearchError> {
    index_corpus_retiring(index, embedder, corpus, &BTreeSet::new(), progress)
}

/// [`index_corpus`], with the versions in `retired` indexed as stubs ([`stub_records`]). A
/// version that retires, or comes back (a longer retention), changes fingerprint and is
/// replaced whole.
pub fn index_corpus_retiring(
    index: &EmbeddedIndex,
    embedder: &dyn Embedder,
    corpus: &Corpus,
    retired: &BTreeSet<String>,
    progress: impl FnMut(usize, usize),
) -> Result<IndexReport, SearchError> {
    let versions = corpus
        .manifest()
        .versions()
        .filter(|v| !corpus.failed_versions().contains_key(&v.id))
        .map(|v| {
            let chunks = if retired.contains(&v.id) {
                stub_records(corpus, &v.id)
            } else {
                chunk_records(corpus, &v.id, ClauseStatus::Active)
            };
            (v.id.clone(), chunks)
        })
        .collect();
    index_versions(index, embedder, versions, progress)
}

/// A retired version as indexed: one chunk per clause (every clause id stays resolvable for the
/// audit trail), whose text says the version is no longer in effect and states none of its
/// terms. The judge refuses to answer from them.
pub fn stub_records(corpus: &Corpus, version_id: &str) -> Vec<ChunkRecord> {
    let Some(version) = corpus.manifest().version(version_id) else {
        return Vec::new();
    };
    corpus
        .version_clauses(version_id)
        .map(|clause| {
            let stub = retention::stub_text(clause, version);
            ChunkRecord {
                chunk_id: format!("{}/retired", clause.clause_id),
                clause_id: clause.clause_id.clone(),
                version_id: clause.version_id.clone(),
                region: clause.region.clone(),
                title: clause.title.clone(),
                text: stub.clone(),
                clause_text: stub,
                status: ClauseStatus::Retired,
            }
        })
        .collect()
}
