//! Misspelled words of a question corrected to the words of the version in force ("retrun windw"
//! → "return window"). Chat is typed fast; a misspelling misses the lexical leg and moves the
//! question's embedding away from the clause, so a plain question escalates for low confidence.
//!
//! A word is corrected only when nothing else explains it: the version does not use it, the
//! embedding model does not know it as a word of its own vocabulary ("sneakers" and "couch"
//! are words, "membreship" is not), the vocabulary expansion found no word of the version that
//! means the same, no version of the corpus uses it, and exactly one word of the version is
//! closest in spelling, within one edit (two for words of seven letters or more, and a letter
//! typed for another only from seven letters), starting with the same letter. No dictionary is
//! written by hand: the version's words are the only candidates, as in
//! [`crate::vocabulary`].

use crate::vocabulary::VersionVocabulary;

/// Shorter words are left alone: at three letters, one edit reaches too many words.
const MIN_LETTERS: usize = 4;
/// From this length on, two edits are allowed ("membreship", "deliveyr"), and a letter typed
/// for another: below it, a substitution turns one real word into another too often ("mend",
/// "mind"), while a letter dropped, doubled or swapped ("windw", "cancell", "dyas") does not.
const LONG_WORD: usize = 7;

/// One word of a question and the version's word it was corrected to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Correction {
    pub from: String,
    pub to: String,
}

/// Each run of letters or digits with the text between it and the previous run.
fn tokens(text: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest.find(char::is_alphanumeric)?;
        let len = rest[start..]
            .find(|c: char| !c.is_alphanumeric())
            .unwrap_or(rest.len() - start);
        let found = (&rest[..start], &rest[start..start + len]);
        rest = &rest[start + len..];
        Some(found)
    })
}

/// Each token of the question with the text before it and, when it may be misspelled, its
/// lower-case word: a plain ASCII word of four letters or more that is not a function word
/// ("dont"), not a placeholder of redacted data ("[payment_card]"), not glued to digits or
/// accents ("welcome10", "bancário") and not capitalised inside a sentence (a name: "Capitec").
fn read(question: &str) -> impl Iterator<Item = (&str, &str, Option<String>)> {
    let mut sentence_start = true;
    tokens(question).map(move |(before, token)| {
        let opens_sentence = std::mem::replace(&mut sentence_start, false)
            || before.trim_end().ends_with(['.', '?', '!']);
        let capitalised = token.chars().any(|c| c.is_ascii_uppercase());
        let word = token.to_ascii_lowercase();
        let eligible = token.len() >= MIN_LETTERS
            && token.chars().all(|c| c.is_ascii_alphabetic())
            && !before.ends_with(['[', '_'])
            && (opens_sentence || !capitalised)
            && !policy_core::text::is_function_word(&word);
        (before, token, eligible.then_some(word))
    })
}

/// Words of `question` that may be misspellings: words [`read`] as such that no version
/// of the corpus uses (`used`) and that are not words of the model (`knows_word`; `None` when
/// the model cannot tell, which corrects nothing). In question order, once each.
pub fn suspects(
    question: &str,
    used: impl Fn(&str) -> bool,
    knows_word: impl Fn(&str) -> Option<bool>,
) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for word in read(question).filter_map(|(_, _, word)| word) {
        if !found.contains(&word) && !used(&word) && knows_word(&word) == Some(false) {
            found.push(word);
        }
    }
    found
}

/// The version's word `word` is most likely a misspelling of, if exactly one is closest.
pub fn correct(word: &str, vocabulary: &VersionVocabulary) -> Option<String> {
    let long = word.len() >= LONG_WORD;
    let allowed = if long { 2 } else { 1 };
    let first = word.chars().next()?;
    let mut best: Option<(usize, &str)> = None;
    let mut tied = false;
    for candidate in &vocabulary.words {
        if !candidate.starts_with(first) || candidate.len().abs_diff(word.len()) > allowed {
            continue;
        }
        let distance = edit_distance(word, candidate);
        let substitution =
            distance == 1 && candidate.len() == word.len() && !transposed(word, candidate);
        if distance > allowed || substitution && !long {
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

/// `a` and `b` differ by two neighbouring letters swapped.
fn transposed(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let differ: Vec<usize> = (0..a.len().min(b.len()))
        .filter(|&i| a[i] != b[i])
        .collect();
    matches!(differ[..], [i, j] if j == i + 1 && a[i] == b[j] && a[j] == b[i])
}

/// `question` with the corrected words replaced where [`suspects`] read them (a sentence's
/// capital kept), everything else as written.
pub fn apply(question: &str, corrections: &[Correction]) -> String {
    let mut out = String::with_capacity(question.len());
    let mut consumed = 0;
    for (before, token, word) in read(question) {
        out.push_str(before);
        consumed += before.len() + token.len();
        let correction = word.and_then(|w| corrections.iter().find(|c| c.from == w));
        match correction {
            Some(c) if token.starts_with(|ch: char| ch.is_ascii_uppercase()) => {
                let mut to = c.to.clone();
                to[..1].make_ascii_uppercase();
                out.push_str(&to);
            }
            Some(c) => out.push_str(&c.to),
            None => out.push_str(token),
        }
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
             yearly. Delivery is free above the minimum purchase. Speakers and headphones. \
             Your mind, the cent and the agent.",
        ])
    }

    /// A model that knows a few real words and nothing misspelled.
    fn knows(word: &str) -> Option<bool> {
        Some(matches!(word, "sneakers" | "couch" | "many" | "window"))
    }

    fn corrected(question: &str, v: &VersionVocabulary) -> String {
        let corrections: Vec<Correction> = suspects(question, |w| v.uses(w), knows)
            .into_iter()
            .filter_map(|from| correct(&from, v).map(|to| Correction { from, to }))
            .collect();
        apply(question, &corrections)
    }

    #[test]
    fn misspellings_of_the_versions_words_are_corrected_and_real_words_are_not() {
        let v = vocabulary();
        let question = "Retrun window? How many dyas? My membreship, sneakers and minimun purchse \
                        at Capitec";
        assert_eq!(
            suspects(question, |w| v.uses(w), knows),
            ["retrun", "dyas", "membreship", "minimun", "purchse"],
            "real words ('sneakers', one edit from 'speakers'), names and the version's own \
             words are not suspects"
        );
        assert_eq!(
            corrected(question, &v),
            "Return window? How many days? My membership, sneakers and minimum purchase at \
             Capitec"
        );
    }

    #[test]
    fn function_words_placeholders_accents_digits_and_other_versions_words_stay() {
        let v = vocabulary();
        // "cant"/"arent" are one letter from "cent"/"agent"; "mend" one from "mind".
        assert_eq!(
            corrected("I cant mend it, they arent faulty", &v),
            "I cant mend it, they arent faulty"
        );
        assert_eq!(
            corrected("boleto bancário, [payment_card], retrun10", &v),
            "boleto bancário, [payment_card], retrun10"
        );
        let other = VersionVocabulary::of(["Pay by instalments."]);
        let used = |w: &str| v.uses(w) || other.uses(w);
        assert!(suspects("instalments", used, knows).is_empty());
        // A name opening the question is read like any word, but only that token changes.
        assert_eq!(corrected("Retrun it? retrun", &v), "Return it? return");
    }

    #[test]
    fn no_correction_when_the_model_cannot_tell_or_the_spelling_is_ambiguous() {
        let v = vocabulary();
        assert!(suspects("retrun", |w| v.uses(w), |_| None).is_empty());
        // "tems" is one edit from no word starting with 't' but two from "items".
        assert_eq!(correct("tems", &v), None);
        let tied = VersionVocabulary::of(["carts cards"]);
        assert_eq!(correct("cars", &tied), None, "one letter from both");
        assert_eq!(
            correct("cardz", &tied),
            None,
            "a letter typed for another, short word"
        );
        assert_eq!(edit_distance("retrun", "return"), 1);
        assert_eq!(edit_distance("membreship", "membership"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert!(transposed("dyas", "days") && !transposed("mend", "mind"));
    }
}
