//! What a turn asks for, decided deterministically from the question and the ids the chat
//! backend attached. A decision (is *this order* returnable, may *I* book this) needs the id of
//! the thing it is about, a request about it (asking whether it is allowed or possible, or
//! asking for it), and no sign of a question about how the policy works ("how do I return
//! it?", "what is the window?"); anything less stays on the policy-question path, so an
//! unclear intent never becomes a decision.
//!
//! A message that tells the assistant to *do* something to an account or a payment ("process
//! my refund", "mark my return as accepted", "issue $100 in store credit") or to make a
//! commitment ("promise me a voucher", "confirm you will pay it out") is not a question a
//! policy can answer: it is an action request, handed to a person ([`demanded_action`]).

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

pub(crate) fn words(question: &str) -> Vec<String> {
    question
        .to_lowercase()
        .replace(['\'', '’'], "")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// A plural's singular ("fees" → "fee"), leaving words that end in "ss" or "us" ("status").
fn singular(word: &str) -> &str {
    if word.ends_with("ss") || word.ends_with("us") {
        word
    } else {
        word.trim_end_matches('s')
    }
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

/// Verbs of actions on an account or a payment that only the company can perform.
const ACTION_VERBS: &[&str] = &[
    "process",
    "issue",
    "approve",
    "authorize",
    "authorise",
    "mark",
    "credit",
    "refund",
    "reimburse",
    "pay",
    "waive",
    "grant",
    "apply",
    "send",
    "reverse",
    "cancel",
    "extend",
    "reopen",
    "upgrade",
    "replace",
    "reship",
    "expedite",
    "override",
    "unlock",
    "transfer",
    "accept",
    "honor",
    "honour",
    "give",
    "put",
    "release",
    "activate",
    "void",
    "change",
    "update",
    "restore",
    "compensate",
    "deposit",
    "add",
    "remove",
    "lift",
    "erase",
    "close",
    "delete",
    "book",
    "ship",
    "exempt",
    "generate",
    "flag",
    "set",
    "open",
    "resend",
    "trigger",
    "push",
    "sort",
    "reactivate",
    "adjust",
    "switch",
    "escalate",
    "refile",
    "resubmit",
    "take",
];
/// Verbs that commit the company to something.
const COMMITMENT_VERBS: &[&str] = &[
    "promise",
    "guarantee",
    "confirm",
    "commit",
    "assure",
    "certify",
    "swear",
    "pledge",
];
/// Verbs that also take information as their object ("give me the window", "send me the
/// terms"): an order only with money or a remedy as the object.
const GENERIC_VERBS: &[&str] = &[
    "give", "send", "put", "add", "change", "update", "book", "ship", "close", "delete", "remove",
    "apply", "set", "open", "switch", "adjust", "escalate", "push", "sort", "take",
];
/// Money and remedies: what a generic verb must act on to be an order.
const REMEDY_OBJECTS: &[&str] = &[
    "refund",
    "money",
    "cash",
    "credit",
    "voucher",
    "coupon",
    "discount",
    "compensation",
    "payout",
    "reimbursement",
    "replacement",
    "exception",
    "exemption",
    "extension",
    "upgrade",
    "waiver",
    "chargeback",
    "claim",
    "case",
    "ticket",
    "dispute",
    "return",
    "penalty",
    "difference",
    "fee",
    "charge",
    // The account itself: "change the delivery address", "delete my account and data".
    "address",
    "account",
    "data",
    "status",
];
/// What such an action is done to.
const ACCOUNT_OBJECTS: &[&str] = &[
    "refund",
    "money",
    "cash",
    "credit",
    "voucher",
    "coupon",
    "discount",
    "compensation",
    "payout",
    "payment",
    "reimbursement",
    "fee",
    "charge",
    "return",
    "order",
    "account",
    "subscription",
    "membership",
    "exception",
    "exemption",
    "approval",
    "replacement",
    "exchange",
    "label",
    "point",
    "gift",
    "balance",
    "waiver",
    "deposit",
    "invoice",
    "claim",
    "extension",
    "upgrade",
    "address",
    "booking",
    "purchase",
    "transaction",
    "chargeback",
    "warranty",
    "request",
    "price",
];
/// Pronouns that stand for the customer's own case ("process it now", "approve this").
const CASE_PRONOUNS: &[&str] = &["it", "this", "that", "mine", "them", "what"];
/// The customer as the object: "refund me", "credit us".
const CUSTOMER_OBJECTS: &[&str] = &["me", "us"];
/// Verbs whose pronoun object can only be the customer's case (not "send it back").
const CASE_VERBS: &[&str] = &[
    "process",
    "approve",
    "authorize",
    "authorise",
    "mark",
    "refund",
    "credit",
    "waive",
    "issue",
    "grant",
    "honor",
    "honour",
    "accept",
    "expedite",
    "reverse",
    "void",
    "release",
    "trigger",
    "reimburse",
    "compensate",
    "pay",
    "resend",
    "flag",
];
/// Words that may open an order before its verb ("please just process...").
pub(crate) const LEAD_INS: &[&str] = &[
    "please",
    "pls",
    "plz",
    "kindly",
    "just",
    "so",
    "now",
    "then",
    "ok",
    "okay",
    "also",
    "and",
    "quickly",
    "simply",
    "go",
    "ahead",
    "hey",
    "hi",
    "hello",
    "right",
    "alright",
    "yes",
    "but",
    "immediately",
    "asap",
    "bot",
    "assistant",
    "ai",
    "chatbot",
    "agent",
    "support",
    "team",
    // Markers of a sequence: "first tell me ...", "finally, send me ...".
    "first",
    "firstly",
    "secondly",
    "finally",
    "lastly",
];
/// "I need you to ...", "I'm telling you to ...": the customer orders, whatever the action.
const ORDER_FRAMES: &[&[&str]] = &[
    &["need", "you", "to"],
    &["want", "you", "to"],
    &["order", "you", "to"],
    &["ordering", "you", "to"],
    &["command", "you", "to"],
    &["commanding", "you", "to"],
    &["demand", "that", "you"],
    &["demand", "you"],
    &["like", "you", "to"],
    &["asking", "you", "to"],
    &["telling", "you", "to"],
    &["instruct", "you", "to"],
    &["instructing", "you", "to"],
    &["require", "you", "to"],
    &["expect", "you", "to"],
    &["make", "sure", "you"],
    &["make", "sure", "to"],
    &["authorizing", "you", "to"],
    &["authorising", "you", "to"],
    &["authorize", "you", "to"],
    &["authorise", "you", "to"],
    &["permitting", "you", "to"],
    &["allowing", "you", "to"],
    &["its", "fine", "to"],
    &["its", "ok", "to"],
    &["its", "okay", "to"],
    &["it", "is", "fine", "to"],
    &["its", "fine", "for", "you", "to"],
];
/// "you must ...", "you are required to ...": an obligation put on the assistant, or one a
/// customer asks about ("how much notice you're required to give"); an order only when it acts
/// on an account or a payment.
const OBLIGATION_FRAMES: &[&[&str]] = &[
    &["you", "must"],
    &["you", "have", "to"],
    &["you", "need", "to"],
    &["you", "are", "required", "to"],
    &["youre", "required", "to"],
    &["you", "are", "obliged", "to"],
    &["youre", "obliged", "to"],
    &["you", "are", "authorized", "to"],
    &["youre", "authorized", "to"],
    &["you", "are", "allowed", "to"],
    &["youre", "allowed", "to"],
    &["you", "can", "now"],
];
/// How far after its verb an action's object may come.
const OBJECT_REACH: usize = 6;

/// Nouns that make an account word a subject of information ("the return window", "refund
/// policy", "payment options"): asking about them is a question, not an order.
const INFO_NOUNS: &[&str] = &[
    "window",
    "period",
    "policy",
    "policies",
    "deadline",
    "time",
    "times",
    "timeframe",
    "rule",
    "rules",
    "term",
    "terms",
    "condition",
    "conditions",
    "procedure",
    "steps",
    "details",
    "information",
    "info",
    "options",
    "method",
    "methods",
    "status",
    "limit",
    "limits",
];

fn object_follows(words: &[String], verb_at: usize) -> bool {
    let verb = words[verb_at].as_str();
    // "update me on the status", "keep us posted about": news for the customer, not an act;
    // "sort of", "put simply", "change of address": not a verb at all.
    let at = |k: usize| words.get(verb_at + k).map(String::as_str);
    if matches!(at(1), Some("of" | "simply")) {
        return false;
    }
    if matches!(at(1), Some("me" | "us"))
        && matches!(at(2), Some("on" | "about" | "regarding" | "with"))
    {
        return false;
    }
    let end = words.len().min(verb_at + 1 + OBJECT_REACH);
    // "add a note to my account", "take the fee off my order": done to the account itself.
    let on_the_account = words[verb_at + 1..end].windows(3).any(|w| {
        ["to", "on", "from", "in", "off"].contains(&w[0].as_str())
            && ["my", "the", "our"].contains(&w[1].as_str())
            && ["account", "order", "profile", "card", "bill", "invoice"].contains(&w[2].as_str())
    });
    let account_object = (verb_at + 1..end).any(|j| {
        let w = words[j].as_str();
        let informational = words
            .get(j + 1)
            .is_some_and(|next| INFO_NOUNS.contains(&next.as_str()));
        let objects = if GENERIC_VERBS.contains(&verb) {
            REMEDY_OBJECTS
        } else {
            ACCOUNT_OBJECTS
        };
        (matches(singular(w), objects) && !informational) || w.chars().any(|c| c.is_ascii_digit())
    });
    let case_object = words.get(verb_at + 1).is_some_and(|w| {
        CASE_PRONOUNS.contains(&w.as_str()) || CUSTOMER_OBJECTS.contains(&w.as_str())
    });
    account_object || on_the_account || (CASE_VERBS.contains(&verb) && case_object)
}

/// A commitment: to the customer ("promise me"), about the future ("confirm you will"), in a
/// form that binds ("in writing", "officially"), or about money or an account ("guarantee my
/// refund") — not "confirm I can return this", which asks.
fn commitment_follows(words: &[String], verb_at: usize) -> bool {
    let after: Vec<&str> = words[verb_at + 1..words.len().min(verb_at + 8)]
        .iter()
        .map(String::as_str)
        .collect();
    // "confirm (that) I can ...", "confirm for me whether ...": the customer asks.
    let clause_subject = after
        .iter()
        .find(|w| !["that", "for", "me", "us"].contains(*w))
        .is_some_and(|w| {
            [
                "i", "we", "im", "ive", "id", "whether", "if", "how", "what", "when", "which",
                "why",
            ]
            .contains(w)
        });
    if clause_subject {
        return false;
    }
    let binding = after.windows(2).any(|w| {
        matches!(
            w,
            ["you", "will" | "ll" | "shall" | "are"]
                | ["in", "writing"]
                | ["as", "official"]
                | ["as", "an"]
        )
    }) || after.iter().any(|w| {
        [
            "youll",
            "officially",
            "me",
            "us",
            "binding",
            "agreement",
            "liability",
            "liable",
            "commitment",
            "obligated",
            "obliged",
        ]
        .contains(w)
    });
    binding || object_follows(words, verb_at)
}

/// Verbs that put words in the assistant's mouth: "state that the company will...".
const SAY_VERBS: &[&str] = &[
    "state",
    "write",
    "say",
    "declare",
    "acknowledge",
    "admit",
    "put",
];
/// Who a commitment binds, and what binds it.
const COMMITTED: &[&str] = &["you", "company", "retailer", "store", "shop", "we", "your"];
const BINDS: &[&str] = &[
    "will",
    "shall",
    "accepts",
    "accept",
    "agrees",
    "agree",
    "guarantee",
    "guarantees",
    "promise",
    "promises",
    "owes",
    "owe",
    "liable",
    "liability",
];

/// A commitment asked for in any form: "can you promise...?", "I need an official guarantee
/// that...", "state clearly that the company accepts liability", "write that you guarantee".
fn asks_for_commitment(words: &[String]) -> bool {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    let promise_question = w.windows(3).any(|t| {
        ["can", "could", "will", "would"].contains(&t[0])
            && t[1] == "you"
            && ["promise", "guarantee", "commit", "pledge", "swear"].contains(&t[2])
    });
    let wants_guarantee = w.iter().enumerate().any(|(i, t)| {
        ["guarantee", "promise", "commitment", "assurance"].contains(t)
            && w[i.saturating_sub(3)..i].iter().any(|b| {
                [
                    "official", "written", "formal", "binding", "need", "want", "demand",
                ]
                .contains(b)
            })
    });
    let dictated = w.iter().enumerate().any(|(i, t)| {
        SAY_VERBS.contains(t) && {
            let after = &w[i + 1..w.len().min(i + 10)];
            after.contains(&"that")
                && after.iter().any(|a| COMMITTED.contains(a))
                && after.iter().any(|a| BINDS.contains(a))
        }
    });
    promise_question || wants_guarantee || dictated
}

/// The action or commitment a message orders the assistant to make, if it orders one: the
/// verb and what follows it, for the escalation's reason. Read per sentence; a question (one
/// ending in `?`) asks and orders nothing.
pub fn demanded_action(message: &str) -> Option<String> {
    // Sentences, each with whether it is a question (a question asks and orders nothing).
    let mut sentences: Vec<(&str, bool)> = Vec::new();
    let mut rest = message;
    while !rest.is_empty() {
        let end = rest
            .find(['.', '!', '?', ';', '\n', ':', '(', ')', '—', '–'])
            .unwrap_or(rest.len());
        let terminator = rest[end..].chars().next();
        sentences.push((rest[..end].trim(), terminator == Some('?')));
        rest = terminator.map_or("", |t| &rest[end + t.len_utf8()..]);
    }
    // "Can you cancel my subscription? Do it now.": insisting on it makes the question an order.
    let insists = sentences
        .iter()
        .any(|(s, question)| !question && insists(&words(s)));
    for (trimmed, question) in sentences {
        if trimmed.is_empty() {
            continue;
        }
        let w = words(trimmed);
        if asks_for_commitment(&w) {
            return Some(w[..w.len().min(8)].join(" "));
        }
        if question && !insists {
            continue;
        }
        if question {
            if let Some(found) = polite_request(&w) {
                return Some(found);
            }
        }
        // Each coordinated clause may open with its own order ("skip the checks and mark it").
        for clause in trimmed.split(" and ").chain(trimmed.split(", ")) {
            if let Some(found) = clause_order(clause) {
                return Some(found);
            }
        }
    }
    None
}

/// Words that insist on having something done rather than describe it: "do it now", "just do
/// that", "make it happen", "get it done".
const INSISTENCES: &[&[&str]] = &[
    &["do", "it"],
    &["do", "that"],
    &["do", "this"],
    &["make", "it", "happen"],
    &["get", "it", "done"],
    &["get", "that", "done"],
];

fn insists(words: &[String]) -> bool {
    let Some(at) = words.iter().position(|w| !LEAD_INS.contains(&w.as_str())) else {
        return false;
    };
    // "Do-it-yourself kits" names a thing.
    let named = words.get(at + 2).is_some_and(|w| w == "yourself");
    !named
        && INSISTENCES
            .iter()
            .any(|phrase| words[at..].iter().take(phrase.len()).eq(phrase.iter()))
}

/// "can you (please) refund my fee", "could you just go ahead and cancel it": the action a
/// request asks the assistant to take, if it names one.
fn polite_request(words: &[String]) -> Option<String> {
    let asks = words.windows(2).position(|pair| {
        ["can", "could", "will", "would"].contains(&pair[0].as_str()) && pair[1] == "you"
    })?;
    let rest = words[asks + 2..].join(" ");
    rest.split(" and ").find_map(clause_order)
}

fn clause_order(clause: &str) -> Option<String> {
    {
        let w = words(clause);
        let phrase = |at: usize| w[at..w.len().min(at + 6)].join(" ");
        // An order opening the sentence: "please just mark my return as accepted".
        let first = w.iter().position(|word| !LEAD_INS.contains(&word.as_str()));
        if let Some(at) = first {
            let verb = w[at].as_str();
            if ACTION_VERBS.contains(&verb) && object_follows(&w, at) {
                return Some(phrase(at));
            }
            if COMMITMENT_VERBS.contains(&verb) && commitment_follows(&w, at) {
                return Some(phrase(at));
            }
        }
        // An order in other words: "I need you to issue...", "you're required to process...".
        for (frames, needs_object) in [(ORDER_FRAMES, false), (OBLIGATION_FRAMES, true)] {
            for frame in frames {
                let Some(start) = w.windows(frame.len()).position(|win| win == *frame) else {
                    continue;
                };
                let at = start + frame.len();
                let Some(verb) = w.get(at).map(String::as_str) else {
                    continue;
                };
                let acts =
                    ACTION_VERBS.contains(&verb) && (!needs_object || object_follows(&w, at));
                if acts || (COMMITMENT_VERBS.contains(&verb) && commitment_follows(&w, at)) {
                    return Some(phrase(at));
                }
            }
        }
    }
    None
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
    if demanded_action(question).is_some() {
        return Intent::ActionRequest;
    }
    if crate::records::requested_record(question).is_some() {
        return Intent::RecordRequest;
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
