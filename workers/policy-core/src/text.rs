//! Small text utilities shared by the parser, the extractive generator and the judge:
//! sentence splitting, query terms, and the numeric facts an answer asserts.

use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, OnceLock};

use crate::memo::Memo;

/// Abbreviations whose trailing period does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "etc", "art", "no", "sec", "approx", "u.s", "inc", "ltd", "vs", "cf", "para",
];
/// Short forms a writer who does not capitalise follows with a small letter inside a sentence
/// ("until 5 p.m. on friday", "incl. delivery", "mon. or tue."). Before a capital they may end
/// one ("Lines open until 6 p.m. Refunds take ...").
const SHORT_FORMS: &[&str] = &[
    "a.m", "p.m", "mr", "mrs", "ms", "dr", "st", "incl", "excl", "hr", "hrs", "min", "mins", "wk",
    "wks", "yr", "yrs", "mo", "mth", "qty", "pcs", "dept", "est", "ref", "u.k", "mon", "tue",
    "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "jan", "feb", "mar", "apr", "jun",
    "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

/// Splits text into sentences, never inside a number (`3.2`), an abbreviation (`e.g.`) or a
/// markdown list item. Bullets and blank lines always end a sentence. A full stop ends one
/// before a capital; in a text that opens in lower case, whose writer does not capitalise
/// ("my ex used my laptop. what did she buy?"), before any letter, unless it closes a short
/// form or an ellipsis ("5 p.m. on fri.", "hmm... ok").
pub fn split_sentences(text: &str) -> Vec<&str> {
    split(text, Numbers::AllContinue)
}

/// [`split_sentences`] for a customer's message, where a full stop after a number of four
/// digits or more ends a sentence: an order number or a year ("her order, number 28816. Just
/// tell me ..."). Policy text keeps [`split_sentences`], so what is indexed does not change.
pub fn split_message_sentences(text: &str) -> Vec<&str> {
    split(text, Numbers::LongOnesEnd)
}

/// Whether a full stop after a number may end a sentence.
#[derive(Clone, Copy, PartialEq)]
enum Numbers {
    /// Never: "see 3. Returns", a numbered item.
    AllContinue,
    /// After four digits or more: an identifier or a year.
    LongOnesEnd,
}

fn split(text: &str, numbers: Numbers) -> Vec<&str> {
    let mut sentences = Vec::new();
    // Read from the first word of two letters or more: not a list mark ("(a) Items ...") nor
    // "i", and a brand written "iPhone" is not lower case.
    let uncapitalised = text
        .split(|c: char| !c.is_alphabetic())
        .find(|word| word.chars().count() > 1)
        .is_some_and(|word| word.chars().all(char::is_lowercase));
    for block in text.split("\n\n") {
        for line in split_list_items(block) {
            let bytes = line.as_bytes();
            let mut start = 0;
            let mut i = 0;
            while i < bytes.len() {
                let b = bytes[i];
                let at_end_of_word = i + 1 == bytes.len() || bytes[i + 1].is_ascii_whitespace();
                if matches!(b, b'.' | b'?' | b'!') && at_end_of_word {
                    // After the separator, however many bytes it takes ("order\u{202F}?").
                    let word_start = line[..i]
                        .char_indices()
                        .rfind(|&(_, c)| c.is_whitespace() || c == '(')
                        .map_or(0, |(p, c)| p + c.len_utf8());
                    let word = line[word_start..i].to_ascii_lowercase();
                    // A small letter starts one after a lower-case writer's full stop, unless
                    // the stop closes a short form or an ellipsis ("hmm... maybe").
                    let lower_case_start = uncapitalised
                        && !SHORT_FORMS.contains(&word.as_str())
                        && !word.ends_with('.');
                    let next_starts_sentence =
                        line[i + 1..].trim_start().chars().next().is_none_or(|c| {
                            c.is_uppercase()
                                || (lower_case_start && c.is_alphabetic())
                                || c.is_ascii_digit()
                                || c == '"'
                                || c == '('
                        });
                    // "3." in "see 3. Returns" or a numbered item is not the end of a sentence.
                    let is_number = !word.is_empty()
                        && word.bytes().all(|c| c.is_ascii_digit())
                        && (numbers == Numbers::AllContinue || word.len() < 4);
                    if b != b'.'
                        || (!ABBREVIATIONS.contains(&word.as_str())
                            && !is_number
                            && !abbreviates_before_amount(&line[word_start..i], &line[i + 1..])
                            && next_starts_sentence)
                    {
                        push_trimmed(&mut sentences, &line[start..=i]);
                        start = i + 1;
                    }
                }
                i += 1;
            }
            push_trimmed(&mut sentences, &line[start..]);
        }
    }
    sentences
}

/// Whether `word` (before a period) is a short abbreviation written before an amount, such as
/// a currency or a number sign: "Rs. 1,500", "Nr. 4". Two letters, a capital and a small one
/// (three would take in names: "Ask Ann. 30 days apply."), and the next word a number that is
/// not a list item's ("2. ").
fn abbreviates_before_amount(word: &str, rest: &str) -> bool {
    let mut letters = word.chars();
    let short_titlecase = word.chars().count() == 2
        && letters.next().is_some_and(|c| c.is_ascii_uppercase())
        && letters.all(|c| c.is_ascii_lowercase());
    let rest = rest.trim_start();
    short_titlecase && rest.starts_with(|c: char| c.is_ascii_digit()) && !is_numbered_item(rest)
}

fn split_list_items(block: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let mut start = 0;
    let mut offset = 0;
    for line in block.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let is_item =
            trimmed.starts_with("- ") || trimmed.starts_with("* ") || is_numbered_item(trimmed);
        if is_item && offset > start {
            items.push(&block[start..offset]);
            start = offset;
        }
        offset += line.len();
    }
    items.push(&block[start..]);
    items
}

fn is_numbered_item(line: &str) -> bool {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && (line[digits..].starts_with(". ") || line[digits..].starts_with(") "))
}

fn push_trimmed<'a>(out: &mut Vec<&'a str>, s: &'a str) {
    let s = s.trim();
    let s = s.trim_start_matches(['-', '*']).trim_start();
    if s.chars().any(char::is_alphanumeric) {
        out.push(s);
    }
}

/// Collapses runs of whitespace into single spaces.
pub fn normalize_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

const STOPWORDS: &[&str] = &[
    "a", "about", "am", "an", "and", "any", "are", "as", "at", "be", "been", "can", "could", "do",
    "does", "did", "for", "from", "get", "got", "has", "have", "how", "i", "if", "in", "into",
    "is", "it", "its", "me", "my", "of", "on", "or", "our", "please", "should", "so", "that",
    "the", "their", "them", "there", "this", "to", "was", "we", "what", "when", "where", "which",
    "who", "will", "with", "would", "you", "your", "hi", "hello", "thanks",
];

/// Function words and the words of asking ("how", "please", "know") that carry no policy
/// meaning: what is left of a question is what it is about.
const FUNCTION_WORDS: &[&str] = &[
    "the",
    "and",
    "for",
    "are",
    "but",
    "not",
    "you",
    "your",
    "yours",
    "all",
    "any",
    "can",
    "had",
    "has",
    "have",
    "her",
    "hers",
    "him",
    "his",
    "how",
    "its",
    "may",
    "might",
    "must",
    "our",
    "ours",
    "out",
    "she",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "was",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "could",
    "should",
    "shall",
    "does",
    "did",
    "doing",
    "done",
    "from",
    "into",
    "onto",
    "upon",
    "about",
    "after",
    "before",
    "again",
    "also",
    "just",
    "only",
    "very",
    "much",
    "many",
    "more",
    "most",
    "some",
    "such",
    "than",
    "too",
    "own",
    "same",
    "each",
    "both",
    "few",
    "other",
    "over",
    "under",
    "off",
    "once",
    "here",
    "being",
    "been",
    "because",
    "until",
    "through",
    "during",
    "between",
    "against",
    "above",
    "below",
    "yes",
    "hello",
    "thanks",
    "thank",
    "please",
    "know",
    "tell",
    "want",
    "need",
    "like",
    "get",
    "got",
    "getting",
    "make",
    "made",
    "let",
    "say",
    "said",
    "ask",
    "asking",
    "wondering",
    "question",
    "questions",
    "help",
    "hey",
    "okay",
    "still",
    "now",
    "really",
    "actually",
    "able",
    "possible",
    "something",
    "anything",
    "thing",
    "things",
    "someone",
    "way",
    "mine",
    "myself",
    "yourself",
    "ourselves",
    "well",
    "even",
    "ever",
    "already",
    "yet",
    "one",
    // Chat spellings of the above, and contractions typed without their apostrophe.
    "pls",
    "plz",
    "smth",
    "sth",
    "smthg",
    "smthng",
    "somethin",
    "sumthin",
    "thx",
    "thanx",
    "cheers",
    "dont",
    "doesnt",
    "didnt",
    "cant",
    "wont",
    "isnt",
    "arent",
    "wasnt",
    "werent",
    "havent",
    "hasnt",
    "hadnt",
    "couldnt",
    "wouldnt",
    "shouldnt",
    "mustnt",
    "neednt",
    "aint",
    "shant",
    "mightnt",
    "oughtnt",
    "darent",
    "ive",
    "youre",
    "btw",
    "tbh",
    "lol",
];

/// A word that carries no subject ("the", "please", "dont"), lower-case.
pub fn is_function_word(word: &str) -> bool {
    FUNCTION_WORDS.contains(&word)
}

/// What writers type for an apostrophe: the ASCII one, the typographic ones, the acute accent
/// and backtick of keyboards without one, the full-width and modifier-letter forms.
const APOSTROPHES: [char; 7] = [
    '\'', '\u{2019}', '\u{2018}', '\u{b4}', '`', '\u{ff07}', '\u{2bc}',
];

/// Endings an apostrophe joins to a word ("customer's", "you're", "I'm"): not words of their own.
const CLITICS: &[&str] = &["s", "re", "ve", "ll", "d", "m"];

/// The lower-case words of a text, runs of letters, with what an apostrophe joins read as
/// writers mean it: a negated auxiliary is one word ("won't" is "wont", a function word, not
/// "won"), a clitic is dropped ("customer's" is "customer"), anything else splits ("o'clock").
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphabetic() || APOSTROPHES.contains(&c)))
        .flat_map(|token| {
            let lower = token.to_lowercase().replace(APOSTROPHES, "'");
            let lower = lower.trim_matches('\'');
            let joined: Vec<String> = match lower.rsplit_once('\'') {
                Some((head, "t")) if head.ends_with('n') && !head.contains('\'') => {
                    vec![format!("{head}t")]
                }
                Some((head, tail)) if CLITICS.contains(&tail) && !head.contains('\'') => {
                    vec![head.to_string()]
                }
                _ => lower.split('\'').map(str::to_string).collect(),
            };
            joined.into_iter().filter(|w| !w.is_empty())
        })
}

/// The words a question is about: lower-case, letters only, three or more of them, function
/// words left out, in order of first appearance.
pub fn content_words(text: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    words(text)
        .filter(|w| w.chars().count() >= 3)
        .filter(|w| !is_function_word(w))
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// Phrases that set a part of a question aside ("not asking about X", "leaving X aside"):
/// that part is context, not what is asked.
const SET_ASIDE: &[&str] = &[
    "aside",
    "forget",
    "not asking",
    "not about",
    "no need",
    "not worried",
    "never mind",
    "used to",
    "i know",
    "i heard",
    "heard",
    "not interested",
    "apparently",
    "i was told",
    "i've been told",
    "i understand",
    "i read",
];
/// Phrases that set aside only what follows them in the same part ("pause it instead of
/// cancelling").
const SET_ASIDE_AFTER: &[&str] = &[
    "instead of",
    "rather than",
    "apart from",
    "besides",
    "except",
];

/// The parts of a question that say what it asks: the question minus what it sets aside.
/// Parts are separated by punctuation and by "but"; a part containing a set-aside phrase only
/// gives context ("I know there used to be a restocking fee, but how long ...").
pub fn focus_parts(question: &str) -> Vec<String> {
    focus(question)
        .0
        .into_iter()
        .map(|part| part.to_lowercase())
        .collect()
}

/// Words of situation before a question's asking sentence from which that sentence is searched
/// for besides the whole question ([`asking_part`]); fewer is a preamble the question needs.
const SITUATION_WORDS: usize = 8;

/// The sentence a question asks in when it first tells a situation ("I returned something
/// under the change-of-mind rules but my card has since expired. How will you pay the
/// refund?"): its last sentence ending in a question mark, after at least [`SITUATION_WORDS`]
/// words. `None` for one sentence, a short preamble, or no question mark (the last sentence
/// may be a sign-off). A question that seems to point back ("Does that refund go back to my
/// card?") is kept: "that" is as often a determiner as a pronoun.
pub fn asking_part(question: &str) -> Option<&str> {
    let sentences = split_sentences(question);
    let at = sentences.iter().rposition(|s| s.ends_with('?'))?;
    let situation: usize = sentences[..at].iter().map(|s| words(s).count()).sum();
    (situation >= SITUATION_WORDS).then_some(sentences[at])
}

/// Words that point back at something said before them ("is that still true?", "can it be
/// waived?"): a part opening with one asks about what was set aside.
const POINTING_BACK: &[&str] = &["that", "this", "it", "they", "those", "these", "there"];

/// What the question asks when it sets something aside ("I know you stopped doing lay-by, but
/// can I spread the cost?" asks "can I spread the cost"): its [`focus_parts`] as one text, as
/// written. `None` when nothing is set aside, when nothing is left, or when what is left points
/// back at what was set aside ("I heard you price match, is that still true?").
pub fn without_set_aside(question: &str) -> Option<String> {
    let (parts, set_aside) = focus(question);
    let asked = parts.join(", ");
    // Among its first words, as the subject ("is that still true?"), not a relative pronoun
    // further on ("... a product that turned out to be faulty").
    let points_back = words(&asked)
        .take(3)
        .any(|w| POINTING_BACK.contains(&w.as_str()));
    (set_aside && !content_words(&asked).is_empty() && !points_back).then_some(asked)
}

/// The focus parts as written, and whether anything was set aside.
fn focus(question: &str) -> (Vec<String>, bool) {
    // Cues are found in the lower-case form, at the same offsets when lower-casing keeps every
    // character's length (else the lower-case form is all there is).
    let lower = question.to_lowercase();
    let text = if lower.len() == question.len() {
        question
    } else {
        lower.as_str()
    };
    let mut set_aside = false;
    let parts = text
        .split([',', ';', ':', '.', '?', '!', '(', ')'])
        .flat_map(|part| split_on_word(part, "but"))
        .flat_map(|part| split_on_word(part, "so"))
        .filter_map(|part| {
            let padded = format!(" {} ", part.trim());
            let lower = padded.to_lowercase();
            if SET_ASIDE
                .iter()
                .any(|cue| lower.contains(&format!(" {cue} ")))
            {
                set_aside = true;
                return None;
            }
            let cut = SET_ASIDE_AFTER
                .iter()
                .filter_map(|cue| lower.find(&format!(" {cue} ")))
                .min();
            let kept = match cut {
                Some(at) => {
                    set_aside = true;
                    &padded[..at]
                }
                None => padded.as_str(),
            };
            Some(kept.trim().to_string()).filter(|k| !k.is_empty())
        })
        .collect();
    (parts, set_aside)
}

/// `text` split at each " word " written in any case (`text` lower-cases to the same length).
fn split_on_word<'a>(text: &'a str, word: &str) -> Vec<&'a str> {
    let lower = text.to_lowercase();
    let cue = format!(" {word} ");
    let mut parts = Vec::new();
    let mut start = 0;
    for (at, _) in lower.match_indices(&cue) {
        if at >= start {
            parts.push(&text[start..at]);
            start = at + cue.len();
        }
    }
    parts.push(&text[start..]);
    parts
}

/// The content words of what a question asks ([`focus_parts`]).
pub fn focus_words(question: &str) -> BTreeSet<String> {
    focus_parts(question)
        .iter()
        .flat_map(|part| content_words(part))
        .collect()
}

/// Tokens longer than this are noise (hashes, URLs).
const MAX_TOKEN_CHARS: usize = 40;

/// Texts whose stems are kept before the memo starts over (a bound: clause texts are few).
const STEM_MEMO_ENTRIES: usize = 50_000;

/// The stems of `text` as a set ([`analyze`]), memoised: a clause's text is analysed for every
/// question that retrieves it (coverage, sentence choice, the judge), and it never changes.
pub fn stem_set(text: &str) -> Arc<HashSet<String>> {
    static MEMO: OnceLock<Memo<String, Arc<HashSet<String>>>> = OnceLock::new();
    MEMO.get_or_init(|| Memo::new(STEM_MEMO_ENTRIES))
        .get_or_insert_with(text, || Arc::new(analyze(text).into_iter().collect()))
}

/// Lower-cased, English-stemmed (Porter2) tokens of `text`, split at every character that is
/// not a letter or a digit: what the lexical leg indexes and what "a text covers a word"
/// compares.
pub fn analyze(text: &str) -> Vec<String> {
    use rust_stemmers::{Algorithm, Stemmer};
    thread_local! {
        static STEMMER: Stemmer = Stemmer::create(Algorithm::English);
    }
    STEMMER.with(|stemmer| {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|t| !t.is_empty() && t.chars().count() <= MAX_TOKEN_CHARS)
            .map(|t| stemmer.stem(&t.to_lowercase()).into_owned())
            .collect()
    })
}

/// Lower-cased, stemmed content words: the vocabulary of lexical overlap.
pub fn terms(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .map(|w| w.replace('’', "'").trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

/// A deliberately light suffix stripper: enough to match "returns"/"returned"/"returning".
pub fn stem(word: &str) -> String {
    let w = word.strip_suffix("'s").unwrap_or(word);
    for (suffix, replacement, min_len) in [
        ("ies", "y", 4),
        ("sses", "ss", 4),
        ("ing", "", 5),
        ("ed", "", 4),
        ("es", "", 5),
        ("s", "", 3),
    ] {
        if w.len() > min_len && w.ends_with(suffix) && !(suffix == "s" && w.ends_with("ss")) {
            return format!("{}{}", &w[..w.len() - suffix.len()], replacement);
        }
    }
    w.to_string()
}

const NUMBER_WORDS: &[(&str, u32)] = &[
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("thirteen", 13),
    ("fourteen", 14),
    ("fifteen", 15),
    ("sixteen", 16),
    ("seventeen", 17),
    ("eighteen", 18),
    ("nineteen", 19),
    ("twenty", 20),
    ("thirty", 30),
    ("forty", 40),
    ("forty-five", 45),
    ("fifty", 50),
    ("sixty", 60),
    ("ninety", 90),
    ("hundred", 100),
];

/// Byte ranges of the numbers in `text`: digits with the `.` and `,` between them ("1,200.50").
pub(crate) fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len()
            && (bytes[i].is_ascii_digit()
                || ((bytes[i] == b'.' || bytes[i] == b',')
                    && i + 1 < bytes.len()
                    && bytes[i + 1].is_ascii_digit()))
        {
            i += 1;
        }
        spans.push((start, i));
    }
    spans
}

/// The numeric facts a text asserts (durations, amounts, percentages, counts), normalised so
/// that "30", "thirty" and "30.00" compare equal and "1,000" equals "1000".
pub fn numeric_facts(text: &str) -> BTreeSet<String> {
    let mut facts = BTreeSet::new();
    let bytes = text.as_bytes();
    for (start, i) in number_spans(text) {
        // Identifiers are not facts: "v4" (glued to a word), "sec-4.2" and "eu-v4" (a number
        // joined to a word by a dash), "4a" (glued to letters that are not a unit).
        let glued_before = start > 0 && bytes[start - 1].is_ascii_alphabetic();
        let identifier_dash =
            start >= 2 && bytes[start - 1] == b'-' && bytes[start - 2].is_ascii_alphabetic();
        let glued_after =
            i < bytes.len() && bytes[i].is_ascii_alphabetic() && !is_unit_suffix(&text[i..]);
        if !(glued_before || identifier_dash || glued_after) {
            facts.insert(normalize_number(&text[start..i]));
        }
    }
    for word in text.split(|c: char| !(c.is_alphabetic() || c == '-')) {
        let lower = word.to_lowercase();
        if let Some(n) = number_word(&lower) {
            facts.insert(n.to_string());
        }
    }
    facts
}

/// The kinds of quantity a text states (or a question asks for): a sentence that states the
/// kind asked for answers "how long" or "how much"; another number in it does not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QuantityKinds {
    pub duration: bool,
    pub money: bool,
    pub percent: bool,
    pub date: bool,
    pub count: bool,
}

impl QuantityKinds {
    pub fn any(&self) -> bool {
        self.duration || self.money || self.percent || self.date || self.count
    }

    /// Some kind in both.
    pub fn meets(&self, other: &QuantityKinds) -> bool {
        (self.duration && other.duration)
            || (self.money && other.money)
            || (self.percent && other.percent)
            || (self.date && other.date)
            || (self.count && other.count)
    }
}

const DURATION_UNITS: &[&str] = &[
    "second",
    "seconds",
    "minute",
    "minutes",
    "hour",
    "hours",
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "fortnight",
    "fortnights",
];
/// A currency sign: Unicode's currency symbols ($, ¢ to ¥, the Currency Symbols block with €,
/// ₹, ₱, ₺ ..., and the few outside it), not a list of the currencies one corpus uses.
fn is_currency_sign(c: char) -> bool {
    matches!(c,
        '$' | '\u{A2}'..='\u{A5}' | '\u{58F}' | '\u{60B}' | '\u{9F2}' | '\u{9F3}' | '\u{E3F}'
        | '\u{17DB}' | '\u{20A0}'..='\u{20CF}' | '\u{FDFC}' | '\u{FE69}' | '\u{FF04}'
        | '\u{FFE0}' | '\u{FFE1}' | '\u{FFE5}' | '\u{FFE6}')
}

/// ISO 4217 codes of the currencies in use, counted only when written in capitals ("AED 115",
/// "ARS 5.000"): in small letters several are words ("all", "top", "try", "cup").
const ISO_4217: &[&str] = &[
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT",
    "BGN", "BHD", "BIF", "BMD", "BND", "BOB", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD", "CAD",
    "CDF", "CHF", "CLP", "CNY", "COP", "CRC", "CUP", "CVE", "CZK", "DJF", "DKK", "DOP", "DZD",
    "EGP", "ERN", "ETB", "EUR", "FJD", "FKP", "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ",
    "GYD", "HKD", "HNL", "HTG", "HUF", "IDR", "ILS", "INR", "IQD", "IRR", "ISK", "JMD", "JOD",
    "JPY", "KES", "KGS", "KHR", "KMF", "KPW", "KRW", "KWD", "KYD", "KZT", "LAK", "LBP", "LKR",
    "LRD", "LSL", "LYD", "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR",
    "MWK", "MXN", "MYR", "MZN", "NAD", "NGN", "NIO", "NOK", "NPR", "NZD", "OMR", "PAB", "PEN",
    "PGK", "PHP", "PKR", "PLN", "PYG", "QAR", "RON", "RSD", "RUB", "RWF", "SAR", "SBD", "SCR",
    "SDG", "SEK", "SGD", "SHP", "SLE", "SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL", "THB",
    "TJS", "TMT", "TND", "TOP", "TRY", "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "UYU", "UZS",
    "VES", "VND", "VUV", "WST", "XAF", "XCD", "XOF", "XPF", "YER", "ZAR", "ZMW", "ZWL",
];

/// Days of the week, lower-cased.
pub(crate) const WEEKDAYS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

const CURRENCY_WORDS: &[&str] = &[
    "usd", "eur", "gbp", "jpy", "inr", "cad", "aud", "nzd", "sgd", "zar", "brl", "mxn", "chf",
    "rs", "dollar", "dollars", "euro", "euros", "pound", "pounds", "rupee", "rupees", "real",
    "reais", "yen", "rand", "peso", "pesos", "franc", "francs", "cents", "pence",
];
/// Month names and their abbreviations.
pub(crate) const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
];

/// The kind of one quantity, read from the words around its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum QuantityKind {
    Duration,
    Money,
    Percent,
    Date,
    Count,
}

/// One number of a text, normalised, with what it quantifies.
#[derive(Debug)]
struct Quantity {
    number: String,
    kind: QuantityKind,
    /// A duration's unit, as [`DURATION_UNITS`] spells it.
    unit: Option<&'static str>,
    /// Time measured back from now ("2 weeks ago", "in the last 10 days"), not a term.
    elapsed: bool,
}

/// The value of a number word ("thirty" is 30).
fn number_word(word: &str) -> Option<u32> {
    NUMBER_WORDS
        .iter()
        .find(|(w, _)| w.eq_ignore_ascii_case(word))
        .map(|(_, n)| *n)
}

/// Each number of `text` (digits or a number word): a unit of time after it (a duration), a
/// currency sign or word around it (money), a percent sign or "per cent" (percent), a month
/// name next to it (a date), else a count.
fn quantities(text: &str) -> Vec<Quantity> {
    let raw: Vec<&str> = text
        .split_whitespace()
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric() && !is_currency_sign(c) && c != '%'))
        .filter(|t| !t.is_empty())
        .collect();
    let tokens: Vec<String> = raw.iter().map(|t| t.to_lowercase()).collect();
    let iso_code = |i: usize| {
        raw.get(i).is_some_and(|t| {
            t.len() == 3 && t.bytes().all(|b| b.is_ascii_uppercase()) && ISO_4217.contains(t)
        })
    };
    let value = |t: &str| match number_spans(t).first() {
        Some(&(start, end)) => Some(normalize_number(&t[start..end])),
        None => number_word(t).map(|n| n.to_string()),
    };
    let currency = |t: &str| {
        t.chars().any(is_currency_sign) || CURRENCY_WORDS.contains(&t.trim_end_matches('.'))
    };
    let mut found = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let Some(number) = value(token) else {
            continue;
        };
        let next = |k: usize| tokens.get(i + k).map(String::as_str).unwrap_or("");
        let prev = if i > 0 { tokens[i - 1].as_str() } else { "" };
        let unit = (1..=3).find_map(|k| {
            DURATION_UNITS
                .iter()
                .find(|u| **u == next(k))
                .map(|u| (k, *u))
        });
        let kind = if token.contains('%')
            || next(1) == "%"
            || next(1) == "percent"
            || (next(1) == "per" && next(2) == "cent")
        {
            QuantityKind::Percent
        } else if currency(token)
            || currency(prev)
            || currency(next(1))
            || (i > 0 && iso_code(i - 1))
            || iso_code(i + 1)
        {
            QuantityKind::Money
        } else if unit.is_some() {
            QuantityKind::Duration
        } else if MONTHS.contains(&prev) || MONTHS.contains(&next(1)) {
            QuantityKind::Date
        } else {
            QuantityKind::Count
        };
        let unit = unit.filter(|_| kind == QuantityKind::Duration);
        let elapsed = unit.is_some_and(|(k, _)| next(k + 1) == "ago")
            || kind == QuantityKind::Duration && matches!(prev, "last" | "past" | "previous");
        found.push(Quantity {
            number,
            kind,
            unit: unit.map(|(_, u)| u),
            elapsed,
        });
    }
    found
}

/// What kinds of quantity `text` states: each number (digits or a number word) read with its
/// neighbours, a unit of time after it (a duration), a currency sign or word around it (money),
/// a percent sign or "per cent" (percent), a month name next to it (a date), else a count.
pub fn stated_quantities(text: &str) -> QuantityKinds {
    let mut kinds = QuantityKinds::default();
    for quantity in quantities(text) {
        match quantity.kind {
            QuantityKind::Duration => kinds.duration = true,
            QuantityKind::Money => kinds.money = true,
            QuantityKind::Percent => kinds.percent = true,
            QuantityKind::Date => kinds.date = true,
            QuantityKind::Count => kinds.count = true,
        }
    }
    kinds
}

/// A term a rule sets in numbers: an amount of time, of money, or a percentage. Compared by
/// kind, number and unit: "30 days" does not state "30 %" nor "30 months"; a time is counted
/// in the smaller of two units that convert exactly ("2 years" is "24 months", "2 weeks" is
/// "14 days"; days and months do not convert).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Figure {
    kind: QuantityKind,
    number: String,
    /// A duration's unit ("days", "months", "hours", "minutes", "seconds"); none otherwise.
    unit: Option<&'static str>,
}

impl Figure {
    fn of(quantity: Quantity) -> Figure {
        let (factor, unit) = match quantity.unit.map(|u| u.trim_end_matches('s')) {
            Some("day") => (1.0, Some("days")),
            Some("week") => (7.0, Some("days")),
            Some("fortnight") => (14.0, Some("days")),
            Some("month") => (1.0, Some("months")),
            Some("year") => (12.0, Some("months")),
            Some("hour") => (1.0, Some("hours")),
            Some("minute") => (1.0, Some("minutes")),
            Some("second") => (1.0, Some("seconds")),
            _ => (1.0, None),
        };
        let number = match quantity.number.parse::<f64>() {
            Ok(n) if factor != 1.0 => normalize_number(&format!("{:.2}", n * factor)),
            _ => quantity.number,
        };
        Figure {
            kind: quantity.kind,
            number,
            unit,
        }
    }
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.kind, self.unit) {
            (QuantityKind::Percent, _) => write!(f, "{} %", self.number),
            (_, Some(unit)) => write!(f, "{} {unit}", self.number),
            _ => write!(f, "an amount of {}", self.number),
        }
    }
}

/// Every figure `text` states: durations, amounts of money and percentages ("a 90-day
/// window", "a six-month guarantee", "$4.99", "fifteen percent", "in the last 14 days"). Not
/// dates or counts ("section 3.3", "effective 1 April", "3 items").
pub(crate) fn stated_figures(text: &str) -> BTreeSet<Figure> {
    figures(text).map(|(figure, _)| figure).collect()
}

/// The figures `text` sets as terms: those it states, but not time measured back from now
/// ("updated 2 weeks ago", "in the last 10 days"), which is when something happened.
pub(crate) fn term_figures(text: &str) -> BTreeSet<Figure> {
    figures(text)
        .filter(|(_, elapsed)| !elapsed)
        .map(|(figure, _)| figure)
        .collect()
}

/// Each word of `text` as a byte span, without the punctuation around it.
fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let mut at = 0;
    text.split_inclusive(char::is_whitespace)
        .map(|token| {
            let start = token.len()
                - token
                    .trim_start_matches(|c: char| !c.is_alphanumeric())
                    .len();
            let end = token.trim_end_matches(|c: char| !c.is_alphanumeric()).len();
            let span = (at + start, at + end.max(start));
            at += token.len();
            span
        })
        .collect()
}

/// Whether the word before or after the `k`th of `spans` is a number.
fn beside_a_number(text: &str, spans: &[(usize, usize)], k: usize) -> bool {
    let number = |j: usize| {
        spans
            .get(j)
            .is_some_and(|&(s, e)| text[s..e].starts_with(|c: char| c.is_ascii_digit()))
    };
    k.checked_sub(1).is_some_and(number) || number(k + 1)
}

/// The currency codes `text` writes in capitals next to a number ("AED 115"), for
/// [`with_currency_codes`].
pub(crate) fn capital_currency_codes(text: &str) -> Vec<&str> {
    let spans = word_spans(text);
    (0..spans.len())
        .filter(|&k| beside_a_number(text, &spans, k))
        .map(|k| &text[spans[k].0..spans[k].1])
        .filter(|word| ISO_4217.contains(word))
        .collect()
}

/// `lower`, a lower-cased text, with `codes` (the [`capital_currency_codes`] of the text it was
/// read from) in capitals again where they stand next to a number, so that their amounts read
/// as money. A code only in capitals elsewhere ("I called ALL week") leaves "all 3 items" a
/// count.
pub(crate) fn with_currency_codes(lower: &str, codes: &[&str]) -> String {
    if codes.is_empty() {
        return lower.to_string();
    }
    let spans = word_spans(lower);
    let mut out = lower.to_string();
    for (k, &(start, end)) in spans.iter().enumerate() {
        let word = &lower[start..end];
        let code = codes.iter().find(|code| code.eq_ignore_ascii_case(word));
        if let Some(code) = code.filter(|_| beside_a_number(lower, &spans, k)) {
            // Same length: an ASCII code replaces its ASCII lower-case.
            out.replace_range(start..end, code);
        }
    }
    out
}

/// Each figure of `text`, and whether it is time measured back from now.
fn figures(text: &str) -> impl Iterator<Item = (Figure, bool)> {
    // "a 90-day window", "a six-month guarantee": a unit joined to its number by a dash is
    // read as the next word ("forty-five" stays one number).
    let spaced: Vec<String> = text
        .split_whitespace()
        .map(|token| match token.split_once('-') {
            Some((number, unit))
                if (number.ends_with(|c: char| c.is_ascii_digit())
                    || number_word(number).is_some())
                    && DURATION_UNITS.contains(
                        &unit
                            .trim_end_matches(|c: char| !c.is_alphabetic())
                            .to_lowercase()
                            .as_str(),
                    ) =>
            {
                format!("{number} {unit}")
            }
            _ => token.to_string(),
        })
        .collect();
    quantities(&spaced.join(" "))
        .into_iter()
        .filter(|q| {
            matches!(
                q.kind,
                QuantityKind::Duration | QuantityKind::Money | QuantityKind::Percent
            )
        })
        .map(|q| {
            let elapsed = q.elapsed;
            (Figure::of(q), elapsed)
        })
}

/// What quantities a question asks for ("how long" a duration or a date, "how much" money...).
pub fn asked_quantities(question: &str) -> QuantityKinds {
    let lower = format!(" {} ", question.to_lowercase());
    let has = |cues: &[&str]| cues.iter().any(|c| lower.contains(c));
    let duration = has(&[
        "how long",
        "how quickly",
        "how soon",
        "how fast",
        "how many days",
        "how many weeks",
        "how many months",
        "how many hours",
        "how many years",
        "how many business days",
        "how many working days",
        "period",
        "window",
        "deadline",
        "time limit",
        "timeframe",
        "time frame",
        "expire",
        "expiry",
        " valid ",
        "notice",
        "within how",
        "days",
        "weeks",
        "months",
    ]);
    let date = has(&[
        " when ",
        "until when",
        "by when",
        "what date",
        "which date",
        "expire",
        "expiry",
    ]);
    let money = has(&[
        "how much",
        " cost",
        " price",
        " fee",
        "fees",
        " charge",
        "surcharge",
        " pay ",
        " paid",
        "amount",
        "threshold",
        "minimum order",
        "spend",
        " free ",
    ]);
    let percent = has(&["percent", "per cent", "percentage", "%", " rate"]);
    let count = !duration && !money && has(&["how many"]);
    QuantityKinds {
        duration,
        money,
        percent: percent || (money && has(&[" fee", "fees", "surcharge", "deduct"])),
        date,
        count,
    }
}

fn is_unit_suffix(rest: &str) -> bool {
    ["st ", "nd ", "rd ", "th ", "h ", "am", "pm", "%"]
        .iter()
        .any(|u| rest.starts_with(u))
}

pub(crate) fn normalize_number(raw: &str) -> String {
    // "1,000" → "1000" (thousands), "9,99" → "9.99" (decimal comma), "1.000,00" → "1000"
    // (the last separator of a mixed number is the decimal mark), "30.00" → "30".
    let plain = match (raw.rfind('.'), raw.rfind(',')) {
        (Some(dot), Some(comma)) if comma > dot => raw.replace('.', "").replace(',', "."),
        (Some(_), Some(_)) => raw.replace(',', ""),
        (None, Some(_)) if raw.split(',').skip(1).all(|g| g.len() == 3) => raw.replace(',', ""),
        (None, Some(_)) => raw.replace(',', "."),
        _ if raw.matches('.').count() > 1 => raw.replace('.', ""),
        _ => raw.to_string(),
    };
    let plain = match plain.split_once('.') {
        Some((int, frac)) if frac.bytes().all(|b| b == b'0') => int.to_string(),
        Some((int, frac)) => format!("{int}.{}", frac.trim_end_matches('0')),
        None => plain,
    };
    let trimmed = plain.trim_start_matches('0');
    if trimmed.is_empty() || trimmed.starts_with('.') {
        format!("0{trimmed}")
    } else {
        trimmed.to_string()
    }
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
