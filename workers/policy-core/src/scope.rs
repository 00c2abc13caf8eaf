//! Is a question about what this corpus covers at all? A question that names another
//! organisation ("Amazon's return window", "bought it at Walmart") or a jurisdiction no region of
//! the corpus serves ("under UK rules") is out of scope, however well a clause of ours matches
//! its other words: answering it would present our policy as theirs.
//!
//! Names are found from their shape (capitalised or mixed-case words, not at the start of a
//! sentence) and the grammar around them (possessive, "at/from/on X", "does X charge",
//! "X membership"); a name the region's own policy text uses is ours. Countries come from a
//! gazetteer of the world's countries (ISO 3166 codes), compared with the regions the manifest
//! serves, so a corpus for Canada treats "UK rules" and "US rules" alike.

use std::collections::HashSet;

use crate::text::{MONTHS, WEEKDAYS};
use std::fmt;

/// Why a question is outside what the corpus covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Foreign {
    /// Another business named as the seller or the owner of a policy.
    Organisation(String),
    /// A country (or a group of them) that no region of the corpus serves.
    Jurisdiction(String),
}

impl fmt::Display for Foreign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Foreign::Organisation(name) => write!(
                f,
                "the question is about another organisation ({name}), not covered by this policy"
            ),
            Foreign::Jurisdiction(name) => write!(
                f,
                "the question is about a jurisdiction ({name}) that no policy region covers"
            ),
        }
    }
}

/// What one region's policy knows: the words of every version of the region, and the
/// jurisdictions the corpus serves.
#[derive(Debug, Clone, Default)]
pub struct RegionScope {
    /// Lower-case words of the region's clauses and titles (every version).
    words: HashSet<String>,
    /// Initials of the capitalised terms the policy defines ("Cash on Delivery" → `cod`), so
    /// that "COD" is the policy's own, not a business.
    initialisms: HashSet<String>,
    /// Words of the other regions' policies: a programme named there ("Second Ascent") is ours,
    /// only not in this region (a topic the version lacks, not another business).
    elsewhere: HashSet<String>,
    /// ISO 3166 alpha-2 codes (lower case) served by some region of the corpus, `eu` expanded
    /// to its member states.
    served: HashSet<String>,
    /// Countries and states the region's policy names, as reported ("United Kingdom" for
    /// "Britain" or "UK"; "Baja California, Mexico"): naming Baja California is not naming
    /// California.
    places: HashSet<String>,
    /// Lower-case words the policy writes only capitalised inside a sentence and in no title:
    /// names of places and people, not its defined terms ("Order") or programmes, which it
    /// also writes in lower case or names in a title.
    names: HashSet<String>,
}

impl RegionScope {
    /// `texts`: the region's clause texts and titles; `regions`: every region code of the
    /// manifest (`us`, `eu`, ...).
    pub fn new<'a>(
        texts: impl IntoIterator<Item = &'a str>,
        regions: impl IntoIterator<Item = &'a str>,
    ) -> RegionScope {
        let texts: Vec<&str> = texts.into_iter().collect();
        let words = texts
            .iter()
            .flat_map(|t| words(t).map(|(w, _)| w.to_lowercase()))
            .collect();
        let initialisms = texts.iter().flat_map(|t| initialisms(t)).collect();
        let places = texts
            .iter()
            .flat_map(|t| {
                let tokens = tokenize(t);
                countries_named(&tokens)
                    .into_iter()
                    .map(|(_, _, _, place)| place)
                    .collect::<Vec<_>>()
            })
            .collect();
        let (mut capitalised, mut lower) = (HashSet::new(), HashSet::new());
        for token in texts.iter().flat_map(|t| tokenize(t)) {
            if token.text.starts_with(char::is_lowercase) {
                lower.insert(token.lower());
            } else if token.name_shaped() && !token.sentence_start {
                capitalised.insert(token.lower());
            }
        }
        let names = capitalised.difference(&lower).cloned().collect();
        let mut served = HashSet::new();
        for region in regions {
            let region = region.to_lowercase();
            if region == "eu" {
                served.extend(
                    COUNTRIES
                        .iter()
                        .filter(|c| c.eu)
                        .map(|c| c.code.to_string()),
                );
            }
            // Region codes that are not ISO 3166: the United Kingdom is `gb`, Greece `gr`.
            match region.as_str() {
                "uk" => served.insert("gb".to_string()),
                "el" => served.insert("gr".to_string()),
                _ => false,
            };
            served.insert(region);
        }
        RegionScope {
            words,
            initialisms,
            elsewhere: HashSet::new(),
            served,
            places,
            names,
        }
    }

    /// The same scope knowing the region's clause titles: a name in a title is a programme or
    /// a topic of the policy ("5.3 What is a HomeCover Plan?"), not a place.
    pub fn knowing_titles<'a>(mut self, titles: impl IntoIterator<Item = &'a str>) -> Self {
        for title in titles {
            for (word, _) in words(title) {
                self.names.remove(&word.to_lowercase());
            }
        }
        self
    }

    /// The same scope knowing the words of the corpus's other regions.
    pub fn knowing_elsewhere<'a>(mut self, texts: impl IntoIterator<Item = &'a str>) -> Self {
        self.elsewhere = texts
            .into_iter()
            .flat_map(|t| words(t).map(|(w, _)| w.to_lowercase()))
            .collect();
        self
    }

    /// The region's policy text uses this word (any case), or it is the initialism of a term
    /// the policy defines.
    pub fn knows(&self, word: &str) -> bool {
        let lower = word.to_lowercase();
        let all_caps = word.len() >= 2 && word.chars().all(|c| c.is_ascii_uppercase());
        self.words.contains(&lower) || (all_caps && self.initialisms.contains(&lower))
    }

    /// Another region's policy uses this word (any case).
    pub fn known_elsewhere(&self, word: &str) -> bool {
        self.elsewhere.contains(&word.to_lowercase())
    }

    /// The question with the places it names that the policy names too replaced by a neutral
    /// word, and those places: the policy names Guadalajara for its delivery times, which brings
    /// "a restaurant in Guadalajara" closer to that clause without making it a question about
    /// deliveries. A place is a run of names after "in", "to", "from" ... ("from Monterrey to
    /// Mexico City") whose every word the policy writes only as a name; a programme it names in a
    /// title or a term it also writes in lower case is what a question is about ("included in
    /// HomeCover", "upgrade to Express"). `None` when the question names no such place or is
    /// about nothing else ("How long to Monterrey?").
    pub fn without_known_places(&self, question: &str) -> Option<(String, Vec<String>)> {
        const SOMEWHERE: &str = "somewhere";
        let tokens = tokenize(question);
        let offset = |token: &Token<'_>| {
            // Tokens are slices of `question`, in order.
            let start = token.text.as_ptr() as usize - question.as_ptr() as usize;
            debug_assert!(question.get(start..start + token.text.len()) == Some(token.text));
            start
        };
        let name = |token: &Token<'_>| {
            token.name_shaped()
                && !is_stopword(token.bare())
                && (!token.sentence_start || token.distinctive())
        };
        let (mut kept, mut places, mut at, mut i) = (String::new(), Vec::new(), 0, 0);
        while i < tokens.len() {
            let opens = i > 0
                && !tokens[i - 1].ends_phrase
                && LOCATIVES.contains(&tokens[i - 1].lower().as_str());
            if !(opens && name(&tokens[i])) {
                i += 1;
                continue;
            }
            let mut end = i + 1;
            while end < tokens.len() && !tokens[end - 1].ends_phrase && name(&tokens[end]) {
                end += 1;
            }
            let run = &tokens[i..end];
            if run.iter().all(|t| self.names.contains(&t.lower())) {
                let (start, last) = (offset(&run[0]), &run[run.len() - 1]);
                kept.push_str(&question[at..start]);
                kept.push_str(SOMEWHERE);
                at = offset(last) + last.text.len();
                let place = question[start..at].to_string();
                if !places.contains(&place) {
                    places.push(place);
                }
            }
            i = end;
        }
        kept.push_str(&question[at..]);
        let about_more = crate::text::content_words(&kept)
            .iter()
            .any(|w| w != SOMEWHERE);
        (!places.is_empty() && about_more).then_some((kept, places))
    }

    /// Everything the question names that the corpus does not cover, jurisdictions first.
    pub fn foreign(&self, question: &str) -> Vec<Foreign> {
        let tokens: Vec<Token<'_>> = tokenize(question);
        let mut found = Vec::new();
        let mut in_country = vec![false; tokens.len()];
        for (start, len, code, name) in countries_named(&tokens) {
            in_country[start..start + len]
                .iter_mut()
                .for_each(|t| *t = true);
            let mentioned_by_policy = self.places.contains(&name);
            if !self.served.contains(code)
                && !mentioned_by_policy
                && !origin_of_goods(&tokens, start)
            {
                let name = Foreign::Jurisdiction(name);
                if !found.contains(&name) {
                    found.push(name);
                }
            }
        }
        for domain in web_domains(question) {
            let name = domain.split('.').next().unwrap_or_default();
            if !self.knows(name) {
                found.push(Foreign::Organisation(domain));
            }
        }
        for owner in third_parties(&tokens) {
            found.push(Foreign::Organisation(owner));
        }
        for (start, end) in name_runs(&tokens) {
            // A country inside a name is part of it ("Decathlon India"): the rest is the name.
            let mut end = end;
            while end > start && in_country[end - 1] {
                end -= 1;
            }
            if in_country[start..end].iter().any(|&c| c) || start == end {
                continue;
            }
            let run = &tokens[start..end];
            // A name made only of words our own policy uses is ours ("Northwind Plus"), here
            // or in another region.
            let ours = |t: &Token<'_>| {
                self.knows(t.bare())
                    || self.elsewhere.contains(&t.bare().to_lowercase())
                    || is_stopword(t.bare())
            };
            if run.iter().all(ours) {
                continue;
            }
            if acts_as_organisation(&tokens, start, end) {
                let name = run.iter().map(|t| t.bare()).collect::<Vec<_>>().join(" ");
                found.push(Foreign::Organisation(name));
            }
        }
        found
    }
}

/// Generic top-level domains a shop's web address ends in; a country's code ([`COUNTRIES`],
/// and "uk") is one too.
const WEB_DOMAINS: &[&str] = &["com", "net", "org", "shop", "store", "co", "io", "uk"];

fn is_top_level_domain(part: &str) -> bool {
    let part = part.to_lowercase();
    WEB_DOMAINS.contains(&part.as_str()) || COUNTRIES.iter().any(|c| c.code == part)
}

/// Web addresses written in the question ("Amazon.ca", "takealot.com", "noon.ae"): a seller
/// by name. Not two words a missing space joined ("thanks.so", "ok.is"): the name is no
/// function word.
fn web_domains(question: &str) -> Vec<String> {
    question
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | '\'' | '"' | '?' | '!'))
        .map(|w| w.trim_end_matches(['.', ':', ';']))
        .filter(|w| {
            let parts: Vec<&str> = w.split('.').collect();
            parts.len() >= 2
                && parts[0].len() >= 2
                && parts[0].chars().any(char::is_alphabetic)
                && parts[0].chars().all(|c| c.is_alphanumeric() || c == '-')
                && !is_stopword(parts[0])
                && !crate::text::is_function_word(&parts[0].to_lowercase())
                && parts[1..].iter().all(|p| is_top_level_domain(p))
        })
        .map(str::to_string)
        .collect()
}

/// Initials of the capitalised terms in `text`: runs of two to five words that start and end
/// with a capital letter (small connecting words allowed between: "Cash on Delivery").
fn initialisms(text: &str) -> Vec<String> {
    let tokens: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let capital = |w: &str| w.starts_with(|c: char| c.is_uppercase());
    let mut found = Vec::new();
    for start in 0..tokens.len() {
        if !capital(tokens[start]) {
            continue;
        }
        for len in 2..=5 {
            let Some(run) = tokens.get(start..start + len) else {
                break;
            };
            let joined = run[1..len - 1].iter().all(|w| {
                capital(w) || ["on", "of", "and", "for", "the", "to", "in", "de"].contains(w)
            });
            if !joined {
                break;
            }
            if capital(run[len - 1]) {
                found.push(
                    run.iter()
                        .filter_map(|w| w.chars().next())
                        .flat_map(char::to_lowercase)
                        .collect(),
                );
            }
        }
    }
    found
}

/// What a policy rules on: a noun after one of these (through "on", "for", "of"), or the object
/// of one used as a verb, is what the rule would apply to.
const POLICY_HEADS: &[&str] = &[
    "warranty",
    "warranties",
    "guarantee",
    "return",
    "returns",
    "refund",
    "refunds",
    "exchange",
    "exchanges",
    "policy",
    "policies",
    "delivery",
    "shipping",
    "price",
    "prices",
    "discount",
    "discounts",
    "repair",
    "repairs",
    "cover",
    "coverage",
    "protection",
    "rules",
    "terms",
];
/// Verbs whose object is the thing a rule applies to ("return prescription sunglasses").
const POLICY_VERBS: &[&str] = &["return", "refund", "exchange", "repair", "cover", "insure"];
/// Words that may open a noun phrase before its nouns.
const DETERMINERS: &[&str] = &[
    "a",
    "an",
    "the",
    "my",
    "our",
    "your",
    "this",
    "these",
    "those",
    "that",
    "some",
    "any",
    "all",
    "two",
    "three",
    "new",
    "used",
    "old",
    "second-hand",
];
/// Words that end a noun phrase.
const PHRASE_ENDS: &[&str] = &[
    "and",
    "or",
    "but",
    "if",
    "when",
    "that",
    "which",
    "who",
    "you",
    "i",
    "we",
    "to",
    "in",
    "on",
    "for",
    "of",
    "at",
    "from",
    "with",
    "by",
    "after",
    "before",
    "within",
    "is",
    "are",
    "was",
    "were",
    "do",
    "does",
    "did",
    "can",
    "could",
    "will",
    "would",
    "bought",
    "booked",
    "ordered",
    "purchased",
    "get",
    "got",
];

/// The things a question asks a rule about that the version in force never mentions and has
/// no equivalent for ("the warranty on sofas", "the refund policy for flights", "return
/// prescription sunglasses", "the e-bikes you sell"): not a product or service of this policy.
/// `unknown` says whether a word is unknown to the version with no equivalent (the query
/// expansion's verdict). Each noun phrase is judged by its last word, the thing itself.
pub fn uncovered_subjects(question: &str, unknown: &dyn Fn(&str) -> bool) -> Vec<String> {
    let lower = question.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
        .map(|t| t.trim_matches(['-', '\'']))
        .filter(|t| !t.is_empty())
        .collect();
    // Where a thing a rule applies to starts.
    let mut starts = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        // "of" right after the head only ("the refund policy of ..."): "return a tub of ..."
        // is an amount of a thing (below).
        let after_head = (["on", "for"].contains(t)
            && tokens[i.saturating_sub(4)..i]
                .iter()
                .any(|w| POLICY_HEADS.contains(w)))
            || (*t == "of" && i > 0 && POLICY_HEADS.contains(&tokens[i - 1]));
        let object_of_verb = POLICY_VERBS.contains(t)
            && i > 0
            && ["i", "we", "you", "to", "can", "could", "do", "will"].contains(&tokens[i - 1]);
        if after_head || object_of_verb {
            starts.push(i + 1);
        }
        // "the e-bikes you sell": the phrase before it.
        if *t == "you"
            && tokens
                .get(i + 1)
                .is_some_and(|v| ["sell", "stock", "carry", "offer"].contains(v))
        {
            let begin = tokens[..i]
                .iter()
                .rposition(|w| DETERMINERS.contains(w) || PHRASE_ENDS.contains(w))
                .map_or(0, |p| p + 1);
            if begin < i {
                starts.push(begin);
            }
        }
    }
    let mut found = Vec::new();
    for start in starts {
        let mut at = start;
        while tokens.get(at).is_some_and(|t| DETERMINERS.contains(t)) {
            at += 1;
        }
        // Conjoined phrases ("sofas and dining tables") are each a thing.
        loop {
            let phrase: Vec<&str> = tokens[at.min(tokens.len())..]
                .iter()
                .take_while(|t| !PHRASE_ENDS.contains(t))
                .take(3)
                .copied()
                .collect();
            // "a tub of flea tablets", "a pair of poles": a container, a measure or a part is
            // not the thing; and what follows "of" is judged neither, because an amount of a
            // thing is how customers name what they bought, in words of their own (judging it
            // escalated a question about a pair of poles an outdoor shop sells).
            if !phrase.is_empty() && tokens.get(at + phrase.len()) == Some(&"of") {
                break;
            }
            let Some(head) = phrase
                .iter()
                .rev()
                .flat_map(|t| crate::text::content_words(t))
                .next()
            else {
                break;
            };
            if unknown(&head) && !found.contains(&head) {
                found.push(head);
            }
            at += phrase.len();
            if tokens.get(at) == Some(&"and") || tokens.get(at) == Some(&"or") {
                at += 1;
                while tokens.get(at).is_some_and(|t| DETERMINERS.contains(t)) {
                    at += 1;
                }
                continue;
            }
            break;
        }
    }
    found
}

/// Content words a phrase around an unknown word keeps at most.
const PHRASE_WORDS: usize = 4;

/// The phrases of a question that hold a word `unknown` flags: the run of content words the
/// word stands in ("booked return flights", "sick leave"), at most [`PHRASE_WORDS`] long and
/// starting no earlier than needed to keep the word. A phrase says what it is about far
/// better than its word alone ("leave" of a job, not of a parcel). `unknown` gets lower-case
/// content words ([`crate::text::content_words`]) not written as names.
pub fn phrases_around(question: &str, unknown: &dyn Fn(&str) -> bool) -> Vec<String> {
    // Each run holds its words and whether each is written as a name.
    let mut runs: Vec<Vec<(&str, bool)>> = vec![Vec::new()];
    let mut sentence_start = true;
    for raw in question.split_whitespace() {
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
        // "[email]", "[iban]": a redaction's placeholder, not the customer's word.
        if raw.starts_with('[') {
            runs.push(Vec::new());
            continue;
        }
        let token = Token {
            text: word,
            sentence_start,
            ends_phrase: false,
        };
        sentence_start = raw.ends_with(['.', '?', '!']);
        if crate::text::content_words(word).is_empty() {
            runs.push(Vec::new());
            continue;
        }
        let name = token.distinctive() || (token.name_shaped() && !token.sentence_start);
        runs.last_mut()
            .expect("one run at least")
            .push((word, name));
        if raw.ends_with([',', '.', ';', ':', '?', '!', ')', '"']) {
            runs.push(Vec::new());
        }
    }
    let mut found: Vec<String> = Vec::new();
    for run in runs {
        // A name ("Chase Visa", "ING") is judged by what names are (`RegionScope::foreign`).
        let Some(first) = run.iter().position(|&(w, name)| {
            !name && crate::text::content_words(w).iter().any(|c| unknown(c))
        }) else {
            continue;
        };
        let run: Vec<&str> = run.iter().map(|&(w, _)| w).collect();
        let start = first.min(run.len().saturating_sub(PHRASE_WORDS));
        let phrase = run[start..run.len().min(start + PHRASE_WORDS)]
            .join(" ")
            .to_lowercase();
        if !found.contains(&phrase) {
            found.push(phrase);
        }
    }
    found
}

/// A word of the question with what surrounds it.
#[derive(Debug, Clone, Copy)]
struct Token<'a> {
    text: &'a str,
    /// First word of a sentence (capitalised by convention, not as a name).
    sentence_start: bool,
    /// Punctuation (other than an apostrophe) right after it: a name cannot continue past it.
    ends_phrase: bool,
}

impl<'a> Token<'a> {
    /// Without a possessive ending.
    fn bare(&self) -> &'a str {
        possessive_stem(self.text).unwrap_or(self.text)
    }

    fn possessive(&self) -> bool {
        possessive_stem(self.text).is_some()
    }

    fn lower(&self) -> String {
        self.bare().to_lowercase()
    }

    /// Written like a name: capitalised, or with a capital inside ("eBay", "7-Eleven"), and
    /// not the pronoun I.
    fn name_shaped(&self) -> bool {
        let word = self.bare();
        let mut chars = word.chars();
        let first = chars.next();
        let inner_capital = word.chars().skip(1).any(char::is_uppercase);
        let capitalised = first.is_some_and(char::is_uppercase);
        let pronoun = matches!(word, "I" | "I'm" | "I'd" | "I've" | "I'll" | "OK");
        let lower = word.to_lowercase();
        let calendar = CALENDAR.contains(&lower.as_str())
            || WEEKDAYS.contains(&lower.as_str())
            || MONTHS.contains(&lower.as_str());
        !pronoun
            && !calendar
            && (capitalised || inner_capital)
            && word.chars().any(char::is_alphabetic)
    }

    /// Shaped like a name even at the start of a sentence ("IKEA", "eBay").
    fn distinctive(&self) -> bool {
        let word = self.bare();
        let letters: Vec<char> = word.chars().filter(|c| c.is_alphabetic()).collect();
        let all_caps = letters.len() >= 2 && letters.iter().all(|c| c.is_uppercase());
        let inner_capital = word.chars().skip(1).any(char::is_uppercase);
        all_caps || inner_capital || self.possessive()
    }
}

fn possessive_stem(word: &str) -> Option<&str> {
    ["'s", "’s", "s'", "s’"]
        .iter()
        .find_map(|end| word.strip_suffix(end).filter(|s| !s.is_empty()))
        // "There's", "It's", "Let's": a contraction, not a possessive.
        .filter(|stem| !CONTRACTED.contains(&stem.to_lowercase().as_str()))
        .map(|stem| {
            // "Walmarts'" keeps its s; "Amazon's" loses the 's.
            if word.ends_with("s'") || word.ends_with("s’") {
                &word[..stem.len() + 1]
            } else {
                stem
            }
        })
}

/// Words with their position in their sentence. Apostrophes, hyphens and digits stay inside a
/// word ("Amazon's", "7-Eleven").
fn tokenize(text: &str) -> Vec<Token<'_>> {
    let mut tokens: Vec<Token<'_>> = Vec::new();
    let mut sentence_start = true;
    for (word, after) in words(text) {
        tokens.push(Token {
            text: word,
            sentence_start,
            // "&" joins a name ("Ace & Tate", "Marks & Spencer").
            ends_phrase: after.is_some_and(|c| !c.is_alphanumeric() && c != '&'),
        });
        sentence_start = matches!(after, Some('.' | '?' | '!' | ':' | ';'));
    }
    tokens
}

/// Each word of `text` and the first non-word character after it.
fn words(text: &str) -> impl Iterator<Item = (&str, Option<char>)> {
    let is_word = |c: char| c.is_alphanumeric() || matches!(c, '\'' | '’' | '-' | '&');
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest.find(is_word)?;
        let tail = &rest[start..];
        let end = tail.find(|c: char| !is_word(c)).unwrap_or(tail.len());
        let word = tail[..end].trim_matches(|c| matches!(c, '\'' | '’' | '-' | '&'));
        rest = &tail[end..];
        let after = rest.trim_start_matches(' ').chars().next();
        Some((word, after))
    })
    .filter(|(w, _)| !w.is_empty())
}

/// Prepositions a place follows ("a restaurant in Guadalajara", "from Auckland to Rotorua").
const LOCATIVES: &[&str] = &[
    "in",
    "to",
    "from",
    "near",
    "around",
    "across",
    "outside",
    "throughout",
    "into",
];

/// Spans of consecutive name-shaped words, without a sentence's ordinary first word.
fn name_runs(tokens: &[Token<'_>]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        let starts_name = t.name_shaped()
            && !is_stopword(t.bare())
            && (!t.sentence_start || t.distinctive() || continues_name(tokens, i));
        if !starts_name {
            i += 1;
            continue;
        }
        let mut end = i + 1;
        while end < tokens.len()
            && !tokens[end - 1].ends_phrase
            && !tokens[end - 1].possessive()
            && tokens[end].name_shaped()
            && !tokens[end].sentence_start
        {
            end += 1;
        }
        let next = tokens.get(end).map(Token::lower);
        let holiday = next.as_deref().is_some_and(|w| HOLIDAY_NOUNS.contains(&w));
        if !holiday && !names_our_branch(tokens, i, end) {
            runs.push((i, end));
        }
        i = end;
    }
    runs
}

/// "the Newmarket store", "your Sylvia Park shop": a place, where the business the customer
/// talks to has a branch (a capitalised branch noun, "the Apple Store", is part of a name),
/// unless the customer says they bought from it.
fn names_our_branch(tokens: &[Token<'_>], start: usize, end: usize) -> bool {
    let before = start.checked_sub(1).map(|i| tokens[i].lower());
    let after = tokens.get(end);
    let article = before
        .as_deref()
        .is_some_and(|w| matches!(w, "the" | "your" | "our"));
    let branch = after.is_some_and(|t| {
        BRANCH_NOUNS.contains(&t.lower().as_str()) && t.text.starts_with(char::is_lowercase)
    });
    // "bought it from the X store" still names the seller: ambiguous, so the safe reading.
    let sold_by = start >= 2
        && SELLER_PREPOSITIONS.contains(&tokens[start - 2].lower().as_str())
        && bought_before(tokens, start - 2);
    article && branch && !sold_by && !tokens[end - 1].possessive() && !tokens[end - 1].ends_phrase
}

/// A sentence's first word is part of a name when a name-shaped word follows it
/// ("Mercado Livre gives ...").
fn continues_name(tokens: &[Token<'_>], i: usize) -> bool {
    !tokens[i].ends_phrase
        && tokens
            .get(i + 1)
            .is_some_and(|next| next.name_shaped() && !is_stopword(next.bare()))
}

/// Words whose "'s" is "is", "has" or "us".
const CONTRACTED: &[&str] = &[
    "there",
    "here",
    "it",
    "that",
    "this",
    "what",
    "who",
    "where",
    "when",
    "how",
    "he",
    "she",
    "let",
    "everything",
    "nothing",
    "something",
    "everyone",
    "someone",
];

/// Nouns after a capitalised run that make it a day in the calendar ("Wellington Anniversary
/// Day", "Boxing Day"), not a business.
const HOLIDAY_NOUNS: &[&str] = &["day", "days", "holiday", "holidays", "eve", "weekend"];

/// Branches of the business the customer is talking to: "the Newmarket store", "your Sylvia
/// Park shop" name where our shop is, not another business.
const BRANCH_NOUNS: &[&str] = &["store", "shop", "branch", "outlet", "showroom", "location"];

/// Capitalised by convention, never a business: seasons and holidays (and the days and the
/// months, [`crate::text::WEEKDAYS`] and [`crate::text::MONTHS`]).
const CALENDAR: &[&str] = &[
    "spring",
    "summer",
    "autumn",
    "fall",
    "winter",
    "christmas",
    "easter",
    "eve",
    "new",
    "year",
    "year's",
    "holiday",
    "holidays",
    "day",
    "black",
    "cyber",
];

/// Words before a name that make it the seller: "bought it at X", "ordered from X" (but "paid
/// at X" is a payment point, "from my X account" a bank).
const SELLER_PREPOSITIONS: &[&str] = &["at", "from", "on", "through", "via"];
/// Verbs of buying: the seller follows them.
const PURCHASE_VERBS: &[&str] = &[
    "buy",
    "bought",
    "buying",
    "order",
    "ordered",
    "ordering",
    "purchase",
    "purchased",
    "purchasing",
    "shop",
    "shopped",
    "shopping",
    "booked",
    "book",
    "got",
];
/// Verbs of paying: a place or instrument follows them, not a seller.
const PAYMENT_VERBS: &[&str] = &["pay", "paid", "paying", "charged", "debit", "debited"];
/// Auxiliaries that make a following name the subject of a question: "does X charge".
const AUXILIARIES: &[&str] = &[
    "does", "do", "did", "will", "would", "can", "could", "is", "are", "should",
];
/// Nouns that belong to a business: "X membership", "X stores".
const BUSINESS_NOUNS: &[&str] = &[
    "store",
    "stores",
    "shop",
    "shops",
    "website",
    "site",
    "app",
    "membership",
    "marketplace",
    "policy",
    "policies",
    "outlet",
    "outlets",
    "seller",
    "customer",
    "customers",
    "guarantee",
    "warranty",
    "return",
    "returns",
    "refund",
    "refunds",
    "contract",
    "broadband",
    "flight",
    "flights",
    "rental",
    "insurance",
    "subscription",
    "member",
    "members",
    "dividend",
    "rewards",
    "points",
    "loyalty",
    "program",
    "programme",
    "club",
];

/// What a business does for its customers, with the business as subject ("X lets you ...").
const OFFER_VERBS: &[&str] = &[
    "let", "lets", "offer", "offers", "charge", "charges", "give", "gives", "allow", "allows",
    "provide", "provides", "sell", "sells", "accept", "accepts", "ship", "ships",
];

/// Nouns of a policy: "the return window at X", "delivery fees from X" name X's policy.
const POLICY_NOUNS: &[&str] = &[
    "window",
    "period",
    "rules",
    "terms",
    "price",
    "prices",
    "delivery",
    "shipping",
    "service",
    "fee",
    "fees",
    "discount",
    "discounts",
    "deadline",
    "conditions",
];

/// The grammar around a name says it is a business: its policy, its shop, its own verbs.
fn acts_as_organisation(tokens: &[Token<'_>], start: usize, end: usize) -> bool {
    let last = tokens[end - 1];
    if last.possessive() {
        return true;
    }
    let before = start.checked_sub(1).map(|i| tokens[i].text.to_lowercase());
    let after = tokens.get(end).map(|t| t.lower());
    let before_is = |set: &[&str]| before.as_deref().is_some_and(|w| set.contains(&w));
    if before_is(SELLER_PREPOSITIONS) && bought_before(tokens, start) {
        return true;
    }
    // "does X give", not "does X?" nor "do Mercado Livre's ...".
    if before_is(AUXILIARIES) && after.is_some() && !last.ends_phrase {
        return true;
    }
    // "the return policy at X", "refunds from X": the owner of the policy.
    let owner_of = start >= 2 && before_is(&["at", "from", "with"]) && {
        let noun = tokens[start - 2].lower();
        BUSINESS_NOUNS.contains(&noun.as_str()) || POLICY_NOUNS.contains(&noun.as_str())
    };
    if owner_of {
        return true;
    }
    if last.ends_phrase {
        return false;
    }
    // "Ace & Tate let you try frames at home", "... while Fernhill charges nothing": the
    // subject of what a business does for its customers.
    let subject = tokens[start].sentence_start
        || tokens[start - 1].ends_phrase
        || matches!(
            tokens[start - 1].lower().as_str(),
            "but" | "and" | "while" | "whereas" | "because" | "since" | "though" | "although"
        );
    if subject && after.as_deref().is_some_and(|w| OFFER_VERBS.contains(&w)) {
        return true;
    }
    // "X membership", or one ordinary word between: "X car rental".
    let noun_at = |i: usize| {
        tokens
            .get(i)
            .is_some_and(|t| BUSINESS_NOUNS.contains(&t.lower().as_str()))
    };
    let plain_word_between = tokens
        .get(end)
        .is_some_and(|t| !t.ends_phrase && !t.name_shaped() && !is_stopword(t.text));
    noun_at(end) || (plain_word_between && noun_at(end + 1))
}

/// The sentence before `at` speaks of buying and not of paying ("pay for my order at X").
fn bought_before(tokens: &[Token<'_>], at: usize) -> bool {
    let sentence_start = tokens[..at]
        .iter()
        .rposition(|t| t.sentence_start)
        .unwrap_or(0);
    let words: Vec<String> = tokens[sentence_start..at]
        .iter()
        .map(Token::lower)
        .collect();
    let has = |set: &[&str]| words.iter().any(|w| set.contains(&w.as_str()));
    has(PURCHASE_VERBS) && !has(PAYMENT_VERBS)
}

fn is_stopword(word: &str) -> bool {
    const COMMON: &[&str] = &[
        "a", "an", "the", "and", "or", "but", "if", "my", "your", "our", "what", "when", "where",
        "which", "who", "why", "how", "is", "are", "can", "could", "do", "does", "did", "will",
        "would", "should", "may", "hi", "hello", "hey", "dear", "please", "thanks", "thank", "yes",
        "no", "not", "so", "also", "still", "just", "plus",
    ];
    COMMON.contains(&word.to_lowercase().as_str())
}

/// A country of the gazetteer.
#[derive(Debug)]
struct Country {
    /// ISO 3166-1 alpha-2, lower case.
    code: &'static str,
    /// Common name first, then other names and short forms; upper-case short forms ("UK")
    /// only match in upper case.
    names: &'static [&'static str],
    /// Adjectives that name the jurisdiction when a legal or commercial noun follows
    /// ("Canadian customers", "German law").
    demonyms: &'static [&'static str],
    eu: bool,
}

macro_rules! countries {
    ($( $code:literal $eu:literal [$($name:literal),+] [$($demonym:literal),*] ;)+) => {
        &[$( Country { code: $code, names: &[$($name),+], demonyms: &[$($demonym),*], eu: $eu } ),+]
    };
}

/// Left out: countries whose names are also everyday words, given names, products or US
/// places (Chad, Jordan, Georgia, Guinea, Niger, Mali, Togo, Tonga, Samoa, Panama, Fiji,
/// Lebanon), and dependent territories (Puerto Rico, Réunion, Greenland, Jersey, Bermuda,
/// Gibraltar, Macao): a false alarm there costs more than a miss.
const COUNTRIES: &[Country] = countries! {
    "at" true ["Austria"] ["Austrian"];
    "be" true ["Belgium"] ["Belgian"];
    "bg" true ["Bulgaria"] ["Bulgarian"];
    "hr" true ["Croatia"] ["Croatian"];
    "cy" true ["Cyprus"] ["Cypriot"];
    "cz" true ["Czechia", "Czech Republic"] ["Czech"];
    "dk" true ["Denmark"] ["Danish"];
    "ee" true ["Estonia"] ["Estonian"];
    "fi" true ["Finland"] ["Finnish"];
    "fr" true ["France"] ["French"];
    "de" true ["Germany"] ["German"];
    "gr" true ["Greece"] ["Greek"];
    "hu" true ["Hungary"] ["Hungarian"];
    "ie" true ["Ireland"] ["Irish"];
    "it" true ["Italy"] ["Italian"];
    "lv" true ["Latvia"] ["Latvian"];
    "lt" true ["Lithuania"] ["Lithuanian"];
    "lu" true ["Luxembourg"] [];
    "mt" true ["Malta"] ["Maltese"];
    "nl" true ["Netherlands", "Holland"] ["Dutch"];
    "pl" true ["Poland"] ["Polish"];
    "pt" true ["Portugal"] ["Portuguese"];
    "ro" true ["Romania"] ["Romanian"];
    "sk" true ["Slovakia"] ["Slovak"];
    "si" true ["Slovenia"] ["Slovenian"];
    "es" true ["Spain"] ["Spanish"];
    "se" true ["Sweden"] ["Swedish"];
    "gb" false ["United Kingdom", "UK", "Great Britain", "Britain", "England", "Scotland", "Wales", "Northern Ireland"] ["British", "English", "Scottish", "Welsh"];
    "no" false ["Norway"] ["Norwegian"];
    "ch" false ["Switzerland"] ["Swiss"];
    "is" false ["Iceland"] ["Icelandic"];
    "li" false ["Liechtenstein"] [];
    "tr" false ["Türkiye", "Turkey"] ["Turkish"];
    "ua" false ["Ukraine"] ["Ukrainian"];
    "rs" false ["Serbia"] ["Serbian"];
    "ru" false ["Russia"] ["Russian"];
    "us" false ["United States", "USA", "US", "America"] ["American"];
    "ca" false ["Canada"] ["Canadian"];
    "mx" false ["Mexico"] ["Mexican"];
    "br" false ["Brazil", "Brasil"] ["Brazilian", "Brasileiro"];
    "ar" false ["Argentina"] ["Argentinian", "Argentine"];
    "cl" false ["Chile"] ["Chilean"];
    "co" false ["Colombia"] ["Colombian"];
    "pe" false ["Peru"] ["Peruvian"];
    "uy" false ["Uruguay"] ["Uruguayan"];
    "jp" false ["Japan", "Nippon"] ["Japanese"];
    "kr" false ["South Korea", "Korea"] ["Korean"];
    "cn" false ["China"] ["Chinese"];
    "tw" false ["Taiwan"] ["Taiwanese"];
    "hk" false ["Hong Kong"] [];
    "sg" false ["Singapore"] ["Singaporean"];
    "in" false ["India"] ["Indian"];
    "pk" false ["Pakistan"] ["Pakistani"];
    "bd" false ["Bangladesh"] [];
    "id" false ["Indonesia"] ["Indonesian"];
    "my" false ["Malaysia"] ["Malaysian"];
    "th" false ["Thailand"] ["Thai"];
    "vn" false ["Vietnam", "Viet Nam"] ["Vietnamese"];
    "ph" false ["Philippines"] ["Filipino"];
    "au" false ["Australia"] ["Australian"];
    "nz" false ["New Zealand"] [];
    "za" false ["South Africa"] ["South African"];
    "ng" false ["Nigeria"] ["Nigerian"];
    "eg" false ["Egypt"] ["Egyptian"];
    "ke" false ["Kenya"] ["Kenyan"];
    "ma" false ["Morocco"] ["Moroccan"];
    "il" false ["Israel"] ["Israeli"];
    "ae" false ["United Arab Emirates", "UAE"] ["Emirati"];
    "sa" false ["Saudi Arabia"] ["Saudi"];
    "af" false ["Afghanistan"] ["Afghan"];
    "al" false ["Albania"] ["Albanian"];
    "dz" false ["Algeria"] ["Algerian"];
    "ad" false ["Andorra"] ["Andorran"];
    "ao" false ["Angola"] ["Angolan"];
    "ag" false ["Antigua and Barbuda", "Antigua"] [];
    "am" false ["Armenia"] ["Armenian"];
    "az" false ["Azerbaijan"] ["Azerbaijani"];
    "bs" false ["Bahamas"] ["Bahamian"];
    "bh" false ["Bahrain"] ["Bahraini"];
    "bb" false ["Barbados"] ["Barbadian"];
    "by" false ["Belarus"] ["Belarusian"];
    "bz" false ["Belize"] ["Belizean"];
    "bj" false ["Benin"] ["Beninese"];
    "bt" false ["Bhutan"] ["Bhutanese"];
    "bo" false ["Bolivia"] ["Bolivian"];
    "ba" false ["Bosnia and Herzegovina", "Bosnia"] ["Bosnian"];
    "bw" false ["Botswana"] [];
    "bn" false ["Brunei"] [];
    "bf" false ["Burkina Faso"] [];
    "bi" false ["Burundi"] [];
    "cv" false ["Cabo Verde", "Cape Verde"] [];
    "kh" false ["Cambodia"] ["Cambodian"];
    "cm" false ["Cameroon"] ["Cameroonian"];
    "cf" false ["Central African Republic"] [];
    "km" false ["Comoros"] [];
    "cg" false ["Congo"] ["Congolese"];
    "cr" false ["Costa Rica"] ["Costa Rican"];
    "ci" false ["Côte d'Ivoire", "Ivory Coast"] ["Ivorian"];
    "cu" false ["Cuba"] ["Cuban"];
    "dj" false ["Djibouti"] [];
    "do" false ["Dominican Republic"] ["Dominican"];
    "dm" false ["Dominica"] [];
    "ec" false ["Ecuador"] ["Ecuadorian", "Ecuadorean"];
    "sv" false ["El Salvador"] ["Salvadoran"];
    "gq" false ["Equatorial Guinea"] [];
    "er" false ["Eritrea"] ["Eritrean"];
    "sz" false ["Eswatini", "Swaziland"] [];
    "et" false ["Ethiopia"] ["Ethiopian"];
    "ga" false ["Gabon"] ["Gabonese"];
    "gm" false ["Gambia"] ["Gambian"];
    "gh" false ["Ghana"] ["Ghanaian"];
    "gd" false ["Grenada"] [];
    "gt" false ["Guatemala"] ["Guatemalan"];
    "gw" false ["Guinea-Bissau"] [];
    "gy" false ["Guyana"] ["Guyanese"];
    "ht" false ["Haiti"] ["Haitian"];
    "hn" false ["Honduras"] ["Honduran"];
    "ir" false ["Iran"] ["Iranian"];
    "iq" false ["Iraq"] ["Iraqi"];
    "jm" false ["Jamaica"] ["Jamaican"];
    "kz" false ["Kazakhstan"] ["Kazakh"];
    "ki" false ["Kiribati"] [];
    "kp" false ["North Korea"] [];
    "kw" false ["Kuwait"] ["Kuwaiti"];
    "kg" false ["Kyrgyzstan"] [];
    "la" false ["Laos"] ["Lao", "Laotian"];
    "ls" false ["Lesotho"] [];
    "lr" false ["Liberia"] ["Liberian"];
    "ly" false ["Libya"] ["Libyan"];
    "mg" false ["Madagascar"] ["Malagasy"];
    "mw" false ["Malawi"] ["Malawian"];
    "mv" false ["Maldives"] [];
    "mh" false ["Marshall Islands"] [];
    "mr" false ["Mauritania"] [];
    "mu" false ["Mauritius"] ["Mauritian"];
    "fm" false ["Micronesia"] [];
    "md" false ["Moldova"] ["Moldovan"];
    "mc" false ["Monaco"] ["Monegasque"];
    "mn" false ["Mongolia"] ["Mongolian"];
    "me" false ["Montenegro"] ["Montenegrin"];
    "mz" false ["Mozambique"] ["Mozambican"];
    "mm" false ["Myanmar", "Burma"] ["Burmese"];
    "na" false ["Namibia"] ["Namibian"];
    "nr" false ["Nauru"] ["Nauruan"];
    "np" false ["Nepal"] ["Nepali", "Nepalese"];
    "ni" false ["Nicaragua"] ["Nicaraguan"];
    "mk" false ["North Macedonia", "Macedonia"] ["Macedonian"];
    "om" false ["Oman"] ["Omani"];
    "ps" false ["Palestine"] ["Palestinian"];
    "pw" false ["Palau"] ["Palauan"];
    "pg" false ["Papua New Guinea"] [];
    "py" false ["Paraguay"] ["Paraguayan"];
    "qa" false ["Qatar"] ["Qatari"];
    "rw" false ["Rwanda"] ["Rwandan"];
    "kn" false ["Saint Kitts and Nevis"] [];
    "lc" false ["Saint Lucia"] [];
    "vc" false ["Saint Vincent and the Grenadines"] [];
    "sm" false ["San Marino"] [];
    "st" false ["Sao Tome and Principe"] [];
    "sn" false ["Senegal"] ["Senegalese"];
    "sc" false ["Seychelles"] [];
    "sl" false ["Sierra Leone"] [];
    "sb" false ["Solomon Islands"] [];
    "so" false ["Somalia"] ["Somali"];
    "ss" false ["South Sudan"] [];
    "lk" false ["Sri Lanka"] ["Sri Lankan"];
    "sd" false ["Sudan"] ["Sudanese"];
    "sr" false ["Suriname"] [];
    "sy" false ["Syria"] ["Syrian"];
    "tj" false ["Tajikistan"] [];
    "tz" false ["Tanzania"] ["Tanzanian"];
    "tl" false ["Timor-Leste", "East Timor"] [];
    "tt" false ["Trinidad and Tobago", "Trinidad"] [];
    "tn" false ["Tunisia"] ["Tunisian"];
    "tm" false ["Turkmenistan"] [];
    "tv" false ["Tuvalu"] [];
    "ug" false ["Uganda"] ["Ugandan"];
    "uz" false ["Uzbekistan"] ["Uzbek"];
    "vu" false ["Vanuatu"] [];
    "va" false ["Vatican City", "Holy See"] [];
    "ve" false ["Venezuela"] ["Venezuelan"];
    "ye" false ["Yemen"] ["Yemeni"];
    "zm" false ["Zambia"] ["Zambian"];
    "zw" false ["Zimbabwe"] ["Zimbabwean"];
    "eu" true ["European Union", "EU"] ["European"];
};

/// Nouns after a demonym that make it a jurisdiction, not a language or a style.
const JURISDICTION_NOUNS: &[&str] = &[
    "law",
    "laws",
    "rules",
    "regulations",
    "rights",
    "customer",
    "customers",
    "consumer",
    "consumers",
    "resident",
    "residents",
    "address",
    "buyers",
    "shoppers",
    "store",
    "stores",
    "site",
    "website",
    "market",
    "courts",
    "government",
    "version",
    "policy",
    "orders",
];

/// States, provinces and territories, with their country's code: a jurisdiction too ("customers
/// in Texas" are under the United States' rules). Names that are also people's or places'
/// names elsewhere match only capitalised ([`ORDINARY_WORDS`]).
const SUBDIVISIONS: &[(&str, &[&str])] = &[
    (
        "us",
        &[
            "Alabama",
            "Alaska",
            "Arizona",
            "Arkansas",
            "California",
            "Colorado",
            "Connecticut",
            "Delaware",
            "Florida",
            "Hawaii",
            "Idaho",
            "Illinois",
            "Indiana",
            "Iowa",
            "Kansas",
            "Kentucky",
            "Louisiana",
            "Maine",
            "Maryland",
            "Massachusetts",
            "Michigan",
            "Minnesota",
            "Mississippi",
            "Missouri",
            "Montana",
            "Nebraska",
            "Nevada",
            "New Hampshire",
            "New Jersey",
            "New Mexico",
            "New York",
            "North Carolina",
            "North Dakota",
            "Ohio",
            "Oklahoma",
            "Oregon",
            "Pennsylvania",
            "Rhode Island",
            "South Carolina",
            "South Dakota",
            "Tennessee",
            "Texas",
            "Utah",
            "Vermont",
            "Virginia",
            "Washington",
            "West Virginia",
            "Wisconsin",
            "Wyoming",
            "Puerto Rico",
        ],
    ),
    (
        "ca",
        &[
            "Ontario",
            "Quebec",
            "Québec",
            "British Columbia",
            "Alberta",
            "Manitoba",
            "Saskatchewan",
            "Nova Scotia",
            "New Brunswick",
            "Newfoundland",
            "Prince Edward Island",
            "Yukon",
            "Nunavut",
            "Northwest Territories",
        ],
    ),
    (
        "au",
        &[
            "New South Wales",
            "Victoria",
            "Queensland",
            "Western Australia",
            "South Australia",
            "Tasmania",
            "Northern Territory",
            "Australian Capital Territory",
        ],
    ),
    (
        "in",
        &[
            "Maharashtra",
            "Karnataka",
            "Tamil Nadu",
            "Kerala",
            "Gujarat",
            "Rajasthan",
            "Uttar Pradesh",
            "West Bengal",
            "Telangana",
            "Andhra Pradesh",
            "Bihar",
            "Odisha",
            "Madhya Pradesh",
            "Haryana",
            "Assam",
            "Goa",
            "Delhi",
            "Jharkhand",
            "Chhattisgarh",
            "Uttarakhand",
            "Himachal Pradesh",
        ],
    ),
    (
        "de",
        &[
            "Bavaria",
            "Bayern",
            "Saxony",
            "Sachsen",
            "Hesse",
            "Hessen",
            "Baden-Württemberg",
            "North Rhine-Westphalia",
            "Nordrhein-Westfalen",
            "Lower Saxony",
            "Niedersachsen",
            "Thuringia",
            "Brandenburg",
            "Schleswig-Holstein",
            "Rhineland-Palatinate",
        ],
    ),
    (
        "br",
        &[
            "São Paulo",
            "Sao Paulo",
            "Rio de Janeiro",
            "Minas Gerais",
            "Bahia",
            "Paraná",
            "Rio Grande do Sul",
            "Pernambuco",
            "Ceará",
            "Santa Catarina",
            "Goiás",
        ],
    ),
    (
        "mx",
        &[
            "Jalisco",
            "Nuevo León",
            "Nuevo Leon",
            "Yucatán",
            "Yucatan",
            "Chihuahua",
            "Sonora",
            "Baja California",
            "Oaxaca",
            "Puebla",
            "Veracruz",
            "Guanajuato",
            "Quintana Roo",
        ],
    ),
    (
        "jp",
        &[
            "Hokkaido", "Okinawa", "Kanagawa", "Aichi", "Fukuoka", "Hyogo", "Saitama",
        ],
    ),
    (
        "es",
        &[
            "Catalonia",
            "Cataluña",
            "Andalusia",
            "Andalucía",
            "Basque Country",
            "Galicia",
        ],
    ),
    (
        "fr",
        &[
            "Île-de-France",
            "Brittany",
            "Normandy",
            "Provence",
            "Corsica",
        ],
    ),
    (
        "it",
        &["Lombardy", "Sicily", "Sardinia", "Tuscany", "Veneto"],
    ),
    ("cn", &["Guangdong", "Sichuan", "Zhejiang", "Jiangsu"]),
];

/// Whether `tokens` at `i` spell `name` (a country's, a state's, a short form).
fn names_at(tokens: &[Token<'_>], i: usize, name: &str) -> Option<usize> {
    let parts: Vec<&str> = name.split(' ').collect();
    parts
        .iter()
        .enumerate()
        .all(|(k, part)| {
            tokens
                .get(i + k)
                .is_some_and(|t| same_name(t.bare().trim_end_matches('.'), part))
        })
        .then_some(parts.len())
}

/// Countries and their states named in the question: (first token, number of tokens, country
/// code, the jurisdiction as reported).
fn countries_named(tokens: &[Token<'_>]) -> Vec<(usize, usize, &'static str, String)> {
    let mut found = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        for country in COUNTRIES {
            for name in country.names {
                if let Some(len) = names_at(tokens, i, name) {
                    found.push((i, len, country.code, country.names[0].to_string()));
                }
            }
            let demonym = country.demonyms.iter().any(|d| token.bare() == *d)
                && tokens
                    .get(i + 1)
                    .is_some_and(|next| JURISDICTION_NOUNS.contains(&next.lower().as_str()));
            if demonym {
                found.push((i, 1, country.code, country.names[0].to_string()));
            }
        }
        for (code, names) in SUBDIVISIONS {
            for name in names.iter() {
                if let Some(len) = names_at(tokens, i, name) {
                    let country = COUNTRIES
                        .iter()
                        .find(|c| c.code == *code)
                        .map_or(*code, |c| c.names[0]);
                    found.push((i, len, code, format!("{name}, {country}")));
                }
            }
        }
    }
    // The longest name wins: "New South Wales" is not Wales.
    let spans: Vec<(usize, usize)> = found.iter().map(|f| (f.0, f.0 + f.1)).collect();
    found.retain(|(i, len, _, _)| {
        !spans
            .iter()
            .any(|&(s, e)| s <= *i && i + len <= e && e - s > *len)
    });
    found
}

/// Businesses a customer deals with besides a retailer, whose own rules a question may ask
/// about ("my bank's chargeback rules", "my phone company's device plan").
const THIRD_PARTY_NOUNS: &[&str] = &[
    "company",
    "bank",
    "issuer",
    "insurer",
    "airline",
    "landlord",
    "employer",
    "gym",
    "school",
    "university",
    "provider",
    "operator",
    "dealer",
    "dealership",
    "agency",
    "hotel",
];

/// What such a business has of its own: "my bank's app shows the refund" is about our refund,
/// "my employer's discount code" about our prices.
const OWNED_RULES: &[&str] = &[
    "policy",
    "policies",
    "warranty",
    "guarantee",
    "plan",
    "protection",
    "insurance",
    "contract",
    "cover",
    "coverage",
    "chargeback",
];

/// Words that make the owner the customer's own business, not the retailer.
const CUSTOMERS_OWN: &[&str] = &["my", "our", "their", "his", "her"];

/// Another business the question names by what it is, owning something: "my phone company's
/// policy", "my credit card issuer's purchase protection" (up to two words on each side). "The
/// company's" is left alone: policies call the retailer "the Company".
fn third_parties(tokens: &[Token<'_>]) -> Vec<String> {
    let mut found = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        if !token.possessive() || !THIRD_PARTY_NOUNS.contains(&token.lower().as_str()) {
            continue;
        }
        let owner = (i.saturating_sub(3)..i).rev().find(|&at| {
            CUSTOMERS_OWN.contains(&tokens[at].lower().as_str())
                && tokens[at..i].iter().all(|t| !t.ends_phrase)
        });
        let rules_follow = tokens[i + 1..]
            .iter()
            .take(2)
            .any(|t| OWNED_RULES.contains(&t.lower().as_str()));
        if let (Some(at), true) = (owner, rules_follow) {
            let name: Vec<&str> = tokens[at + 1..=i].iter().map(|t| t.bare()).collect();
            found.push(name.join(" "));
        }
    }
    found
}

/// Verbs after which "in X" or "from X" is where goods come from, not whose rules apply
/// ("a jacket made in Italy", "shipped from China").
const ORIGIN_VERBS: &[&str] = &[
    "made",
    "manufactured",
    "produced",
    "built",
    "assembled",
    "designed",
    "sourced",
    "imported",
    "shipped",
    "grown",
];

/// The place at `start` follows an origin verb and "in" or "from".
fn origin_of_goods(tokens: &[Token<'_>], start: usize) -> bool {
    start >= 2
        && ["in", "from"].contains(&tokens[start - 1].lower().as_str())
        && ORIGIN_VERBS.contains(&tokens[start - 2].lower().as_str())
}

/// Country names that are also ordinary words: matched only when capitalised.
const ORDINARY_WORDS: &[&str] = &[
    "Turkey",
    "Chile",
    "China",
    "Nippon",
    "Washington",
    "Virginia",
    "Victoria",
    "Maine",
    "Indiana",
    "Nevada",
    "Georgia",
    "Delhi",
    "Goa",
    "Assam",
    "Bihar",
    "Provence",
    "Galicia",
    "Sonora",
    "Puebla",
    "Bahia",
    "Alberta",
    "Florida",
    "Montana",
    "Carolina",
];

/// A country name matches in any case; its upper-case short forms ("US", "UK") and names that
/// are also ordinary words ("turkey") only as written.
fn same_name(word: &str, name: &str) -> bool {
    let short_form = name.chars().all(|c| c.is_uppercase());
    if short_form || ORDINARY_WORDS.contains(&name) {
        word == name
    } else {
        word.eq_ignore_ascii_case(name) || word == name
    }
}

#[cfg(test)]
#[path = "scope_tests.rs"]
mod tests;
