//! Misspelled words of a question corrected to the words of the version in force ("retrun windw"
//! → "return window"). Chat is typed fast; a misspelling misses the lexical leg and moves the
//! question's embedding away from the clause, so a plain question escalates for low confidence.
//!
//! A word is corrected only when nothing else explains it: the version does not use it, the
//! embedding model does not know it as a word of its own vocabulary ("sneakers" and "couch"
//! are words, "membreship" is not), the vocabulary expansion found no word of the version that
//! means the same, and exactly one word of the version is closest in spelling, within one edit
//! (two for words of seven letters or more), starting with the same letter. No dictionary is
//! written by hand: the version's words are the only candidates, as in
//! [`crate::vocabulary`].

use crate::vocabulary::VersionVocabulary;

/// Shorter words are left alone: at three letters, one edit reaches too many words.
const MIN_LETTERS: usize = 4;
/// From this length on, two edits are allowed ("membreship", "deliveyr").
const TWO_EDITS_FROM: usize = 7;

/// One word of a question and the version's word it was corrected to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Correction {
    pub from: String,
    pub to: String,
}

/// Words of `question` that may be misspellings of the version's words: letters only, long
/// enough, not used by the version, and not words of the model (`knows_word`; `None` when the
/// model cannot tell, which corrects nothing). Lowercase, in question order, once each.
pub fn suspects(
    question: &str,
    vocabulary: &VersionVocabulary,
    knows_word: impl Fn(&str) -> Option<bool>,
) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut sentence_start = true;
    for (before, token) in tokens(question) {
        // A capital inside a sentence starts a name ("Capitec"), which is not a misspelling.
        let opens_sentence = std::mem::replace(&mut sentence_start, false)
            || before.trim_end().ends_with(['.', '?', '!']);
        let capitalised = token.chars().any(|c| c.is_ascii_uppercase());
        if token.len() < MIN_LETTERS || capitalised && !opens_sentence {
            continue;
        }
        let word = token.to_ascii_lowercase();
        if found.contains(&word) || vocabulary.uses(&word) || knows_word(&word) != Some(false) {
            continue;
        }
        found.push(word);
    }
    found
}

/// Each run of letters with the text between it and the previous run.
fn tokens(text: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest.find(|c: char| c.is_ascii_alphabetic())?;
        let len = rest[start..]
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len() - start);
        let found = (&rest[..start], &rest[start..start + len]);
        rest = &rest[start + len..];
        Some(found)
    })
}

/// The version's word `word` is most likely a misspelling of, if exactly one is closest.
pub fn correct(word: &str, vocabulary: &VersionVocabulary) -> Option<String> {
    let allowed = if word.len() >= TWO_EDITS_FROM { 2 } else { 1 };
    let first = word.chars().next()?;
    let mut best: Option<(usize, &str)> = None;
    let mut tied = false;
    for candidate in &vocabulary.words {
        if !candidate.starts_with(first) || candidate.len().abs_diff(word.len()) > allowed {
            continue;
        }
        let distance = edit_distance(word, candidate);
        if distance > allowed {
            continue;
        }
        match best {
            Some((d, _)) if distance > d => {}
            Some((d, _)) if distance == d => tied = true,
            _ => {
                best = Some((distance, candidate));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(_, w)| w.to_string())
}

/// `question` with each corrected word replaced (whole words, any case).
pub fn apply(question: &str, corrections: &[Correction]) -> String {
    let mut out = String::with_capacity(question.len());
    let mut consumed = 0;
    for (before, word) in tokens(question) {
        out.push_str(before);
        let lower = word.to_ascii_lowercase();
        match corrections.iter().find(|c| c.from == lower) {
            Some(c) => out.push_str(&c.to),
            None => out.push_str(word),
        }
        consumed += before.len() + word.len();
    }
    out.push_str(&question[consumed..]);
    out
}

/// Optimal string alignment distance: insertions, deletions, substitutions and transpositions
/// of neighbours ("retrun"), each one edit.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    rows[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocabulary() -> VersionVocabulary {
        VersionVocabulary::of([
            "You may return items within the return window of 30 days. Membership renews \
             yearly. Delivery is free above the minimum purchase. Speakers and headphones.",
        ])
    }

    /// A model that knows a few real words and nothing misspelled.
    fn knows(word: &str) -> Option<bool> {
        Some(matches!(word, "sneakers" | "couch" | "many" | "window"))
    }

    #[test]
    fn misspellings_of_the_versions_words_are_corrected_and_real_words_are_not() {
        let v = vocabulary();
        let question = "Retrun window? How many dyas? My membreship, sneakers and minimun purchse \
                        at Capitec";
        let suspects = suspects(question, &v, knows);
        assert_eq!(
            suspects,
            ["retrun", "dyas", "membreship", "minimun", "purchse"],
            "real words ('sneakers', one edit from 'speakers'), names and the version's own \
             words are not suspects"
        );
        let corrections: Vec<Correction> = suspects
            .iter()
            .filter_map(|w| {
                correct(w, &v).map(|to| Correction {
                    from: w.clone(),
                    to,
                })
            })
            .collect();
        assert_eq!(
            apply(question, &corrections),
            "return window? How many days? My membership, sneakers and minimum purchase at Capitec"
        );
    }

    #[test]
    fn no_correction_when_the_model_cannot_tell_or_the_spelling_is_ambiguous() {
        let v = vocabulary();
        assert!(suspects("retrun", &v, |_| None).is_empty());
        // "tems" is one edit from no word starting with 't' but two from "items".
        assert_eq!(correct("tems", &v), None);
        let tied = VersionVocabulary::of(["cart card"]);
        assert_eq!(
            correct("carx", &tied),
            None,
            "cart and card are equally close"
        );
        assert_eq!(edit_distance("retrun", "return"), 1);
        assert_eq!(edit_distance("membreship", "membership"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
