//! Retention: a version whose period ended longer ago than the retention is retired. Its
//! clauses stay addressable (audit trails cite them, and a late question about an old order
//! must still resolve to *that* version), but their text is replaced by a stub saying the policy
//! is no longer in effect, so nothing is ever answered from a retired policy.
//!
//! Pure: the caller supplies the instant to judge against (the reindex worker uses the publish
//! time of the change it applies, so replaying history retires exactly what it did then).

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, Utc};

use crate::clause::Clause;
use crate::instant::display_instant;
use crate::manifest::{Manifest, VersionEntry};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    pub days: u32,
}

impl Retention {
    /// Whether `version` is past retention at `as_of`. An open-ended version never is.
    pub fn is_retired(&self, version: &VersionEntry, as_of: DateTime<Utc>) -> bool {
        version
            .effective_to
            .is_some_and(|to| to + Duration::days(i64::from(self.days)) <= as_of)
    }

    /// Ids of every version of `manifest` past retention at `as_of`.
    pub fn retired_versions(&self, manifest: &Manifest, as_of: DateTime<Utc>) -> BTreeSet<String> {
        manifest
            .versions()
            .filter(|v| self.is_retired(v, as_of))
            .map(|v| v.id.clone())
            .collect()
    }
}

/// The text that replaces a clause of a retired version. It states no policy fact (no number a
/// generator could quote as a rule), only that the version is gone and who can help.
pub fn stub_text(clause: &Clause, version: &VersionEntry) -> String {
    let to = version
        .effective_to
        .map(display_instant)
        .unwrap_or_else(|| "its end".into());
    format!(
        "{}: this clause belongs to policy version {}, in force from {} until {}, which has been \
         retired and is no longer in effect. Its terms can no longer be quoted here; a human agent \
         can look up orders placed under it.",
        clause.title,
        version.id,
        display_instant(version.effective_from),
        to
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instant::parse_utc_instant;
    use crate::text::numeric_facts;

    fn manifest() -> Manifest {
        Manifest::parse(
            r#"{"regions": {"eu": {"versions": [
                {"id": "eu-v1", "effective_from": "2020-01-01", "effective_to": "2023-01-01"},
                {"id": "eu-v2", "effective_from": "2023-01-01", "effective_to": "2026-02-01"},
                {"id": "eu-v3", "effective_from": "2026-02-01", "effective_to": null}
            ]}}}"#,
        )
        .unwrap()
    }

    fn at(raw: &str) -> DateTime<Utc> {
        parse_utc_instant(raw).unwrap()
    }

    #[test]
    fn a_version_retires_when_its_end_is_older_than_the_retention() {
        let retention = Retention { days: 365 };
        let m = manifest();
        let eu_v1 = m.version("eu-v1").unwrap();
        assert!(!retention.is_retired(eu_v1, at("2023-12-31T23:59:59Z")));
        assert!(
            retention.is_retired(eu_v1, at("2024-01-01T00:00:00Z")),
            "boundary is inclusive"
        );
        assert_eq!(
            retention.retired_versions(&m, at("2026-11-22")),
            BTreeSet::from(["eu-v1".to_string()])
        );
        assert_eq!(
            retention.retired_versions(&m, at("2027-02-01")),
            BTreeSet::from(["eu-v1".to_string(), "eu-v2".to_string()])
        );
    }

    #[test]
    fn the_open_ended_version_never_retires() {
        let retention = Retention { days: 0 };
        let m = manifest();
        assert!(!retention.is_retired(m.version("eu-v3").unwrap(), at("2100-01-01")));
    }

    #[test]
    fn zero_retention_retires_a_version_the_moment_it_ends() {
        let retention = Retention { days: 0 };
        let m = manifest();
        let eu_v2 = m.version("eu-v2").unwrap();
        assert!(!retention.is_retired(eu_v2, at("2026-01-31T23:59:59Z")));
        assert!(retention.is_retired(eu_v2, at("2026-02-01")));
    }

    #[test]
    fn a_long_retention_retires_nothing() {
        let retention = Retention { days: 3650 };
        assert!(retention
            .retired_versions(&manifest(), at("2026-11-22"))
            .is_empty());
    }

    #[test]
    fn the_stub_names_the_version_and_period_and_states_no_rule() {
        let m = manifest();
        let version = m.version("eu-v1").unwrap();
        let origin = crate::ClauseOrigin {
            version_id: "eu-v1",
            region: "eu",
            effective_from: version.effective_from,
            effective_to: version.effective_to,
            source_file: "returns.md",
        };
        let clause = crate::parse_clauses(
            "## 3.2 Withdrawal period\n\nYou may withdraw within 14 days of delivery.\n",
            origin,
        )
        .into_iter()
        .find(|c| c.title == "Withdrawal period")
        .expect("clause");
        let stub = stub_text(&clause, version);
        assert!(stub.starts_with("Withdrawal period: "), "{stub}");
        assert!(stub.contains("eu-v1"), "{stub}");
        assert!(stub.contains("no longer in effect"), "{stub}");
        assert!(!stub.contains("14 days"), "{stub}");
        // Dates only: nothing a generator could present as a policy number.
        let facts = numeric_facts(&stub.replace("2020-01-01", "").replace("2023-01-01", ""));
        assert!(facts.is_empty(), "{facts:?} in {stub}");
    }
}
