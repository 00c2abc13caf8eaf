//! Request bodies, pure: everything the backend sends is built here, so that snapshot tests pin
//! the exact JSON of each request and the client code only moves bytes.
//!
//! Both legs carry the same `filter` on `region` and `version_id` keyword fields. Elasticsearch
//! applies a `bool.filter` before scoring and a `knn.filter` during the graph search, so neither
//! leg can return a chunk of another region or version, and fusion only ever sees one version.

use policy_search::ChunkRecord;
use serde_json::{json, Value};

use crate::config::VectorMode;

/// Index settings and mappings. `dynamic: strict` makes a document with an unexpected field a
/// bulk error instead of a silently widened mapping.
pub fn index_definition(dimension: usize, mode: VectorMode) -> Value {
    let embedding = match mode {
        // Unit vectors (MiniLM output is L2-normalised): dot product == cosine, and cheaper.
        VectorMode::Knn => json!({
            "type": "dense_vector",
            "dims": dimension,
            "index": true,
            "similarity": "dot_product"
        }),
        // Kept in `_source` only, never parsed (a disabled object accepts any JSON): the
        // backend scores the version's vectors itself. Mapping 384 floats as `float` values
        // instead costs the server a field value each and made bulk indexing ~60x slower.
        VectorMode::Exact => json!({ "type": "object", "enabled": false }),
    };
    json!({
        "settings": { "number_of_shards": 1 },
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "chunk_id": { "type": "keyword" },
                "clause_id": { "type": "keyword" },
                "version_id": { "type": "keyword" },
                "region": { "type": "keyword" },
                "status": { "type": "keyword" },
                "title": { "type": "text", "analyzer": "english" },
                "text": { "type": "text", "analyzer": "english" },
                "clause_text": { "type": "text", "index": false },
                "embedding": embedding
            }
        }
    })
}

/// The filter both legs share: exactly one region and one version.
pub fn version_filter(region: &str, version_id: &str) -> Value {
    json!([
        { "term": { "region": region } },
        { "term": { "version_id": version_id } }
    ])
}

/// Lexical leg: BM25 over title and text (summed, like the embedded index), filtered first.
/// The embedding comes back in `_source` so a clause found only here still gets a cosine.
pub fn lexical_search(text: &str, region: &str, version_id: &str, size: usize) -> Value {
    json!({
        "size": size,
        "track_total_hits": false,
        "query": {
            "bool": {
                "must": [{
                    "multi_match": {
                        "query": text,
                        "fields": ["title", "text"],
                        "type": "most_fields"
                    }
                }],
                "filter": version_filter(region, version_id)
            }
        }
    })
}

/// Vector leg on an Elasticsearch cluster: approximate kNN with the version filter applied
/// inside the graph search (not a post-filter, which could return fewer than `k` hits).
pub fn knn_search(
    vector: &[f32],
    region: &str,
    version_id: &str,
    k: usize,
    num_candidates: usize,
) -> Value {
    json!({
        "size": k,
        "track_total_hits": false,
        "knn": {
            "field": "embedding",
            "query_vector": vector,
            "k": k,
            "num_candidates": num_candidates.max(k),
            "filter": version_filter(region, version_id)
        }
    })
}

/// Vector leg in exact mode: every chunk of the version (a version is tens to a few hundred
/// chunks), scored by the backend. Sorted by id so that ties rank the same on every run.
pub fn version_chunks_search(region: &str, version_id: &str, size: usize) -> Value {
    json!({
        "size": size,
        "track_total_hits": false,
        "query": { "bool": { "filter": version_filter(region, version_id) } },
        "sort": [{ "chunk_id": "asc" }]
    })
}

/// Chunks of `version_id` that are not in `keep`: what is left of an earlier indexing of the
/// version after its new chunks were written.
pub fn stale_chunks_query(version_id: &str, keep: &[&str]) -> Value {
    json!({
        "query": {
            "bool": {
                "filter": [{ "term": { "version_id": version_id } }],
                "must_not": [{ "ids": { "values": keep } }]
            }
        }
    })
}

/// The document id: the chunk id, i.e. clause id + chunk number (`eu-v4#sec-3.2/c0`). Stable,
/// so indexing the same version twice overwrites instead of duplicating.
pub fn document_id(chunk: &ChunkRecord) -> &str {
    &chunk.chunk_id
}

pub fn document(chunk: &ChunkRecord, vector: &[f32]) -> Value {
    json!({
        "chunk_id": chunk.chunk_id,
        "clause_id": chunk.clause_id,
        "version_id": chunk.version_id,
        "region": chunk.region,
        "status": chunk.status,
        "title": chunk.title,
        "text": chunk.text,
        "clause_text": chunk.clause_text,
        "embedding": vector
    })
}

/// `_bulk` lines: an `index` action (create or overwrite by id) followed by its document.
pub fn bulk_lines(chunks: &[ChunkRecord], vectors: &[Vec<f32>]) -> Vec<Value> {
    chunks
        .iter()
        .zip(vectors)
        .flat_map(|(chunk, vector)| {
            [
                json!({ "index": { "_id": document_id(chunk) } }),
                document(chunk, vector),
            ]
        })
        .collect()
}
