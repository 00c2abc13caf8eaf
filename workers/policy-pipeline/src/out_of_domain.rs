//! Requests a retailer's policy cannot answer at all (a flight, a mortgage, the weather), found
//! by similarity in the embedding model's space: a question closer to a library of such
//! requests than to anything in the policy version in force is out of scope, however well one
//! of its words matches a clause ("cancel my hotel booking" is not "cancel my order").
//!
//! Two comparisons, each with its own margin:
//! - a request of another kind altogether (the weather, a poem, a visa) is closer to the
//!   general library than to any clause of the version in force;
//! - a request in a policy's own words about something no retail policy covers ("can I get my
//!   deposit back if I cancel the hotel?") is closer to a library of such requests than to both
//!   a library of requests about a retailer's goods and services ("can I return these hiking
//!   boots?") and any clause. Question against question, the policy words both share (refund,
//!   cancel, fee) weigh the same on each side and what the request is about decides; the
//!   clauses keep a corpus's own programmes in scope.
//!
//! Libraries are JSONL files (`text`, `category`).

use policy_search::embed::dot;
use serde::Deserialize;

/// Which library a setting names, each shipped with the workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Requests of another kind altogether (`guard/out_of_domain.jsonl`: the weather, a poem).
    General,
    /// Requests in a policy's own words about what no retail policy covers
    /// (`guard/out_of_domain_policy.jsonl`: "can I get my deposit back if I cancel the hotel?").
    ForeignPolicy,
    /// Requests about a retailer's goods and its own services (`guard/in_domain_retail.jsonl`).
    Retail,
}

impl Side {
    fn builtin(self) -> &'static str {
        match self {
            Side::General => include_str!("../../../guard/out_of_domain.jsonl"),
            Side::ForeignPolicy => include_str!("../../../guard/out_of_domain_policy.jsonl"),
            Side::Retail => include_str!("../../../guard/in_domain_retail.jsonl"),
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Side::General => "out-of-domain library",
            Side::ForeignPolicy => "foreign-policy library",
            Side::Retail => "retail library",
        }
    }
}

/// Nearest library entries averaged.
const NEIGHBOURS: usize = 3;

#[derive(Debug, thiserror::Error)]
#[error("out-of-domain library {path}: {reason}")]
pub struct LibraryError {
    path: String,
    reason: String,
}

#[derive(Deserialize)]
struct Entry {
    text: String,
    category: String,
}

/// How close a question is to a library.
#[derive(Debug, Clone, PartialEq)]
pub struct DomainMatch {
    /// Mean cosine of the nearest entries.
    pub similarity: f32,
    /// The nearest entry's category and text, for the escalation's reason.
    pub nearest: String,
}

/// How close a question is to each library.
#[derive(Debug, Clone, PartialEq)]
pub struct DomainMatches {
    pub general: DomainMatch,
    /// `None` without that library.
    pub foreign_policy: Option<DomainMatch>,
    /// Mean cosine of the nearest retail requests (0 without that library).
    pub retail: f32,
}

#[derive(Debug, Clone, Default)]
pub struct OutOfDomainLibrary {
    entries: Vec<(String, Vec<f32>)>,
}

impl OutOfDomainLibrary {
    /// A library's texts (as `category: text` labels) for a setting: `builtin`, `none`, or a
    /// file.
    pub fn texts(setting: &str, side: Side) -> Result<Vec<(String, String)>, LibraryError> {
        let rows =
            crate::library::rows::<Entry>(setting, side.builtin()).map_err(|e| LibraryError {
                path: e.path,
                reason: e.reason,
            })?;
        Ok(rows
            .into_iter()
            .map(|(_, entry)| (entry.category, entry.text))
            .collect())
    }

    /// The library from `(label, vector)` entries.
    pub fn new(entries: Vec<(String, Vec<f32>)>) -> OutOfDomainLibrary {
        OutOfDomainLibrary { entries }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn matches(&self, vector: &[f32]) -> Option<DomainMatch> {
        let mut scored: Vec<(f32, &str)> = self
            .entries
            .iter()
            .map(|(label, v)| (dot(vector, v), label.as_str()))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let top = &scored[..scored.len().min(NEIGHBOURS)];
        let nearest = top.first()?.1.to_string();
        Some(DomainMatch {
            similarity: top.iter().map(|(s, _)| s).sum::<f32>() / top.len() as f32,
            nearest,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_library_parses_and_matches_by_similarity() {
        for side in [Side::General, Side::ForeignPolicy, Side::Retail] {
            let texts = OutOfDomainLibrary::texts("builtin", side).unwrap();
            assert!(texts.len() > 250, "{side:?}: {}", texts.len());
        }
        let library = OutOfDomainLibrary::new(vec![
            ("travel: book a flight".into(), vec![1.0, 0.0]),
            ("weather: rain tomorrow".into(), vec![0.0, 1.0]),
        ]);
        let m = library.matches(&[0.9, 0.1]).unwrap();
        assert_eq!(m.nearest, "travel: book a flight");
        assert!(OutOfDomainLibrary::default().matches(&[1.0, 0.0]).is_none());
        assert!(OutOfDomainLibrary::texts("/nonexistent", Side::Retail).is_err());
    }
}
