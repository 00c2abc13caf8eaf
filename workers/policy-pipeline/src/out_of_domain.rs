//! Requests a retailer's policy cannot answer at all (a flight, a mortgage, the weather), found
//! by similarity in the embedding model's space: a question closer to a library of such
//! requests than to anything in the policy version in force is out of scope, however well one
//! of its words matches a clause ("cancel my hotel booking" is not "cancel my order").
//!
//! The library is a JSONL file (`text`, `category`); the in-domain side is the policy itself,
//! so the check adapts to whatever corpus is served.

use policy_search::embed::dot;
use serde::Deserialize;

/// The library shipped with the workers (`guard/out_of_domain.jsonl`).
const BUILTIN: &str = include_str!("../../../guard/out_of_domain.jsonl");

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

/// How close a question is to the library.
#[derive(Debug, Clone, PartialEq)]
pub struct DomainMatch {
    /// Mean cosine of the nearest entries.
    pub similarity: f32,
    /// The nearest entry's category and text, for the escalation's reason.
    pub nearest: String,
}

#[derive(Debug, Clone, Default)]
pub struct OutOfDomainLibrary {
    entries: Vec<(String, Vec<f32>)>,
}

impl OutOfDomainLibrary {
    /// The library's texts (as `category: text` labels) for a setting: `builtin`, `none`, or
    /// a file.
    pub fn texts(setting: &str) -> Result<Vec<(String, String)>, LibraryError> {
        let rows = crate::library::rows::<Entry>(setting, BUILTIN).map_err(|e| LibraryError {
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
        let texts = OutOfDomainLibrary::texts("builtin").unwrap();
        assert!(texts.len() > 100, "{}", texts.len());
        let library = OutOfDomainLibrary::new(vec![
            ("travel: book a flight".into(), vec![1.0, 0.0]),
            ("weather: rain tomorrow".into(), vec![0.0, 1.0]),
        ]);
        let m = library.matches(&[0.9, 0.1]).unwrap();
        assert_eq!(m.nearest, "travel: book a flight");
        assert!(OutOfDomainLibrary::default().matches(&[1.0, 0.0]).is_none());
        assert!(OutOfDomainLibrary::texts("/nonexistent").is_err());
    }
}
