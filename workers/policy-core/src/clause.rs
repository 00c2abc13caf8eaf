//! Policy markdown → clauses. A clause is a heading with a dotted number (`### 3.2 Return
//! window`) or an explicit `{#custom-id}`; its text runs to the next heading of the same or a
//! higher level. Chunks for the search index are cut at sentence boundaries only.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use std::collections::BTreeMap;

use crate::rules::{rule_tag, Rules};
use crate::text::split_sentences;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clause {
    /// `{version_id}#{anchor}`, e.g. `eu-v4#sec-3.2`.
    pub clause_id: String,
    /// `sec-3.2`, or the custom id.
    pub anchor: String,
    pub number: Option<String>,
    pub title: String,
    pub level: u8,
    pub version_id: String,
    pub region: String,
    pub effective_from: DateTime<Utc>,
    pub effective_to: Option<DateTime<Utc>>,
    pub source_file: String,
    /// Everything under the heading down to the next heading of the same or higher level,
    /// sub-clauses included.
    pub text: String,
    /// Only the clause's own text, before its first sub-heading: what gets indexed, so that a
    /// parent section does not compete with its own sub-clauses.
    pub body: String,
    /// Topic the policy author tagged the clause with (`<!-- topic: return_window -->` right
    /// under its heading): the same key in every region, so analytics can compare regions.
    #[serde(default)]
    pub topic: Option<String>,
    /// Sentences removed from `text` and `body` because they are instructions aimed at the
    /// assistant, not policy ([`crate::injection::instruction_to_assistant`]): an instruction
    /// planted in a document never reaches the index, the generator or a prompt.
    /// `manifest check` reports them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quarantined: Vec<String>,
    /// Machine-readable rules under the heading (`<!-- rule: return_window_days=30 -->`), for
    /// decisions ([`crate::rules`]); like the topic tag, not part of the text.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rules: Rules,
    /// Rule tags that could not be read: the version is refused ([`crate::corpus`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rule_errors: Vec<String>,
}

impl Clause {
    /// Takes instructions aimed at the assistant out of the clause's text.
    fn quarantine_instructions(&mut self) {
        let flagged: Vec<String> = split_sentences(&self.text)
            .into_iter()
            .filter(|s| crate::injection::instruction_to_assistant(s))
            .map(str::to_string)
            .collect();
        for sentence in &flagged {
            self.text = remove_sentence(&self.text, sentence);
            self.body = remove_sentence(&self.body, sentence);
        }
        self.quarantined = flagged;
    }
}

/// `text` without `sentence` (and the space after it).
fn remove_sentence(text: &str, sentence: &str) -> String {
    match text.find(sentence) {
        Some(at) => {
            let rest = text[at + sentence.len()..].trim_start_matches([' ', '\t']);
            format!("{}{rest}", &text[..at]).trim().to_string()
        }
        None => text.to_string(),
    }
}

/// Where a clause sits: the version it belongs to and the file it came from.
#[derive(Debug, Clone, Copy)]
pub struct ClauseOrigin<'a> {
    pub version_id: &'a str,
    pub region: &'a str,
    pub effective_from: DateTime<Utc>,
    pub effective_to: Option<DateTime<Utc>>,
    pub source_file: &'a str,
}

#[derive(Debug, PartialEq, Eq)]
struct Heading {
    level: u8,
    number: Option<String>,
    title: String,
    custom_id: Option<String>,
}

fn parse_heading(line: &str) -> Option<Heading> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
        return None;
    }
    let mut rest = line[hashes..].trim();
    let mut custom_id = None;
    if let Some(open) = rest.rfind("{#") {
        if rest.ends_with('}') {
            let id = rest[open + 2..rest.len() - 1].trim();
            if !id.is_empty() {
                custom_id = Some(id.to_string());
            }
            rest = rest[..open].trim_end();
        }
    }
    let (first, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let candidate = first.trim_end_matches('.');
    let is_number = crate::citation::dotted_digits(candidate);
    let (number, title) = if is_number {
        (Some(candidate.to_string()), after.trim().to_string())
    } else {
        (None, rest.to_string())
    };
    Some(Heading {
        level: hashes as u8,
        number,
        title,
        custom_id,
    })
}

/// `<!-- topic: return_window -->` → `return_window`.
pub fn topic_tag(line: &str) -> Option<&str> {
    let inner = line
        .trim()
        .strip_prefix("<!--")?
        .strip_suffix("-->")?
        .trim()
        .strip_prefix("topic:")?
        .trim();
    let valid = !inner.is_empty()
        && inner
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    valid.then_some(inner)
}

/// Parses one markdown document of a version into its clauses, in document order.
pub fn parse_clauses(markdown: &str, origin: ClauseOrigin<'_>) -> Vec<Clause> {
    struct Open {
        line_no: usize,
        heading: Heading,
        text: Vec<String>,
        body_done: bool,
        body: Vec<String>,
        topic: Option<String>,
        rules: Rules,
        rule_errors: Vec<String>,
    }
    let mut clauses: Vec<(usize, Clause)> = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    let mut in_fence = false;
    let close = |o: Open, clauses: &mut Vec<(usize, Clause)>| {
        let anchor = match (&o.heading.custom_id, &o.heading.number) {
            (Some(id), _) => id.clone(),
            (None, Some(n)) => format!("sec-{n}"),
            (None, None) => return,
        };
        let line_no = o.line_no;
        clauses.push((
            line_no,
            Clause {
                clause_id: format!("{}#{}", origin.version_id, anchor),
                anchor,
                number: o.heading.number,
                title: o.heading.title,
                level: o.heading.level,
                version_id: origin.version_id.to_string(),
                region: origin.region.to_string(),
                effective_from: origin.effective_from,
                effective_to: origin.effective_to,
                source_file: origin.source_file.to_string(),
                text: o.text.join("\n").trim().to_string(),
                body: o.body.join("\n").trim().to_string(),
                topic: o.topic,
                quarantined: Vec::new(),
                rules: o.rules,
                rule_errors: o.rule_errors,
            },
        ));
    };
    for (line_no, line) in markdown.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        let heading = if in_fence { None } else { parse_heading(line) };
        match heading {
            Some(heading) => {
                while open
                    .last()
                    .is_some_and(|o| o.heading.level >= heading.level)
                {
                    close(open.pop().expect("checked"), &mut clauses);
                }
                for outer in &mut open {
                    outer.text.push(line.to_string());
                    outer.body_done = true;
                }
                open.push(Open {
                    line_no,
                    heading,
                    text: Vec::new(),
                    body_done: false,
                    body: Vec::new(),
                    topic: None,
                    rules: Rules::new(),
                    rule_errors: Vec::new(),
                });
            }
            None if !in_fence && topic_tag(line).is_some() => {
                // A tag belongs to the innermost clause and is not part of any clause's text.
                if let Some(o) = open.last_mut().filter(|o| !o.body_done) {
                    o.topic = topic_tag(line).map(str::to_string);
                }
            }
            None if !in_fence && rule_tag(line).is_some() => {
                // Rules sit with the topic tag, under the heading of the clause they belong to.
                if let Some(o) = open.last_mut() {
                    match rule_tag(line).expect("checked") {
                        Ok(pairs) => o.rules.extend(pairs),
                        Err(e) => o.rule_errors.push(format!("line {}: {e}", line_no + 1)),
                    }
                }
            }
            None => {
                for o in &mut open {
                    o.text.push(line.to_string());
                    if !o.body_done {
                        o.body.push(line.to_string());
                    }
                }
            }
        }
    }
    while let Some(o) = open.pop() {
        close(o, &mut clauses);
    }
    // Clauses close innermost-first; restore document order.
    clauses.sort_by_key(|(line_no, _)| *line_no);
    clauses
        .into_iter()
        .map(|(_, mut clause)| {
            clause.quarantine_instructions();
            clause
        })
        .collect()
}

/// A piece of a clause body small enough for the embedding model, cut between sentences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// `{clause_id}/{chunk_no}`: stable, so re-indexing is idempotent.
    pub chunk_id: String,
    pub chunk_no: u32,
    pub text: String,
}

/// Splits the clause body into chunks of at most `max_chars` (a single longer sentence stays
/// whole). The title is prefixed to every chunk so that each chunk is findable on its own.
pub fn chunk_clause(clause: &Clause, max_chars: usize) -> Vec<Chunk> {
    let body = if clause.body.is_empty() {
        clause.title.as_str()
    } else {
        clause.body.as_str()
    };
    let mut pieces: Vec<String> = Vec::new();
    let mut current = String::new();
    for sentence in split_sentences(body) {
        if !current.is_empty() && current.len() + 1 + sentence.len() > max_chars {
            pieces.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(sentence);
    }
    if !current.is_empty() || pieces.is_empty() {
        pieces.push(current);
    }
    pieces
        .into_iter()
        .enumerate()
        .map(|(n, text)| Chunk {
            chunk_id: format!("{}/{}", clause.clause_id, n),
            chunk_no: n as u32,
            text: format!("{}. {}", clause.title, text),
        })
        .collect()
}

#[cfg(test)]
#[path = "clause_tests.rs"]
mod tests;
