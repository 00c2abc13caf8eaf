//! The calls the backend makes, through the official client. Each returns a typed error that
//! names the operation and, for a rejected request, the server's own reason.

use elasticsearch::http::request::JsonBody;
use elasticsearch::http::response::Response;
use elasticsearch::http::transport::{SingleNodeConnectionPool, TransportBuilder};
use elasticsearch::http::Url;
use elasticsearch::indices::{IndicesCreateParts, IndicesExistsParts, IndicesRefreshParts};
use elasticsearch::params::{Conflicts, Refresh};
use elasticsearch::{BulkParts, CountParts, DeleteByQueryParts, Elasticsearch, SearchParts};
use policy_search::ChunkRecord;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::body;
use crate::config::EsConfig;
use crate::EsError;

/// Documents per `_bulk` request: a few MB with 384-d vectors.
const BULK_DOCUMENTS: usize = 500;

/// A chunk as stored, with its vector and the score of the request that found it.
#[derive(Debug, Clone)]
pub struct StoredChunk {
    pub chunk: ChunkRecord,
    pub embedding: Vec<f32>,
    pub score: f32,
}

#[derive(Deserialize)]
struct SearchResponse {
    hits: Hits,
}

#[derive(Deserialize)]
struct Hits {
    hits: Vec<Hit>,
}

#[derive(Deserialize)]
struct Hit {
    #[serde(rename = "_score")]
    score: Option<f32>,
    #[serde(rename = "_source")]
    source: Source,
}

#[derive(Deserialize)]
struct Source {
    #[serde(flatten)]
    chunk: ChunkRecord,
    embedding: Vec<f32>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct VersionWrite {
    pub written: usize,
    pub stale_deleted: u64,
}

pub struct EsClient {
    client: Elasticsearch,
    config: EsConfig,
}

impl std::fmt::Debug for EsClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EsClient")
            .field("url", &self.config.url)
            .field("index", &self.config.index)
            .finish_non_exhaustive()
    }
}

impl EsClient {
    /// Validates the configuration and builds the client; connects lazily.
    pub fn new(config: EsConfig) -> Result<EsClient, EsError> {
        policy_settings::Settings::validate(&config).map_err(|e| EsError::Config(e.to_string()))?;
        let url = Url::parse(&config.url)
            .map_err(|e| EsError::Config(format!("POLICY_ES_URL `{}`: {e}", config.url)))?;
        // Timeouts are per request: a search and a bulk have very different budgets.
        let transport = TransportBuilder::new(SingleNodeConnectionPool::new(url))
            .build()
            .map_err(|e| EsError::Config(e.to_string()))?;
        Ok(EsClient {
            client: Elasticsearch::new(transport),
            config,
        })
    }

    pub fn config(&self) -> &EsConfig {
        &self.config
    }

    /// Reachable, answering, and the index exists.
    pub async fn healthcheck(&self) -> Result<(), EsError> {
        if self.index_exists().await? {
            Ok(())
        } else {
            Err(EsError::Rejected {
                operation: "healthcheck",
                status: 404,
                reason: format!("index `{}` does not exist", self.config.index),
            })
        }
    }

    pub async fn index_exists(&self) -> Result<bool, EsError> {
        let response = self
            .client
            .indices()
            .exists(IndicesExistsParts::Index(&[&self.config.index]))
            .request_timeout(self.config.timeout())
            .send()
            .await
            .map_err(|e| EsError::transport("index exists", e))?;
        match response.status_code().as_u16() {
            200 => Ok(true),
            404 => Ok(false),
            _ => Err(rejected("index exists", response).await),
        }
    }

    /// Creates the index with our mapping unless it exists. Returns whether it created it.
    pub async fn ensure_index(&self, dimension: usize) -> Result<bool, EsError> {
        if self.index_exists().await? {
            return Ok(false);
        }
        reply(
            "create index",
            self.client
                .indices()
                .create(IndicesCreateParts::Index(&self.config.index))
                .request_timeout(self.config.write_timeout())
                .body(body::index_definition(dimension, self.config.vector_mode))
                .send()
                .await,
        )
        .await?;
        Ok(true)
    }

    /// Writes every chunk of one version (ids are stable, so this overwrites an earlier
    /// write), then deletes what an earlier write of the version left that is no longer there.
    pub async fn write_version(
        &self,
        version_id: &str,
        chunks: &[ChunkRecord],
        vectors: &[Vec<f32>],
    ) -> Result<VersionWrite, EsError> {
        if chunks.len() != vectors.len() {
            return Err(EsError::Config(format!(
                "{} vectors for {} chunks of {version_id}",
                vectors.len(),
                chunks.len()
            )));
        }
        if let Some(other) = chunks.iter().find(|c| c.version_id != version_id) {
            return Err(EsError::Config(format!(
                "chunk {} is not of version {version_id}",
                other.chunk_id
            )));
        }
        for (chunk_batch, vector_batch) in chunks
            .chunks(BULK_DOCUMENTS)
            .zip(vectors.chunks(BULK_DOCUMENTS))
        {
            self.bulk(chunk_batch, vector_batch).await?;
        }
        let keep: Vec<&str> = chunks.iter().map(body::document_id).collect();
        let stale_deleted = self
            .delete_by_query(body::stale_chunks_query(version_id, &keep))
            .await?;
        // One refresh for the whole version: searchable on return, without paying a refresh
        // per bulk request.
        self.refresh().await?;
        Ok(VersionWrite {
            written: chunks.len(),
            stale_deleted,
        })
    }

    async fn bulk(&self, chunks: &[ChunkRecord], vectors: &[Vec<f32>]) -> Result<(), EsError> {
        let lines: Vec<JsonBody<Value>> = body::bulk_lines(chunks, vectors)
            .into_iter()
            .map(JsonBody::from)
            .collect();
        let reply = reply(
            "bulk",
            self.client
                .bulk(BulkParts::Index(&self.config.index))
                .request_timeout(self.config.write_timeout())
                .refresh(Refresh::False)
                .body(lines)
                .send()
                .await,
        )
        .await?;
        if reply["errors"].as_bool() == Some(true) {
            let items = reply["items"].as_array().cloned().unwrap_or_default();
            let failed: Vec<&Value> = items
                .iter()
                .filter_map(|item| item.get("index"))
                .filter(|item| item.get("error").is_some())
                .collect();
            return Err(EsError::Bulk {
                failed: failed.len(),
                total: chunks.len(),
                first: failed
                    .first()
                    .map(|f| format!("{}: {}", f["_id"], f["error"]["reason"]))
                    .unwrap_or_default(),
            });
        }
        Ok(())
    }

    /// Deletes every chunk of a version; returns how many.
    pub async fn delete_version(&self, version_id: &str) -> Result<u64, EsError> {
        let deleted = self
            .delete_by_query(json!({
                "query": { "bool": { "filter": [{ "term": { "version_id": version_id } }] } }
            }))
            .await?;
        self.refresh().await?;
        Ok(deleted)
    }

    async fn delete_by_query(&self, query: Value) -> Result<u64, EsError> {
        let reply = reply(
            "delete by query",
            self.client
                .delete_by_query(DeleteByQueryParts::Index(&[&self.config.index]))
                .request_timeout(self.config.write_timeout())
                .conflicts(Conflicts::Proceed)
                .refresh(false)
                .body(query)
                .send()
                .await,
        )
        .await?;
        Ok(reply["deleted"].as_u64().unwrap_or(0))
    }

    /// Chunks indexed, all or of one version.
    pub async fn count(&self, version_id: Option<&str>) -> Result<u64, EsError> {
        let query = match version_id {
            Some(v) => json!({ "query": { "term": { "version_id": v } } }),
            None => json!({ "query": { "match_all": {} } }),
        };
        let reply = reply(
            "count",
            self.client
                .count(CountParts::Index(&[&self.config.index]))
                .request_timeout(self.config.timeout())
                .body(query)
                .send()
                .await,
        )
        .await?;
        Ok(reply["count"].as_u64().unwrap_or(0))
    }

    pub async fn refresh(&self) -> Result<(), EsError> {
        reply(
            "refresh",
            self.client
                .indices()
                .refresh(IndicesRefreshParts::Index(&[&self.config.index]))
                .request_timeout(self.config.write_timeout())
                .send()
                .await,
        )
        .await
        .map(|_| ())
    }

    /// Runs one search body against the index.
    pub async fn search(
        &self,
        operation: &'static str,
        request: Value,
    ) -> Result<Vec<StoredChunk>, EsError> {
        let reply = reply(
            operation,
            self.client
                .search(SearchParts::Index(&[&self.config.index]))
                .request_timeout(self.config.timeout())
                .body(request)
                .send()
                .await,
        )
        .await?;
        let parsed: SearchResponse =
            serde_json::from_value(reply).map_err(|e| EsError::Decode {
                operation,
                reason: e.to_string(),
            })?;
        Ok(parsed
            .hits
            .hits
            .into_iter()
            .map(|hit| StoredChunk {
                chunk: hit.source.chunk,
                embedding: hit.source.embedding,
                score: hit.score.unwrap_or(0.0),
            })
            .collect())
    }
}

/// The body of a successful reply; a failed send or a non-2xx status becomes an error naming
/// `operation` (and, for a rejection, the server's reason).
async fn reply(
    operation: &'static str,
    sent: Result<Response, elasticsearch::Error>,
) -> Result<Value, EsError> {
    let response = sent.map_err(|e| EsError::transport(operation, e))?;
    if !response.status_code().is_success() {
        return Err(rejected(operation, response).await);
    }
    response.json::<Value>().await.map_err(|e| EsError::Decode {
        operation,
        reason: e.to_string(),
    })
}

async fn rejected(operation: &'static str, response: Response) -> EsError {
    let status = response.status_code().as_u16();
    let text = response.text().await.unwrap_or_default();
    // Elasticsearch's error body: {"error": {"type", "reason", "root_cause": [...]}}.
    let reason = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| {
            let error = v.get("error")?;
            Some(match (error["type"].as_str(), error["reason"].as_str()) {
                (Some(kind), Some(reason)) => format!("{kind}: {reason}"),
                _ => error.to_string(),
            })
        })
        .unwrap_or(text);
    EsError::Rejected {
        operation,
        status,
        reason,
    }
}
