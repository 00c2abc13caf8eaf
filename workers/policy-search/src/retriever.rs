//! The retrieval contract and its embedded implementation: BM25 and exact vector search, each
//! restricted to one (region, version) first, fused with reciprocal-rank fusion ([`crate::fusion`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::cache::CachedEmbedder;
use crate::embed::{dot, EmbedError, Embedder};
use crate::fusion::{fuse, LegHit, COSINE_UNKNOWN};
use crate::index::{EmbeddedIndex, IndexError, VectorStore};
use crate::query_vectors::QueryVectors;
use crate::spelling::Correction;
use crate::vocabulary::QueryExpansion;
use policy_core::ClauseStatus;

#[derive(Debug, Clone, Copy)]
pub struct RetrievalQuery<'a> {
    pub text: &'a str,
    /// More words for the lexical leg: the version's own words for the question's words it
    /// does not use ([`crate::vocabulary`]).
    pub expansion: &'a str,
    pub region: &'a str,
    pub version_id: &'a str,
    /// Clauses to return.
    pub top_k: usize,
}

impl RetrievalQuery<'_> {
    /// What the lexical leg searches for: the question and its expansion.
    pub fn lexical_text(&self) -> String {
        if self.expansion.is_empty() {
            self.text.to_string()
        } else {
            format!("{} {}", self.text, self.expansion)
        }
    }
}

/// One clause found for a query, with the evidence from each leg.
#[derive(Debug, Clone, PartialEq)]
pub struct ClauseHit {
    pub clause_id: String,
    pub version_id: String,
    pub region: String,
    pub title: String,
    pub text: String,
    pub status: ClauseStatus,
    /// Reciprocal-rank fusion score of the best chunk.
    pub fused: f32,
    /// Best chunk cosine similarity with the search vector ([`QueryVectors::search`]).
    pub cosine: f32,
    /// Best chunk cosine similarity with the question as written ([`QueryVectors::question`]):
    /// what confidence and the scope checks read.
    pub question_cosine: f32,
    /// Best chunk BM25 score (0 when the lexical leg did not find it).
    pub bm25: f32,
    pub lexical_rank: Option<u32>,
    pub vector_rank: Option<u32>,
    /// Final score after reranking (equals `fused` before).
    pub score: f32,
    /// Share of the question's words (or their equivalents) the clause covers, set by the
    /// reranker.
    pub coverage: f32,
    /// Cosine of the search vector with each sentence of the clause, in order (empty when the
    /// backend does not know).
    pub sentence_scores: Vec<f32>,
    /// Cosine of the search vector with the clause's title chunk and with its whole body chunk
    /// (0 when the backend does not know).
    pub title_cosine: f32,
    pub body_cosine: f32,
    /// The same two with the question as written.
    pub question_title_cosine: f32,
    pub question_body_cosine: f32,
}

impl ClauseHit {
    /// Whether the question as written sees this hit otherwise than the search vector does
    /// (its cosines differ: the search vector was a blend).
    pub fn differs_as_asked(&self) -> bool {
        (self.cosine, self.title_cosine, self.body_cosine)
            != (
                self.question_cosine,
                self.question_title_cosine,
                self.question_body_cosine,
            )
    }

    /// This hit's evidence as the question as written sees it: its cosines in place of the
    /// search vector's (the same when the search vector is not a blend).
    pub fn as_asked(&self) -> ClauseHit {
        ClauseHit {
            cosine: self.question_cosine,
            title_cosine: self.question_title_cosine,
            body_cosine: self.question_body_cosine,
            ..self.clone()
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("{0}")]
    Embed(#[from] EmbedError),
    #[error("{0}")]
    Index(#[from] IndexError),
    /// The backend could not be reached, timed out or answered with a server error.
    #[error("search backend {backend} unavailable: {reason}")]
    Unavailable {
        backend: &'static str,
        reason: String,
    },
    /// The backend refused the request or answered something unreadable: retrying the same
    /// request will not help.
    #[error("search backend {backend} failed: {reason}")]
    Failed {
        backend: &'static str,
        reason: String,
    },
    /// The backend returned a chunk outside the query's (region, version).
    #[error("search backend {backend} returned {chunk_id} for a query restricted to {wanted}")]
    BoundaryViolation {
        backend: &'static str,
        chunk_id: String,
        wanted: String,
    },
}

impl SearchError {
    /// Worth retrying later: the backend or the model may recover. A boundary violation is never
    /// retried: the turn fails closed.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            SearchError::Unavailable { .. } | SearchError::Embed(_) | SearchError::Index(_)
        )
    }
}

pub type SearchFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<ClauseHit>, SearchError>> + Send + 'a>>;

/// Every backend honours the same contract: hits come only from `query.region` and
/// `query.version_id`, best first, at most `top_k`.
pub trait Retriever: Send + Sync {
    fn backend(&self) -> &str;
    fn retrieve<'a>(&'a self, query: RetrievalQuery<'a>) -> SearchFuture<'a>;
}

pub type SharedEmbedder = Arc<CachedEmbedder<Box<dyn Embedder>>>;

/// Smart pointers to an embedder are embedders: a boxed one sits in the cache, an `Arc`'d one
/// is shared with the batcher's thread.
macro_rules! forward_embedder {
    ($($pointer:ident),*) => {$(
        impl<T: Embedder + ?Sized> Embedder for $pointer<T> {
            fn model_id(&self) -> &str {
                self.as_ref().model_id()
            }
            fn dimension(&self) -> usize {
                self.as_ref().dimension()
            }
            fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
                self.as_ref().embed_batch(texts)
            }
            fn knows_word(&self, word: &str) -> Option<bool> {
                self.as_ref().knows_word(word)
            }
        }
    )*};
}
forward_embedder!(Arc, Box);

/// Candidates per leg before fusion.
pub const LEG_DEPTH: usize = 50;

pub struct EmbeddedRetriever {
    index: Arc<EmbeddedIndex>,
    embedder: SharedEmbedder,
}

impl std::fmt::Debug for EmbeddedRetriever {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedRetriever")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl EmbeddedRetriever {
    pub fn new(index: Arc<EmbeddedIndex>, embedder: SharedEmbedder) -> Self {
        EmbeddedRetriever { index, embedder }
    }

    pub fn index(&self) -> &Arc<EmbeddedIndex> {
        &self.index
    }

    pub fn embedder(&self) -> &SharedEmbedder {
        &self.embedder
    }

    /// Synchronous search, usable from a blocking context.
    pub fn search(&self, query: RetrievalQuery<'_>) -> Result<Vec<ClauseHit>, SearchError> {
        let vectors = QueryVectors::embed(&self.embedder, query.text)?;
        self.search_with(query, &vectors)
    }

    /// Both legs and fusion for an already embedded query (sub-millisecond: filtered first).
    pub fn search_with(
        &self,
        query: RetrievalQuery<'_>,
        vectors: &QueryVectors,
    ) -> Result<Vec<ClauseHit>, SearchError> {
        let vector = vectors.search.as_slice();
        let store = self.index.snapshot();
        let lexical = EmbeddedIndex::lexical(
            &store,
            &query.lexical_text(),
            query.region,
            query.version_id,
            LEG_DEPTH,
        );
        let mut semantic: Vec<(usize, f32)> = store
            .by_version
            .get(query.version_id)
            .map(|ids| {
                ids.iter()
                    .filter(|i| store.chunks[**i].region == query.region)
                    .map(|i| (*i, dot(vector, store.vector(*i))))
                    .collect()
            })
            .unwrap_or_default();
        semantic.sort_by(|a, b| b.1.total_cmp(&a.1));
        semantic.truncate(LEG_DEPTH);

        let leg = |found: &[(usize, f32)]| -> Vec<LegHit> {
            found
                .iter()
                .map(|(i, score)| LegHit {
                    chunk: &store.chunks[*i],
                    score: *score,
                })
                .collect()
        };
        let mut hits = fuse(&leg(&lexical), &leg(&semantic));
        for hit in &mut hits {
            if hit.cosine == COSINE_UNKNOWN {
                // Found lexically only: compute its cosine so the reranker can still use it.
                hit.cosine = store
                    .by_version
                    .get(query.version_id)
                    .into_iter()
                    .flatten()
                    .filter(|i| store.chunks[**i].clause_id == hit.clause_id)
                    .map(|i| dot(vector, store.vector(*i)))
                    .fold(f32::MIN, f32::max);
            }
        }
        hits.truncate(query.top_k);
        chunk_scores(&store, query.version_id, vectors, &mut hits);
        Ok(hits)
    }
}

/// Each hit's chunks scored: its sentences against the search vector, from the sentence chunks
/// the indexer writes (`{clause}/s{n}`; a one-sentence clause has its body chunk instead), its
/// title and body chunks against both vectors, and its best chunk against the question as
/// written.
fn chunk_scores(
    store: &VectorStore,
    version_id: &str,
    vectors: &QueryVectors,
    hits: &mut [ClauseHit],
) {
    let Some(ids) = store.by_version.get(version_id) else {
        return;
    };
    let blended = vectors.blended();
    for hit in hits.iter_mut() {
        let prefix = format!("{}/", hit.clause_id);
        let mut by_sentence: Vec<(usize, f32)> = Vec::new();
        let mut body: Option<f32> = None;
        let mut best_as_asked = f32::MIN;
        for i in ids {
            let chunk = &store.chunks[*i];
            let Some(rest) = chunk.chunk_id.strip_prefix(&prefix) else {
                continue;
            };
            let cosine = dot(&vectors.search, store.vector(*i));
            let as_asked = if blended {
                dot(&vectors.question, store.vector(*i))
            } else {
                cosine
            };
            best_as_asked = best_as_asked.max(as_asked);
            if let Some(n) = rest.strip_prefix('s').and_then(|n| n.parse::<usize>().ok()) {
                by_sentence.push((n, cosine));
            } else if rest == "0" {
                body = Some(cosine);
                hit.body_cosine = cosine;
                hit.question_body_cosine = as_asked;
            } else if rest == "title" {
                hit.title_cosine = cosine;
                hit.question_title_cosine = as_asked;
            }
        }
        // Unblended, the best chunk is the one fusion scored already.
        hit.question_cosine = if blended { best_as_asked } else { hit.cosine };
        by_sentence.sort_by_key(|(n, _)| *n);
        hit.sentence_scores = if by_sentence.is_empty() {
            body.into_iter().collect()
        } else {
            by_sentence.into_iter().map(|(_, s)| s).collect()
        };
    }
}

impl Retriever for EmbeddedRetriever {
    fn backend(&self) -> &str {
        "embedded"
    }

    fn retrieve<'a>(&'a self, query: RetrievalQuery<'a>) -> SearchFuture<'a> {
        Box::pin(async move {
            // Awaited, not blocking: concurrent misses batch in the model thread.
            let vectors = QueryVectors::embed_async(&self.embedder, query.text).await?;
            self.search_with(query, &vectors)
        })
    }
}

pub type SpellingFuture<'a> = Pin<Box<dyn Future<Output = Vec<Correction>> + Send + 'a>>;

pub type ExpansionFuture<'a> = Pin<Box<dyn Future<Output = QueryExpansion> + Send + 'a>>;

/// Maps a question's words to the words of one version ([`crate::vocabulary`]).
pub trait QueryExpander: Send + Sync + std::fmt::Debug {
    fn expand<'a>(&'a self, question: &'a str, version_id: &'a str) -> ExpansionFuture<'a>;

    /// The question's misspellings of the version's words ([`crate::spelling`]): none by
    /// default.
    fn spelling<'a>(&'a self, _question: &'a str, _version_id: &'a str) -> SpellingFuture<'a> {
        Box::pin(async { Vec::new() })
    }
}

/// The expander over the embedded index's vocabulary and word vectors; words the index has no
/// vector for are embedded through the query cache (batched with concurrent questions).
#[derive(Debug)]
pub struct IndexExpander {
    index: Arc<EmbeddedIndex>,
    embedder: SharedEmbedder,
}

impl IndexExpander {
    pub fn new(index: Arc<EmbeddedIndex>, embedder: SharedEmbedder) -> IndexExpander {
        IndexExpander { index, embedder }
    }
}

impl QueryExpander for IndexExpander {
    fn expand<'a>(&'a self, question: &'a str, version_id: &'a str) -> ExpansionFuture<'a> {
        Box::pin(async move {
            // Every word and phrase the index has no vector for, embedded in one batch.
            let (words, phrases) = crate::vocabulary::expansion_texts(question);
            let wanted: Vec<String> = words
                .into_iter()
                .filter(|w| !self.index.has_word_vector(w))
                .chain(phrases)
                .collect();
            let mut vectors = std::collections::HashMap::new();
            for (text, vector) in wanted
                .iter()
                .zip(self.embedder.embed_many_async(&wanted).await)
            {
                match vector {
                    Ok(v) => {
                        vectors.insert(text.clone(), v.to_vec());
                    }
                    Err(e) => tracing::warn!(error = %e, text, "not embedded; no equivalent"),
                }
            }
            self.index
                .expand(question, version_id, |w| vectors.get(w).cloned())
        })
    }

    fn spelling<'a>(&'a self, question: &'a str, version_id: &'a str) -> SpellingFuture<'a> {
        Box::pin(async move {
            let suspects = self.index.spelling_suspects(question, version_id, |w| {
                self.embedder.inner().knows_word(w)
            });
            if suspects.is_empty() {
                return Vec::new();
            }
            // A word the version has an equivalent for is understood already ("telly" ->
            // "television"): only a word that means nothing to the version is a misspelling.
            let expansion = self.expand(question, version_id).await;
            let understood = |word: &str| {
                expansion
                    .words()
                    .any(|t| t.word == word && !t.equivalents.is_empty())
            };
            suspects
                .into_iter()
                .filter(|w| !understood(w))
                .filter_map(|from| {
                    let to = self.index.spelling_of(&from, version_id)?;
                    Some(Correction { from, to })
                })
                .collect()
        })
    }
}
