//! What a turn asks for, decided deterministically from the question and the ids the chat
//! backend attached. A decision (is *this order* returnable, may *I* book this) needs the id of
//! the thing it is about, a request about it (asking whether it is allowed or possible, or
//! asking for it), and no sign of a question about how the policy works ("how do I return
//! it?", "what is the window?"); anything less stays on the policy-question path, so an
//! unclear intent never becomes a decision.

use std::collections::BTreeSet;

use crate::codes::Intent;

/// The ids a turn carries (from the chat backend, not from the question).
#[derive(Debug, Clone, Copy, Default)]
pub struct TurnSubjects {
    pub has_order: bool,
    pub has_employee: bool,
}

// Word lists: an entry of four letters or more also matches as a prefix ("approv" →
// "approved", "approval"); shorter ones only as the whole word ("can" is not "cancel").
/// Asking whether something is allowed, possible or covered, or asking for it.
const REQUEST: &[&str] = &[
    "can", "could", "may", "might", "will", "would", "allow", "approv", "ok", "okay", "fine",
    "elig", "able", "permit", "still", "late", "possibl", "qualif", "entitl", "cover", "please",
    "want", "like", "need", "confirm",
];
/// The question asks how the policy works, not for a decision about the subject.
const PROCEDURAL: &[&str] = &[
    "how", "what", "whats", "which", "where", "when", "why", "who",
];
const RETURN: &[&str] = &["return", "exchang"];
const REFUND: &[&str] = &["refund"];
const EXPENSE: &[&str] = &[
    "expens", "reimburs", "claim", "book", "spend", "buy", "purchas", "approv", "cost",
];
const FIRST_PERSON: &[&str] = &["i", "me", "my", "we", "our", "us", "im", "ive", "mine"];
/// Pointing at the subject itself ("this order", "can it be returned", "is that covered").
const DEIXIS: &[&str] = &["this", "it", "that", "these", "them", "order"];
const SUBSCRIPTION: &[&str] = &["subscri", "membership", "member", "renew", "trial"];
const CANCEL: &[&str] = &["cancel"];
const HOW: &[&str] = &["how", "step", "steps", "where", "way", "process"];

fn words(question: &str) -> Vec<String> {
    question
        .to_lowercase()
        .replace(['\'', '’'], "")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn matches(word: &str, list: &[&str]) -> bool {
    list.iter()
        .any(|l| word == *l || (l.len() >= 4 && word.starts_with(l)))
}

fn any(words: &[String], list: &[&str]) -> bool {
    words.iter().any(|w| matches(w, list))
}

/// A request word, not counting one put to the assistant ("can you recommend...").
fn requests(words: &[String]) -> bool {
    words.iter().enumerate().any(|(i, w)| {
        let modal = ["can", "could", "may", "might", "will", "would"].contains(&w.as_str());
        let to_assistant = modal && words.get(i + 1).is_some_and(|n| n == "you");
        // "returnable", "reimbursable": the subject's own eligibility.
        let eligible_adjective = w.ends_with("able") && w.len() > 6;
        (matches(w, REQUEST) || eligible_adjective) && !to_assistant
    })
}

/// The question opens (or its clause opens) with a how/what/when word.
fn procedural(words: &[String]) -> bool {
    words.first().is_some_and(|w| matches(w, PROCEDURAL))
        || words.windows(2).any(|p| {
            matches(&p[0], PROCEDURAL)
                && ["do", "does", "is", "are", "long", "many", "much"].contains(&p[1].as_str())
        })
}

/// "send it back", "money back", "back out": giving back without the word "return".
fn gives_back(words: &[String]) -> bool {
    words.windows(3).any(|w| {
        ["send", "take", "bring", "give", "money"].contains(&w[0].as_str())
            && (w[1] == "back" || w[2] == "back")
    }) || words.windows(2).any(|w| w[0] == "back" && w[1] == "out")
}

fn money_back(words: &[String]) -> bool {
    words.windows(2).any(|w| w[0] == "money" && w[1] == "back")
}

/// A money amount written in the question (`$450`, `450 USD`, `45.50`).
pub fn mentions_amount(question: &str) -> bool {
    crate::decision::requested_amount(question).is_some()
}

/// The intent of `question`, given the ids its turn carries. `expense_words` are the words the
/// corpus's expense rules are about (their names, titles and class values: "hotel", "business"),
/// so that "can I take premium economy?" is recognised without a list in code.
pub fn detect_intent(
    question: &str,
    subjects: TurnSubjects,
    expense_words: &BTreeSet<String>,
) -> Intent {
    let w = words(question);
    let amount = mentions_amount(question);
    // About the turn's own subject, not the policy in general ("can managers expense...?").
    let own = any(&w, FIRST_PERSON) || any(&w, DEIXIS) || amount;
    let asks = own && requests(&w) && !procedural(&w);
    let about_spending =
        any(&w, EXPENSE) || amount || w.iter().any(|word| expense_words.contains(word));
    if subjects.has_employee && asks && about_spending {
        return Intent::ExpenseApproval;
    }
    if subjects.has_order && asks {
        if any(&w, REFUND) || money_back(&w) {
            return Intent::RefundEligibility;
        }
        if any(&w, RETURN) || gives_back(&w) {
            return Intent::ReturnEligibility;
        }
    }
    if any(&w, SUBSCRIPTION) {
        return Intent::SubscriptionInfo;
    }
    if any(&w, CANCEL) && any(&w, HOW) {
        return Intent::CancellationSteps;
    }
    Intent::PolicyFaq
}

#[cfg(test)]
#[path = "intent_tests.rs"]
mod tests;
