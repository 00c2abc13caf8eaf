//! Machine-readable rules next to a clause's topic tag (`<!-- rule: return_window_days=30
//! window_from=delivery -->`): the numbers a decision uses come from the version in force, never
//! from code constants. A rule must agree with its clause's text, so legal edits both in one
//! pull request and `manifest check` catches a mismatch.

use std::collections::BTreeMap;
use std::fmt;

use crate::clause::Clause;
use crate::text::{normalize_number, numeric_facts};

/// The rules one clause carries, by key (`limit.manager` → `75`).
pub type Rules = BTreeMap<String, String>;

/// `<!-- rule: a=1 b=two -->` → `[(a, 1), (b, two)]`; `None` for any other line. A malformed
/// pair makes the whole line an error rather than a silently dropped rule.
pub fn rule_tag(line: &str) -> Option<Result<Vec<(String, String)>, String>> {
    let inner = line
        .trim()
        .strip_prefix("<!--")?
        .strip_suffix("-->")?
        .trim()
        .strip_prefix("rule:")?
        .trim();
    let pairs = inner
        .split_whitespace()
        .map(|pair| {
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("`{pair}` is not key=value"))?;
            let key_ok = !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_.".contains(c));
            let value_ok = !value.is_empty()
                && value
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.+%-".contains(c));
            if key_ok && value_ok {
                Ok((key.to_string(), value.to_string()))
            } else {
                Err(format!(
                    "`{pair}`: keys are [a-z0-9_.], values [A-Za-z0-9_.+%-]"
                ))
            }
        })
        .collect::<Result<Vec<_>, _>>();
    Some(pairs.and_then(|p| {
        if p.is_empty() {
            Err("an empty rule tag".to_string())
        } else {
            Ok(p)
        }
    }))
}

/// One value of a rule: a number, or one or more words joined by `+` (`economy+business`).
pub fn rule_words(value: &str) -> Vec<String> {
    value
        .split('+')
        .map(|w| w.replace('_', " ").to_lowercase())
        .collect()
}

/// A number as the clause text would state it (`30`, `75.50`, `15%`), normalised like
/// [`numeric_facts`]; `None` for a word value.
pub fn rule_number(value: &str) -> Option<String> {
    let digits = value.trim_end_matches('%');
    let numeric = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && digits.bytes().any(|b| b.is_ascii_digit());
    numeric.then(|| normalize_number(digits))
}

/// A rule whose value the clause's text does not state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleMismatch {
    pub clause_id: String,
    pub key: String,
    pub value: String,
}

impl fmt::Display for RuleMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: rule {}={} is not stated in the clause's text",
            self.clause_id, self.key, self.value
        )
    }
}

/// Every rule of `clause` whose value its heading and text do not state: a number must appear as a
/// number (`30` in "within 30 days"), each word of a word value as words ("delivery").
pub fn rule_mismatches(clause: &Clause) -> Vec<RuleMismatch> {
    // The heading is part of what the customer reads ("### 2.1 Flights").
    let stated = format!("{}\n{}", clause.title, clause.text);
    let numbers = numeric_facts(&stated);
    let text = stated.to_lowercase();
    clause
        .rules
        .iter()
        .filter(|(_, value)| match rule_number(value) {
            Some(number) => !numbers.contains(&number),
            None => rule_words(value).iter().any(|w| !contains_words(&text, w)),
        })
        .map(|(key, value)| RuleMismatch {
            clause_id: clause.clause_id.clone(),
            key: key.clone(),
            value: value.clone(),
        })
        .collect()
}

/// Whether `words` occurs in `text` on word boundaries (both lowercase).
pub fn contains_words(text: &str, words: &str) -> bool {
    text.match_indices(words).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + words.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
