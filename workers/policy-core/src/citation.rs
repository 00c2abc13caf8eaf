//! Citation tags in answers: `[clause: eu-v4#sec-3.2]`. Parsing is tolerant of spacing and case
//! and of several ids in one tag, but a tag that cannot be read is reported, never skipped: the
//! judge treats an unreadable citation as a failure.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClauseRef {
    pub version_id: String,
    pub anchor: String,
}

impl ClauseRef {
    pub fn clause_id(&self) -> String {
        format!("{}#{}", self.version_id, self.anchor)
    }

    /// The version part of a clause id as written (`eu-v4` of `eu-v4#sec-3.2`), even when the
    /// id is not well-formed: what a record names, for display and grouping.
    pub fn version_of(clause_id: &str) -> &str {
        clause_id
            .split_once('#')
            .map_or(clause_id, |(version, _)| version)
    }

    /// Splits an id at `#` without checking its form: for ids that come from a trusted source
    /// (the corpus, the index) but may not follow the `{region}-v{N}` convention.
    pub fn unchecked(clause_id: &str) -> ClauseRef {
        let (version_id, anchor) = clause_id.split_once('#').unwrap_or((clause_id, ""));
        ClauseRef {
            version_id: version_id.to_string(),
            anchor: anchor.to_string(),
        }
    }

    /// Parses `eu-v4#sec-3.2` (already trimmed); `None` when it is not a clause id.
    pub fn parse(raw: &str) -> Option<ClauseRef> {
        let (version, anchor) = raw.split_once('#')?;
        let version = version.trim().to_ascii_lowercase();
        let anchor = anchor.trim().to_ascii_lowercase();
        let version_ok = version_parts(&version).is_some_and(|(_, number)| {
            !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
        });
        let anchor_ok = anchor
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
            && anchor
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
            && !anchor.ends_with('.');
        (version_ok && anchor_ok).then_some(ClauseRef {
            version_id: version,
            anchor,
        })
    }
}

/// The region and the number of a version id in the answers' notation (`us`, `4` of `us-v4`):
/// the region in lowercase letters; the number's form is the caller's to check.
fn version_parts(version: &str) -> Option<(&str, &str)> {
    version
        .rsplit_once("-v")
        .filter(|(region, _)| !region.is_empty() && region.bytes().all(|b| b.is_ascii_lowercase()))
}

impl fmt::Display for ClauseRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.version_id, self.anchor)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedCitation {
    /// Byte offset of the tag in the answer.
    pub offset: usize,
    pub text: String,
    pub reason: &'static str,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CitationParse {
    /// Distinct clause references in order of first appearance.
    pub refs: Vec<ClauseRef>,
    pub malformed: Vec<MalformedCitation>,
}

/// Formats the tag the generator appends for a clause.
/// Words that introduce a reference to another clause by number.
const REFERENCE_WORDS: &[&str] = &[
    "clause",
    "clauses",
    "section",
    "sections",
    "sec",
    "paragraph",
    "paragraphs",
    "§",
    "in",
    "under",
    "and",
    "or",
    "to",
    "with",
    "see",
    "per",
];

/// Clause numbers a policy sentence refers to: "in the manner set out in clause 4.1", "see
/// sections 3.2 and 3.3", "under 5.1". Only dotted numbers after a reference word count, so
/// amounts ("2.5 %") and dates are not taken for clauses.
pub fn referenced_clause_numbers(sentence: &str) -> Vec<String> {
    let tokens: Vec<&str> = sentence
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')'))
        .filter(|t| !t.is_empty())
        .collect();
    let mut numbers = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let number = token.trim_end_matches(['.', ':']);
        let dotted = number.contains('.') && dotted_digits(number);
        let after_reference =
            i > 0 && REFERENCE_WORDS.contains(&tokens[i - 1].to_lowercase().as_str());
        const UNITS: &[&str] = &[
            "%", "per", "percent", "day", "days", "hour", "hours", "week", "weeks", "month",
            "months", "year", "years", "times", "kg", "km", "x",
        ];
        let unit_follows = tokens.get(i + 1).is_some_and(|t| {
            let t = t.to_lowercase();
            UNITS.contains(&t.trim_end_matches(['.', ','])) || t.starts_with('%')
        });
        if dotted && after_reference && !unit_follows && !numbers.contains(&number.to_string()) {
            numbers.push(number.to_string());
        }
    }
    numbers
}

/// A policy version or clause a message names in the notation of the answers' citations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WrittenReference {
    /// `us-v4`, and a revision of one (`us-v3.1`).
    Version(String),
    /// `us-v4#sec-3.2`, inside a citation tag or not.
    Clause(ClauseRef),
    /// `us-v4 §4.2a`, `us-v4 section 3.2`: a version, then a section by its number in words.
    Section { version: String, number: String },
}

impl WrittenReference {
    /// The region the reference names (`us` of `us-v4`).
    pub fn region(&self) -> &str {
        let version = match self {
            WrittenReference::Version(version) | WrittenReference::Section { version, .. } => {
                version
            }
            WrittenReference::Clause(clause) => &clause.version_id,
        };
        version_parts(version).map_or("", |(region, _)| region)
    }
}

impl fmt::Display for WrittenReference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WrittenReference::Version(version) => f.write_str(version),
            WrittenReference::Clause(clause) => clause.fmt(f),
            WrittenReference::Section { version, number } => write!(f, "{version} §{number}"),
        }
    }
}

/// The versions and clauses a message names as the answers cite them (`us-v4`, `us-v3.1`,
/// `[clause: us-v9#sec-1.1]`), or a version followed by a section number in words ("per us-v4
/// §4.2a", "us-v4 section 3.2"), lowercased, in order, each once. Whether they were ever
/// published is for the caller, who holds the manifest: a customer quoting a real citation back
/// is asking about it, one naming a version that never existed is passing on an invention.
pub fn written_references(message: &str) -> Vec<WrittenReference> {
    // Each token, and whether only spaces part it from the next: "us-v4 §4.2" names a section of
    // us-v4, "I accepted us-v4. Section 12 of my warranty card" does not. A "§" opens a token of
    // its own, even glued to a version ("us-v9§3.2").
    let spaced = message.replace('§', " §");
    let mut tokens: Vec<(String, bool)> = Vec::new();
    for word in spaced.split_whitespace() {
        let pieces: Vec<&str> = word
            .split(|c: char| {
                !(c.is_ascii_alphanumeric() || matches!(c, '-' | '#' | '.' | '_' | '§'))
            })
            .filter(|piece| !piece.is_empty())
            .collect();
        let last = pieces.len().saturating_sub(1);
        for (k, piece) in pieces.iter().enumerate() {
            let trimmed = piece.trim_matches(['.', '-', '_']);
            if trimmed.is_empty() {
                continue;
            }
            // Joined to the next word by spaces alone: the word's last piece, with nothing after
            // it ("us-v4," and "us-v4." are followed by punctuation).
            let spaced_after = k == last && word.ends_with(trimmed);
            tokens.push((trimmed.to_ascii_lowercase(), spaced_after));
        }
    }
    let mut found = Vec::new();
    for (at, (token, spaced_after)) in tokens.iter().enumerate() {
        let reference = if token.contains('#') {
            ClauseRef::parse(token).map(WrittenReference::Clause)
        } else if version_parts(token).is_some_and(|(_, number)| dotted_digits(number)) {
            // "us-v4 §4.2a", "us-v4 section 3.2": the section written right after its version.
            let next = |k: usize| tokens.get(at + k).map(|(t, spaced)| (t.as_str(), *spaced));
            let section = match next(1) {
                _ if !spaced_after => None,
                Some(("section" | "sec" | "§", true)) => next(2).map(|(t, _)| t),
                Some((word, _)) => word.strip_prefix('§'),
                None => None,
            }
            .and_then(section_number);
            Some(match section {
                Some(number) => WrittenReference::Section {
                    version: token.clone(),
                    number: number.to_string(),
                },
                None => WrittenReference::Version(token.clone()),
            })
        } else {
            None
        };
        if let Some(reference) = reference.filter(|r| !found.contains(r)) {
            found.push(reference);
        }
    }
    found
}

/// A section number as written: digits, dots between them, and at most one letter after
/// ("4.2a"); not a date or an amount, which have other marks.
fn section_number(word: &str) -> Option<&str> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_lowercase());
    (word.len() - digits.len() <= 1 && dotted_digits(digits)).then_some(word)
}

/// Digits with dots between them ("3", "3.2", "4.10"): how clauses and versions are numbered.
pub(crate) fn dotted_digits(text: &str) -> bool {
    text.split('.')
        .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
}

/// [`written_references`] in the message's statements only: a version named in a question
/// ("is there a us-v5 coming?") is asked about, not passed on.
pub fn stated_references(message: &str) -> Vec<WrittenReference> {
    let statements: Vec<&str> = crate::injection::statements(message).collect();
    written_references(&statements.join(" "))
}

pub fn citation_tag(clause_id: &str) -> String {
    format!("[clause: {clause_id}]")
}

pub fn parse_citations(answer: &str) -> CitationParse {
    let mut parse = CitationParse::default();
    let lower = answer.to_ascii_lowercase();
    let mut covered = Vec::new();
    let mut search_from = 0;
    while let Some(pos) = lower[search_from..].find('[') {
        let open = search_from + pos;
        search_from = open + 1;
        let after = lower[open + 1..].trim_start();
        if !after.starts_with("clause") {
            continue;
        }
        let keyword_end = lower.len() - after.len() + "clause".len();
        let rest = &answer[keyword_end..];
        let close = rest
            .find([']', '\n', '['])
            .filter(|i| rest.as_bytes()[*i] == b']');
        let Some(close) = close else {
            let end = keyword_end + rest.find(['\n', '[']).unwrap_or(rest.len());
            parse.malformed.push(malformed(
                open,
                &answer[open..end],
                "unclosed tag: `]` missing",
            ));
            covered.push(open..end);
            continue;
        };
        let tag_end = keyword_end + close + 1;
        covered.push(open..tag_end);
        search_from = tag_end;
        let inside = rest[..close].trim_start();
        let Some(ids) = inside.strip_prefix(':') else {
            parse.malformed.push(malformed(
                open,
                &answer[open..tag_end],
                "`:` missing after `clause`",
            ));
            continue;
        };
        let ids: Vec<&str> = ids.split([',', ';']).map(str::trim).collect();
        if ids.iter().all(|id| id.is_empty()) {
            parse.malformed.push(malformed(
                open,
                &answer[open..tag_end],
                "no clause id in tag",
            ));
            continue;
        }
        for id in ids {
            match ClauseRef::parse(id) {
                Some(r) if !parse.refs.contains(&r) => parse.refs.push(r),
                Some(_) => {}
                None => parse.malformed.push(malformed(
                    open,
                    &answer[open..tag_end],
                    "clause id must look like `<region>-v<N>#<clause>`",
                )),
            }
        }
    }
    // "clause: eu-v4#sec-3.2" outside brackets is an attempt at a citation that a reader of the
    // tags would miss: report it.
    let mut from = 0;
    while let Some(pos) = lower[from..].find("clause:") {
        let at = from + pos;
        from = at + 1;
        if !covered.iter().any(|r| r.contains(&at)) {
            let end = answer[at..]
                .find(char::is_whitespace)
                .map_or(answer.len(), |e| {
                    let next = answer[at + e..].trim_start();
                    at + e
                        + (answer[at + e..].len() - next.len())
                        + next.find(char::is_whitespace).unwrap_or(next.len())
                });
            parse
                .malformed
                .push(malformed(at, &answer[at..end], "citation outside `[...]`"));
        }
    }
    parse
}

fn malformed(offset: usize, text: &str, reason: &'static str) -> MalformedCitation {
    MalformedCitation {
        offset,
        text: text.to_string(),
        reason,
    }
}

/// The answer with every citation tag removed: the text whose facts the judge checks.
pub fn strip_citations(answer: &str) -> String {
    let lower = answer.to_ascii_lowercase();
    let mut out = String::with_capacity(answer.len());
    let mut i = 0;
    while i < answer.len() {
        let rest = &lower[i..];
        if rest.starts_with('[') && rest[1..].trim_start().starts_with("clause") {
            if let Some(close) = rest.find(']') {
                i += close + 1;
                continue;
            }
        }
        let ch = answer[i..].chars().next().expect("in bounds");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

#[cfg(test)]
#[path = "citation_tests.rs"]
mod tests;
