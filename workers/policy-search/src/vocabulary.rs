//! Vocabulary expansion derived from the corpus and the embedding model, not from hand-written
//! synonym lists. Customers write "hoodie", "busted", "PayPal" where a policy writes
//! "apparel", "damaged", "electronic payment instruments". Every word of the indexed text has a
//! vector (the model, one word at a time); a question's word that the version in force does
//! not use is mapped to the words of *that version* closest to it. The equivalents feed the
//! lexical leg, the reranker's coverage, the choice of sentence to quote and the judge's
//! check that the quote covers the question. Only the version's own words are candidates, so
//! nothing another version says enters a turn's scores.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use policy_core::memo::Memo;

use crate::embed::dot;
use crate::lexical::analyze;

/// Cosine at or above which a policy word stands in for a customer's word the version does
/// not use. Measured on pairs unrelated to any corpus (hoodie/clothing 0.66, money back/refund
/// 0.67, pause/suspend 0.57, busted/damaged 0.54 against hoodie/refund 0.17,
/// restocking/return 0.30).
pub const EQUIVALENT_MIN_COSINE: f32 = 0.5;
/// Stricter for a word the version uses already, and for two-word phrases: they only add a
/// near-synonym, never replace a word.
pub const CLOSE_EQUIVALENT_MIN_COSINE: f32 = 0.62;
/// Equivalents kept per word.
pub const EQUIVALENTS_PER_WORD: usize = 2;

pub use policy_core::expansion::{QueryExpansion, QueryTerm};

/// Vectors of single words, persisted with the index.
#[derive(Debug, Clone, Default)]
pub struct WordVectors {
    pub(crate) vectors: HashMap<String, Vec<f32>>,
}

impl WordVectors {
    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    pub fn get(&self, word: &str) -> Option<&[f32]> {
        self.vectors.get(word).map(Vec::as_slice)
    }

    /// The words of `vocabulary` closest to `vector` at or above `floor`, best first, leaving
    /// out the words whose stems `skip` already has; and the cosine of the closest of all
    /// (whatever the floor). One pass: the stems were taken when the vocabulary was built.
    pub fn nearest(
        &self,
        vector: &[f32],
        vocabulary: &VersionVocabulary,
        skip: &BTreeSet<String>,
        floor: f32,
    ) -> (Vec<String>, f32) {
        let mut closest = 0.0f32;
        let mut above: Vec<(f32, &String)> = Vec::new();
        for (word, stems) in &vocabulary.word_stems {
            if !stems.iter().any(|s| !skip.contains(s)) {
                continue;
            }
            let Some(v) = self.vectors.get(word) else {
                continue;
            };
            let cosine = dot(vector, v);
            closest = closest.max(cosine);
            if cosine >= floor {
                above.push((cosine, word));
            }
        }
        above.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        let words = above
            .into_iter()
            .take(EQUIVALENTS_PER_WORD)
            .map(|(_, w)| w.clone())
            .collect();
        (words, closest)
    }
}

/// The surface words of each version (what the vocabulary expansion may map to), and their
/// stems (what "the version uses the word" means).
#[derive(Debug, Clone, Default)]
pub struct VersionVocabulary {
    pub words: BTreeSet<String>,
    pub stems: BTreeSet<String>,
    /// Each word with its stems, taken once: a nearest-word search visits every word.
    word_stems: Vec<(String, Vec<String>)>,
}

impl VersionVocabulary {
    pub fn of<'a>(texts: impl IntoIterator<Item = &'a str>) -> VersionVocabulary {
        let mut vocabulary = VersionVocabulary::default();
        for text in texts {
            vocabulary.stems.extend(analyze(text));
            vocabulary
                .words
                .extend(policy_core::text::content_words(text));
        }
        vocabulary.word_stems = vocabulary
            .words
            .iter()
            .map(|w| (w.clone(), analyze(w)))
            .collect();
        vocabulary
    }

    /// Whether the version uses `word` (by stem).
    pub fn uses(&self, word: &str) -> bool {
        let stems = analyze(word);
        !stems.is_empty() && stems.iter().all(|s| self.stems.contains(s))
    }
}

/// What a question is read as: its content words and its two-word phrases (consecutive
/// words, at least one of them a content word).
pub fn expansion_texts(question: &str) -> (Vec<String>, Vec<String>) {
    let words = policy_core::text::content_words(question);
    let tokens: Vec<String> = policy_core::text::words(question).collect();
    let mut phrases = Vec::new();
    for pair in tokens.windows(2) {
        let phrase = format!("{} {}", pair[0], pair[1]);
        let has_content = pair.iter().any(|t| words.contains(t));
        if has_content && !phrases.contains(&phrase) {
            phrases.push(phrase);
        }
    }
    (words, phrases)
}

/// The nearest words already found for a text in a version at a floor: (equivalents, closest
/// cosine). Questions repeat their words, so a worker searches each word once per version; the
/// index keeps one per snapshot (a new snapshot may have other words or vectors).
#[derive(Debug)]
pub struct NearestCache(Memo<NearestKey, Nearest>);

impl Default for NearestCache {
    fn default() -> Self {
        NearestCache(Memo::new(NEAREST_CACHE_ENTRIES))
    }
}

/// (version, word or phrase, floor's bits).
type NearestKey = (String, String, u32);
/// The equivalents and the closest cosine.
type Nearest = (Vec<String>, f32);

/// Entries kept before the cache starts over (a bound, not a tuning knob: words are few).
const NEAREST_CACHE_ENTRIES: usize = 200_000;

impl NearestCache {
    pub fn get_or(
        &self,
        version_id: &str,
        text: &str,
        floor: f32,
        find: impl FnOnce() -> (Vec<String>, f32),
    ) -> (Vec<String>, f32) {
        let key = (version_id.to_string(), text.to_string(), floor.to_bits());
        self.0.get_or_insert_with(&key, find)
    }
}

/// Expands a question against one version: each content word, whether the version uses it,
/// and the version's closest words (a looser bar for words it does not use); and the phrases
/// whose closest words the question's words alone would miss ("money back" → "refund").
/// `nearest` gives a word's or phrase's closest words of the version at a floor (with the
/// closest cosine), from its vector; one without a vector has none.
pub fn expand(
    question: &str,
    vocabulary: &VersionVocabulary,
    mut nearest: impl FnMut(&str, &BTreeSet<String>, f32) -> (Vec<String>, f32),
) -> QueryExpansion {
    let (content, phrases) = expansion_texts(question);
    let mut terms: Vec<QueryTerm> = content
        .into_iter()
        .map(|word| {
            let in_version = vocabulary.uses(&word);
            let floor = if in_version {
                CLOSE_EQUIVALENT_MIN_COSINE
            } else {
                EQUIVALENT_MIN_COSINE
            };
            let skip: BTreeSet<String> = analyze(&word).into_iter().collect();
            let (equivalents, nearest_cosine) = nearest(&word, &skip, floor);
            QueryTerm {
                word,
                in_version,
                equivalents,
                phrase: false,
                nearest_cosine,
            }
        })
        .collect();
    for phrase in phrases {
        let skip: BTreeSet<String> = analyze(&phrase).into_iter().collect();
        let (equivalents, nearest_cosine) = nearest(&phrase, &skip, CLOSE_EQUIVALENT_MIN_COSINE);
        let new: Vec<String> = equivalents
            .into_iter()
            .filter(|e| !terms.iter().any(|t| t.equivalents.contains(e)))
            .collect();
        if !new.is_empty() {
            terms.push(QueryTerm {
                in_version: vocabulary.uses(&phrase),
                word: phrase,
                equivalents: new,
                phrase: true,
                nearest_cosine,
            });
        }
    }
    QueryExpansion { terms }
}

/// Words to embed for a vocabulary: every version's words that have no vector yet.
pub fn missing_words<'a>(
    vocabularies: impl IntoIterator<Item = &'a VersionVocabulary>,
    words: &WordVectors,
) -> Vec<String> {
    let mut missing: BTreeMap<&str, ()> = BTreeMap::new();
    for vocabulary in vocabularies {
        for word in &vocabulary.words {
            if !words.vectors.contains_key(word) {
                missing.insert(word, ());
            }
        }
    }
    missing.into_keys().map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn a_word_the_version_does_not_use_gets_the_versions_closest_words() {
        let vocabulary = VersionVocabulary::of([
            "Apparel may be returned within 30 days.",
            "Refunds are paid to the card.",
        ]);
        assert!(vocabulary.uses("returns"), "by stem");
        assert!(!vocabulary.uses("hoodie"));
        let mut words = WordVectors::default();
        words
            .vectors
            .insert("apparel".into(), unit(&[1.0, 0.1, 0.0]));
        words
            .vectors
            .insert("refunds".into(), unit(&[0.0, 1.0, 0.0]));
        words.vectors.insert("card".into(), unit(&[0.0, 0.2, 1.0]));
        let expansion = expand("Can I return my hoodie?", &vocabulary, |w, skip, floor| {
            if w == "hoodie" {
                words.nearest(&unit(&[0.9, 0.2, 0.0]), &vocabulary, skip, floor)
            } else {
                Default::default()
            }
        });
        assert!(
            expansion.terms.iter().all(|t| !t.phrase),
            "no phrase vector given"
        );
        let hoodie = expansion.terms.iter().find(|t| t.word == "hoodie").unwrap();
        assert!(!hoodie.in_version);
        assert_eq!(hoodie.equivalents, ["apparel"]);
        let ret = expansion.terms.iter().find(|t| t.word == "return").unwrap();
        assert!(ret.in_version && ret.equivalents.is_empty());
        assert_eq!(expansion.lexical_text(), "apparel");
        assert!((expansion.coverage("Apparel is returnable") - 1.0).abs() < 1e-6);
        assert!((expansion.coverage("Refunds are paid") - 0.0).abs() < 1e-6);
    }
}
