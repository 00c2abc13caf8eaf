//! Authoritative data a decision needs: the order system and the employee directory. A decision
//! never takes the user's word for a fact; it asks a [`FactSource`]. Two backends: an in-memory
//! table kept by a compacted topic (the embedded default, a KTable-style view every worker
//! materialises, see `policy_app::facts_topic`) or loaded from a fixture, and an HTTP service.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use crate::breaker::{jittered_backoff, CircuitBreaker};

/// A record's fields, flat: what the decision reads (`placed_at`, `level`...).
pub type Fields = BTreeMap<String, String>;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// Not reachable within the retry budget, or its circuit is open.
    #[error("{source_name} unavailable: {reason}")]
    Unavailable { source_name: String, reason: String },
    /// It answered with something that is not a record.
    #[error("{source_name}: record `{id}` is malformed: {reason}")]
    Malformed {
        source_name: String,
        id: String,
        reason: String,
    },
}

pub type LookupFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Option<Fields>, SourceError>> + Send + 'a>>;

/// Where the facts about one kind of subject come from. `Ok(None)`: the source does not know
/// the id.
pub trait FactSource: Send + Sync + std::fmt::Debug {
    /// Named in escalations and on the decision (`orders topic`, `http://orders:8080/orders`).
    fn name(&self) -> &str;
    fn lookup<'a>(&'a self, id: &'a str) -> LookupFuture<'a>;
}

/// The order system and the employee directory; a subject without a source cannot be decided
/// (`source_unavailable`).
#[derive(Debug, Clone, Default)]
pub struct Sources {
    pub orders: Option<Arc<dyn FactSource>>,
    pub employees: Option<Arc<dyn FactSource>>,
}

/// A JSON object's scalar members as strings (nested values are kept as JSON text).
pub fn fields_from_json(value: &serde_json::Value) -> Result<Fields, String> {
    let object = value
        .as_object()
        .ok_or_else(|| format!("expected a JSON object, got {value}"))?;
    Ok(object
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| {
            let text = v
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string());
            (k.clone(), text)
        })
        .collect())
}

/// An in-memory table by id: a fixture, or the view a compacted topic keeps up to date.
#[derive(Debug, Clone)]
pub struct MemorySource {
    name: String,
    table: Arc<RwLock<HashMap<String, Fields>>>,
}

impl MemorySource {
    pub fn new(name: impl Into<String>) -> MemorySource {
        MemorySource {
            name: name.into(),
            table: Arc::default(),
        }
    }

    /// One JSON object per line, keyed by its `id_field`.
    pub fn from_jsonl(name: &str, path: &Path, id_field: &str) -> Result<MemorySource, String> {
        let source = MemorySource::new(name);
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        for (n, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let at = |e: String| format!("{}:{}: {e}", path.display(), n + 1);
            let value: serde_json::Value =
                serde_json::from_str(line).map_err(|e| at(e.to_string()))?;
            let fields = fields_from_json(&value).map_err(at)?;
            let id = fields
                .get(id_field)
                .cloned()
                .ok_or_else(|| at(format!("no `{id_field}`")))?;
            source.upsert(id, fields);
        }
        Ok(source)
    }

    pub fn upsert(&self, id: String, fields: Fields) {
        self.table.write().expect("table lock").insert(id, fields);
    }

    /// A tombstone: the id is no longer known.
    pub fn remove(&self, id: &str) {
        self.table.write().expect("table lock").remove(id);
    }

    pub fn len(&self) -> usize {
        self.table.read().expect("table lock").len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl FactSource for MemorySource {
    fn name(&self) -> &str {
        &self.name
    }

    fn lookup<'a>(&'a self, id: &'a str) -> LookupFuture<'a> {
        let found = self.table.read().expect("table lock").get(id).cloned();
        Box::pin(std::future::ready(Ok(found)))
    }
}

/// How an HTTP source is called.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpSourceConfig {
    /// Records are at `{base_url}/{id}`.
    pub base_url: String,
    pub timeout: Duration,
    /// Retries after the first request (transport errors, 5xx, 429).
    pub retries: usize,
    /// All attempts of one lookup, waits included.
    pub budget: Duration,
    pub breaker_failures: u32,
    pub breaker_cooldown: Duration,
}

/// A record service over HTTP: `GET {base_url}/{id}` → 200 with a JSON object, or 404.
#[derive(Debug)]
pub struct HttpSource {
    config: HttpSourceConfig,
    client: reqwest::Client,
    breaker: CircuitBreaker,
}

enum Attempt {
    Found(Fields),
    NotFound,
    /// Worth another try.
    Transient(String),
    Malformed(String),
}

impl HttpSource {
    pub fn new(endpoint: &'static str, config: HttpSourceConfig) -> Result<HttpSource, String> {
        let client = reqwest::Client::builder()
            .connect_timeout(config.timeout)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(HttpSource {
            breaker: CircuitBreaker::new(
                endpoint,
                config.breaker_failures,
                config.breaker_cooldown,
            ),
            config,
            client,
        })
    }

    async fn attempt(&self, url: &str, timeout: Duration) -> Attempt {
        let response = match self.client.get(url).timeout(timeout).send().await {
            Ok(r) => r,
            Err(e) if e.is_timeout() => {
                return Attempt::Transient(format!("no answer within {timeout:?}"))
            }
            Err(e) => return Attempt::Transient(format!("request failed: {e}")),
        };
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND {
            return Attempt::NotFound;
        }
        if status.is_server_error() || status == reqwest::StatusCode::TOO_MANY_REQUESTS {
            return Attempt::Transient(format!("HTTP {status}"));
        }
        if !status.is_success() {
            return Attempt::Malformed(format!("HTTP {status}"));
        }
        match response.json::<serde_json::Value>().await {
            Ok(value) => fields_from_json(&value).map_or_else(Attempt::Malformed, Attempt::Found),
            Err(e) => Attempt::Malformed(format!("not JSON: {e}")),
        }
    }

    async fn fetch(&self, id: &str) -> Result<Option<Fields>, SourceError> {
        let unavailable = |reason: String| SourceError::Unavailable {
            source_name: self.config.base_url.clone(),
            reason,
        };
        if let Some(left) = self.breaker.open_for() {
            return Err(unavailable(format!(
                "circuit open for another {:.0} s",
                left.as_secs_f64()
            )));
        }
        let url = format!(
            "{}/{}",
            self.config.base_url.trim_end_matches('/'),
            encode_segment(id)
        );
        let started = Instant::now();
        let mut delays = jittered_backoff(
            Duration::from_millis(100),
            Duration::from_secs(1),
            self.config.retries,
        );
        let mut attempts = 0;
        loop {
            let left = self.config.budget.saturating_sub(started.elapsed());
            attempts += 1;
            let outcome = self.attempt(&url, self.config.timeout.min(left)).await;
            match outcome {
                Attempt::Found(fields) => {
                    self.breaker.record_success();
                    return Ok(Some(fields));
                }
                Attempt::NotFound => {
                    self.breaker.record_success();
                    return Ok(None);
                }
                Attempt::Malformed(reason) => {
                    return Err(SourceError::Malformed {
                        source_name: self.config.base_url.clone(),
                        id: id.to_string(),
                        reason,
                    })
                }
                Attempt::Transient(reason) => {
                    self.breaker.record_failure();
                    let left = self.config.budget.saturating_sub(started.elapsed());
                    let wait = delays
                        .next()
                        .filter(|w| *w < left && self.breaker.open_for().is_none());
                    let Some(wait) = wait else {
                        return Err(unavailable(format!("{reason} (after {attempts} attempts)")));
                    };
                    tracing::debug!(
                        url,
                        reason,
                        wait_ms = wait.as_millis() as u64,
                        "source retry"
                    );
                    tokio::time::sleep(wait).await;
                }
            }
        }
    }
}

/// An id as one URL path segment.
fn encode_segment(id: &str) -> String {
    id.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

impl FactSource for HttpSource {
    fn name(&self) -> &str {
        &self.config.base_url
    }

    fn lookup<'a>(&'a self, id: &'a str) -> LookupFuture<'a> {
        Box::pin(self.fetch(id))
    }
}

#[cfg(test)]
#[path = "facts_tests.rs"]
mod tests;
