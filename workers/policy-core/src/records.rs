//! Requests for what only an account or order record holds: an address, a phone number, card
//! digits, the name on an account, an order or return history, what someone bought, what
//! another customer asked, the state of one shipment. The assistant answers from the policy
//! and reads no records, so no clause can answer such a request; and whose record it is (the
//! writer's own, a spouse's, a stranger's) is exactly what a person must check before anyone
//! sees it. Such a message is escalated, never answered from whichever clause happens to
//! mention addresses or cards.
//!
//! A request, not a mention. The record's contents must be what is asked for: the object of a
//! verb put to the assistant ("tell me", "can you give me", "pull up", "list") or of a "what
//! is" question, reached through words that can only describe it ("the last four digits of",
//! "his most recent"); and they must be a record's ("his phone number", "the address on order
//! 113-...", "the card she paid with"). "Tell me the steps to change my delivery address",
//! "what is my email used for?", "which address do I use for my return?" and "give me the
//! store's phone number" ask about the policy.

use crate::intent::{words, LEAD_INS};
use crate::text::split_message_sentences;

/// Verbs that ask the assistant to disclose something.
const DISCLOSE: &[&str] = &[
    "tell", "give", "share", "provide", "list", "show", "pull", "confirm", "reveal", "disclose",
    "read", "include", "find", "check", "look", "export", "send", "email", "text", "forward",
];
/// Verbs that list or show (a list of orders is a record whoever owns it).
const LIST: &[&str] = &["list", "show", "pull"];
/// Words before a verb that still leave it addressed to the assistant.
const ADDRESSING: &[&str] = &["can", "could", "would", "will", "you", "u", "ya", "well"];
/// Words that open a subordinate clause: "once you confirm my items are back, ..." is not an
/// order to confirm.
const SUBORDINATORS: &[&str] = &[
    "once", "when", "if", "after", "before", "until", "unless", "whenever", "happens",
];
/// What a record holds, once it is someone's ("his address", "the email on file").
const RECORD_FIELDS: &[&str] = &[
    "address",
    "addresses",
    "postcode",
    "zip",
    "phone",
    "mobile",
    "email",
    "card",
    "name",
    "names",
    "details",
    "history",
    "orders",
    "purchases",
    "item",
    "items",
    "complaints",
    "amount",
    "total",
    "totals",
    "balance",
    "database",
    "date",
    "dates",
];
/// Fields that are the writer's record with a bare "my" ("my order history", "my purchases",
/// "my account details"); the others need more ("my email" is also the writer's address for a
/// newsletter, "my items" the ones a question is about).
const OWN_RECORDS: &[&str] = &["history", "purchases", "details"];
/// Histories and lists of a record, which listing or showing discloses.
const RECORD_LISTS: &[&str] = &["history", "orders", "purchases"];
/// Words that may stand between a verb and the field it asks for: articles, owners,
/// quantities, "back" ("read me back the ..."), and the kinds of address, number or history
/// ("the last four digits of", "a list of his", "the full shipping"). Any other word ends the
/// object: "tell me the steps to change my address" asks for steps.
const OBJECT_WORDS: &[&str] = &[
    "me",
    "us",
    "the",
    "a",
    "an",
    "all",
    "every",
    "each",
    "any",
    "full",
    "complete",
    "entire",
    "exact",
    "exactly",
    "whole",
    "last",
    "latest",
    "most",
    "recent",
    "current",
    "new",
    "old",
    "first",
    "few",
    "real",
    "some",
    "his",
    "her",
    "their",
    "my",
    "our",
    "s",
    "list",
    "copy",
    "back",
    "of",
    "and",
    "or",
    "also",
    "just",
    "shipping",
    "delivery",
    "billing",
    "home",
    "postal",
    "forwarding",
    "mailing",
    "email",
    "e",
    "mail",
    "phone",
    "mobile",
    "contact",
    "account",
    "order",
    "return",
    "purchase",
    "payment",
    "card",
    "credit",
    "debit",
    "four",
    "six",
    "two",
    "number",
    "numbers",
    "examples",
    "personal",
    "saved",
    "out",
    "refund",
    "loyalty",
    "points",
    "customer",
    "expected",
    "estimated",
    "dispatch",
    "arrival",
];
/// A noun after the field makes it a topic or a part of the site ("the orders policy", "my
/// phone company", "the card number field").
const TOPIC_NOUNS: &[&str] = &[
    "policy",
    "policies",
    "page",
    "section",
    "rule",
    "rules",
    "window",
    "terms",
    "company",
    "companys",
    "plan",
    "process",
    "procedure",
    "option",
    "options",
    "field",
    "format",
    "form",
    "box",
    "requirement",
    "requirements",
    "change",
    "changes",
    "update",
    "updates",
    "label",
    "labels",
    "line",
    "lines",
    "verification",
];
/// After a field, words that ask about it rather than for it: "which address do I use",
/// "what is my email used for", "will you share my email with third parties".
const ABOUT_THE_FIELD: &[&str] = &[
    "do", "does", "should", "can", "could", "must", "shall", "will", "would", "used", "shared",
    "stored", "deleted", "kept", "safe", "with", "supposed", "meant", "about",
];
/// Owners; `s` is a possessive noun's mark ([`mark_possessives`]).
const POSSESSIVES: &[&str] = &["my", "his", "her", "their", "hers", "theirs", "s"];
const THIRD_PERSON: &[&str] = &["he", "she", "they"];
/// What ties a field to a record after it: "on file", "for the account", "tied to ...".
const RECORD_LINKS: &[&str] = &[
    "on",
    "for",
    "of",
    "tied",
    "linked",
    "associated",
    "attached",
    "registered",
    "under",
];
const RECORD_NOUNS: &[&str] = &[
    "file", "record", "account", "order", "profile", "customer", "member",
];
/// "customer service", "your returns department": the company, not a record.
const COMPANY: &[&str] = &[
    "service",
    "support",
    "care",
    "your",
    "department",
    "team",
    "store",
    "shop",
    "company",
    "courier",
    "warehouse",
    "centre",
    "center",
    "branch",
    "mail",
    "seller",
    "retailer",
    "post",
    "office",
    "site",
    "website",
    "app",
    "carrier",
];
const OTHER_PEOPLE: &[[&str; 2]] = &[
    ["other", "customers"],
    ["another", "customer"],
    ["someone", "else"],
    ["somebody", "else"],
    ["other", "people"],
];
/// Who, doing a recorded act, is not a customer.
const NOT_A_CUSTOMER: &[&str] = &[
    "you",
    "u",
    "your",
    "it",
    "its",
    "this",
    "that",
    "store",
    "company",
    "shop",
    "website",
    "site",
    "app",
    "system",
    "team",
    "agent",
    "bot",
    "assistant",
    "staff",
    "seller",
    "courier",
    "law",
    "email",
    "banner",
    "ad",
    "advert",
    "promo",
    "message",
    "receipt",
    "label",
];
/// Words that make what follows "what" a clause of its own rather than a subject, or the act a
/// condition of a policy question ("what if my son ordered it", "whether gifts bought on sale
/// can be returned", "what the warranty covers on things I bought").
const CLAUSE_WORDS: &[&str] = &[
    "if",
    "happens",
    "happen",
    "about",
    "kind",
    "sort",
    "can",
    "could",
    "should",
    "would",
    "will",
    "is",
    "are",
    "was",
    "were",
    "do",
    "does",
    "to",
    "be",
    "when",
    "mean",
    "means",
    "say",
    "said",
    "says",
    "cover",
    "covers",
    "counts",
    "count",
    "get",
    "gets",
    "matter",
    "matters",
    "must",
    "need",
    "needs",
    "has",
    "have",
    "pay",
    "pays",
    "usually",
    "normally",
    "typically",
    "generally",
    "often",
];
/// What a record says someone did: "what did the customer before me order / ask".
const RECORDED_ACTS: &[&str] = &["order", "buy", "purchase", "ask", "pay", "spend", "redeem"];
const RECORDED_PAST: &[&str] = &[
    "ordered",
    "bought",
    "purchased",
    "asked",
    "paid",
    "spent",
    "redeemed",
];
/// Words that make what is said of a field a requirement or a condition: "... supposed to
/// include", "... needs to match", "... if I move".
const REQUIRED: &[&str] = &[
    "supposed", "need", "needs", "should", "have", "has", "must", "if", "required", "allowed",
];
/// People a shipment may be for: "the parcel for my mum", "the order for my boss".
const PEOPLE: &[&str] = &[
    "mum",
    "mom",
    "mother",
    "dad",
    "father",
    "parents",
    "son",
    "daughter",
    "kids",
    "child",
    "children",
    "wife",
    "husband",
    "partner",
    "girlfriend",
    "boyfriend",
    "fiance",
    "fiancee",
    "brother",
    "sister",
    "aunt",
    "uncle",
    "nan",
    "gran",
    "grandma",
    "grandmother",
    "grandpa",
    "grandfather",
    "grandson",
    "granddaughter",
    "nephew",
    "niece",
    "cousin",
    "friend",
    "flatmate",
    "roommate",
    "neighbour",
    "neighbor",
    "boss",
    "colleague",
    "coworker",
    "client",
];
/// People met by chance, pointed at rather than named: "the guy in front of me", "that lady"
/// (not a role any customer has, "the customer", "the person").
const BYSTANDERS: &[&str] = &["guy", "man", "woman", "lady", "gentleman", "bloke", "girl"];
/// The words that say where a person pointed at stood: "in front of me in the queue", "ahead of
/// me", "next to me at the till".
const POINTING_OUT: &[&str] = &[
    "in", "front", "of", "me", "us", "ahead", "behind", "before", "after", "next", "to", "at",
    "the", "queue", "line", "till", "checkout", "counter", "just",
];
/// How far the act may follow an owner ("my son s order cost") and a person pointed at ("the
/// guy in front of me in the queue pay").
const OWNER_REACH: usize = 5;
const PERSON_REACH: usize = 10;
/// Things that ship.
const SHIPMENTS: &[&str] = &[
    "order", "parcel", "package", "delivery", "shipment", "orders", "parcels", "packages",
];
/// After a shipment, words that make it part of something else ("my order number on the
/// receipt", "my order history page", "the parcel locker").
const SHIPMENT_PARTS: &[&str] = &[
    "number",
    "history",
    "page",
    "label",
    "labels",
    "confirmation",
    "listed",
    "locker",
    "details",
    "summary",
    "receipt",
    "id",
    "cutoff",
    "schedule",
    "tracking",
    "status",
    "s",
];
/// What a shipment's record says happened to it.
const SHIPMENT_STATES: &[&str] = &[
    "shipped",
    "ship",
    "dispatched",
    "arrive",
    "arrived",
    "arriving",
    "delivered",
    "left",
    "leave",
    "come",
    "coming",
];
/// People as the subject of what they did.
const PERSONS: &[&str] = &["i", "we", "he", "she", "they"];
/// A shipment's states that are done.
const DONE: &[&str] = &["shipped", "dispatched", "arrived", "delivered", "left"];
/// What happens to one refund or payment ("has that refund been processed?"); with [`DONE`],
/// [`an_event_of_one_record`].
const ONE_RECORDS_EVENTS: &[&str] = &[
    "processed",
    "issued",
    "paid",
    "sent",
    "approved",
    "received",
    "cleared",
    "through",
    "refunded",
    "credited",
    "accepted",
];
/// Auxiliaries of the past and the perfect: one before its subject asks what happened.
const PAST_AUXILIARIES: &[&str] = &["did", "was", "were", "has", "have", "had"];
/// Subjects of a question about what happened that make it one record's by themselves: the
/// writer, another person, or someone's thing (a possessive).
const OWN_SUBJECTS: &[&str] = &["i", "he", "she"];
/// Subjects that need a record beside them ("did you send my refund?", "was it sent to me?"):
/// alone they ask about the company's practice or the conversation ("did you stop offering
/// free returns?", "where was it written?").
const OTHER_SUBJECTS: &[&str] = &["you", "u", "we", "they", "it"];
/// What makes a question with such a subject one record's: the writer or someone's thing.
const RECORD_MARKS: &[&str] = &["me", "us", "i", "my", "his", "her", "their", "our", "s"];
/// Words that make a past question one about the rules, not about what happened: a change
/// ("did the policy change?", "has it gone up?"), a practice ("have you ever ..."), what was
/// allowed or required ("was I entitled to ...?", "did I have to ...?", "was I liable for
/// ...?", "was it my fault?", "was I within my rights ...?", "did my order qualify ...?"),
/// what a rule covers ("did my warranty cover ...?"), what makes a difference ("did the
/// payment method matter?"), or what the assistant itself said ("what did you mean?"). A
/// condition anywhere in the clause does too ("did my parcel go by standard or express if I
/// picked neither?").
const NOT_AN_EVENT: &[&str] = &[
    "change",
    "changed",
    "update",
    "updated",
    "move",
    "moved",
    "become",
    "became",
    "start",
    "started",
    "begin",
    "began",
    "increase",
    "increased",
    "decrease",
    "decreased",
    "drop",
    "dropped",
    "different",
    "ever",
    "always",
    "usually",
    "normally",
    "allowed",
    "entitled",
    "eligible",
    "supposed",
    "meant",
    "required",
    "responsible",
    "liable",
    "fault",
    "rights",
    "obliged",
    "able",
    "need",
    "needed",
    "cover",
    "covered",
    "qualify",
    "qualified",
    "apply",
    "applied",
    "count",
    "counted",
    "matter",
    "affect",
    "affected",
    "have",
    "has",
    "had",
    "can",
    "could",
    "should",
    "would",
    "say",
    "said",
    "tell",
    "told",
    "mean",
    "quote",
    "quoted",
    "include",
    "included",
    "add",
    "added",
    "understand",
    "write",
    "wrote",
    "written",
    "answer",
    "answered",
    "ask",
    "asked",
];
/// Words that end the search for the auxiliary after a question word: a present or a modal
/// question ("what does my warranty have?"), or a condition ("what if my order was lost?").
const NOT_PAST: &[&str] = &[
    "if", "do", "does", "is", "are", "am", "can", "could", "will", "would", "should", "must",
];
/// Nouns a number after which is a record's ("order 44102", "refund 2048").
const NUMBERED_RECORDS: &[&str] = &[
    "order",
    "orders",
    "refund",
    "return",
    "payment",
    "account",
    "parcel",
    "package",
    "invoice",
    "ticket",
    "case",
    "number",
    "no",
    "ref",
    "reference",
];
/// How many words after the subject are read for [`NOT_AN_EVENT`] and [`RECORD_MARKS`].
const EVENT_REACH: usize = 6;
/// How many words may stand between "what" or "which" and the auxiliary ("what delivery date
/// was recorded", "which of my orders have been refunded").
const EVENT_HEAD_REACH: usize = 3;
/// Words whose "'s" is "is" or "has" ("she's", "what's"), not a possessive.
const CONTRACTED: &[&str] = &[
    "it",
    "that",
    "what",
    "there",
    "here",
    "who",
    "where",
    "how",
    "when",
    "he",
    "she",
    "let",
    "everyone",
    "everything",
    "nothing",
    "something",
    "this",
    "today",
    "name",
];
/// The writer asking to be shown: "I need to see", "I want to know", "let me see".
const WANTS: &[&[&str]] = &[
    &["need", "to", "see"],
    &["need", "to", "know"],
    &["want", "to", "see"],
    &["want", "to", "know"],
    &["like", "to", "see"],
    &["like", "to", "know"],
    &["let", "me", "see"],
    &["let", "me", "know"],
];
/// How far a field may follow "what is" ("what's the shipping address on ...").
const WHAT_IS_REACH: usize = 5;
/// How far a field may follow "which" or "what" ("which phone number", "what billing address").
const WHICH_REACH: usize = 2;

/// The words asking for a record's contents, if the message asks for any. Read per clause, so
/// that "my daughter has her own account, tell me what she bought" opens its request.
pub fn requested_record(message: &str) -> Option<String> {
    let message = mark_redactions(message);
    // Sentences, each a list of clauses, each its words. An em dash, or a hyphen or en dash
    // between spaces, sets off a clause as a comma does ("Order 77120 - what is in it?"); one
    // inside a word joins ("113-4490218", "e-mail"). Replaced after the sentences are split,
    // whose "- " bullets end one.
    let sentences: Vec<Vec<Vec<String>>> = split_message_sentences(&message)
        .into_iter()
        .map(|sentence| {
            sentence
                .replace(" - ", " \u{2014} ")
                .replace(" \u{2013} ", " \u{2014} ")
                .split([',', ';', ':', '(', ')', '\u{2014}'])
                .map(|clause| split_bare_possessives(words(&mark_possessives(clause))))
                .collect()
        })
        .collect();
    let all_words: Vec<&str> = sentences
        .iter()
        .flatten()
        .flatten()
        .map(String::as_str)
        .collect();
    // "If so, ..." goes on from the question before it; it sets no condition of its own.
    let hypothetical = all_words.iter().enumerate().any(|(k, n)| {
        let if_so = *n == "if"
            && match all_words.get(k + 1) {
                Some(&"yes") => true,
                Some(&"so") => !so_much(all_words.get(k + 2).copied()),
                _ => false,
            };
        HYPOTHETICAL.contains(n) && !if_so
    }) || all_words.windows(2).any(|pair| {
        matches!(pair[0], "before" | "havent")
            && matches!(pair[1], "i" | "we" | "ordered" | "bought")
    });
    let questions = sentences
        .iter()
        .flatten()
        .filter(|e| opens_a_question(e))
        .count();
    sentences.iter().enumerate().find_map(|(s, clauses)| {
        clauses.iter().enumerate().find_map(|(c, w)| {
            let earlier = &clauses[..c];
            let around = Surroundings {
                shipment_named: earlier.iter().any(|e| names_a_shipment(e)),
                // The sentence just before, or an earlier clause of this one: what "it" may
                // stand for is the last thing named, close by.
                record_named_before: sentences[s.saturating_sub(1)..s]
                    .iter()
                    .flatten()
                    .chain(earlier)
                    .any(|e| names_a_record(e)),
                topic_before: earlier
                    .iter()
                    .any(|e| !e.is_empty() && !names_one_record(e)),
                hypothetical,
                other_question: questions > usize::from(opens_a_question(w)),
            };
            (0..w.len()).find_map(|at| {
                field_asked(w, at, &around)
                    .or_else(|| act_asked(w, at, &around))
                    .or_else(|| amount_asked(w, at, &around))
                    .or_else(|| contents_asked(w, at, &around))
                    .or_else(|| status_asked(w, at, &around))
                    .or_else(|| event_asked(w, at))
            })
        })
    })
}

/// What the rest of a message says around a clause, for the readings one clause cannot settle.
#[derive(Debug, Clone, Copy)]
struct Surroundings {
    /// An earlier clause of the sentence named one shipment ("the parcel for my flatmate"),
    /// which a later "it" may stand for.
    shipment_named: bool,
    /// An earlier clause or sentence named one record ("her order, number 28816", "an account
    /// registered under [email]"), which a later "it" may stand for ("what's in it?", "the
    /// phone number on it").
    record_named_before: bool,
    /// An earlier clause of the sentence sets a topic rather than naming one record ("for gift
    /// orders - which address is my parcel going to?").
    topic_before: bool,
    /// The message sets a condition or a purchase not made yet ("if", "provided", "before I
    /// order", "I haven't ordered"): what it asks would happen, which the policy answers.
    hypothetical: bool,
    /// Another clause of the message opens as a question ("I need an export of all the items
    /// we ordered - do business purchases get a longer window?").
    other_question: bool,
}

/// Words that make a message's question one about what would happen.
const HYPOTHETICAL: &[&str] = &[
    "if",
    "provided",
    "providing",
    "unless",
    "whether",
    "suppose",
    "supposing",
    "planning",
    "thinking",
    "considering",
];

/// An owned or pointed-to shipment: "the parcel for my flatmate", "my order"; not a service
/// or a part ("the parcel service", "the parcel locker", "the delivery options") nor a kind
/// ("the same-day delivery", "the pre-order").
fn names_a_shipment(w: &[String]) -> bool {
    (1..w.len()).any(|k| {
        let before = w[k - 1].as_str();
        SHIPMENTS.contains(&w[k].as_str())
            && (POSSESSIVES.contains(&before) || matches!(before, "the" | "this" | "that" | "our"))
            && w.get(k + 1).is_none_or(|n| {
                !SHIPMENT_PARTS.contains(&n.as_str())
                    && !TOPIC_NOUNS.contains(&n.as_str())
                    && !matches!(n.as_str(), "service" | "services")
            })
    })
}

/// The clause names one record, and last of the things it names: someone's shipment or
/// record ("her order"), a numbered one ("order 28816"), or one by its identifier ("an account
/// registered under [email]"); not "my parcel came with a warranty card" (the card is named
/// last) nor "item 40512" (a product's code).
fn names_a_record(w: &[String]) -> bool {
    let mut named = (0..w.len()).filter(|&k| {
        let owned = k > 0
            && POSSESSIVES.contains(&w[k - 1].as_str())
            && a_records_noun(&w[k])
            && w.get(k + 1)
                .is_none_or(|n| !SHIPMENT_PARTS.contains(&n.as_str()) || n == "s");
        let numbered = order_number(&w[k])
            && k > 0
            && (NUMBERED_RECORDS.contains(&w[k - 1].as_str()) || a_records_noun(&w[k - 1]));
        let identified = a_records_noun(&w[k])
            && (k + 1..w.len().min(k + 3)).any(|l| {
                let after = |n: usize| w.get(l + n).map_or("", String::as_str);
                RECORD_LINKS.contains(&after(0))
                    && (order_number(after(1))
                        || after(1) == "name"
                        || (after(1) == "the" && after(2) == "name"))
            });
        owned || numbered || identified
    });
    // Nothing else named after it: an article opens another thing, unless it follows a link
    // ("under the name ...").
    named.next_back().is_some_and(|k| {
        (k + 1..w.len()).all(|l| {
            !matches!(w[l].as_str(), "a" | "an" | "the" | "another")
                || RECORD_LINKS.contains(&w[l - 1].as_str())
        })
    })
}

/// What one shipment, refund or payment went through: "shipped", "processed", "through".
fn an_event_of_one_record(word: &str) -> bool {
    DONE.contains(&word) || ONE_RECORDS_EVENTS.contains(&word)
}

/// A record's noun or a shipment's: "account", "file", "order", "parcel".
fn a_records_noun(word: &str) -> bool {
    RECORD_NOUNS.contains(&word) || SHIPMENTS.contains(&word)
}

/// Another person's ("his", "Ana's") or an order number ("44120", a redacted identifier).
fn someone_elses_or_numbered(word: &str) -> bool {
    (word != "my" && POSSESSIVES.contains(&word)) || order_number(word)
}

/// The clause names one record: someone's thing or a record's number.
fn names_one_record(w: &[String]) -> bool {
    (0..w.len()).any(|k| record_number(w, k) || POSSESSIVES.contains(&w[k].as_str()))
}

/// The clause opens as a question (an auxiliary, a modal, a question word, or "or" going on
/// with one: "..., or is a bank statement enough?"), not as a request to the assistant
/// ("could you send it over?"). Not "were": it is also "we're".
fn opens_a_question(w: &[String]) -> bool {
    let Some(at) = w.iter().position(|n| !LEAD_INS.contains(&n.as_str())) else {
        return false;
    };
    let request = matches!(w[at].as_str(), "can" | "could" | "would" | "will")
        && matches!(w.get(at + 1).map(String::as_str), Some("you" | "u"))
        && w.get(at + 2)
            .is_some_and(|n| DISCLOSE.contains(&n.as_str()));
    !request
        && matches!(
            w[at].as_str(),
            "is" | "are"
                | "was"
                | "do"
                | "does"
                | "did"
                | "can"
                | "could"
                | "will"
                | "would"
                | "should"
                | "which"
                | "what"
                | "how"
                | "where"
                | "when"
                | "why"
                | "or"
        )
}

/// The token a redacted identifier reads as: letters and a digit, so [`order_number`] and the
/// record links read "order [phone]" (a redacted order number) or "tied to [email]" as the
/// identifier they were.
const REDACTED: &str = "redacted0";

/// Personal data is redacted before intent is read; its placeholders stand for identifiers.
fn mark_redactions(message: &str) -> String {
    crate::guardrails::PiiKind::ALL
        .iter()
        .fold(message.to_string(), |text, kind| {
            text.replace(&kind.placeholder(), REDACTED)
        })
}

/// "my brother's parcel" as "my brother s parcel": a person's possessive becomes the word `s`,
/// which [`POSSESSIVES`] reads as an owner. A contraction ("she's") and the company's own
/// ("the store's phone number", "your courier's") are left as they were.
fn mark_possessives(clause: &str) -> String {
    let mut marked = String::with_capacity(clause.len() + 8);
    let mut rest = clause;
    while let Some(at) = rest.find(['\'', '’']) {
        let apostrophe = rest[at..].chars().next().map_or(1, char::len_utf8);
        let after = &rest[at + apostrophe..];
        let mut before = rest[..at].rsplit(|c: char| !c.is_alphanumeric());
        let host = before.next().unwrap_or("").to_lowercase();
        let owner_of_host = before
            .find(|word| !word.is_empty())
            .map(str::to_lowercase)
            .unwrap_or_default();
        let possessive = after.starts_with(['s', 'S'])
            && !after[1..].starts_with(|c: char| c.is_alphanumeric())
            && !host.is_empty()
            && !CONTRACTED.contains(&host.as_str())
            && !COMPANY.contains(&host.as_str())
            && owner_of_host != "your";
        marked.push_str(&rest[..at]);
        marked.push_str(if possessive {
            " s"
        } else {
            &rest[at..at + apostrophe]
        });
        rest = if possessive { &after[1..] } else { after };
    }
    marked.push_str(rest);
    marked
}

/// "my wifes phone number", "the customers email": a person's possessive written without its
/// apostrophe, before what a record holds or a record itself, split as [`mark_possessives`]
/// marks it ("wife s phone"). A plural stays one word ("a list of customers who bought").
fn split_bare_possessives(w: Vec<String>) -> Vec<String> {
    let mut split = Vec::with_capacity(w.len() + 2);
    for (k, word) in w.iter().enumerate() {
        // "wifes", "bosses"; "customers" only before one's identity ("the customers phone",
        // not "text customers delivery dates").
        let next = w.get(k + 1).map_or("", String::as_str);
        let owner = [word.strip_suffix('s'), word.strip_suffix("es")]
            .into_iter()
            .flatten()
            .find(|stem| {
                PEOPLE.contains(stem)
                    || (matches!(*stem, "customer" | "buyer") && IDENTITY_FIELDS.contains(&next))
            });
        let owned = RECORD_FIELDS.contains(&next) || a_records_noun(next) || next == "contact";
        match owner {
            Some(stem) if owned => {
                split.push(stem.to_string());
                split.push("s".to_string());
            }
            _ => split.push(word.clone()),
        }
    }
    split
}

/// A field asked for at `at`: "give me her phone number", "what's the shipping address on
/// order 113-...", "which phone number is on my account", "list all the orders shipped to ...".
fn field_asked(w: &[String], at: usize, around: &Surroundings) -> Option<String> {
    let word = w[at].as_str();
    let next = w.get(at + 1).map(String::as_str);
    let asked = (DISCLOSE.contains(&word)
        && addressed_to_assistant(w, at)
        && (word != "look" || next == Some("up")))
        || wants_to_see(w, at);
    // A need is a request only for someone else's field, not where it goes ("I want her name on
    // the gift card") nor the writer's own ("I need the phone number on the order
    // confirmation", "I need details of the returns policy for my order").
    let needed = !asked && states_a_need(w, at);
    let disclosing = asked || needed;
    let what_is =
        word == "whats" || (word == "what" && matches!(next, Some("is" | "are" | "was" | "were")));
    let which = matches!(word, "what" | "which");
    if !disclosing && !what_is && !which {
        return None;
    }
    let reach = if disclosing {
        w.len()
    } else if what_is {
        WHAT_IS_REACH
    } else {
        WHICH_REACH
    };
    // "look up", "pull up", "what is": the verb's second word.
    let skip = usize::from(
        (matches!(word, "look" | "pull") && next == Some("up")) || (what_is && word == "what"),
    );
    for j in at + 1 + skip..w.len().min(at + 1 + skip + reach) {
        let field = w[j].as_str();
        let after = |k: usize| w.get(j + k).map(String::as_str);
        let digits_of_a_card = field == "digits"
            && matches!(after(1), Some("of" | "on"))
            && w[j + 2..w.len().min(j + 5)]
                .iter()
                .any(|n| matches!(n.as_str(), "card" | "account"));
        let card_number = field == "card" && matches!(after(1), Some("number" | "digits"));
        // "which digits of my card do you store?", "the card number on a gift card", "what are
        // the digits of a card used for?" ask about the policy.
        let nearby = &w[j + 1..w.len().min(j + 6)];
        let generic = nearby.windows(2).any(|p| {
            matches!(p[0].as_str(), "a" | "an")
                && matches!(p[1].as_str(), "card" | "gift" | "account")
        });
        let identifier = (digits_of_a_card || card_number) && (disclosing || what_is) && !generic;
        if identifier && !after(2).is_some_and(|n| TOPIC_NOUNS.contains(&n)) {
            return Some(w[at..w.len().min(j + 3)].join(" "));
        }
        if RECORD_FIELDS.contains(&field) {
            // Told to the writer ("tell me", "give us", "read me back"), not checked or
            // confirmed ("check my zip code is in your area", "read my email").
            let told = disclosing
                && matches!(
                    word,
                    "tell"
                        | "give"
                        | "share"
                        | "provide"
                        | "show"
                        | "send"
                        | "email"
                        | "text"
                        | "read"
                )
                && matches!(next, Some("me" | "us"));
            let asking = Asking {
                listing: LIST.contains(&word),
                told,
            };
            let someone_elses = || {
                let after_field = j + 1 + usize::from(w.get(j + 1).is_some_and(|n| n == "number"));
                let placed = w.get(after_field).is_some_and(|n| n == "on");
                !placed
                    && (at + 1..w.len()).any(|k| {
                        let n = w[k].as_str();
                        matches!(
                            n,
                            "his"
                                | "her"
                                | "their"
                                | "s"
                                | "whoever"
                                | "whomever"
                                | "who"
                                | "account"
                                | "customer"
                                | "holder"
                        ) || PEOPLE.contains(&n)
                            || record_number(w, k)
                    })
            };
            if let Some(end) = field_of_record(w, j, asking, around) {
                if !needed || someone_elses() {
                    return Some(w[at..end].join(" "));
                }
            }
        }
        // "Ana's", "the customer's": a person's possessive, marked `s` after the name.
        let an_owner = w.get(j + 1).is_some_and(|n| n == "s");
        let describes =
            OBJECT_WORDS.contains(&field) || an_owner || field.chars().any(|c| c.is_ascii_digit());
        if !describes {
            return (disclosing && !around.hypothetical)
                .then(|| with_someones_field(w, j))
                .flatten()
                .map(|end| w[at..end].join(" "));
        }
    }
    None
}

/// Who a record's identity is: a name, an address, how to reach them.
const IDENTITY_FIELDS: &[&str] = &[
    "name",
    "names",
    "address",
    "addresses",
    "email",
    "emails",
    "phone",
    "contact",
    "details",
];

/// Records that can be shown with the people in them, and the times that bound such a list.
const SHOWN_RECORDS: &[&str] = &[
    "case",
    "cases",
    "order",
    "orders",
    "refund",
    "refunds",
    "return",
    "returns",
    "complaint",
    "complaints",
    "example",
    "examples",
    "record",
    "records",
    "account",
    "accounts",
    "transaction",
    "transactions",
    "customer",
    "customers",
    "buyers",
    "members",
    "people",
    "week",
    "month",
    "year",
    "today",
    "yesterday",
];

/// "show me a real refund case from this week with the customer's name", "list all customers
/// who returned items this month with their emails": records the assistant is asked to show,
/// from `from` on, come with a particular person's identity. Not what a thing should carry ("a
/// return label with my husband's name", "a letter with a customer's name filled in", "how to
/// send a gift with my mum's address") nor a question about handling ("what you do with their
/// details"). The end of the phrase.
fn with_someones_field(w: &[String], from: usize) -> Option<usize> {
    let with = (from..w.len()).find(|&k| w[k] == "with")?;
    // The record shown ends the phrase before "with", or is followed by what it is about ("a
    // complaint about late delivery with the customer's name").
    let about = w[from..with].iter().position(|n| n == "about");
    let record_before = |at: usize| at > 0 && SHOWN_RECORDS.contains(&w[at - 1].as_str());
    let shown = (record_before(with) || about.is_some_and(|a| record_before(from + a)))
        && !w[from..with]
            .iter()
            .any(|n| matches!(n.as_str(), "to" | "how" | "what" | "which" | "do"));
    if !shown {
        return None;
    }
    (with + 1..w.len().min(with + 5)).find_map(|k| {
        let owner = w[k].as_str();
        let whose = k.checked_sub(2).map(|b| w[b].as_str());
        let anyones_or_own = owner == "s"
            && matches!(
                whose,
                Some("a" | "an" | "any" | "each" | "every" | "my" | "our")
            );
        let someones = matches!(owner, "his" | "her" | "their" | "s") && !anyones_or_own;
        (someones
            && w.get(k + 1)
                .is_some_and(|f| IDENTITY_FIELDS.contains(&f.as_str())))
        .then_some(w.len().min(k + 2))
    })
}

/// How a field is asked for: listed or shown ("list all the orders shipped to ..."), or told
/// by a verb put to the assistant ("tell me my billing address").
#[derive(Debug, Clone, Copy)]
struct Asking {
    listing: bool,
    told: bool,
}

/// The field at `j`, if it is a record's: qualified as one ("phone number", "name on", "the
/// card she paid with"), not a topic ("the orders policy") nor asked about ("which address do
/// I use"), and someone's. The end of the phrase to quote.
fn field_of_record(w: &[String], j: usize, asking: Asking, around: &Surroundings) -> Option<usize> {
    let field = w[j].as_str();
    // A phone is a record as a number, a card as the one someone paid with, a name as the one
    // on an account.
    let (qualified, last) = match field {
        "phone" | "mobile" => (
            matches!(
                w.get(j + 1).map(String::as_str),
                Some("number" | "numbers" | "no")
            ) || (j > 0 && w[j - 1] == "s"),
            j + usize::from(
                w.get(j + 1)
                    .is_some_and(|n| n.starts_with("number") || n == "no"),
            ),
        ),
        "card" => (
            w[j + 1..w.len().min(j + 3)]
                .iter()
                .any(|n| THIRD_PERSON.contains(&n.as_str()) || n == "did"),
            j,
        ),
        "name" | "names" => (
            matches!(w.get(j + 1).map(String::as_str), Some("on" | "and" | "of"))
                || (matches!(w.get(j + 1).map(String::as_str), Some("is" | "was"))
                    && !around.hypothetical
                    && w.get(j + 2).is_some_and(|n| n == "on")
                    && (w[j + 3..w.len().min(j + 11)]
                        .iter()
                        .any(|n| someone_elses_or_numbered(n))
                        || (w.get(j + 3).is_some_and(|n| n == "my")
                            && w.get(j + 4)
                                .is_some_and(|n| matches!(n.as_str(), "account" | "profile"))
                            && w.len() == j + 5))),
            j,
        ),
        // "the return address for my parcel" is the company's, where returns go.
        "address" | "addresses" => (
            j == 0 || !matches!(w[j - 1].as_str(), "return" | "returns"),
            j,
        ),
        // "the expected delivery date for my order 90112": a date is a record as one event of a
        // shipment's, not "the cut-off date" nor "the date on the receipt" (a rule, a part).
        "date" | "dates" => (
            j > 0
                && matches!(
                    w[j - 1].as_str(),
                    "delivery" | "dispatch" | "arrival" | "shipping"
                )
                && !around.hypothetical,
            j,
        ),
        _ => (true, j),
    };
    let next = w.get(last + 1).map(String::as_str);
    let then = w.get(last + 2).map(String::as_str);
    let a_topic = next.is_some_and(|n| TOPIC_NOUNS.contains(&n));
    let tied = !around.hypothetical && !around.topic_before && records_own(w, last);
    // "Is there an account under [email]? If so, what's the phone number on it?": the field
    // of a record named before, ending the clause.
    let on_it = !around.hypothetical
        && around.record_named_before
        && matches!(next, Some("on" | "under" | "in"))
        && matches!(then, Some("it" | "that" | "this" | "them"))
        && w[last + 3..]
            .iter()
            .all(|n| matches!(n.as_str(), "please" | "pls" | "plz" | "now"));
    // "what email should I use", "which items are excluded from returns": asked about, not
    // for ("which phone number is on my account", "what address is she using" ask for it).
    let about = next.is_some_and(|n| ABOUT_THE_FIELD.contains(&n))
        || (matches!(next, Some("is" | "are" | "was" | "were" | "be"))
            && then.is_none_or(|n| !RECORD_LINKS.contains(&n) && !THIRD_PERSON.contains(&n))
            && !tied);
    // "the address for returns", "the phone number to call": the company's, for a purpose.
    let purpose = matches!(next, Some("for" | "to"))
        && w[last + 2..w.len().min(last + 4)]
            .iter()
            .find(|n| !matches!(n.as_str(), "the" | "a" | "an"))
            .is_some_and(|n| {
                !RECORD_NOUNS.contains(&n.as_str())
                    && !POSSESSIVES.contains(&n.as_str())
                    && !order_number(n)
            });
    // "her order totals for March": an amount of someone's, whatever it is for; "the customer
    // database" is every customer's.
    let someones_amount = matches!(field, "amount" | "total" | "totals" | "balance")
        && w[j.saturating_sub(3)..j].iter().any(|word| {
            !matches!(word.as_str(), "my" | "s") && POSSESSIVES.contains(&word.as_str())
        });
    let customer_database = field == "database" && j > 0 && w[j - 1] == "customer";
    if !qualified || a_topic || about || purpose && !someones_amount && !customer_database {
        return None;
    }
    if customer_database {
        return Some(w.len().min(last + 4));
    }
    // "list all the orders shipped to 44 Maple Ave" lists a record whoever owns it; "the
    // history of the returns policy" and "the orders that qualify for free shipping" do not.
    let a_record_listed = asking.listing
        && RECORD_LISTS.contains(&field)
        && !matches!(
            next,
            Some("of" | "that" | "which" | "eligible" | "qualifying")
        );
    // Told, the field ends what is asked ("tell me my billing address please"), not "tell me
    // my postcode qualifies for free delivery".
    let told = asking.told
        && !around.hypothetical
        && w[last + 1..]
            .iter()
            .all(|n| matches!(n.as_str(), "please" | "pls" | "plz" | "thanks" | "now"));
    // "what's the refund amount for my order if I return only one item?" asks what a rule
    // would give: a condition on the field, right after it (not "a list of her orders so I can
    // see if ...", the writer's purpose).
    let conditioned = w[last + 1..w.len().min(last + 7)]
        .iter()
        .take_while(|n| !matches!(n.as_str(), "so" | "because" | "see" | "check" | "know"))
        .any(|n| matches!(n.as_str(), "if" | "unless" | "provided" | "providing"));
    let owned = a_record_listed
        || tied
        || on_it
        || (belongs_to_record(w, j, last, told) && (!conditioned || told));
    owned.then_some(w.len().min(last + 4))
}

/// The verb at `at` is put to the assistant: it opens the clause (after "hi", "please", "can
/// you"), follows "please", or follows "you" or "you just" with no subordinator before it
/// ("once you confirm ..." is not an order).
fn addressed_to_assistant(w: &[String], at: usize) -> bool {
    let lead_in =
        |word: &String| LEAD_INS.contains(&word.as_str()) || ADDRESSING.contains(&word.as_str());
    if w[..at].iter().all(lead_in) {
        return true;
    }
    let previous = |k: usize| at.checked_sub(k).map(|i| w[i].as_str());
    // "if possible please show me ...": an imperative whatever opens the clause.
    if matches!(previous(1), Some("please" | "pls" | "plz" | "kindly")) {
        return true;
    }
    if w[..at]
        .iter()
        .any(|word| SUBORDINATORS.contains(&word.as_str()))
    {
        return false;
    }
    // "do you list my past orders on the website?": about the company's practice.
    if matches!(previous(2), Some("do" | "does")) {
        return false;
    }
    matches!(
        previous(1),
        Some("you" | "u" | "please" | "pls" | "plz" | "kindly")
    ) || (matches!(previous(2), Some("you" | "u"))
        && matches!(previous(1), Some("just" | "to" | "simply")))
        // "I am writing to ask you kindly to confirm ...".
        || (matches!(previous(3), Some("you" | "u"))
            && matches!(previous(2), Some("kindly" | "please"))
            && previous(1) == Some("to"))
}

/// "I need the home address of ...", "I want the full name of whoever ...", "as part of an
/// investigation we urgently require the phone number ...", "I'm organising a party and need
/// ...": the writer states a need, with the word at `at` right after "I" or "we" or joined by
/// "and" to a clause they open, in a clause that is not a question ("do I need the receipt?").
fn states_a_need(w: &[String], at: usize) -> bool {
    let first = w.iter().find(|n| !LEAD_INS.contains(&n.as_str()));
    let joined = at.checked_sub(1).is_some_and(|k| w[k] == "and")
        && first.is_some_and(|n| matches!(n.as_str(), "i" | "im" | "we" | "were"));
    let subject = (1..=2)
        .filter_map(|back| at.checked_sub(back))
        .find(|&k| matches!(w[k].as_str(), "i" | "we"))
        .is_some_and(|k| {
            w[k + 1..at].iter().all(|n| {
                matches!(
                    n.as_str(),
                    "really" | "urgently" | "just" | "also" | "still"
                )
            })
        });
    (subject || joined)
        && matches!(w[at].as_str(), "need" | "want" | "require")
        && !opens_a_question(w)
}

/// "I need to see ...", "I'd like to know ...", "let me see ...": the word at `at` ends one.
fn wants_to_see(w: &[String], at: usize) -> bool {
    WANTS.iter().any(|frame| {
        at + 1 >= frame.len()
            && w[at + 1 - frame.len()..=at]
                .iter()
                .zip(frame.iter())
                .all(|(a, b)| a == b)
    })
}

/// The word at `at` opens its clause (after lead-ins).
fn opens(w: &[String], at: usize) -> bool {
    w[..at].iter().all(|word| LEAD_INS.contains(&word.as_str()))
}

/// "tell me what ...", "could you show us what ...", "I'd like to know whether ..."; not
/// "give back what I paid", a refund.
fn disclosing_before(w: &[String], at: usize) -> bool {
    (at.saturating_sub(3)..at).any(|k| {
        (DISCLOSE.contains(&w[k].as_str())
            && addressed_to_assistant(w, k)
            && w.get(k + 1).is_none_or(|n| n != "back"))
            || wants_to_see(w, k)
    })
}

/// The word at `at` opens the clause's question or what a verb put to the assistant asks for
/// ("how much ...?", "tell me how much ...").
fn asked_at(w: &[String], at: usize) -> bool {
    opens(w, at) || disclosing_before(w, at)
}

/// What a customer did, asked at `at`: "what did the customer before me order?", "tell me
/// what she bought", "tell me whether my son ordered it", "who bought the gift card?", "tell
/// me what day hers arrives".
fn act_asked(w: &[String], at: usize, around: &Surroundings) -> Option<String> {
    let word = w[at].as_str();
    let next = w.get(at + 1).map(String::as_str);
    let phrase = |end: usize| w[at..w.len().min(end)].join(" ");
    let asked = match word {
        // Not "what I bought was broken".
        "what" => disclosing_before(w, at) || (opens(w, at) && next == Some("did")),
        "whether" | "if" => disclosing_before(w, at),
        _ => false,
    };
    if let Some(act) = asked.then(|| recorded_act(w, at)).flatten() {
        return Some(phrase(act + 1));
    }
    // "tell me what was bought", "what was ordered on my account?": the passive names no one;
    // the record does. A purchase the assistant is told to disclose, or any recorded act on
    // someone's card, account or order; not "what was bought on sale can be returned?", "tell
    // me what was paid back to customers in the recall" nor a topic a question follows ("tell
    // me what was ordered through the old app, does the warranty apply?").
    let passive = word == "what"
        && !around.hypothetical
        && !around.other_question
        && matches!(next, Some("was" | "were"))
        && w.get(at + 2).is_some_and(|act| {
            let purchase = matches!(act.as_str(), "bought" | "ordered" | "purchased");
            (disclosing_before(w, at) && purchase)
                || (opens(w, at)
                    && RECORDED_PAST.contains(&act.as_str())
                    && record_anchor(w, at + 3))
        });
    if passive && !condition_follows(w, at + 2) {
        return Some(phrase(at + 3));
    }
    // "who bought the gift card sent to me?", not "who bought it matters?".
    if word == "who" && opens(w, at) && next.is_some_and(|n| RECORDED_PAST.contains(&n)) {
        let condition = w[at + 2..w.len().min(at + 8)]
            .iter()
            .any(|n| CLAUSE_WORDS.contains(&n.as_str()));
        return (!condition).then(|| phrase(at + 4));
    }
    // "a list of everything I bought last year", "an export of every order placed under our
    // account": what someone bought, listed, is their record whoever asks. Not "send me a list
    // of all the items I bought that can be returned".
    if matches!(
        word,
        "list" | "export" | "copy" | "rundown" | "breakdown" | "summary"
    ) && next == Some("of")
        && !around.hypothetical
        && !around.other_question
        && (disclosing_before(w, at) || wanted(w, at))
        && w[at + 2..w.len().min(at + 5)]
            .iter()
            .any(|n| matches!(n.as_str(), "everything" | "all" | "every" | "each"))
    {
        let act = (at + 3..w.len().min(at + 9)).find(|&k| {
            let person = PERSONS.contains(&w[k - 1].as_str());
            // "bought back", "paid back": a recall or a refund, not a purchase.
            let back = w.get(k + 1).is_some_and(|n| n == "back");
            let act = w[k].as_str();
            ((person && (RECORDED_PAST.contains(&act) || matches!(act, "placed" | "made")))
                || (w[k] == "placed" && matches!(w[k - 1].as_str(), "order" | "orders")))
                && !back
        });
        if let Some(act) = act.filter(|&act| !condition_follows(w, act)) {
            return Some(phrase(act + 1));
        }
    }
    // "give me a list of customers who bought the S23": other people by what they did.
    let people = matches!(
        word,
        "customers" | "people" | "buyers" | "members" | "everyone" | "anyone"
    );
    if people
        && next == Some("who")
        && w.get(at + 2)
            .is_some_and(|n| RECORDED_PAST.contains(&n.as_str()))
        && (at.saturating_sub(6)..at).any(|k| {
            // The people are the object ("a list of customers who ..."), not the subject of
            // what is asked ("tell me what customers who paid by card get back").
            // Listed or shown ("a list of customers who ...", "show me the customers who
            // ..."), not given something ("will you give everyone who bought it a refund?").
            DISCLOSE.contains(&w[k].as_str())
                && addressed_to_assistant(w, k)
                && (LIST.contains(&w[k].as_str()) || w[k + 1..at].iter().any(|n| n == "list"))
                && w[k + 1..at]
                    .iter()
                    .all(|n| OBJECT_WORDS.contains(&n.as_str()))
        })
    {
        return Some(phrase(at + 4));
    }
    // "tell me everything else they ordered": all that someone did, told to the writer.
    if matches!(word, "everything" | "anything") && disclosing_before(w, at) {
        let subject = at + 1 + usize::from(next == Some("else"));
        let head = |k: usize| w.get(k).map_or("", String::as_str);
        // "they", "my wife", then "has" or "have" if perfect: "everything my wife has bought".
        let subject_len = if PERSONS.contains(&head(subject)) {
            1
        } else if POSSESSIVES.contains(&head(subject)) && PEOPLE.contains(&head(subject + 1)) {
            2
        } else {
            0
        };
        let after = subject + subject_len;
        let act = after + usize::from(matches!(head(after), "has" | "have" | "had"));
        let done = subject_len > 0 && RECORDED_PAST.contains(&head(act));
        if done && !condition_follows(w, act) {
            return Some(phrase(act + 1));
        }
    }
    let delivery_asked = matches!(word, "what" | "when") && disclosing_before(w, at);
    (delivery_asked && someones_delivery(w, at)).then(|| phrase(at + 6))
}

/// What "how many" may count of someone's: "how many orders have I placed?".
const COUNTED: &[&str] = &[
    "orders",
    "purchases",
    "items",
    "things",
    "times",
    "returns",
    "refunds",
    "parcels",
    "packages",
];

/// "how much did I spend with you last year?", "how many orders have I placed?", "can you look
/// up how many orders I've placed?", "how much did my son's order cost?": a sum or a count of
/// someone's purchases, which only their record holds. The act follows its subject straight
/// away, so "how much did I need to spend for free delivery?" and "how much do I have to pay
/// for a return?" ask what a rule requires, and "how many orders can I return at once?" a
/// limit. Not with a condition ("how much did I spend to get free shipping?", "if ...") or
/// another question in the message ("how many returns have I made - is there a limit?").
fn amount_asked(w: &[String], at: usize, around: &Surroundings) -> Option<String> {
    if around.hypothetical || around.other_question {
        return None;
    }
    if let Some(end) = price_paid(w, at) {
        return Some(w[at..=end].join(" "));
    }
    let kind = w.get(at + 1).map(String::as_str);
    let many = kind == Some("many");
    if w[at] != "how" || !(many || kind == Some("much")) || !asked_at(w, at) {
        return None;
    }
    let mut k = at + 2;
    if many {
        if !w.get(k).is_some_and(|n| COUNTED.contains(&n.as_str())) {
            return None;
        }
        k += 1;
    }
    let auxiliary = w
        .get(k)
        .map(String::as_str)
        .filter(|n| matches!(*n, "did" | "have" | "has" | "had"));
    k += usize::from(auxiliary.is_some());
    // The subject: a person ("I", "she"), someone's thing or relative ("my son", "Ana's"), or
    // one person pointed at ("the guy in front of me", "that lady").
    let subject = w.get(k)?.as_str();
    let pointed_at = !many
        && matches!(subject, "the" | "that" | "this")
        && w.get(k + 1)
            .is_some_and(|n| BYSTANDERS.contains(&n.as_str()));
    let owned =
        POSSESSIVES.contains(&subject) || w.get(k + 1).is_some_and(|n| n == "s") || pointed_at;
    // "how many orders I've placed": the perfect in the contraction.
    let perfect = matches!(subject, "ive" | "weve" | "theyve");
    let base = auxiliary == Some("did");
    let acts: &[&str] = match (many, base) {
        (false, true) => &["spend", "pay", "cost"],
        (false, false) => &["spent", "paid"],
        (true, true) => &[
            "order", "buy", "purchase", "place", "make", "return", "send",
        ],
        (true, false) => &[
            "ordered",
            "bought",
            "purchased",
            "placed",
            "made",
            "returned",
            "sent",
        ],
    };
    // "tell me how many orders I have placed": the perfect after its subject.
    let have_after = auxiliary.is_none()
        && w.get(k + 1)
            .is_some_and(|n| matches!(n.as_str(), "have" | "has" | "had"));
    k += if PERSONS.contains(&subject) || perfect {
        1 + usize::from(have_after)
    } else if owned {
        // The act follows the owner's noun ("my son's order cost" is "my son s order cost") or
        // what points the person out ("the guy in front of me in the queue pay"), in the clause.
        let reach = if pointed_at {
            PERSON_REACH
        } else {
            OWNER_REACH
        };
        let act = (1..reach).find(|&n| {
            w.get(k + n)
                .is_some_and(|word| acts.contains(&word.as_str()))
        })?;
        // Only where the person stood lies between ("in front of me in the queue"): not what
        // someone said ("the guy on the phone say I'd pay"), an obligation ("need to spend"),
        // another subject ("the wife and I"), nor the company's own staff ("in your shop").
        if pointed_at
            && !w[k + 2..k + act]
                .iter()
                .all(|n| POINTING_OUT.contains(&n.as_str()))
        {
            return None;
        }
        act
    } else {
        return None;
    };
    let act = w.get(k)?.as_str();
    // "cost" is what someone's thing cost ("how much did my order cost?"), not "how much did
    // it cost?".
    let counted = acts.contains(&act) && (act != "cost" || owned);
    (counted && !condition_follows(w, k) && !goes_on_as_subject(w, k + 1))
        .then(|| w[at..=k].join(" "))
}

/// "what was the price I paid for the jacket?", "what's the total we spent last year": an
/// amount someone paid, asked at `at`; where the act is. Not "what is the price I pay for
/// express?" (what it costs) nor "what was the amount I paid back?".
fn price_paid(w: &[String], at: usize) -> Option<usize> {
    let word = w[at].as_str();
    let verb = usize::from(word == "what");
    if !matches!(word, "what" | "whats")
        || !asked_at(w, at)
        || (verb == 1
            && !w
                .get(at + 1)
                .is_some_and(|n| matches!(n.as_str(), "was" | "is")))
    {
        return None;
    }
    let noun = at + 1 + verb + usize::from(w.get(at + 1 + verb).is_some_and(|n| n == "the"));
    if !w
        .get(noun)
        .is_some_and(|n| matches!(n.as_str(), "price" | "cost" | "amount" | "total" | "sum"))
    {
        return None;
    }
    let subject = noun + 1 + usize::from(w.get(noun + 1).is_some_and(|n| n == "that"));
    let act = subject + 1;
    let paid = w
        .get(subject)
        .is_some_and(|n| PERSONS.contains(&n.as_str()))
        && w.get(act)
            .is_some_and(|n| matches!(n.as_str(), "paid" | "spent"))
        // It ends the clause or names what was paid for, when, or with what: not "the total I
        // paid back", "the total I paid including vat supposed to show on the invoice".
        && w.get(act + 1).is_none_or(|n| {
            matches!(
                n.as_str(),
                "for" | "on" | "in" | "with" | "last" | "this" | "yesterday" | "when" | "please"
            )
        });
    (paid && !condition_follows(w, act)).then_some(act)
}

/// Words that may follow a shipment ending its noun phrase: "what was in my order from last
/// week", "what's in the parcel you sent me".
const ENDS_A_SHIPMENT: &[&str] = &[
    "for",
    "from",
    "to",
    "that",
    "i",
    "you",
    "we",
    "please",
    "pls",
    "last",
    "this",
    "yesterday",
    "today",
    "on",
    "again",
];

/// "how many orders have I placed matters for the tier?", "what was in my order does not
/// matter": the phrase ending before `end` is the subject of a verb that follows it, not what
/// is asked.
fn goes_on_as_subject(w: &[String], end: usize) -> bool {
    w.get(end).is_some_and(|n| {
        matches!(
            n.as_str(),
            "matters" | "matter" | "does" | "doesnt" | "counts" | "decides" | "affects" | "is"
        )
    })
}

/// Things one shipment holds: "what items were in my last order?".
const CONTENTS: &[&str] = &["items", "products", "things", "stuff", "goods"];

/// "what items were in my last order?", "what's in parcel JD0002231?", "the parcel for my
/// flatmate - what's in it?", "tell me what was in my order": what one shipment held, which
/// only its record knows. Not "what's in my order confirmation email?" (a part of the order),
/// "what is in a standard order?" (any one) nor "what's in my order if I ...".
fn contents_asked(w: &[String], at: usize, around: &Surroundings) -> Option<String> {
    let word = w[at].as_str();
    let counted = w
        .get(at + 1)
        .is_some_and(|n| CONTENTS.contains(&n.as_str()));
    if !(matches!(word, "what" | "whats") || (word == "which" && counted))
        || around.hypothetical
        || around.other_question
        || !asked_at(w, at)
    {
        return None;
    }
    let mut k = at + 1 + usize::from(counted);
    // "what's in": the verb is in the contraction, unless a noun came between.
    if word != "whats" || k > at + 1 {
        if !w
            .get(k)
            .is_some_and(|n| matches!(n.as_str(), "is" | "was" | "were" | "are"))
        {
            return None;
        }
        k += 1;
    }
    if w.get(k).is_none_or(|n| n != "in") {
        return None;
    }
    // The shipment ends what is asked ("what's in my daughter's order 40021 please"), so "what's
    // in my delivery pass?" names a service and "what is in my parcel when I choose eco
    // packaging" a rule.
    let named = one_shipment(w, k + 1, k + 5).filter(|&s| {
        let end = s + 1 + usize::from(w.get(s + 1).is_some_and(|n| order_number(n)));
        w.get(end)
            .is_none_or(|n| ENDS_A_SHIPMENT.contains(&n.as_str()))
            && !condition_follows(w, s)
            && !goes_on_as_subject(w, end)
    });
    // "it" for a shipment or record named before, ending the question or followed by another
    // question about the same record ("... what's in it and when it arrives").
    let it = (around.shipment_named || around.record_named_before)
        && w.get(k + 1).is_some_and(|n| n == "it")
        && match w.get(k + 2).map(String::as_str) {
            None | Some("please" | "pls" | "plz") => true,
            Some("and") => w
                .get(k + 3)
                .is_some_and(|n| matches!(n.as_str(), "when" | "where" | "who")),
            Some(_) => false,
        };
    (named.is_some() || it).then(|| w[at..w.len().min(k + 4)].join(" "))
}

/// "I need a full list of ...", "we want an export of ...": the writer states a want of the
/// thing at `at`, in a clause that is not a question ("do I need a list of ...?", "how can I get
/// a list of ...?" ask how).
fn wanted(w: &[String], at: usize) -> bool {
    let first = w.iter().find(|n| !LEAD_INS.contains(&n.as_str()));
    let statement = first.is_some_and(|n| matches!(n.as_str(), "i" | "im" | "we" | "were"));
    statement
        && (at.saturating_sub(4)..at).any(|k| {
            matches!(w[k].as_str(), "need" | "needs" | "want" | "require")
                && w[k + 1..at]
                    .iter()
                    .all(|n| OBJECT_WORDS.contains(&n.as_str()))
        })
}

/// "what (did) the customer ahead of me order", "what she bought": where the act is, if a
/// customer (not the assistant, the company or a policy) did it and it is what is asked.
fn recorded_act(w: &[String], what: usize) -> Option<usize> {
    // "what did X order" takes the verb's base form, "what X ordered" its past: "what does
    // delivery cost on a small order" and "what they ask for" name no recorded act.
    let did = w.get(what + 1).is_some_and(|word| word == "did");
    let subject = what + 1 + usize::from(did);
    let acts = if did { RECORDED_ACTS } else { RECORDED_PAST };
    // An act right after "who", "that" or "which" describes the subject ("what members who
    // spent over $500 receive"); the act asked is a later one, if any ("what the customer who
    // ordered before me bought").
    let act = (subject + 1..w.len().min(subject + 9)).find(|&k| {
        acts.contains(&w[k].as_str()) && !matches!(w[k - 1].as_str(), "who" | "that" | "which")
    })?;
    let who = &w[subject..act];
    // "whether my son ordered it", not "whether gifts bought on sale can be returned".
    let a_person = PERSONS.contains(&who[0].as_str())
        || who.iter().any(|word| POSSESSIVES.contains(&word.as_str()))
        || who.iter().any(|word| {
            matches!(
                word.as_str(),
                "customer" | "customers" | "someone" | "somebody" | "person" | "guy"
            )
        })
        || w[what] == "what";
    let not_a_customer = who.iter().any(|word| {
        NOT_A_CUSTOMER.contains(&word.as_str())
            || COMPANY.contains(&word.as_str())
            || TOPIC_NOUNS.contains(&word.as_str())
            || CLAUSE_WORDS.contains(&word.as_str())
    });
    (a_person && !not_a_customer && !condition_follows(w, act)).then_some(act)
}

/// Within a few words from `from`, someone's card, account or order ("on my card", "under her
/// account") or a record's number.
fn record_anchor(w: &[String], from: usize) -> bool {
    (from..w.len().min(from + 5)).any(|k| {
        record_number(w, k)
            || (POSSESSIVES.contains(&w[k].as_str())
                && w.get(k + 1)
                    .is_some_and(|n| n == "card" || a_records_noun(n)))
    })
}

/// "... bought on sale can be returned": the act at `act` is the condition of a policy
/// question. Read up to the writer's reason or purpose ("what she paid so I can see ...",
/// "... because I can't find the receipt"), which starts a clause of its own.
fn condition_follows(w: &[String], act: usize) -> bool {
    w[act + 1..w.len().min(act + 6)]
        .iter()
        .enumerate()
        .take_while(|&(k, word)| !starts_a_reason(w, act + 1 + k, word))
        .any(|(_, word)| {
            matches!(
                word.as_str(),
                "can"
                    | "could"
                    | "be"
                    | "is"
                    | "are"
                    | "get"
                    | "gets"
                    | "count"
                    | "counts"
                    | "most"
            )
        })
}

/// The word at `at` opens the writer's reason or purpose: "because", "so (that) I ..."; not
/// "so far", "so much" ("since" is also a time: "everything I ordered since March that can be
/// returned").
fn starts_a_reason(w: &[String], at: usize, word: &str) -> bool {
    match word {
        "because" | "cause" | "cos" | "coz" => true,
        "so" => !so_much(w.get(at + 1).map(String::as_str)),
        _ => false,
    }
}

/// "so far", "so much", "so many", "so long": "so" as a degree, not a reason or "if so".
fn so_much(next: Option<&str>) -> bool {
    matches!(next, Some("far" | "much" | "many" | "long"))
}

/// "what day hers arrives", "when his parcel comes": another person's delivery.
fn someones_delivery(w: &[String], at: usize) -> bool {
    let after = &w[at + 1..w.len().min(at + 6)];
    after
        .iter()
        .any(|word| matches!(word.as_str(), "hers" | "theirs"))
        || after.windows(2).any(|pair| {
            matches!(pair[0].as_str(), "his" | "her" | "their" | "s")
                && SHIPMENTS.contains(&pair[1].as_str())
        })
}

/// An order number, one word of it as [`words`] splits them: four digits or more, or letters
/// and digits ("30877" of "NW-30877", "4490218" of "113-4490218", a redacted identifier; not
/// the "3" of "when I order 3 things").
fn order_number(word: &str) -> bool {
    let digits = word.chars().filter(char::is_ascii_digit).count();
    digits >= 4 || (digits > 0 && word.chars().any(|c| c.is_alphabetic()))
}

/// Words after a shipment that make a question about it one about the rules: "where is my
/// parcel usually left?", "when will his parcel arrive if it went standard?".
const RULES_CONDITIONS: &[&str] = &["if", "usually", "normally", "supposed"];

/// Where one shipment is named from `from` up to `to`: owned ("my order", "Ana's parcel", "the
/// parcel for my mum") or numbered ("order 88231"), and not a part of something else ("my
/// order number on the receipt").
fn one_shipment(w: &[String], from: usize, to: usize) -> Option<usize> {
    (from..w.len().min(to)).find(|&k| {
        let numbered = w[k + 1..w.len().min(k + 3)].iter().any(|n| order_number(n));
        // "his next delivery", "my latest order", "the parcel for my mum" or "for Ana's" (not
        // "the delivery for my area" nor "for my apartment block", a rule's).
        let for_someone = k > 0
            && w[k - 1] == "the"
            && w.get(k + 1).is_some_and(|n| n == "for")
            && ((w
                .get(k + 2)
                .is_some_and(|n| POSSESSIVES.contains(&n.as_str()))
                && w.get(k + 3).is_some_and(|n| PEOPLE.contains(&n.as_str())))
                || w.get(k + 3).is_some_and(|n| n == "s"));
        let owned = for_someone
            || w[k.saturating_sub(2)..k]
                .iter()
                .any(|n| POSSESSIVES.contains(&n.as_str()));
        let a_part = w
            .get(k + 1)
            .is_some_and(|n| SHIPMENT_PARTS.contains(&n.as_str()));
        SHIPMENTS.contains(&w[k].as_str()) && (numbered || (owned && !a_part))
    })
}

/// "where is my order?", "has my daughter's parcel shipped?", "status of order #88231",
/// "when will his package arrive?": the state of one shipment, which only its record knows
/// (not "when is my order accepted?", "when my order arrived it was damaged" or "how much does
/// it cost to have my order arrive tomorrow?", which the policy answers).
fn status_asked(w: &[String], at: usize, around: &Surroundings) -> Option<String> {
    let word = w[at].as_str();
    let next = w.get(at + 1).map(String::as_str);
    let phrase = |end: usize| w[at..w.len().min(end)].join(" ");
    // "status of order #88231", "can you check the status of ...", "what's the status of ...";
    // not "how can I look up the status of my own order online?".
    let status_asked = asked_at(w, at)
        || w[at.saturating_sub(3)..at]
            .iter()
            .any(|n| n == "whats" || n == "what");
    if word == "status" && next == Some("of") && status_asked {
        // "what does the status of my order mean?" asks what a status means.
        let meaning = w[at..]
            .iter()
            .any(|n| matches!(n.as_str(), "mean" | "means" | "meaning"));
        return one_shipment(w, at + 2, at + 5)
            .filter(|_| !meaning)
            .map(|k| phrase(k + 2));
    }
    // "can you check if order 10293 was delivered?", "confirm whether my package is sent
    // already": the state of one shipment, done, asked of the assistant. Not "tell me if my
    // order is delivered on Sundays" (no past, no "already").
    if matches!(word, "if" | "whether") && disclosing_before(w, at) && !around.other_question {
        let shipment = one_shipment(w, at + 1, at + 5)?;
        let rest = &w[shipment + 1..w.len().min(shipment + 7)];
        let done = rest
            .iter()
            .position(|n| DONE.contains(&n.as_str()) || n == "sent")?;
        // "was delivered", "has shipped", or a bare past ("if my order 66120 shipped").
        let perfect = rest[..done]
            .iter()
            .any(|n| matches!(n.as_str(), "was" | "were" | "has" | "have" | "had" | "been"))
            || rest[..done].iter().all(|n| order_number(n));
        let already = w[shipment + 1..]
            .iter()
            .any(|n| matches!(n.as_str(), "already" | "yet"));
        // What follows the state makes it a rule's condition: "... has shipped already I can
        // still cancel it", "... has been delivered to a locker counts as delivered".
        let condition = w[shipment + 1..].iter().any(|n| {
            RULES_CONDITIONS.contains(&n.as_str())
                || matches!(
                    n.as_str(),
                    "then"
                        | "when"
                        | "once"
                        | "still"
                        | "can"
                        | "could"
                        | "counts"
                        | "count"
                        | "means"
                        | "treated"
                        | "qualifies"
                )
        });
        return ((perfect || already) && !condition).then(|| phrase(shipment + 2 + done));
    }
    let opening = opens(w, at);
    if opening && (word == "wheres" || (word == "where" && matches!(next, Some("is" | "are")))) {
        let start = at + 1 + usize::from(word == "where");
        // "where is my parcel likely to be if ...", "where are my parcels left if I'm out?"
        let condition = w[start..]
            .iter()
            .any(|n| RULES_CONDITIONS.contains(&n.as_str()) || n == "likely");
        return one_shipment(w, start, start + 3)
            .filter(|_| !condition)
            .map(|k| phrase(k + 1));
    }
    let asks_state = opening
        && (matches!(word, "has" | "have" | "did")
            || (word == "when"
                && matches!(
                    next,
                    Some("will" | "does" | "did" | "is" | "was" | "should")
                )));
    // "is my package arriving tomorrow?".
    let asks_day =
        opening && matches!(word, "is" | "are") && !around.hypothetical && !around.topic_before;
    if !asks_state && !asks_day {
        return None;
    }
    // The shipment, or "it" standing for one an earlier clause named ("the parcel for my
    // flatmate - has it been dispatched yet?").
    let (shipment, named) = match one_shipment(w, at + 1, at + 6) {
        Some(k) => (k, true),
        None if asks_state
            && around.shipment_named
            && !around.hypothetical
            && next == Some("it") =>
        {
            (at + 1, false)
        }
        None => return None,
    };
    let rest = &w[shipment + 1..w.len().min(shipment + 6)];
    let state = rest
        .iter()
        .position(|n| SHIPMENT_STATES.contains(&n.as_str()))
        .or_else(|| {
            rest.windows(2)
                .position(|p| p[0] == "go" && p[1] == "through")
        })
        // "is my parcel out for delivery today?"; "when is my order out for delivery ...?"
        // asks the policy's times.
        .or_else(|| {
            rest.windows(3)
                .position(|p| p[0] == "out" && p[1] == "for" && p[2] == "delivery")
                .filter(|_| word != "when")
        })?;
    // "when will his parcel arrive if it went standard?" asks the policy's delivery times.
    let condition = rest
        .iter()
        .any(|n| RULES_CONDITIONS.contains(&n.as_str()) || n == "then");
    // "is my order delivered by courier?" and "has it come into effect?" ask how things go.
    // "Is my order arriving today?" asks one shipment's day when the question ends on it
    // ("... or not", "... or what"); "has it shipped yet?" one shipment's state, done.
    let day = rest
        .iter()
        .position(|n| matches!(n.as_str(), "yet" | "today" | "tomorrow" | "tonight"));
    let ends_on_day = day.is_some_and(|d| {
        w[shipment + 2 + d..]
            .iter()
            .all(|n| matches!(n.as_str(), "or" | "not" | "what" | "yet" | "already"))
    });
    let done = DONE.contains(&rest[state].as_str());
    let one = if asks_day {
        ends_on_day
    } else {
        named || (done && day.is_some())
    };
    (one && !condition).then(|| phrase(shipment + 2 + state))
}

/// "was I charged twice?", "has the refund for order 60017 been paid?", "which of my returns
/// have been accepted?", "did you send my refund?", "by whom was order 51200 placed?": a
/// question about what happened to one order, payment or account, which only its record knows.
/// An auxiliary of the past or the perfect opens it (or follows "what", "which", "who",
/// "where" or "when", with at most a few words of the thing asked between), and the question
/// is one record's: its subject is the writer, another person or someone's thing, or it names
/// a numbered record, or its subject is "you", "we", "they" or "it" with the writer or someone's
/// thing beside it. Not "did the return policy change?", "was the 2025 window 30 days?", "did
/// you stop offering free returns?", "why was I charged a fee?" (a reason, which a rule may
/// give), "when my order has shipped, can I ...?" (a clause of time) or "what did you mean?".
fn event_asked(w: &[String], at: usize) -> Option<String> {
    if !opens(w, at) {
        return None;
    }
    let start = at + usize::from(w[at] == "by");
    let word = w.get(start)?.as_str();
    let question_word = matches!(word, "what" | "which" | "who" | "whom" | "where" | "when");
    let auxiliary = if PAST_AUXILIARIES.contains(&word) {
        start
    } else if question_word {
        (start + 1..w.len().min(start + 2 + EVENT_HEAD_REACH))
            .take_while(|&k| !NOT_PAST.contains(&w[k].as_str()))
            .find(|&k| PAST_AUXILIARIES.contains(&w[k].as_str()))?
    } else {
        return None;
    };
    // What stands between a question word and the auxiliary: the thing asked ("what delivery
    // date was ..."). A place or a time takes none, and a subject there makes a clause of its
    // own ("when my order has shipped, ..."). Empty when the auxiliary opens the question.
    let head = &w[(start + 1).min(auxiliary)..auxiliary];
    let subject_first = head.first().is_some_and(|first| {
        OWN_SUBJECTS.contains(&first.as_str())
            || OTHER_SUBJECTS.contains(&first.as_str())
            || POSSESSIVES.contains(&first.as_str())
    });
    if subject_first || (matches!(word, "where" | "when") && !head.is_empty()) {
        return None;
    }
    let subject = auxiliary + 1;
    let rest = &w[subject..w.len().min(subject + 1 + EVENT_REACH)];
    let first = rest.first().map_or("", String::as_str);
    let numbered = (start..subject + rest.len()).any(|k| record_number(w, k));
    // "has that refund gone through?": a state reached by one record the writer points to.
    // The pointed noun is the head ("that refund has", not "that refund policy") and what it
    // reached is an event of one record, not a rule's ("been scrapped", "been the standard").
    let pointed_to = matches!(word, "has" | "have")
        && matches!(first, "that" | "this")
        && rest.get(1).is_some_and(|n| {
            SHIPMENTS.contains(&n.as_str())
                || matches!(n.as_str(), "refund" | "return" | "payment" | "charge")
        })
        && {
            let mut reached = rest
                .iter()
                .skip(2)
                .map(String::as_str)
                .skip_while(|n| matches!(*n, "actually" | "already" | "finally" | "even"));
            matches!(reached.next(), Some("been" | "gone" | "come"))
                && reached.next().is_some_and(an_event_of_one_record)
        };
    // "was the refund for my blender processed?": one record, named by what it is for, and
    // an event of it (not "was the delivery for my order free?").
    let the_one_for = first == "the"
        && rest.get(1).is_some_and(|n| {
            SHIPMENTS.contains(&n.as_str())
                || matches!(n.as_str(), "refund" | "return" | "payment" | "replacement")
        })
        && rest
            .get(2)
            .is_some_and(|n| matches!(n.as_str(), "for" | "of" | "on"))
        && rest
            .iter()
            .skip(3)
            .take(2)
            .any(|n| POSSESSIVES.contains(&n.as_str()) || order_number(n))
        && w[subject..].iter().any(|n| an_event_of_one_record(n));
    let about_one = OWN_SUBJECTS.contains(&first)
        || POSSESSIVES.contains(&first)
        || pointed_to
        || the_one_for
        || head.iter().any(|n| POSSESSIVES.contains(&n.as_str()))
        || numbered
        || (OTHER_SUBJECTS.contains(&first)
            && rest
                .iter()
                .skip(1)
                .any(|n| RECORD_MARKS.contains(&n.as_str())));
    // "has my order got to be unopened?" is an obligation, "did I lose the right to ...?" an
    // entitlement (not "did I put the right address?"); "has it gone up?" a change.
    let obliged_or_moved = rest.windows(2).any(|pair| {
        (matches!(pair[0].as_str(), "got" | "right") && pair[1] == "to")
            || (matches!(pair[0].as_str(), "go" | "gone" | "went" | "going")
                && matches!(pair[1].as_str(), "up" | "down"))
    });
    let conditional = w[subject..]
        .iter()
        .any(|n| matches!(n.as_str(), "if" | "unless"));
    let about_rules = obliged_or_moved
        || conditional
        || rest.iter().any(|n| NOT_AN_EVENT.contains(&n.as_str()))
        || head
            .iter()
            .chain(rest)
            .any(|n| TOPIC_NOUNS.contains(&n.as_str()));
    (about_one && !about_rules).then(|| w[at..w.len().min(subject + 3)].join(" "))
}

/// The word at `k` numbers a record: five digits or more ("40177" of "NW-40177"), or an order
/// number right after a record's noun ("order 2048", "case 7731"); not a year, a model or
/// a time ("the 2025 window", "ps5", "2pm").
fn record_number(w: &[String], k: usize) -> bool {
    let digits = w[k].chars().filter(char::is_ascii_digit).count();
    digits >= 5
        || (order_number(&w[k])
            && k.checked_sub(1)
                .is_some_and(|before| NUMBERED_RECORDS.contains(&w[before].as_str())))
}

/// The field at `j` (its last word at `last`) is someone's: a person's possessive just before
/// it ("his email", "Ana's phone number"), "my" before a history ("my order history") or
/// before any field the writer is `told` ("tell me my billing address"), a link to a record
/// after it ("on file", "for the account", "on order 113-..."), what the company has for
/// someone ("the phone number you have for me"), a person right after it ("the card she paid
/// with"), or other customers'.
fn belongs_to_record(w: &[String], j: usize, last: usize, told: bool) -> bool {
    let before = &w[j.saturating_sub(3)..j];
    let someones = before
        .iter()
        .any(|word| word != "my" && POSSESSIVES.contains(&word.as_str()));
    // "my order history", or any field of the writer's the assistant is told to give ("tell
    // me my billing address"): "my email" alone may be the one a question is about.
    let own_record =
        (OWN_RECORDS.contains(&w[j].as_str()) || told) && before.iter().any(|word| word == "my");
    if someones || own_record {
        return true;
    }
    let after = &w[last + 1..w.len().min(last + 8)];
    let linked = after.iter().enumerate().any(|(k, word)| {
        let target = &after[k + 1..after.len().min(k + 4)];
        // "the refund amount for an order returned late": any order, a policy question.
        let any_one = target
            .first()
            .is_some_and(|t| matches!(t.as_str(), "a" | "an" | "any" | "each" | "every"));
        RECORD_LINKS.contains(&word.as_str())
            && !any_one
            && !target.iter().any(|t| COMPANY.contains(&t.as_str()))
            && (target
                .iter()
                .any(|t| RECORD_NOUNS.contains(&t.as_str()) || someone_elses_or_numbered(t))
                // "the home address of my colleague": a person's (not "the email for my son to
                // register", a purpose).
                || (word == "of"
                    && target.windows(2).any(|pair| {
                        POSSESSIVES.contains(&pair[0].as_str())
                            && PEOPLE.contains(&pair[1].as_str())
                    }))
                // "the arrival date of my parcel": someone's shipment; not "what is the address
                // on my parcel supposed to include?", a requirement.
                || (target.windows(2).any(|pair| {
                    POSSESSIVES.contains(&pair[0].as_str())
                        && SHIPMENTS.contains(&pair[1].as_str())
                }) && !after.iter().any(|n| REQUIRED.contains(&n.as_str()))))
    });
    // "the phone number you have for me", "the address you hold on file": what the company
    // holds about someone.
    let held = after.first().is_some_and(|n| n == "you")
        && after
            .get(1)
            .is_some_and(|n| matches!(n.as_str(), "have" | "hold" | "keep" | "store" | "got"))
        && after
            .get(2)
            .is_some_and(|n| matches!(n.as_str(), "for" | "on" | "about" | "in" | "of"))
        && after.iter().skip(3).take(2).any(|n| {
            matches!(
                n.as_str(),
                "me" | "us" | "him" | "her" | "them" | "my" | "file" | "record" | "records"
            )
        });
    let a_person = after.iter().take(2).any(|word| {
        THIRD_PERSON.contains(&word.as_str())
            || matches!(word.as_str(), "shes" | "hes" | "theyre" | "theyve")
    });
    let others = after.windows(2).any(|pair| {
        OTHER_PEOPLE
            .iter()
            .any(|o| pair[0] == o[0] && pair[1] == o[1])
    });
    // "the email of whoever redeemed it", "the address of the customer who ordered it": the
    // person who did a recorded act.
    // Not "the phone number for customers who ordered online" (a purpose), "the email of the
    // department who received my return" (the company's), "a customer who received a damaged
    // item" (any one).
    let reach = &w[last + 1..w.len().min(last + 12)];
    let whoever = reach.iter().enumerate().any(|(k, word)| {
        let target = &reach[k + 1..reach.len().min(k + 5)];
        let who = target
            .iter()
            .position(|n| matches!(n.as_str(), "whoever" | "whomever" | "who" | "that"));
        RECORD_LINKS.contains(&word.as_str())
            && word != "for"
            && who.is_some_and(|p| {
                reach.get(k + 2 + p).is_some_and(|act| {
                    RECORDED_PAST.contains(&act.as_str())
                        || matches!(act.as_str(), "placed" | "made" | "received")
                }) && !target[..p].iter().any(|n| {
                    COMPANY.contains(&n.as_str())
                        || NOT_A_CUSTOMER.contains(&n.as_str())
                        || matches!(n.as_str(), "a" | "an" | "any" | "each" | "every")
                })
            })
    });
    linked || held || a_person || others || whoever
}

/// After the field ending at `last`, "is my account registered under?", "is her order going
/// to?": the clause ends on what ties the field to one record. Not "is my order sent to when I
/// choose click and collect?" (a rule), "is my order supposed to go to" nor "is my order shipped
/// from" (the company's).
fn records_own(w: &[String], last: usize) -> bool {
    let after = |k: usize| w.get(last + k).map_or("", String::as_str);
    let rest = &w[w.len().min(last + 4)..];
    matches!(after(1), "is" | "are" | "was" | "were")
        && POSSESSIVES.contains(&after(2))
        && a_records_noun(after(3))
        && (1..=2).contains(&rest.len())
        && rest.iter().all(|n| {
            matches!(
                n.as_str(),
                "registered"
                    | "linked"
                    | "tied"
                    | "under"
                    | "to"
                    | "on"
                    | "with"
                    | "going"
                    | "sent"
                    | "set"
                    | "saved"
                    | "listed"
                    | "headed"
                    | "at"
            )
        })
}

#[cfg(test)]
#[path = "records_tests.rs"]
mod tests;
