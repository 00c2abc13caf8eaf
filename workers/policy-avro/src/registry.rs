//! Schema registry client: registers the project's schemas at startup (schema_registry_converter
//! against any Confluent-compatible registry) and resolves writer schemas by id, cached.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use apache_avro::Schema;
use schema_registry_converter::async_impl::schema_registry::{
    get_schema_by_id, post_schema, SrSettings,
};
use schema_registry_converter::error::SRCError;
use schema_registry_converter::schema_registry_common::{SchemaType, SuppliedSchema};

use crate::schemas::SchemaName;

#[derive(Debug, Clone, thiserror::Error)]
pub enum RegistryError {
    /// The registry could not be reached or answered 5xx: worth retrying.
    #[error("schema registry unavailable: {0}")]
    Unavailable(String),
    /// The registry answered and refused: retrying will not help.
    #[error("schema registry refused: {0}")]
    Refused(String),
    #[error("schema id {id} from the registry is not valid Avro: {reason}")]
    InvalidSchema { id: u32, reason: String },
}

impl RegistryError {
    pub fn is_transient(&self) -> bool {
        matches!(self, RegistryError::Unavailable(_))
    }
}

impl From<SRCError> for RegistryError {
    fn from(e: SRCError) -> Self {
        let text = match &e.cause {
            Some(cause) => format!("{}: {cause}", e.error),
            None => e.error.clone(),
        };
        // Connection errors and 502/503 are marked retriable by the converter; everything that
        // carries an HTTP status of 4xx is a refusal.
        if e.retriable || !text.contains("status") {
            RegistryError::Unavailable(text)
        } else {
            RegistryError::Refused(text)
        }
    }
}

pub struct RegistryClient {
    url: String,
    settings: SrSettings,
    writer_schemas: Mutex<HashMap<u32, Arc<Schema>>>,
}

impl std::fmt::Debug for RegistryClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryClient")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl RegistryClient {
    pub fn new(url: &str) -> Result<RegistryClient, RegistryError> {
        let settings = SrSettings::new_builder(url.trim_end_matches('/').to_string())
            .set_timeout(Duration::from_secs(10))
            .build()
            .map_err(RegistryError::from)?;
        Ok(RegistryClient {
            url: url.to_string(),
            settings,
            writer_schemas: Mutex::new(HashMap::new()),
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Registers `name` under `subject` (idempotent: the same schema gets the same id back).
    pub async fn register(&self, subject: &str, name: SchemaName) -> Result<u32, RegistryError> {
        let supplied = SuppliedSchema::new(None, SchemaType::Avro, name.source().to_string());
        let registered = post_schema(&self.settings, subject.to_string(), supplied).await?;
        self.writer_schemas
            .lock()
            .expect("not poisoned")
            .insert(registered.id, Arc::new(name.schema().clone()));
        Ok(registered.id)
    }

    /// The schema a payload was written with, from the cache or the registry.
    pub async fn writer_schema(&self, id: u32) -> Result<Arc<Schema>, RegistryError> {
        if let Some(schema) = self.writer_schemas.lock().expect("not poisoned").get(&id) {
            return Ok(schema.clone());
        }
        let registered = get_schema_by_id(id, &self.settings).await?;
        let schema =
            Schema::parse_str(&registered.schema).map_err(|e| RegistryError::InvalidSchema {
                id,
                reason: e.to_string(),
            })?;
        let schema = Arc::new(schema);
        self.writer_schemas
            .lock()
            .expect("not poisoned")
            .insert(id, schema.clone());
        Ok(schema)
    }
}

/// TopicNameStrategy: the value subject of a topic.
pub fn value_subject(topic: &str) -> String {
    format!("{topic}-value")
}
