//! Registry state and rules, independent of HTTP: ids are global and stable per schema (by
//! Avro canonical form), versions are per subject, and a new version must satisfy the subject's
//! compatibility level (BACKWARD unless configured otherwise).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use apache_avro::Schema;
use policy_avro::{check_compatibility, CompatibilityLevel};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("Subject '{0}' not found.")]
    SubjectNotFound(String),
    #[error("Version {1} not found for subject '{0}'.")]
    VersionNotFound(String, String),
    #[error("Schema {0} not found")]
    SchemaIdNotFound(u32),
    #[error("Schema not found")]
    SchemaNotFound,
    #[error("Invalid schema: {0}")]
    InvalidSchema(String),
    #[error("Schema being registered is incompatible with an earlier schema for subject \"{subject}\": {details}")]
    Incompatible { subject: String, details: String },
    #[error("Subject '{0}' does not have subject-level compatibility configured")]
    SubjectConfigNotFound(String),
    #[error("Invalid compatibility level: {0}")]
    InvalidCompatibility(String),
    #[error("cannot persist registry state: {0}")]
    Persist(String),
}

impl StoreError {
    /// Confluent's error codes, which clients switch on.
    pub fn error_code(&self) -> u32 {
        match self {
            StoreError::SubjectNotFound(_) => 40401,
            StoreError::VersionNotFound(..) => 40402,
            StoreError::SchemaIdNotFound(_) | StoreError::SchemaNotFound => 40403,
            StoreError::SubjectConfigNotFound(_) => 40408,
            StoreError::InvalidSchema(_) => 42201,
            StoreError::InvalidCompatibility(_) => 42203,
            StoreError::Incompatible { .. } => 409,
            StoreError::Persist(_) => 50001,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredSchema {
    id: u32,
    schema: String,
    canonical: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct SubjectVersion {
    version: u32,
    id: u32,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct State {
    schemas: Vec<StoredSchema>,
    subjects: BTreeMap<String, Vec<SubjectVersion>>,
    global_level: CompatibilityLevel,
    subject_levels: BTreeMap<String, CompatibilityLevel>,
}

/// One registered version as the API returns it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VersionInfo {
    pub subject: String,
    pub id: u32,
    pub version: u32,
    pub schema: String,
}

#[derive(Debug)]
pub struct RegistryStore {
    state: State,
    path: Option<PathBuf>,
}

const STATE_FILE: &str = "registry.json";

fn parse(schema: &str) -> Result<(Schema, String), StoreError> {
    let parsed = Schema::parse_str(schema).map_err(|e| StoreError::InvalidSchema(e.to_string()))?;
    let canonical = parsed.canonical_form();
    Ok((parsed, canonical))
}

impl RegistryStore {
    pub fn in_memory() -> RegistryStore {
        RegistryStore {
            state: State::default(),
            path: None,
        }
    }

    /// Opens (or creates) the store persisted in `dir`.
    pub fn open(dir: &Path) -> Result<RegistryStore, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| StoreError::Persist(e.to_string()))?;
        let path = dir.join(STATE_FILE);
        let state = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| StoreError::Persist(format!("{}: {e}", path.display())))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => State::default(),
            Err(e) => return Err(StoreError::Persist(e.to_string())),
        };
        Ok(RegistryStore {
            state,
            path: Some(path),
        })
    }

    fn persist(&self) -> Result<(), StoreError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let tmp = path.with_extension("json.tmp");
        let bytes = serde_json::to_vec_pretty(&self.state).expect("state serialises");
        // Write-then-rename: a crash leaves either the old or the new state, never half of one.
        std::fs::write(&tmp, bytes)
            .and_then(|_| std::fs::rename(&tmp, path))
            .map_err(|e| StoreError::Persist(e.to_string()))
    }

    fn versions(&self, subject: &str) -> Result<&Vec<SubjectVersion>, StoreError> {
        self.state
            .subjects
            .get(subject)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| StoreError::SubjectNotFound(subject.to_string()))
    }

    fn schema_text(&self, id: u32) -> &str {
        &self
            .state
            .schemas
            .iter()
            .find(|s| s.id == id)
            .expect("versions point at stored schemas")
            .schema
    }

    fn info(&self, subject: &str, v: &SubjectVersion) -> VersionInfo {
        VersionInfo {
            subject: subject.to_string(),
            id: v.id,
            version: v.version,
            schema: self.schema_text(v.id).to_string(),
        }
    }

    pub fn effective_level(&self, subject: &str) -> CompatibilityLevel {
        self.state
            .subject_levels
            .get(subject)
            .copied()
            .unwrap_or(self.state.global_level)
    }

    /// Registers `schema` under `subject`; the same schema always gets the same id back.
    pub fn register(&mut self, subject: &str, schema: &str) -> Result<u32, StoreError> {
        let (parsed, canonical) = parse(schema)?;
        let existing: Vec<SubjectVersion> = self
            .state
            .subjects
            .get(subject)
            .cloned()
            .unwrap_or_default();
        if let Some(v) = existing.iter().find(|v| self.canonical(v.id) == canonical) {
            return Ok(v.id);
        }
        let previous: Vec<Schema> = existing
            .iter()
            .map(|v| parse(self.schema_text(v.id)).map(|(s, _)| s))
            .collect::<Result<_, _>>()?;
        check_compatibility(self.effective_level(subject), &parsed, &previous).map_err(
            |problems| StoreError::Incompatible {
                subject: subject.to_string(),
                details: problems.join("; "),
            },
        )?;
        let id = match self.state.schemas.iter().find(|s| s.canonical == canonical) {
            Some(stored) => stored.id,
            None => {
                let id = self.state.schemas.iter().map(|s| s.id).max().unwrap_or(0) + 1;
                self.state.schemas.push(StoredSchema {
                    id,
                    schema: schema.to_string(),
                    canonical,
                });
                id
            }
        };
        let version = existing.iter().map(|v| v.version).max().unwrap_or(0) + 1;
        self.state
            .subjects
            .entry(subject.to_string())
            .or_default()
            .push(SubjectVersion { version, id });
        self.persist()?;
        Ok(id)
    }

    fn canonical(&self, id: u32) -> &str {
        &self
            .state
            .schemas
            .iter()
            .find(|s| s.id == id)
            .expect("stored")
            .canonical
    }

    pub fn schema_by_id(&self, id: u32) -> Result<&str, StoreError> {
        self.state
            .schemas
            .iter()
            .find(|s| s.id == id)
            .map(|s| s.schema.as_str())
            .ok_or(StoreError::SchemaIdNotFound(id))
    }

    /// `(subject, version)` pairs that use schema `id`.
    pub fn id_usages(&self, id: u32) -> Result<Vec<(String, u32)>, StoreError> {
        self.schema_by_id(id)?;
        Ok(self
            .state
            .subjects
            .iter()
            .flat_map(|(subject, versions)| {
                versions
                    .iter()
                    .filter(|v| v.id == id)
                    .map(|v| (subject.clone(), v.version))
            })
            .collect())
    }

    pub fn subjects(&self) -> Vec<String> {
        self.state
            .subjects
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(s, _)| s.clone())
            .collect()
    }

    pub fn subject_versions(&self, subject: &str) -> Result<Vec<u32>, StoreError> {
        Ok(self.versions(subject)?.iter().map(|v| v.version).collect())
    }

    /// `version` is a number, `latest` or `-1`.
    pub fn version(&self, subject: &str, version: &str) -> Result<VersionInfo, StoreError> {
        let versions = self.versions(subject)?;
        let found = match version {
            "latest" | "-1" => versions.last(),
            n => {
                let n: u32 = n.parse().map_err(|_| {
                    StoreError::VersionNotFound(subject.to_string(), version.to_string())
                })?;
                versions.iter().find(|v| v.version == n)
            }
        };
        let found = found
            .ok_or_else(|| StoreError::VersionNotFound(subject.to_string(), version.to_string()))?;
        Ok(self.info(subject, found))
    }

    /// Finds the version of `subject` whose schema equals `schema`.
    pub fn lookup(&self, subject: &str, schema: &str) -> Result<VersionInfo, StoreError> {
        let (_, canonical) = parse(schema)?;
        let versions = self.versions(subject)?;
        let found = versions
            .iter()
            .find(|v| self.canonical(v.id) == canonical)
            .ok_or(StoreError::SchemaNotFound)?;
        Ok(self.info(subject, found))
    }

    /// Checks `schema` against one version (or, for `None`, every version the level requires).
    pub fn check(
        &self,
        subject: &str,
        version: Option<&str>,
        schema: &str,
    ) -> Result<Vec<String>, StoreError> {
        let (parsed, _) = parse(schema)?;
        let against: Vec<VersionInfo> = match version {
            Some(v) if v != "latest" && v != "-1" => vec![self.version(subject, v)?],
            _ => self
                .versions(subject)?
                .iter()
                .map(|v| self.info(subject, v))
                .collect(),
        };
        let previous: Vec<Schema> = against
            .iter()
            .map(|v| parse(&v.schema).map(|(s, _)| s))
            .collect::<Result<_, _>>()?;
        Ok(
            check_compatibility(self.effective_level(subject), &parsed, &previous)
                .err()
                .unwrap_or_default(),
        )
    }

    pub fn global_level(&self) -> CompatibilityLevel {
        self.state.global_level
    }

    pub fn subject_level(&self, subject: &str) -> Result<CompatibilityLevel, StoreError> {
        self.state
            .subject_levels
            .get(subject)
            .copied()
            .ok_or_else(|| StoreError::SubjectConfigNotFound(subject.to_string()))
    }

    pub fn set_level(
        &mut self,
        subject: Option<&str>,
        level: &str,
    ) -> Result<CompatibilityLevel, StoreError> {
        let level: CompatibilityLevel = level.parse().map_err(StoreError::InvalidCompatibility)?;
        match subject {
            Some(s) => {
                self.state.subject_levels.insert(s.to_string(), level);
            }
            None => self.state.global_level = level,
        }
        self.persist()?;
        Ok(level)
    }

    pub fn delete_subject_level(
        &mut self,
        subject: &str,
    ) -> Result<CompatibilityLevel, StoreError> {
        let level = self
            .state
            .subject_levels
            .remove(subject)
            .ok_or_else(|| StoreError::SubjectConfigNotFound(subject.to_string()))?;
        self.persist()?;
        Ok(level)
    }

    /// Removes a subject's versions (ids stay resolvable: data written with them still exists).
    pub fn delete_subject(&mut self, subject: &str) -> Result<Vec<u32>, StoreError> {
        let versions = self.subject_versions(subject)?;
        self.state.subjects.remove(subject);
        self.persist()?;
        Ok(versions)
    }
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
