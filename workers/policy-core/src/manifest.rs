//! The policy manifest: which version of each region's policy is in force when.
//!
//! Parsing is two-step: a permissive raw form (every field optional) so that *all* problems can
//! be reported at once with the region and dates named, then a validated [`Manifest`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer};
use sha2::{Digest, Sha256};

use crate::instant::{display_instant, parse_utc_instant, InstantError};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionEntry {
    pub id: String,
    pub region: String,
    /// `N` of `{region}-v{N}`; also the directory name `v{N}`.
    pub number: u32,
    pub effective_from: DateTime<Utc>,
    /// Exclusive; `None` for the open-ended (current or future) version.
    pub effective_to: Option<DateTime<Utc>>,
    pub git_sha: Option<String>,
    pub approved_by: Option<String>,
}

impl VersionEntry {
    pub fn directory(&self) -> String {
        format!("{}/v{}", self.region, self.number)
    }

    pub fn contains(&self, instant: DateTime<Utc>) -> bool {
        instant >= self.effective_from && self.effective_to.is_none_or(|to| instant < to)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// Versions per region, sorted by `effective_from`.
    regions: BTreeMap<String, Vec<VersionEntry>>,
    content_sha: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    #[error("manifest is not valid JSON: {0}")]
    InvalidJson(String),
    #[error("manifest has no regions")]
    NoRegions,
    #[error("region `{region}` has no versions")]
    EmptyRegion { region: String },
    #[error("region `{region}`, version #{index}: required field `{field}` is missing")]
    MissingField {
        region: String,
        index: usize,
        field: &'static str,
    },
    #[error("region `{region}`, version `{version}`: `{field}` {source}")]
    BadInstant {
        region: String,
        version: String,
        field: &'static str,
        source: InstantError,
    },
    #[error("region `{region}`: version id `{id}` must look like `{region}-v<N>`")]
    BadVersionId { region: String, id: String },
    #[error("version id `{id}` is used more than once")]
    DuplicateId { id: String },
    #[error("region `{region}`, version `{version}`: effective_to {to} is not after effective_from {from}")]
    EmptyWindow {
        region: String,
        version: String,
        from: String,
        to: String,
    },
    #[error("region `{region}`: `{earlier}` (until {earlier_to}) overlaps `{later}` (from {later_from})")]
    Overlap {
        region: String,
        earlier: String,
        earlier_to: String,
        later: String,
        later_from: String,
    },
    #[error(
        "region `{region}`: gap from {gap_from} to {gap_to} between `{earlier}` and `{later}`"
    )]
    Gap {
        region: String,
        earlier: String,
        later: String,
        gap_from: String,
        gap_to: String,
    },
    #[error("region `{region}`: `{version}` is open-ended (effective_to null) but `{later}` starts after it")]
    OpenEndedNotLast {
        region: String,
        version: String,
        later: String,
    },
    #[error("region `{region}`: no open-ended version; the last one, `{last}`, ends {last_to}")]
    NoOpenEnded {
        region: String,
        last: String,
        last_to: String,
    },
    #[error("region `{region}`, version `{version}`: directory `{directory}` is missing")]
    MissingDirectory {
        region: String,
        version: String,
        directory: String,
    },
    #[error("directory `{directory}` is not listed in the manifest")]
    UnlistedDirectory { directory: String },
}

/// All problems found in one manifest, in a stable order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestErrors(pub Vec<ManifestError>);

impl fmt::Display for ManifestErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "invalid manifest ({} problem(s)):", self.0.len())?;
        for error in &self.0 {
            writeln!(f, "  - {error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ManifestErrors {}

#[derive(Deserialize)]
struct RawManifest {
    #[serde(default)]
    regions: BTreeMap<String, RawRegion>,
}

#[derive(Deserialize)]
struct RawRegion {
    #[serde(default)]
    versions: Vec<RawVersion>,
}

#[derive(Deserialize)]
struct RawVersion {
    id: Option<String>,
    effective_from: Option<String>,
    /// Outer `None`: key absent (an error); `Some(None)`: explicitly open-ended.
    #[serde(default, deserialize_with = "present")]
    effective_to: Option<Option<String>>,
    git_sha: Option<String>,
    approved_by: Option<String>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

impl Manifest {
    pub fn parse(json: &str) -> Result<Manifest, ManifestErrors> {
        let raw: RawManifest = serde_json::from_str(json)
            .map_err(|e| ManifestErrors(vec![ManifestError::InvalidJson(e.to_string())]))?;
        let mut errors = Vec::new();
        if raw.regions.is_empty() {
            errors.push(ManifestError::NoRegions);
        }
        let mut seen_ids = BTreeSet::new();
        let mut regions = BTreeMap::new();
        for (region, raw_region) in raw.regions {
            let versions = parse_region(&region, raw_region, &mut seen_ids, &mut errors);
            check_windows(&region, &versions, &mut errors);
            regions.insert(region, versions);
        }
        if !errors.is_empty() {
            return Err(ManifestErrors(errors));
        }
        let content_sha = hex::encode(Sha256::digest(json.as_bytes()));
        Ok(Manifest {
            regions,
            content_sha,
        })
    }

    /// Cross-checks the manifest with the `{region}/v{N}` directories found next to it.
    pub fn check_directories(&self, directories: &BTreeSet<String>) -> Vec<ManifestError> {
        let mut errors = Vec::new();
        let mut listed = BTreeSet::new();
        for version in self.versions() {
            let directory = version.directory();
            if !directories.contains(&directory) {
                errors.push(ManifestError::MissingDirectory {
                    region: version.region.clone(),
                    version: version.id.clone(),
                    directory: directory.clone(),
                });
            }
            listed.insert(directory);
        }
        for directory in directories.difference(&listed) {
            errors.push(ManifestError::UnlistedDirectory {
                directory: directory.clone(),
            });
        }
        errors
    }

    /// SHA-256 of the manifest bytes; the Git sha, when known, is carried separately.
    pub fn content_sha(&self) -> &str {
        &self.content_sha
    }

    pub fn regions(&self) -> impl Iterator<Item = &str> {
        self.regions.keys().map(String::as_str)
    }

    pub fn region_versions(&self, region: &str) -> Option<&[VersionEntry]> {
        self.regions.get(region).map(Vec::as_slice)
    }

    pub fn versions(&self) -> impl Iterator<Item = &VersionEntry> {
        self.regions.values().flatten()
    }

    pub fn version(&self, id: &str) -> Option<&VersionEntry> {
        self.versions().find(|v| v.id == id)
    }
}

fn parse_region(
    region: &str,
    raw: RawRegion,
    seen_ids: &mut BTreeSet<String>,
    errors: &mut Vec<ManifestError>,
) -> Vec<VersionEntry> {
    if raw.versions.is_empty() {
        errors.push(ManifestError::EmptyRegion {
            region: region.to_string(),
        });
    }
    let mut versions = Vec::new();
    for (index, raw_version) in raw.versions.into_iter().enumerate() {
        let missing = |field| ManifestError::MissingField {
            region: region.to_string(),
            index,
            field,
        };
        let Some(id) = raw_version.id else {
            errors.push(missing("id"));
            continue;
        };
        if !seen_ids.insert(id.clone()) {
            errors.push(ManifestError::DuplicateId { id: id.clone() });
        }
        let number = id
            .strip_prefix(region)
            .and_then(|rest| rest.strip_prefix("-v"))
            .and_then(|n| n.parse::<u32>().ok());
        let Some(number) = number else {
            errors.push(ManifestError::BadVersionId {
                region: region.to_string(),
                id,
            });
            continue;
        };
        let instant = |field: &'static str, raw: &str, errors: &mut Vec<ManifestError>| {
            parse_utc_instant(raw)
                .map_err(|source| {
                    errors.push(ManifestError::BadInstant {
                        region: region.to_string(),
                        version: id.clone(),
                        field,
                        source,
                    })
                })
                .ok()
        };
        let Some(raw_from) = raw_version.effective_from else {
            errors.push(missing("effective_from"));
            continue;
        };
        let Some(raw_to) = raw_version.effective_to else {
            errors.push(missing("effective_to"));
            continue;
        };
        let from = instant("effective_from", &raw_from, errors);
        let to = match raw_to {
            Some(raw) => instant("effective_to", &raw, errors).map(Some),
            None => Some(None),
        };
        let (Some(effective_from), Some(effective_to)) = (from, to) else {
            continue;
        };
        if effective_to.is_some_and(|to| to <= effective_from) {
            errors.push(ManifestError::EmptyWindow {
                region: region.to_string(),
                version: id.clone(),
                from: display_instant(effective_from),
                to: display_instant(effective_to.expect("checked above")),
            });
            continue;
        }
        versions.push(VersionEntry {
            id,
            region: region.to_string(),
            number,
            effective_from,
            effective_to,
            git_sha: raw_version.git_sha,
            approved_by: raw_version.approved_by,
        });
    }
    versions.sort_by_key(|v| v.effective_from);
    versions
}

fn check_windows(region: &str, versions: &[VersionEntry], errors: &mut Vec<ManifestError>) {
    for pair in versions.windows(2) {
        let (earlier, later) = (&pair[0], &pair[1]);
        match earlier.effective_to {
            None => errors.push(ManifestError::OpenEndedNotLast {
                region: region.to_string(),
                version: earlier.id.clone(),
                later: later.id.clone(),
            }),
            Some(to) if to > later.effective_from => errors.push(ManifestError::Overlap {
                region: region.to_string(),
                earlier: earlier.id.clone(),
                earlier_to: display_instant(to),
                later: later.id.clone(),
                later_from: display_instant(later.effective_from),
            }),
            Some(to) if to < later.effective_from => errors.push(ManifestError::Gap {
                region: region.to_string(),
                earlier: earlier.id.clone(),
                later: later.id.clone(),
                gap_from: display_instant(to),
                gap_to: display_instant(later.effective_from),
            }),
            Some(_) => {}
        }
    }
    if let Some(last) = versions.last() {
        if let Some(to) = last.effective_to {
            errors.push(ManifestError::NoOpenEnded {
                region: region.to_string(),
                last: last.id.clone(),
                last_to: display_instant(to),
            });
        }
    }
}

#[cfg(test)]
#[path = "manifest_tests.rs"]
mod tests;
