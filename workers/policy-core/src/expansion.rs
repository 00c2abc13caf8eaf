//! A question's words as the policy version in force knows them: each content word, whether
//! the version uses it, and the version's own words closest to it when it does not (computed
//! by `policy-search` from the corpus and the embedding model). Carried with the retrieval so
//! that every later stage judges "does this text answer the question" the same way.

use crate::text::stem_set;

/// A word of the question with what the version in force calls it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QueryTerm {
    /// A word of the question, or two consecutive words (`phrase`: "money back").
    pub word: String,
    /// The version itself uses the word (by stem).
    pub in_version: bool,
    /// Words of the version closest to it, best first.
    pub equivalents: Vec<String>,
    /// Two words read together: they add equivalents ("money back" → "refund") but do not
    /// count as a word of the question of their own.
    #[serde(default)]
    pub phrase: bool,
    /// Cosine of the version's closest word, whether or not it passed for an equivalent (0
    /// when the word has no vector): how far the version's vocabulary is from the word.
    #[serde(default)]
    pub nearest_cosine: f32,
}

impl QueryTerm {
    /// The stems a text must contain to cover this word: its own and its equivalents'.
    pub fn stems(&self) -> Vec<String> {
        std::iter::once(&self.word)
            .chain(&self.equivalents)
            .flat_map(|w| stem_set(w).iter().cloned().collect::<Vec<_>>())
            .collect()
    }
}

/// Words of the question as the version knows them.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QueryExpansion {
    pub terms: Vec<QueryTerm>,
}

impl QueryExpansion {
    /// The question's words taken as they are (no vocabulary at hand).
    pub fn plain(question: &str) -> QueryExpansion {
        QueryExpansion {
            terms: crate::text::content_words(question)
                .into_iter()
                .map(|word| QueryTerm {
                    word,
                    in_version: true,
                    equivalents: Vec::new(),
                    phrase: false,
                    nearest_cosine: 1.0,
                })
                .collect(),
        }
    }

    /// The equivalents, as extra text for the lexical leg.
    pub fn lexical_text(&self) -> String {
        self.terms
            .iter()
            .flat_map(|t| t.equivalents.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The question's own words (not the phrases read from them).
    pub fn words(&self) -> impl Iterator<Item = &QueryTerm> {
        self.terms.iter().filter(|t| !t.phrase)
    }

    /// For each of the question's words, whether a text covers it: by stem, the word itself or
    /// an equivalent, or an equivalent of a phrase the word is part of.
    pub fn covered_words(&self, text: &str) -> Vec<bool> {
        let stems = stem_set(text);
        let has = |w: &str| stem_set(w).iter().all(|s| stems.contains(s));
        self.words()
            .map(|t| {
                t.stems().iter().any(|s| stems.contains(s))
                    || self
                        .phrases_with(t)
                        .any(|p| p.equivalents.iter().any(|e| has(e)))
            })
            .collect()
    }

    /// The phrases a word is part of.
    fn phrases_with<'a>(&'a self, word: &'a QueryTerm) -> impl Iterator<Item = &'a QueryTerm> {
        self.terms
            .iter()
            .filter(move |p| p.phrase && p.word.split(' ').any(|part| part == word.word))
    }

    /// Whether the version can cover a word at all: it uses it, or has an equivalent for it or
    /// for a phrase it is part of.
    pub fn coverable(&self, word: &QueryTerm) -> bool {
        self.spoken_of(word) || !word.equivalents.is_empty()
    }

    /// Whether the version speaks of what a word names: it uses the word, or has an equivalent
    /// for a phrase the word is part of ("money back" → "refund"). The nearest words of a
    /// single word ("flight" → "delivery") help retrieval find a clause but do not say the
    /// policy deals with the thing.
    pub fn spoken_of(&self, word: &QueryTerm) -> bool {
        word.in_version || self.phrases_with(word).any(|p| !p.equivalents.is_empty())
    }

    /// Share of the question's words a text covers ([`QueryExpansion::covered_words`]).
    pub fn coverage(&self, text: &str) -> f32 {
        let covered = self.covered_words(text);
        if covered.is_empty() {
            return 0.0;
        }
        covered.iter().filter(|c| **c).count() as f32 / covered.len() as f32
    }

    /// The same words without any equivalent: what the question says in its own words.
    pub fn own_words(&self) -> QueryExpansion {
        QueryExpansion {
            terms: self
                .words()
                .map(|t| QueryTerm {
                    equivalents: Vec::new(),
                    ..t.clone()
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(word: &str, in_version: bool, equivalents: &[&str], phrase: bool) -> QueryTerm {
        QueryTerm {
            word: word.into(),
            in_version,
            equivalents: equivalents.iter().map(|e| e.to_string()).collect(),
            phrase,
            nearest_cosine: 0.5,
        }
    }

    #[test]
    fn a_word_is_spoken_of_by_its_own_use_or_a_phrase_not_by_a_near_word() {
        let expansion = QueryExpansion {
            terms: vec![
                term("flight", false, &["delivery"], false),
                term("money", false, &[], false),
                term("back", false, &[], false),
                term("money back", false, &["refund"], true),
                term("cancel", true, &[], false),
                term("rarotonga", false, &[], false),
            ],
        };
        let spoken = |w: &str| {
            let t = expansion.words().find(|t| t.word == w).unwrap();
            (expansion.spoken_of(t), expansion.coverable(t))
        };
        assert_eq!(spoken("flight"), (false, true));
        assert_eq!(spoken("money"), (true, true));
        assert_eq!(spoken("back"), (true, true));
        assert_eq!(spoken("cancel"), (true, true));
        assert_eq!(spoken("rarotonga"), (false, false));
    }
}
