//! Which version of a region's policy governs a turn: the one in force at the effective instant
//! (usually the purchase time), never simply the newest.

use chrono::{DateTime, Duration, Utc};

use crate::codes::ReasonCode;
use crate::instant::display_instant;
use crate::manifest::{Manifest, VersionEntry};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionOutcome {
    /// The version in force at the effective instant.
    Resolved {
        version: VersionEntry,
        /// Set when the instant lies within the ambiguity window of a cutover: a purchase
        /// recorded a few hours off could fall under the other version.
        ambiguous_cutover: Option<DateTime<Utc>>,
    },
    /// No effective date was given: the version in force at `as_of`, served with a banner and
    /// flagged for shadow review.
    Latest {
        version: VersionEntry,
        banner: String,
    },
    Escalate(VersionEscalation),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionEscalation {
    #[error("region `{region}` is not in the manifest")]
    UnknownRegion { region: String },
    #[error("{instant} is before the first `{region}` policy ({first_from})")]
    BeforeFirstVersion {
        region: String,
        instant: String,
        first_from: String,
    },
}

impl VersionEscalation {
    pub fn reason_code(&self) -> ReasonCode {
        match self {
            VersionEscalation::UnknownRegion { .. } => ReasonCode::UnknownRegion,
            VersionEscalation::BeforeFirstVersion { .. } => ReasonCode::BeforeFirstVersion,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VersionResolver {
    pub ambiguity_window: Duration,
}

impl Default for VersionResolver {
    fn default() -> Self {
        VersionResolver {
            ambiguity_window: Duration::hours(24),
        }
    }
}

impl VersionResolver {
    /// `effective`: the purchase (or other effective) instant, if known; `as_of`: when the turn
    /// was sent, used only when `effective` is missing. Neither comes from the clock.
    pub fn resolve(
        &self,
        manifest: &Manifest,
        region: &str,
        effective: Option<DateTime<Utc>>,
        as_of: DateTime<Utc>,
    ) -> VersionOutcome {
        let Some(versions) = manifest.region_versions(region) else {
            return VersionOutcome::Escalate(VersionEscalation::UnknownRegion {
                region: region.to_string(),
            });
        };
        let instant = effective.unwrap_or(as_of);
        let Some(version) = versions.iter().find(|v| v.contains(instant)) else {
            let first_from = versions.first().map(|v| display_instant(v.effective_from));
            return VersionOutcome::Escalate(VersionEscalation::BeforeFirstVersion {
                region: region.to_string(),
                instant: display_instant(instant),
                first_from: first_from.unwrap_or_default(),
            });
        };
        if effective.is_none() {
            let banner = format!(
                "This reflects current policy as of {}; if your purchase was before {}, please ask a human agent.",
                as_of.format("%Y-%m-%d"),
                version.effective_from.format("%Y-%m-%d"),
            );
            return VersionOutcome::Latest {
                version: version.clone(),
                banner,
            };
        }
        // Every start but the first is a cutover from one version to the next.
        let ambiguous_cutover = versions
            .iter()
            .skip(1)
            .map(|v| v.effective_from)
            .find(|cutover| (instant - *cutover).abs() < self.ambiguity_window);
        VersionOutcome::Resolved {
            version: version.clone(),
            ambiguous_cutover,
        }
    }
}

#[cfg(test)]
#[path = "version_tests.rs"]
mod tests;
