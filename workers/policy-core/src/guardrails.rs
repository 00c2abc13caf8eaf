//! Input guardrails: make the question safe to process (control characters, whitespace,
//! length), detect prompt injection ([`crate::injection`]) and personal data. Decisions are left to the caller; this
//! module only measures.

use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sanitized {
    pub text: String,
    pub removed_control_chars: usize,
    pub truncated: bool,
}

/// Strips control characters, collapses whitespace and cuts at `max_chars` on a word boundary.
pub fn sanitize(raw: &str, max_chars: usize) -> Sanitized {
    sanitize_with(raw, max_chars, false)
}

/// [`sanitize`], keeping the message's line breaks (runs of blank lines become one): pasted
/// material is told from the customer's own words by its layout ([`crate::pasted`]).
pub fn sanitize_keeping_lines(raw: &str, max_chars: usize) -> Sanitized {
    sanitize_with(raw, max_chars, true)
}

fn sanitize_with(raw: &str, max_chars: usize, keep_lines: bool) -> Sanitized {
    let mut removed = 0;
    let cleaned: String = raw
        .chars()
        .map(|c| {
            if c.is_control() && !c.is_whitespace() {
                removed += 1;
                ' '
            } else {
                c
            }
        })
        .collect();
    let collapse = |line: &str| line.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut text = if keep_lines {
        let mut out = String::new();
        let mut blank = false;
        // A lone carriage return and the Unicode line and paragraph separators break lines too.
        let broken = cleaned
            .replace("\r\n", "\n")
            .replace(['\r', '\u{2028}', '\u{2029}', '\u{85}'], "\n");
        for line in broken.lines().map(collapse) {
            if line.is_empty() {
                blank = !out.is_empty();
                continue;
            }
            if !out.is_empty() {
                out.push_str(if blank { "\n\n" } else { "\n" });
            }
            out.push_str(&line);
            blank = false;
        }
        out
    } else {
        collapse(&cleaned)
    };
    let truncated = text.chars().count() > max_chars;
    if truncated {
        let cut: String = text.chars().take(max_chars).collect();
        text = match cut.rfind(char::is_whitespace) {
            Some(space) if space > max_chars / 2 => cut[..space].trim_end().to_string(),
            _ => cut,
        };
    }
    Sanitized {
        text,
        removed_control_chars: removed,
        truncated,
    }
}

/// A question is unusable when nothing in it reads as words: empty, symbols, control noise.
pub fn is_unusable(text: &str) -> bool {
    !text
        .split(|c: char| !c.is_alphabetic())
        .any(|w| w.chars().count() >= 2)
}

pub use crate::injection::{assess_injection, InjectionAssessment};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PiiKind {
    Email,
    Phone,
    PaymentCard,
    Iban,
    NationalId,
}

impl PiiKind {
    pub const ALL: [PiiKind; 5] = [
        PiiKind::Email,
        PiiKind::Phone,
        PiiKind::PaymentCard,
        PiiKind::Iban,
        PiiKind::NationalId,
    ];

    /// What [`redact`] writes in place of a match: `[email]`.
    pub fn placeholder(self) -> String {
        format!("[{}]", self.as_str())
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PiiKind::Email => "email",
            PiiKind::Phone => "phone",
            PiiKind::PaymentCard => "payment_card",
            PiiKind::Iban => "iban",
            PiiKind::NationalId => "national_id",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PiiMatch {
    pub kind: PiiKind,
    pub span: Range<usize>,
}

fn luhn_valid(digits: &[u8]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, d)| {
            let d = u32::from(*d);
            if i % 2 == 1 {
                let doubled = d * 2;
                if doubled > 9 {
                    doubled - 9
                } else {
                    doubled
                }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// Runs of digits with the separators people type inside numbers (space, dot, dash, slash,
/// parentheses, a leading +), as (span, digits).
fn digit_runs(text: &str) -> Vec<(Range<usize>, Vec<u8>)> {
    let bytes = text.as_bytes();
    let mut runs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit()
            || (bytes[i] == b'+' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let start = i;
            let mut digits = Vec::new();
            let mut end = i;
            while i < bytes.len() {
                let b = bytes[i];
                if b.is_ascii_digit() {
                    digits.push(b - b'0');
                    end = i + 1;
                } else if !matches!(b, b' ' | b'.' | b'-' | b'/' | b'(' | b')' | b'+')
                    || !bytes
                        .get(i + 1)
                        .is_some_and(|n| n.is_ascii_digit() || *n == b'(' || *n == b' ')
                {
                    break;
                }
                i += 1;
            }
            runs.push((start..end, digits));
            i = end.max(start + 1);
        } else {
            i += 1;
        }
    }
    runs
}

pub fn detect_pii(text: &str) -> Vec<PiiMatch> {
    let mut found = Vec::new();
    // E-mail: local@domain.tld
    for (at, _) in text.match_indices('@') {
        let start = text[..at]
            .rfind(|c: char| c.is_whitespace() || c == '<' || c == '(')
            .map_or(0, |p| p + 1);
        let end = text[at..]
            .find(|c: char| c.is_whitespace() || c == '>' || c == ')' || c == ',')
            .map_or(text.len(), |p| at + p);
        let domain = text[at + 1..end].trim_end_matches(['.', ',', ';', ':', '?', '!']);
        if at > start && domain.contains('.') && !domain.starts_with('.') {
            found.push(PiiMatch {
                kind: PiiKind::Email,
                span: start..at + 1 + domain.len(),
            });
        }
    }
    for (span, digits) in digit_runs(text) {
        let raw = &text[span.clone()];
        let kind = match digits.len() {
            11 if raw.matches('.').count() == 2 && raw.contains('-') => Some(PiiKind::NationalId), // CPF 123.456.789-09
            9 if raw.len() == 11 && raw.matches('-').count() == 2 => Some(PiiKind::NationalId), // SSN 123-45-6789
            13..=19 if luhn_valid(&digits) && !raw.starts_with('+') => Some(PiiKind::PaymentCard),
            9..=15
                if raw.starts_with('+')
                    || raw.contains(' ')
                    || raw.contains('-')
                    || raw.contains('(') =>
            {
                Some(PiiKind::Phone)
            }
            _ => None,
        };
        if let Some(kind) = kind {
            found.push(PiiMatch { kind, span });
        }
    }
    found.extend(lettered_ids(text).into_iter().map(|span| PiiMatch {
        kind: PiiKind::NationalId,
        span,
    }));
    // IBAN: two letters, two digits, 11-30 alphanumerics (spaces allowed in groups of four).
    let compact: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i + 4 <= compact.len() {
        let (start, a) = compact[i];
        let starts_word = i == 0 || !compact[i - 1].1.is_alphanumeric();
        if starts_word
            && a.is_ascii_uppercase()
            && compact[i + 1].1.is_ascii_uppercase()
            && compact[i + 2].1.is_ascii_digit()
            && compact[i + 3].1.is_ascii_digit()
        {
            let mut j = i + 4;
            let mut count = 4;
            while j < compact.len()
                && (compact[j].1.is_ascii_alphanumeric()
                    || (compact[j].1 == ' '
                        && compact
                            .get(j + 1)
                            .is_some_and(|c| c.1.is_ascii_alphanumeric())))
            {
                if compact[j].1 != ' ' {
                    count += 1;
                }
                j += 1;
            }
            if (15..=34).contains(&count) {
                let end = compact.get(j).map_or(text.len(), |c| c.0);
                found.push(PiiMatch {
                    kind: PiiKind::Iban,
                    span: start..end,
                });
                i = j;
                continue;
            }
        }
        i += 1;
    }
    found.sort_by_key(|m| m.span.start);
    found
}

/// Shapes of national identifiers that mix letters and digits, one character class per
/// position: `A` an upper-case letter, `9` a digit, `_` an optional space, `D` one of A-D.
/// A UK National Insurance number (`QQ 12 34 56 C`; its prefix rules are not checked, a
/// redactor errs towards redacting) and an Indian PAN (`ABCDE1234F`).
const LETTERED_IDS: &[&str] = &["AA_99_99_99_D", "AAAAA9999A"];

/// Spans of `text` shaped like one of [`LETTERED_IDS`], standing as words of their own.
fn lettered_ids(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let at_boundary = |i: usize| bytes.get(i).is_none_or(|b| !b.is_ascii_alphanumeric());
    let shaped = |start: usize, shape: &str| -> Option<usize> {
        let mut i = start;
        for class in shape.bytes() {
            let b = bytes.get(i).copied();
            let fits = match class {
                b'A' => b.is_some_and(|b| b.is_ascii_uppercase()),
                b'9' => b.is_some_and(|b| b.is_ascii_digit()),
                b'D' => b.is_some_and(|b| (b'A'..=b'D').contains(&b)),
                _ => {
                    i += usize::from(b == Some(b' '));
                    continue;
                }
            };
            if !fits {
                return None;
            }
            i += 1;
        }
        at_boundary(i).then_some(i)
    };
    let mut found = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let end = (start == 0 || at_boundary(start - 1))
            .then(|| LETTERED_IDS.iter().find_map(|shape| shaped(start, shape)))
            .flatten();
        match end {
            Some(end) => {
                found.push(start..end);
                start = end;
            }
            None => start += 1,
        }
    }
    found
}

/// Replaces every match with a placeholder such as `[email]`.
pub fn redact(text: &str, matches: &[PiiMatch]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    for m in matches {
        if m.span.start < cursor {
            continue;
        }
        out.push_str(&text[cursor..m.span.start]);
        out.push_str(&m.kind.placeholder());
        cursor = m.span.end;
    }
    out.push_str(&text[cursor..]);
    out
}

#[cfg(test)]
#[path = "guardrails_tests.rs"]
mod tests;
