//! Requests premised on a claimed policy change: the customer says a rule changed (a new
//! rule, an amended section, a figure that is "now" different, a version that "went live",
//! documents that are out of date) and asks, on the strength of it, for a remedy ("so refund
//! the $9.99"), for a conclusion it would grant ("so I qualify, right?", "tell me my refund is
//! overdue"), or for the text in force to be dropped ("stop citing v3"). The assistant answers
//! from the published version and cannot tell a real change it has not indexed yet from an
//! invented one, so it does not answer: a person checks the claim. It is not called an
//! attack: an honest customer relying on an email about a real change asks the same way.
//!
//! A claim is also a notice passed on ("Gift card update: ...", "Effective immediately, ...",
//! "There's a new clause: ...", "Ostrander now accepts worn shoes"), and a request premised
//! on it may reason from it ("given that, can I return it?", "how much do I get back then?",
//! "that's covered, right?") as well as order.
//!
//! A claim is also one passed on from a source, read in the source's words: "a moderator
//! posted that it's 60 days now", "my friend texted me that they got rid of the fee", "the
//! letter says: \"we have extended our guarantee\"". It counts only for a request premised on
//! it, never for the figures a message sets ([`claim_beyond`]): a customer passing on a
//! rumour and asking what applies is answered from the version in force.
//!
//! A claim, not a mention: a statement (not a question, not hedged with "I think" or
//! "maybe") about one of the company's rules ("the return window", "the restocking fee",
//! "section 7.2", "us-v5", "your docs"), not the customer's own things or doings ("my delivery
//! fee", "I changed the shipping", "the extended warranty I bought", "the delivery window").
//! And a request premised on it, not one asked on a condition ("check, and if so refund it")
//! or one that asks what applies ("tell me what the rule is now", "it used to be 14, right?").

use std::collections::BTreeSet;

use crate::injection::{
    after_softeners, names_a_version, normalize, sentences_with_marks, statements, words,
    CLAUSE_ENDS, PREPOSITIONS, SENTENCE_ENDS,
};
use crate::text::{
    capital_currency_codes, is_function_word, stated_figures, term_figures, with_currency_codes,
    Figure, MONTHS, WEEKDAYS,
};

/// The claim a message relies on, if it relies on one to ask for something: the clause that
/// states the change, for the escalation's reason.
pub fn relies_on_claimed_change(message: &str) -> Option<String> {
    // Normalised once: both readings go over the same text.
    let text = normalize(message).text;
    if let Some(claim) = quoted_claim(&text) {
        if acts_on_the_claim(&text, RequestForms::Ordered, |_, _| true) {
            return Some(claim);
        }
    }
    // A change passed on counts for a request after it and tied to it: a rumour passed on in a
    // message that also asks for something else is not what the request leans on.
    if let Some(reported) = reported_claim(&text) {
        let start = reported.piece.as_ptr() as usize - text.as_ptr() as usize;
        if acts_on_the_claim(&text[start..], RequestForms::Ordered, |at, sentence| {
            tied_to(at, sentence, &reported.said)
        }) {
            return Some(quoted(reported.piece));
        }
    }
    pasted_rules_relied_on(message).or_else(|| premised_question(&text))
}

/// Words a request may open with before what it asks: "please refund ...", "so just send ...".
const REQUEST_SOFTENERS: &[&str] = &[
    "please", "pls", "kindly", "just", "so", "then", "ok", "okay", "now", "and",
];

/// A question asked on a claimed change it takes as given: "Since the 2026 update made
/// shipping-damage claims valid for 90 days, how do I file for my dresser?", "under the new
/// exchange rule that lets you swap for a cheaper item and get the difference in cash, how
/// long does the cash part take? I swapped mine last week". The premise opens a clause of the
/// question ("since", "now that", "given that", "under", "with", "because"), names an edition
/// of a rule as new ("the 2026 update", "the new exchange rule", "your March change") and says
/// what it does ("made ... valid", "lets you ...", "gives members ..."), and the question after
/// it, or the sentence after that, is about the customer's own case. Not a premise that only
/// dates or names a change ("since the new policy took effect, does it apply to my order?",
/// "under the new rules, how long do I have?"), nor one passing on what a text says, which
/// asks what applies ("now that the new policy says 30 days, is that from delivery?").
fn premised_question(text: &str) -> Option<String> {
    let sentences: Vec<(&str, bool)> = sentences_with_marks(text).collect();
    let own = |words: &[&str]| {
        words.iter().any(|w| {
            matches!(
                *w,
                "i" | "i'm" | "im" | "i've" | "i'll" | "i'd" | "my" | "me" | "mine"
            )
        })
    };
    sentences
        .iter()
        .enumerate()
        .find_map(|(at, &(sentence, question))| {
            if hedged(sentence) {
                return None;
            }
            // A statement right after the question tells the customer's case ("I swapped a
            // jacket last week"); a courtesy ("Thanks, I appreciate it") does not.
            let next_tells_own_case = || {
                sentences
                    .get(at + 1)
                    .filter(|(_, question)| !question)
                    .is_some_and(|(next, _)| {
                        let tokens = words(next);
                        own(&tokens)
                            && !tokens.iter().any(|w| {
                                matches!(
                                    *w,
                                    "thanks"
                                        | "thank"
                                        | "thx"
                                        | "appreciate"
                                        | "cheers"
                                        | "grateful"
                                )
                            })
                    })
            };
            sentence.split(CLAUSE_ENDS).find_map(|clause| {
                let tokens = words(clause);
                let (opened_at, premise) = (0..tokens.len()).find_map(|p| {
                    premise_at(&tokens, p)
                        .filter(|premise| claims_a_granting_change(premise))
                        .map(|premise| (p, premise))
                })?;
                let offset = clause.as_ptr() as usize - sentence.as_ptr() as usize;
                if !question {
                    let inside = [&tokens[..opened_at], &premise[question_starts(premise)..]];
                    return requested_beside(&sentences, at, clause, inside)
                        .then(|| quoted(clause));
                }
                // What the question asks, outside its premise (before it, or after it when no
                // comma parts them), or the statement after it, is about the customer's own
                // case.
                let elsewhere = [
                    words(&sentence[..offset]),
                    words(&sentence[offset + clause.len()..]),
                ]
                .concat();
                let asked = [&tokens[..opened_at], &premise[question_starts(premise)..]].concat();
                let asked = asked.as_slice();
                let about_own_case = own(asked) || own(&elsewhere) || next_tells_own_case();
                let asks_something = !asked.is_empty() || !elsewhere.is_empty();
                (about_own_case && asks_something).then(|| quoted(clause))
            })
        })
}

/// Whether a statement opening a premise in `clause` (of the `at`th of `sentences`) asks for a
/// remedy on it: what the sentence says outside the premise (`inside`: the clause's words
/// before it, and after it when no comma parts them; each other clause), or the statement
/// after it, orders one ([`orders_a_remedy`]: "..., I'd like to return my MacBook", "please
/// refund the full $1,150"). A statement that only tells the customer's case asks nothing.
fn requested_beside(
    sentences: &[(&str, bool)],
    at: usize,
    clause: &str,
    inside: [&[&str]; 2],
) -> bool {
    // "..., please process the return if that's correct": asked on a condition.
    let conditional = |sentence: &str| {
        let tokens = words(sentence);
        tokens.windows(3).any(|w| w == ["as", "long", "as"])
            || tokens.iter().any(|w| CONDITIONS.contains(w))
    };
    let sentence = sentences[at].0;
    if conditional(sentence) {
        return false;
    }
    let offset = clause.as_ptr() as usize - sentence.as_ptr() as usize;
    let other_clauses: Vec<Vec<&str>> = [&sentence[..offset], &sentence[offset + clause.len()..]]
        .into_iter()
        .flat_map(|side| side.split(CLAUSE_ENDS))
        .map(words)
        .filter(|part| !part.is_empty())
        .collect();
    // The statement after only when the premise's own sentence says nothing else ("Given
    // that the new terms allow ... . Please cash out ..."): after a sentence of its own
    // ("..., I'll keep the jacket. Please cancel the second order.") it asks for something else.
    let bare = other_clauses.is_empty() && inside.iter().all(|part| part.is_empty());
    let next_statement = sentences
        .get(at + 1)
        .filter(|(next, question)| bare && !question && !conditional(next))
        .map(|(next, _)| words(next));
    inside
        .into_iter()
        .map(<[&str]>::to_vec)
        .chain(other_clauses)
        .chain(next_statement)
        .any(|part| {
            orders_a_remedy(
                after_softeners(&part, REQUEST_SOFTENERS),
                RequestForms::Plain,
            )
        })
}

/// The premises of a message's questions that take a change to one of the company's rules as
/// given, each from after its opener to the end of its clause or to where the question starts:
/// "since u guys changed returns to 6 months now how do i send back my tv", "now that the
/// restocking fee is gone with the new update, how much do I get back?". A premise set in a
/// question is asserted as a claim is, so [`claim_beyond`] checks the figures it sets against
/// what the policy publishes; whatever it grants or burdens, the corpus decides. Not a premise
/// without a word of change ("since the window is 60 days", a memory the version in force
/// corrects when answered), nor one about no rule ("since it's been 45 days now"), one about
/// the customer's own things ("now that the price of my blender dropped by $30") or one
/// [`asserted_premise`] rules out otherwise, nor one in a hedged question.
fn changes_taken_as_given(text: &str) -> Vec<&str> {
    let mut premises = Vec::new();
    let sentences: Vec<(&str, bool)> = sentences_with_marks(text).collect();
    for (at, &(sentence, question)) in sentences.iter().enumerate() {
        if hedged(sentence) {
            continue;
        }
        for clause in sentence.split(CLAUSE_ENDS) {
            let tokens = words(clause);
            let premise = (0..tokens.len())
                .filter_map(|p| {
                    let whole = premise_at(&tokens, p)?;
                    let premise = asserted_premise(whole)?;
                    // A statement's premise counts when the statement asks for a remedy on it.
                    let asks = question
                        || requested_beside(
                            &sentences,
                            at,
                            clause,
                            [&tokens[..p], &whole[premise.len()..]],
                        );
                    asks.then_some(premise)
                })
                .find(|premise| changes_a_rule(premise));
            if let Some((first, last)) = premise.and_then(|p| p.first().zip(p.last())) {
                // The premise's words are slices of `text`: its span runs from the first
                // to the end of the last, with the signs written against them ("20%", "€5").
                let start = first.as_ptr() as usize - text.as_ptr() as usize;
                let end = last.as_ptr() as usize - text.as_ptr() as usize + last.len();
                let ends_word = |c: char| {
                    c.is_whitespace() || SENTENCE_ENDS.contains(&c) || CLAUSE_ENDS.contains(&c)
                };
                let end = text[end..]
                    .find(ends_word)
                    .map_or(text.len(), |after| end + after);
                premises.push(&text[start..end]);
            }
        }
    }
    premises
}

/// Where the question or the request after a premise starts, when no comma parts them ("since
/// the fee is gone how much do i get back", "since u guys changed returns to 6 months now i
/// want to send back my tv"): a question word, a verb put before its subject ("can i", "is
/// it"), or a request's opening ("please", "i want", "i'd like", "i'm sending"); the premise's
/// length when none does.
fn question_starts(premise: &[&str]) -> usize {
    const AUXILIARIES: &[&str] = &[
        "can", "could", "will", "would", "should", "do", "does", "did", "may", "must",
    ];
    const BEING: &[&str] = &["is", "are", "am", "was", "were"];
    const SUBJECTS: &[&str] = &[
        "i", "you", "u", "we", "it", "they", "this", "that", "my", "me",
    ];
    const DETERMINERS: &[&str] = &["the", "a", "an", "there", "these", "those", "any"];
    (1..premise.len())
        .find(|&k| {
            let (word, next) = (premise[k], premise.get(k + 1).copied().unwrap_or(""));
            // "is the window 60 days" asks only once the premise has a verb of its own
            // ("now that the policy was updated is the window ..."), since "the fee is a flat
            // 10%" states.
            let verb_before = premise[..k].iter().any(|w| {
                AUXILIARIES.contains(w)
                    || BEING.contains(w)
                    || matches!(*w, "been" | "has" | "have" | "had")
                    || w.ends_with("'s") && SUBJECTS.iter().any(|s| w.starts_with(s))
            });
            QUESTION_WORDS.contains(&word)
                || request_opens(&premise[k..])
                || (AUXILIARIES.contains(&word) || BEING.contains(&word))
                    && SUBJECTS.contains(&next)
                || AUXILIARIES.contains(&word) && DETERMINERS.contains(&next)
                || BEING.contains(&word) && DETERMINERS.contains(&next) && verb_before
        })
        .unwrap_or(premise.len())
}

/// Words that put what follows on a condition: "refund it if that's true", "assuming it's
/// inside the window, process it".
const CONDITIONS: &[&str] = &["if", "whether", "assuming", "provided", "unless", "once"];

/// Words that open a request from the customer: "please ...", "kindly ...", "i want ...",
/// "i'd like ...", "i'm sending ...", "i'll ...", "let me ...".
fn request_opens(words: &[&str]) -> bool {
    let at = |k: usize| words.get(k).copied().unwrap_or("");
    let doing = |w: &str| w.len() > 4 && w.ends_with("ing");
    matches!(at(0), "please" | "pls" | "kindly" | "i'll")
        || WANTING.iter().any(|frame| words.starts_with(frame))
        || matches!(at(0), "i'm" | "im") && doing(at(1))
        || at(0) == "i" && at(1) == "am" && doing(at(2))
        || at(0) == "let" && at(1) == "me"
}

/// The figures `text` (a claim's words or a premise's) sets as terms, up to the customer's own
/// account; `codes` are the currency codes the message writes in capitals
/// ([`capital_currency_codes`]).
fn terms_before_own_account(text: &str, codes: &[&str]) -> BTreeSet<Figure> {
    term_figures(&with_currency_codes(before_own_account(text), codes))
}

/// A premise that takes as given a change granting something: a new edition of a rule and
/// what it does ([`names_a_new_rule_doing`]), a claim ([`claims`]) that says what was granted
/// ("restocking fees were dropped in the March update", "returns are free now"), or a change
/// to a rule ([`changes_a_rule`]) said to grant ("the amended terms allow gift cards to be
/// cashed out", "the revised warranty now covers accidental damage"). Not one that only names
/// or dates a change ("the new terms", "the new policy is out", "the new terms took effect on
/// April 1", "the policy changed"), one that burdens ("the fee was raised"), nor what
/// [`asserted_premise`] rules out.
fn claims_a_granting_change(premise: &[&str]) -> bool {
    let Some(premise) = asserted_premise(premise) else {
        return false;
    };
    let granted = (0..premise.len()).any(|k| {
        let w = premise[k];
        // "allow", "refunds", "covers" as what a rule does ("the amended terms allow ...",
        // "the new rule that refunds ..."), not as a noun ("since the refund is approved").
        let as_a_verb =
            k > 0 && (premise[k - 1] == "that" || !DETERMINERS_BEFORE.contains(&premise[k - 1]));
        GRANTING_CHANGES.contains(&w)
            || GRANTING_VERBS.contains(&w) && as_a_verb
            || RULE_STATES.contains(&w)
            || COVER_STATES.contains(&w)
    }) || burden_no_longer(premise);
    !about_products_or_prices(premise)
        && (names_a_new_rule_doing(premise)
            || granted && (changes_a_rule(premise) || !claims(&premise.join(" ")).is_empty()))
}

/// A burden said gone with "no longer": "exchanges no longer need a receipt", "the fee no
/// longer applies"; not "the exchange is no longer possible".
fn burden_no_longer(premise: &[&str]) -> bool {
    premise.windows(3).any(|w| {
        w[0] == "no"
            && w[1] == "longer"
            && matches!(
                w[2],
                "need"
                    | "needs"
                    | "require"
                    | "requires"
                    | "required"
                    | "apply"
                    | "applies"
                    | "charge"
                    | "charged"
                    | "charges"
                    | "expire"
                    | "expires"
            )
    })
}

/// What a premise asserts: its words up to the question after it ([`question_starts`]), unless
/// they pass on what a text says, which the question asks to be read ("now that the new policy
/// says returns are 30 days, is that from delivery?"), or are about the customer's own things
/// ("the recent plan change raised my monthly charge") or a person's goodwill ("the trial was
/// extended by your agent").
fn asserted_premise<'t, 'a>(premise: &'t [&'a str]) -> Option<&'t [&'a str]> {
    let premise = &premise[..question_starts(premise)];
    // "I" as well as "my": "since I bought the extended warranty that covers drops".
    let own_things = (0..premise.len()).any(|k| {
        let previous = if k > 0 { premise[k - 1] } else { "" };
        own_account_word(previous, premise[k]) || premise[k] == "ours"
    });
    let a_person = |w: &&str| {
        matches!(
            *w,
            "agent" | "rep" | "representative" | "manager" | "staff" | "associate" | "support"
        )
    };
    // "... extended by your agent", or the agent as the subject ("your agent dropped the fee").
    let goodwill = (0..premise.len()).any(|k| {
        premise[k] == "by"
            && premise[k + 1..]
                .iter()
                .take(3)
                .any(|w| matches!(*w, "you" | "u" | "team") || a_person(w))
    }) || premise.iter().take(3).any(a_person);
    // "claims" is a noun as often ("damage claims are valid for 90 days").
    let passed_on = premise
        .iter()
        .any(|w| REPORTING.contains(w) && !matches!(*w, "claims" | "claim"));
    (!premise.is_empty() && !own_things && !goodwill && !passed_on).then_some(premise)
}

/// A premise that says one of the company's rules changed: a word of change ("now", "revised",
/// "changed", "update", "no longer", "new" before a rule: "the new warranty terms") and a word
/// of what a policy rules on. Not "right now" or "for now", not a product's or an app's update
/// ("the latest app update removed the returns button"), nor a promotion, a price or a coupon
/// ("the new sale price of $49", "shipping is free now through Sunday", "the 20% off coupon").
fn changes_a_rule(premise: &[&str]) -> bool {
    const EDITIONS: &[&str] = &[
        "update",
        "change",
        "changes",
        "amendment",
        "revision",
        "refresh",
        "overhaul",
    ];
    // Not "days", a unit: "it's been 45 days now" is the customer's wait.
    let a_rule = |w: &str| a_rules_subject(w) && !UNITS.contains(&w) || CLAIMED_RULES.contains(&w);
    let changed = (0..premise.len()).any(|k| {
        let w = premise[k];
        let previous = if k > 0 { premise[k - 1] } else { "" };
        w == "now" && !NOW_IDIOMS_BEFORE.contains(&previous)
            || matches!(w, "recent" | "recently")
            // "new" of a rule ("the new warranty terms"), not of customers or a laptop.
            || NEWER_EDITION.contains(&w)
                && premise[k + 1..]
                    .iter()
                    .take(3)
                    .any(|n| a_rule(n) || EDITIONS.contains(n))
            || CLAIMED_CHANGES.contains(&w)
            || EDITIONS.contains(&w)
    }) || premise.windows(2).any(|pair| pair == ["no", "longer"]);
    changed && premise.iter().any(|w| a_rule(w)) && !about_products_or_prices(premise)
}

/// Words of a product, a part of the site or app, a promotion or a price: a premise naming one
/// tells of what changed in the shop, not in its rules ("the latest update removed the return
/// option from the orders screen", "the update dropped the price of the blender", "the 20%
/// discount was removed from the cart").
const PRODUCTS_AND_PROMOTIONS: &[&str] = &[
    "app",
    "software",
    "firmware",
    "website",
    "site",
    "page",
    "screen",
    "button",
    "checkout",
    "cart",
    "device",
    "game",
    "promo",
    "promotion",
    "sale",
    "deal",
    "off",
    "discount",
    "coupon",
    "coupons",
    "price",
    "prices",
];

/// Whether `premise` names a product, a part of the site, a promotion or a price
/// ([`PRODUCTS_AND_PROMOTIONS`]), not a rule named with such a word.
fn about_products_or_prices(premise: &[&str]) -> bool {
    premise.iter().enumerate().any(|(k, w)| {
        // "price" or "sale" naming a rule ("the price adjustment window", "final sale items")
        // is not a price or a promotion.
        let names_a_rule = matches!(*w, "price" | "prices")
            && premise.get(k + 1).is_some_and(|next| {
                matches!(
                    *next,
                    "adjustment"
                        | "adjustments"
                        | "match"
                        | "matching"
                        | "protection"
                        | "guarantee"
                )
            })
            || *w == "sale" && k > 0 && premise[k - 1] == "final";
        PRODUCTS_AND_PROMOTIONS.contains(w) && !names_a_rule
    })
}

/// What a change is said to have done that grants the customer something: "the fee was
/// dropped", "the window was extended", "the new rule lets you ...".
const GRANTING_CHANGES: &[&str] = &[
    "made",
    "makes",
    "lets",
    "let",
    "allows",
    "allowed",
    "give",
    "gives",
    "gave",
    "entitles",
    "entitled",
    "grants",
    "granted",
    "covers",
    "extended",
    "extends",
    "lengthened",
    "waives",
    "waived",
    "removed",
    "removes",
    "scrapped",
    "abolished",
    "dropped",
    "eliminated",
    "doubled",
    "doubles",
    "lifted",
    "gone",
    "means",
];

/// Words that call an edition of a rule newer than another: "the revised terms", "the new
/// exchange rule".
const NEWER_EDITION: &[&str] = &[
    "new", "newer", "newest", "latest", "updated", "revised", "amended",
];

/// The premise opened at the `p`th of a clause's `tokens`, if one opens there. The premise
/// runs from its opener to the clause's end, wherever it opens ("how do I file it, since the
/// update made ..."); inside a clause only a causal opener, not "under", "with", "after" or
/// "as", which more often place a rule or compare ("promo codes don't apply under the new
/// terms", "the same as the new policy").
fn premise_at<'t, 'a>(tokens: &'t [&'a str], p: usize) -> Option<&'t [&'a str]> {
    if p > 0
        && matches!(
            tokens[p],
            "under" | "with" | "after" | "as" | "following" | "based"
        )
    {
        return None;
    }
    // "is it true that now that ...", "I wonder whether, since ...": a premise asked about.
    if tokens[..p]
        .iter()
        .any(|w| matches!(*w, "true" | "whether" | "if" | "wonder" | "wondering"))
    {
        return None;
    }
    let premise = match &tokens[p..] {
        // "Given the new terms, ...": without "that" only opening a clause, since "I was
        // given the refund" is no premise.
        ["given", next, rest @ ..] if p == 0 && *next != "that" && *next != "as" => {
            Some(&tokens[p + 1..]).filter(|_| !rest.is_empty())
        }
        premise => premise_after(premise),
    }?;
    // "since when is the window 14 days?" asks.
    (!premise.first().is_some_and(|w| QUESTION_WORDS.contains(w))).then_some(premise)
}

/// Words that open a question: "how", "what", "when", ... ("wheres" as written in chat).
const QUESTION_WORDS: &[&str] = &[
    "how", "what", "when", "where", "which", "why", "who", "hows", "whats", "whens", "wheres",
];

/// The words after a premise's opener: "since", "now that", "given that", "seeing as",
/// "considering", "because (of)", "due to", "thanks to", "owing to", "in light of", "in view
/// of", "based on", "following", "under", "with", "after", "as".
fn premise_after<'t, 'a>(tokens: &'t [&'a str]) -> Option<&'t [&'a str]> {
    match tokens {
        ["now" | "given" | "seeing", "that" | "as", rest @ ..] => Some(rest),
        ["because", "of", rest @ ..]
        | ["due" | "thanks" | "owing", "to", rest @ ..]
        | ["in", "light" | "view", "of", rest @ ..]
        | ["based", "on", rest @ ..]
        | ["following", rest @ ..] => Some(rest),
        ["since" | "under" | "with" | "because" | "considering" | "after", rest @ ..] => Some(rest),
        // Not a fixed phrase ("as soon as", "as of", "as well", "as if").
        ["as", next, ..] if AS_PHRASES.contains(next) => None,
        ["as", rest @ ..] => Some(rest),
        _ => None,
    }
}

/// Words that make "as" part of a phrase, not a premise's opener: "as soon as", "as of", "as
/// far as", "as per", "as well", "as if", "as usual".
const AS_PHRASES: &[&str] = &[
    "soon", "long", "well", "far", "of", "per", "for", "to", "much", "many", "if", "though",
    "usual", "always", "a", "an", "in", "such", "opposed", "with", "compared", "on", "part",
];

/// A premise naming a new edition of a rule and what it does: "the 2026 update made claims
/// valid for 90 days", "the new no-questions-asked exchange rule that lets you swap ...". The
/// noun phrase opens with a determiner, holds a word of newness (new, updated, a year, a
/// month) before the rule's name within five words, and a verb of what it does follows.
fn names_a_new_rule_doing(premise: &[&str]) -> bool {
    // An edition of a rule by name; "update", "change" or "version" name one only with what a
    // policy rules on after them ("the 2026 update made damage claims valid ..."), not a
    // product's ("the latest update removed the order history page", "the 2024 version
    // removed the headphone jack").
    const RULE_EDITIONS: &[&str] = &["amendment", "revision", "policy", "rule", "rules", "terms"];
    const EDITIONS: &[&str] = &[
        "update",
        "change",
        "changes",
        "version",
        "announcement",
        "overhaul",
        "refresh",
    ];
    // Not "may", which is a verb far more often than a month.
    let newness = |w: &str| {
        NEWER_EDITION.contains(&w)
            || w == "recent"
            || MONTHS.contains(&w) && w != "may"
            || matches!(w, "spring" | "summer" | "autumn" | "fall" | "winter")
            || w.len() == 4 && w.starts_with("20") && w.bytes().all(|b| b.is_ascii_digit())
            // "last month's change".
            || matches!(w, "week's" | "month's" | "year's" | "season's" | "quarter's")
    };
    if !matches!(
        premise.first().copied(),
        Some("the" | "your" | "this" | "that" | "last" | "northwind's")
    ) {
        return false;
    }
    let Some(new_at) = premise.iter().take(3).position(|w| newness(w)) else {
        return false;
    };
    let edition = |w: &&str| RULE_EDITIONS.contains(w) || EDITIONS.contains(w);
    let Some(named_at) =
        (new_at + 1..premise.len().min(new_at + 6)).find(|&k| edition(&premise[k]))
    else {
        return false;
    };
    // "the 2025 policy change allowed ...": a rule's name may take two nouns.
    let rest = &premise[named_at + 1..];
    let (named, rest) = match rest {
        [second, tail @ ..] if edition(second) => (&premise[new_at..named_at + 2], tail),
        _ => (&premise[new_at..named_at + 1], rest),
    };
    let after = after_softeners(rest, &["that", "which", "now"]);
    let a_rules_edition = named.iter().any(|w| RULE_EDITIONS.contains(w))
        || after.iter().skip(1).any(|w| RULED.contains(w));
    let a_product = premise.iter().any(|w| {
        matches!(
            *w,
            "app" | "software" | "firmware" | "website" | "site" | "system" | "device" | "game"
        )
    });
    a_rules_edition && !a_product && after.first().is_some_and(|w| GRANTING_CHANGES.contains(w))
}

/// A rule text the customer pasted and presents as newer than the policy (a changelog, a
/// diff, a versioned config, release notes, a dated help-page excerpt, an email announcing new
/// terms), relied on by a request in the customer's own words: "--- cancellation.md (old) /
/// +++ cancellation.md (new) ... Cancel it please, per the new version." Its reason quotes
/// the rule as changed: a pasted rule line presented as newer, never a diff's removed line.
///
/// The material must state a rule ([`states_a_rule`]), not record one order, payment or
/// account (a receipt, a status page, a bank text, a label: [`a_record`]), and not be another
/// issuer's ([`issued_elsewhere`]); and it must be presented as newer, on a line that states a
/// rule ("Receipts are no longer required"), a line naming the document as a new edition
/// ("Returns Policy - Updated", "| Old (v4.2) | New (v4.3) |"), the customer's introduction
/// ("Here's the changelog:") or a diff; a date stamp ("Last updated: Mar 2, 2026") or one
/// edition's name ("version: 5") is not newness. The request must point at the material
/// ("per the above"), come in the paragraph right after it, or share a word with its rules: a
/// developer pasting their own product's changelog and asking something else is answered.
fn pasted_rules_relied_on(message: &str) -> Option<String> {
    let pasted = crate::pasted::split(message)?;
    if issued_elsewhere(&pasted) {
        return None;
    }
    let material: Vec<Vec<String>> = pasted
        .material
        .split("\n\n")
        .filter(|paragraph| !a_record(paragraph))
        .map(|paragraph| {
            paragraph
                .lines()
                .filter(|line| !line.trim().is_empty() && !a_record(line))
                .map(without_paths)
                .collect()
        })
        .collect();
    let lines = || material.iter().flatten();
    // A table's rows and a setting's values are named by the paragraph's first line: its
    // header row ("| Membership | Old threshold | New threshold |") or parent key
    // ("restocking_fee:").
    let rules: Vec<&String> = material
        .iter()
        .flat_map(|paragraph| {
            let first = paragraph.first().map_or("", String::as_str);
            let names_rows = first.starts_with('|') || first.ends_with(':');
            paragraph
                .iter()
                .filter(move |line| states_a_rule(line, if names_rows { first } else { "" }))
        })
        .collect();
    if rules.is_empty() {
        return None;
    }
    let names_the_document = |tokens: &[&str]| tokens.iter().any(|w| names_a_document(w));
    let newer = rules.iter().any(|line| presented_as_newer(&words(line)))
        || lines().any(|line| {
            let tokens = words(line);
            names_the_document(&tokens) && an_edition(&tokens)
        })
        // The customer calling it new: a line introducing it ("You now qualify for:", "v4.3
        // release notes:"), or one pointing at it as a new edition ("Above is the updated
        // config"), not a request's "now" ("as you can see above, I need my refund now").
        || pasted.introductions.lines().any(|line| {
            let tokens = normalize(line).text;
            let tokens = words(&tokens);
            if line.trim_end().ends_with(':') {
                presented_as_newer(&tokens)
            } else {
                an_edition(&tokens)
            }
        })
        || diff(&material);
    if !newer {
        return None;
    }
    // One line at a time: normalising joins lines, and each of the customer's lines ends a
    // sentence.
    let own = pasted
        .own
        .lines()
        .map(|line| normalize(line).text)
        .collect::<Vec<_>>()
        .join("\n");
    let following = normalize(&pasted.following).text;
    let ruled_words: Vec<&str> = rules.iter().flat_map(|line| words(line)).collect();
    let tied = |_: usize, sentence: &str| {
        let tokens = words(sentence);
        !following.is_empty() && following.contains(sentence.trim())
            || tokens.iter().any(|w| {
                crate::pasted::POINTING.contains(w)
                    || matches!(*w, "per" | "accordingly" | "new" | "updated" | "version")
                    || ruled_words.iter().any(|s| same_content_word(w, s))
            })
    };
    acts_on_the_claim(&own, RequestForms::Plain, tied).then(|| {
        // The rule as changed: a line presented as newer, and never a diff's removed line.
        let removed = |line: &str| line.starts_with('-') && !line.starts_with("- ");
        let kept: Vec<&&String> = rules.iter().filter(|line| !removed(line)).collect();
        let claimed = kept
            .iter()
            .find(|line| presented_as_newer(&words(line)))
            .or(kept.first())
            .map_or(rules[0].as_str(), |line| line.as_str());
        quoted(claimed.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '"'))
    })
}

/// Whether pasted material is another issuer's, not the company's: the customer's
/// introduction or the material names a bank, a manufacturer, a school ([`OTHER_ISSUERS`]), the
/// news, a product's manual or firmware, a recall, or the customer's own page, config or
/// plugin ("Pasting our YAML:", "from my AppleCare+ page:"); unless the introduction addresses
/// the company ("from your site", "your app's release notes").
fn issued_elsewhere(pasted: &crate::pasted::Pasted) -> bool {
    let introduction = normalize(&pasted.introductions).text;
    let intro = words(&introduction);
    // What the customer says of it, before or right after it.
    let remarks = normalize(&format!("{}\n{}", pasted.introductions, pasted.remark())).text;
    let remarks = words(&remarks);
    // Who issued it is said before it or at its head: a heading, a sender, a subject.
    let heads: String = pasted
        .material
        .split("\n\n")
        .flat_map(|paragraph| {
            let mut lines = paragraph.lines();
            lines
                .next()
                .into_iter()
                .chain(lines.filter(|line| crate::pasted::email_header(line)))
        })
        .collect::<Vec<_>>()
        .join("\n");
    let heads = normalize(&heads).text;
    let said = words(&heads);
    // "from your site", "your app's release notes", "you sent me this": the company's.
    let yours = (0..intro.len()).any(|k| {
        intro[k] == "your"
            && intro[k + 1..intro.len().min(k + 3)]
                .iter()
                .any(|w| SOURCES.contains(w) || YOUR_SOURCES.contains(w))
            || matches!(
                intro[k..],
                ["from", "you", ..] | ["you", "sent" | "posted" | "emailed", ..]
            )
    });
    let elsewhere = |w: &&str| {
        OTHER_ISSUERS.contains(w)
            || matches!(
                *w,
                "manual" | "firmware" | "plugin" | "recall" | "recalls" | "district"
            )
    };
    // "Saw this on the news:"; at the material's head "Good news!" is a greeting.
    let other = remarks
        .iter()
        .any(|w| elsewhere(w) || matches!(*w, "news" | "settlement" | "headline"))
        || said.iter().any(elsewhere);
    // "Tracking history:", "my receipt:": a record named right before the colon that
    // introduces it; not "I lost the receipt" said after a rule text.
    let record = pasted.introductions.lines().any(|line| {
        let line = normalize(line).text;
        let tokens = words(&line);
        line.ends_with(':')
            && tokens.iter().rev().take(3).any(|w| {
                matches!(
                    *w,
                    "tracking"
                        | "receipt"
                        | "invoice"
                        | "statement"
                        | "status"
                        | "history"
                        | "transaction"
                )
            })
    });
    // A product's release notes or changelog ("SmartCam app 5.0"), not the company's policy:
    // they name no policy and the customer does not say they are the company's.
    let names_policy = intro.iter().chain(&said).any(|w| {
        matches!(*w, "policy" | "policies" | "terms" | "conditions" | "rules")
            || RULE_HEADS.contains(w)
    });
    let notes = |tokens: &[&str]| {
        tokens
            .iter()
            .any(|w| names_a_version(w) || matches!(*w, "changelog" | "firmware"))
            || tokens
                .windows(2)
                .any(|w| matches!(w, ["release", "notes"] | ["what's", "new"]))
    };
    let product_notes = (notes(&said) || notes(&intro)) && !names_policy;
    // "our YAML", "my AppleCare+ page": the customer's own document or account elsewhere.
    let own_document = (0..remarks.len()).any(|k| {
        matches!(remarks[k], "my" | "our")
            && remarks[k + 1..remarks.len().min(k + 4)].iter().any(|w| {
                matches!(
                    *w,
                    "page"
                        | "config"
                        | "configuration"
                        | "yaml"
                        | "json"
                        | "integration"
                        | "plugin"
                        | "app"
                        | "code"
                        | "contract"
                        | "agreement"
                        | "account"
                        | "plan"
                )
            })
    });
    record || !yours && (other || own_document || product_notes)
}

/// Where the company publishes, after "your": "your site", "your help center", "your app".
const YOUR_SOURCES: &[&str] = &[
    "site", "website", "app", "page", "help", "terms", "policy", "policies", "team", "store",
    "returns", "support", "own", "official", "checkout", "account",
];

/// A pasted line normalised, without paths or links: "/returns/new" names a page, not a rule.
fn without_paths(line: &str) -> String {
    normalize(line)
        .text
        .split(' ')
        .filter(|token| {
            let bytes = token.as_bytes();
            // A slash next to a letter: a path, not a date ("04/01/2026").
            !(0..bytes.len()).any(|k| {
                bytes[k] == b'/'
                    && (k > 0 && bytes[k - 1].is_ascii_alphabetic()
                        || bytes.get(k + 1).is_some_and(u8::is_ascii_alphabetic))
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Words that name a rule text or its edition: "version: 5", "Terms of Warranty, rev.
/// 2026-01-15", "Last updated: ...", "v4.3 release notes".
const DOCUMENT_WORDS: &[&str] = &[
    "policy",
    "policies",
    "terms",
    "rules",
    "changelog",
    "notes",
    "version",
    "rev",
    "revision",
    "effective",
    "updated",
    "update",
    "faq",
    "article",
    "conditions",
];

/// How a pasted line states a rule, besides a figure: a modal, what is allowed or needed, a
/// change.
const RULE_STATEMENTS: &[&str] = &[
    "may",
    "can",
    "must",
    "shall",
    "will",
    "cannot",
    "can't",
    "won't",
    "now",
    "longer",
    "apply",
    "applies",
    "include",
    "includes",
    "accept",
    "accepts",
    "accepted",
    "permitted",
    "allowed",
    "allow",
    "allows",
    "waived",
    "free",
    "refundable",
    "returnable",
    "required",
    "expire",
    "expires",
    "cover",
    "covers",
    "covered",
    "qualify",
    "qualifies",
    "eligible",
    "receive",
    "receives",
    "get",
    "gets",
    "last",
    "lasts",
    "retain",
    "retains",
    "we'll",
    "you'll",
];

/// A pasted line that states a rule: it names what a policy rules on and says it in general
/// terms, with a modal or a word of what is allowed or needed ("Orders may be cancelled any
/// time", "Receipts no longer required"), a change ("Restocking fee removed"), or a setting
/// with a figure or a value ("window_days: 60", "expiration: none", "| Electronics | 15 days
/// | 45 days |"). Not a line speaking of the customer ("I", "my") or of one order ("your
/// order", a status).
fn states_a_rule(line: &str, heading: &str) -> bool {
    let tokens = words(line);
    let named = words(heading);
    // "price adjustments", "price match": a rule; a price alone is a thing's.
    let names_in = |tokens: &[&str]| {
        tokens.iter().enumerate().any(|(k, w)| {
            let next = tokens.get(k + 1).copied().unwrap_or("");
            (RULED.contains(w) && !matches!(*w, "price" | "balance" | "cash"))
                || *w == "price" && (next.starts_with("adjust") || next.starts_with("match"))
                || CLAIMED_RULES.contains(w)
                || RULE_HEADS.contains(w)
                || w.starts_with("cancel")
                || w.starts_with("expir")
                || w.starts_with("subscription")
        })
    };
    let names = names_in(&tokens) || names_in(&named);
    // "are refunded automatically", "is covered": a rule in the present passive.
    let passive = tokens.windows(2).any(|pair| {
        matches!(pair[0], "is" | "are")
            && (RULED.contains(&pair[1]) || DONE_REMEDIES.contains(&pair[1]))
    }) || tokens.windows(3).any(|w| {
        matches!(w[0], "is" | "are") && (RULED.contains(&w[2]) || DONE_REMEDIES.contains(&w[2]))
    });
    let general = tokens
        .iter()
        .any(|w| RULE_STATEMENTS.contains(w) || CLAIMED_CHANGES.contains(w))
        || passive
        || a_term(&tokens)
        || crate::pasted::setting(line);
    let of_one = tokens.iter().enumerate().any(|(k, w)| {
        matches!(
            *w,
            "i" | "i'm" | "i've" | "my" | "me" | "status" | "tracking" | "still"
        ) || *w == "your"
            && tokens.get(k + 1).is_some_and(|next| {
                matches!(
                    *next,
                    "order"
                        | "refund"
                        | "package"
                        | "parcel"
                        | "item"
                        | "return"
                        | "purchase"
                        | "account"
                        | "card"
                        | "payment"
                        | "subscription"
                        | "warranty"
                        | "case"
                        | "ticket"
                        | "claim"
                        | "request"
                        | "membership"
                        | "plan"
                )
            })
    });
    names && general && !of_one
}

/// A term in figures: a duration ("within 1 year", "30 days") or a percentage.
fn a_term(tokens: &[&str]) -> bool {
    tokens.windows(2).any(|pair| {
        pair[0].chars().all(|c| c.is_ascii_digit())
            && matches!(
                pair[1].trim_end_matches('s'),
                "hour" | "day" | "week" | "month" | "year" | "night" | "percent"
            )
    })
}

/// Pasted text recording one order, payment or account, not a rule: it carries an order,
/// card or return number ("Order #66190", "RMA: 44120", "card ending 2231") or a time past
/// ("Updated 2 hours ago"). Read over a paragraph and over each line.
fn a_record(text: &str) -> bool {
    let lower = text.to_lowercase();
    let tokens = words(&lower);
    let number = |w: &str| {
        w.chars().all(|c| c.is_ascii_digit())
            && (w.len() >= 5 || w.len() == 4 && !(w.starts_with("19") || w.starts_with("20")))
    };
    // A hash's number in a diff's "index 3f2a1c9..8b7e0d4 100644" is the file's, on its own line.
    let numbered = tokens.windows(2).any(|pair| {
        matches!(
            pair[0],
            "order"
                | "rma"
                | "card"
                | "ending"
                | "invoice"
                | "receipt"
                | "tracking"
                | "account"
                | "ref"
                | "no"
                | "number"
                | "case"
                | "ticket"
        ) && number(pair[1])
    });
    let hashed = lower
        .split('#')
        .skip(1)
        .any(|after| after.starts_with(|c: char| c.is_ascii_digit()));
    numbered
        || hashed
        || tokens.contains(&"ago")
        || !text.contains('\n') && tokens.iter().any(|w| number(w))
}

/// Words that present a rule text as newer than the one in force: a date it takes effect
/// from, "updated", a new rule, "now", "no longer", a changelog or release notes, two versions
/// compared ("v4.2 -> v4.3"). One version only names an edition, which the text in force has
/// too; and "new" of a thing or a person ("new customers only", "the new blender") is not a
/// new rule.
fn presented_as_newer(tokens: &[&str]) -> bool {
    tokens.iter().filter(|w| names_a_version(w)).count() >= 2
        || tokens.iter().enumerate().any(|(k, w)| {
            let next = tokens.get(k + 1).copied().unwrap_or("");
            let previous = if k > 0 { tokens[k - 1] } else { "" };
            matches!(
                *w,
                "revised" | "effective" | "changelog" | "amended" | "amendment" | "changing"
            ) || matches!(*w, "new" | "newer") && names_a_document(next)
            // "now on its way" tells how a thing stands.
            || *w == "now" && !NOW_IDIOMS_BEFORE.contains(&previous) && !NOW_STANDS.contains(&next)
            // "updated_at" in a tracking payload dates a record, not a rule.
            || matches!(*w, "updated" | "update") && next != "at" && previous != "last"
            || *w == "release" && matches!(next, "notes" | "note")
            || *w == "change" && matches!(next, "log" | "notes")
            // "starting Monday", "beginning 1 May".
            || matches!(*w, "starting" | "beginning")
                && (DECREE_TIMES.contains(&next)
                    || MONTHS.contains(&next)
                    || WEEKDAYS.contains(&next)
                    || numbered_word(next))
            || *w == "longer" && previous == "no"
            // "cancellation fees were eliminated", "we've extended our return window"; not "the
            // extended warranty", a thing.
            || CLAIMED_CHANGES.contains(w)
                && previous != "last"
                && !DETERMINERS_BEFORE.contains(&previous)
            || *w == "of" && previous == "as"
        })
}

/// What marks a line naming a document, not stating a rule, as a newer edition: a version
/// ("version: 5", "v4.3", "rev. 2026-02"), a changelog or release notes, an amendment, a new
/// policy, "effective immediately". A date stamp alone ("Last updated: ...", "Effective:
/// 01/10/2026") dates a text or an account: a quote of the policy in force carries one too.
fn an_edition(tokens: &[&str]) -> bool {
    tokens.iter().filter(|w| names_a_version(w)).count() >= 2
        || tokens.iter().enumerate().any(|(k, w)| {
            let next = tokens.get(k + 1).copied().unwrap_or("");
            matches!(
                *w,
                "revised" | "changelog" | "amended" | "amendment" | "changing"
            )
            || *w == "release" && matches!(next, "notes" | "note")
            || *w == "change" && matches!(next, "log" | "notes")
            || *w == "effective" && matches!(next, "immediately" | "today" | "now")
            // "| Category | Old (v4.2) | New (v4.3) |", "old_value,new_value".
            || *w == "old" && tokens.contains(&"new")
            || matches!(*w, "new" | "newer") && names_a_document(next)
            // "Returns Policy - Updated", "What's changed in our Returns Policy"; not the
            // stamp "Last updated: ...".
            || CLAIMED_CHANGES.contains(w) && (k == 0 || tokens[k - 1] != "last")
        })
}

/// A word naming a rule text or a rule: "policy", "terms", "fee", "window".
fn names_a_document(word: &str) -> bool {
    DOCUMENT_WORDS.contains(&word) || CLAIMED_RULES.contains(&word) || RULE_HEADS.contains(&word)
}

/// Pasted lines that mark a diff: `+++`/`@@` headers, or lines of words both taken out and put
/// in (not a ledger's "+$40.00" and "-$6.00").
fn diff(material: &[Vec<String>]) -> bool {
    let lines: Vec<&str> = material.iter().flatten().map(|l| l.trim()).collect();
    let worded = |l: &str, mark: char| {
        l.strip_prefix(mark)
            .is_some_and(|rest| rest.starts_with(char::is_alphabetic))
    };
    lines
        .iter()
        .any(|l| l.starts_with("+++") || l.starts_with("@@"))
        || lines.iter().any(|l| worded(l, '+')) && lines.iter().any(|l| worded(l, '-'))
}

/// A change passed on from a source: the piece of its sentence that carries it, and the
/// source's words.
struct ReportedClaim<'a> {
    piece: &'a str,
    said: Vec<&'a str>,
}

/// Whether a request's sentence (the `at`-th from the claim's, which is the 0th) leans on a
/// change passed on: it is the claim's own sentence, opens as a consequence ("so ...",
/// "accordingly, ..."), names the change or its source ("per the new timeline", "per this
/// letter", "follow the new rule"), asks about what the source spoke of ("the return window is
/// 90 days now. Please accept my return"), orders a remedy straight after the claim ("...
/// scrapped the packaging requirement. Accept my return without the box.") or one pointing
/// back at it ("Refund it.", "Can I get that back?"); not "my cousin
/// said the window was extended. I'd like you to cancel the order I placed this morning".
fn tied_to(at: usize, sentence: &str, said: &[&str]) -> bool {
    let tokens = words(sentence);
    let order = after_softeners(&tokens, &["please", "kindly", "just", "now", "ok", "okay"]);
    let next_orders_a_remedy = at == 1
        && order.first().is_some_and(|w| REMEDIES.contains(w))
        && order.get(1).is_some_and(|w| !matches!(*w, "me" | "us"));
    // "... the cancellation fee was dropped. Why did you charge me $10? Refund it.", "... were
    // eliminated. I paid $8.95. Can I get that back?": a pronoun pointing back at the claim.
    // "Put it back on my Visa", "Cash it out", "Match it": money paid out for it.
    let pointing_back = (1..=2).contains(&at)
        && (order
            .first()
            .is_some_and(|w| REMEDIES.contains(w) || matches!(*w, "put" | "cash" | "match"))
            && matches!(order.get(1).copied(), Some("it" | "that" | "this"))
            || tokens
                .windows(3)
                .any(|w| matches!(w, ["get", "it" | "that" | "this", "back"])));
    let consequence = matches!(
        tokens.first().copied(),
        Some("so" | "then" | "therefore" | "accordingly" | "hence" | "thus" | "given")
    );
    let names_it = (0..tokens.len()).any(|k| {
        matches!(
            tokens[k],
            "per" | "under" | "according" | "based" | "given" | "following" | "follow"
        ) && tokens[k + 1..tokens.len().min(k + 4)].iter().any(|w| {
            SOURCES.contains(w) || CLAIMED_TEXTS.contains(w) || CLAIMED_CHANGES.contains(w)
        })
    });
    let shared = tokens
        .iter()
        .any(|w| said.iter().any(|s| same_content_word(w, s)));
    at == 0 || consequence || names_it || shared || next_orders_a_remedy || pointing_back
}

/// Words of a message besides its function words ([`is_function_word`]) too common to tie a
/// request to what a source said: the customer's orders, times, the company itself.
const COMMON_WORDS: &[&str] = &[
    "says",
    "told",
    "day",
    "days",
    "order",
    "orders",
    "item",
    "items",
    "account",
    "today",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "time",
    "back",
    "doesn't",
    "don't",
    "isn't",
    "it's",
    "i'm",
    "i've",
    "new",
    "old",
    "per",
    "via",
    "since",
    "northwind",
    "store",
    "company",
];

/// The same content word, or one of its forms ("returns" and "return", "cancelled" and
/// "cancel", "refundable" and "refund", "deletion" and "delete").
fn same_content_word(a: &str, b: &str) -> bool {
    let content = |w: &str| {
        w.len() >= 3
            && !is_function_word(w)
            && !COMMON_WORDS.contains(&w)
            && !w.chars().any(|c| c.is_ascii_digit())
    };
    if !content(a) || !content(b) {
        return false;
    }
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    a == b || common >= 5 || a.strip_suffix('s') == Some(b) || b.strip_suffix('s') == Some(a)
}

/// The claim a message makes that one of the company's rules changed, whether or not it asks
/// for anything on the strength of it: a statement, or a premise a question takes as given
/// ([`changes_taken_as_given`]).
pub fn claimed_change_in(message: &str) -> Option<String> {
    let text = normalize(message).text;
    quoted_claim(&text).or_else(|| changes_taken_as_given(&text).first().copied().map(quoted))
}

/// The claim in normalised `text`, as the escalation's reason quotes it.
fn quoted_claim(text: &str) -> Option<String> {
    claims(text).first().map(|claim| quoted(claim.clause))
}

/// A claim's clause as a reason quotes it.
fn quoted(clause: &str) -> String {
    clause.trim().trim_end_matches(SENTENCE_ENDS).to_string()
}

/// A claimed change: the clause that states it, in the sentence that carries it.
struct Claim<'a> {
    sentence: &'a str,
    clause: &'a str,
}

/// A claimed change that sets a figure the policy does not state.
#[derive(Debug, PartialEq, Eq)]
pub struct UnstatedFigures {
    /// The first claim setting one of `figures`, as the escalation's reason quotes it.
    pub claim: String,
    /// The figures the claims set that the policy states nowhere ("90 days" of "the window
    /// is 90 days now").
    pub figures: Vec<Figure>,
}

/// The claimed changes in `message`, if they set terms in figures (a duration, an amount, a
/// percentage) that none of `published` (the texts the policy has published on the subject)
/// states: "the return window for electronics is 90 days now" where every version says 30.
/// Such a message needs no request read from it: whatever it asks, it asks about terms the
/// policy does not have, and only a person can tell a change not yet published from an
/// invented one. A claim whose figures the policy states ("the restocking fee is now 15%"
/// where it is 15 %, "the window was extended from 14 to 30 days" where versions say each)
/// reports the policy and is answered from the version in force.
pub fn claim_beyond(message: &str, published: &[&str]) -> Option<UnstatedFigures> {
    let text = normalize(message).text;
    // The claims are read lower-cased; the codes the message writes in capitals are money.
    let codes = capital_currency_codes(message);
    let terms: Vec<(&str, BTreeSet<Figure>)> = claims(&text)
        .iter()
        .map(|claim| (claim.clause, claim_terms(claim, &codes)))
        .chain(
            changes_taken_as_given(&text)
                .into_iter()
                .map(|premise| (premise, terms_before_own_account(premise, &codes))),
        )
        .filter(|(_, figures)| !figures.is_empty())
        .collect();
    if terms.is_empty() {
        return None;
    }
    let stated: BTreeSet<Figure> = published.iter().flat_map(|t| stated_figures(t)).collect();
    let mut beyond: Option<UnstatedFigures> = None;
    for (clause, figures) in terms {
        for figure in figures {
            if stated.contains(&figure) {
                continue;
            }
            let found = beyond.get_or_insert_with(|| UnstatedFigures {
                claim: quoted(clause),
                figures: Vec::new(),
            });
            if !found.figures.contains(&figure) {
                found.figures.push(figure);
            }
        }
    }
    beyond
}

/// The figures a claim sets as terms: those of its clause, read on through a colon ("Payment
/// update: financing is extended to 48 months") and a comma inside a number ("€4,99"); or, when
/// the clause names the change without a figure ("the installments rule changed, it's $25
/// minimum now"), those of the rest of its sentence. Either stops at the customer's own
/// account ("returns are 90 days now so I can return it after 70 days" sets 90 days, not 70).
/// `codes` are the currency codes the message writes in capitals ([`capital_currency_codes`]).
fn claim_terms(claim: &Claim<'_>, codes: &[&str]) -> BTreeSet<Figure> {
    let start = claim.sentence.find(claim.clause).unwrap_or(0);
    let rest = &claim.sentence[start..];
    let mut end = rest.len();
    let mut previous = ' ';
    let mut chars = rest.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let in_number = c == ','
            && previous.is_ascii_digit()
            && chars.peek().is_some_and(|(_, next)| next.is_ascii_digit());
        if CLAUSE_ENDS.contains(&c) && c != ':' && !in_number {
            end = at;
            break;
        }
        previous = c;
    }
    let figures = |text: &str| terms_before_own_account(text, codes);
    let terms = figures(&rest[..end]);
    if terms.is_empty() {
        figures(rest)
    } else {
        terms
    }
}

/// `text` up to the first word of the customer's own account.
fn before_own_account(text: &str) -> &str {
    let mut at = 0;
    let mut previous = "";
    for token in text.split_inclusive(char::is_whitespace) {
        let word = token.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
        if own_account_word(previous, word) {
            return &text[..at];
        }
        previous = word;
        at += token.len();
    }
    text
}

/// [`own_account`] with the word before: "the us" is the country ("the US return window", read
/// lower-cased), not the customer writing.
fn own_account_word(previous: &str, word: &str) -> bool {
    own_account(word) && !(word == "us" && previous == "the")
}

/// A word of the customer's own account ("I", "my", "we've"): what it says of the customer's
/// things and doings is not a rule.
fn own_account(word: &str) -> bool {
    word == "i"
        || word.starts_with("i'")
        || matches!(
            word,
            "my" | "me" | "mine" | "our" | "us" | "im" | "ive" | "we" | "we're" | "we've"
        )
}

/// The company's rules, as a claim that one changed names them ("the restocking fee was
/// dropped", "the trial is 60 days now"), besides the words [`claimed_rule_at`] reads in
/// context ("policy", "window", "returns", "section 7.2"). A claim read together with an
/// ordinary request ([`acts_on_the_claim`]) must name a rule, not a price, an order or a
/// delivery ("the price dropped", "the delivery update").
const CLAIMED_RULES: &[&str] = &[
    "terms",
    "rule",
    "rules",
    "fee",
    "fees",
    "surcharge",
    "threshold",
    "warranty",
    "guarantee",
    "requirement",
    "conditions",
    "trial",
];

/// Words that report a rule changed, next to the rule they changed.
const CLAIMED_CHANGES: &[&str] = &[
    "changed",
    "updated",
    "revised",
    "amended",
    "dropped",
    "removed",
    "scrapped",
    "abolished",
    "replaced",
    "lifted",
    "extended",
    "lengthened",
    "shortened",
    "widened",
    "increased",
    "reduced",
    "raised",
    "lowered",
    "doubled",
    "halved",
    "eliminated",
    "corrected",
    "killed",
    "outdated",
    "stale",
];

/// The claimed changes in `text`, first to last: each a statement, not the customer's own
/// doing and not hedged, that one of the company's rules changed ("the restocking fee was
/// abolished", "they scrapped the fee", "section 7.2 was revised", "the new Plus terms", "a
/// policy update", "returns are 90 days now", "your policy is outdated"), with its sentence. Not "I changed the shipping to express", "the delivery fee on my invoice was
/// increased", "I think the window was extended", "the price dropped". A claim read in a clause
/// comes before a sentence that only announces a change.
fn claims(text: &str) -> Vec<Claim<'_>> {
    let clauses = statements(text).filter(|sentence| !hedged(sentence));
    let sentences: Vec<&str> = clauses.collect();
    let by_clause = sentences
        .iter()
        .flat_map(|&sentence| {
            sentence
                .split(CLAUSE_ENDS)
                .map(move |clause| Claim { sentence, clause })
        })
        .filter(|Claim { sentence, clause }| {
            let tokens = words(clause);
            let opener = after_softeners(
                &tokens,
                &[
                    "and",
                    "but",
                    "so",
                    "also",
                    "btw",
                    "fyi",
                    "ok",
                    "hi",
                    "hello",
                    "hey",
                    "thanks",
                    "oh",
                    "wait",
                    "just",
                    "yesterday",
                ],
            );
            // "I changed the shipping", "we extended the trial", "Dropped the returns off": the
            // customer's own doing, with its subject or without one; but a change word opening
            // a heading ("Updated return policy"), with no determiner or particle after it,
            // names the rule it changed.
            let own_doing = opener.first().is_some_and(|w| {
                matches!(*w, "i" | "we" | "i've" | "we've" | "i'd" | "i'm")
                    || CLAIMED_CHANGES.contains(w)
                        && (!matches!(*w, "updated" | "revised" | "amended")
                            || opener.get(1).is_none_or(|next| {
                                DETERMINERS_BEFORE.contains(next)
                                    || matches!(*next, "it" | "them" | "off" | "up" | "out" | "in")
                            }))
            });
            // "the delivery fee was increased on my last order", "my extended warranty": the
            // customer's own bill or cover, not the company's rule.
            let own_things = tokens
                .iter()
                .any(|w| matches!(*w, "my" | "our" | "me" | "mine"));
            if own_doing || own_things {
                return false;
            }
            let numbered = |k: usize| tokens.get(k).is_some_and(|w| numbered_word(w));
            let rule_at = |i: usize| claimed_rule_at(&tokens, i);
            // "According to the rep on the phone, gift wrap is free now": a source's words,
            // which reported_claim reads tied to their request.
            let passed_on = || {
                let offset = clause.as_ptr() as usize - sentence.as_ptr() as usize;
                words(&sentence[..offset])
                    .iter()
                    .any(|w| REPORTING.contains(w) || OTHER_ISSUERS.contains(w))
            };
            (granted_now(opener) || changed_it_so(opener)) && !passed_on()
                || (0..tokens.len()).filter(|&i| rule_at(i)).any(|i| {
                let before = &tokens[i.saturating_sub(3)..i];
                let after = &tokens[i + 1..tokens.len().min(i + 6)];
                // "they scrapped the fee", "the revised terms", "the new Plus terms"; not "the
                // extended warranty" nor "a new delivery window", which describe a thing, nor
                // "replaced under warranty", where the change is done to something else.
                let changed_before = before.iter().enumerate().any(|(k, w)| {
                    let newer = NEWER_EDITION.contains(w);
                    let described = k == 0 && i >= 4 && DETERMINERS_BEFORE.contains(&tokens[i - 4])
                        || k > 0 && DETERMINERS_BEFORE.contains(&before[k - 1]);
                    let through = before[k + 1..].iter().any(|b| PREPOSITIONS.contains(b));
                    // "the revised warranty", "the new warranty rule": a newer version of a
                    // rule, which a thing ("the extended warranty") is not.
                    // "the new warranty language": a text, which "a new fee on the invoice" is
                    // not.
                    let a_text = tokens
                        .get(i + 1)
                        .is_some_and(|n| matches!(*n, "language" | "wording" | "text"));
                    let text_named = matches!(tokens[i], "policy" | "policies" | "terms" | "rules")
                        || CLAIMED_RULES.contains(&tokens[i])
                            && (matches!(*w, "revised" | "updated" | "amended" | "newest")
                                || a_text);
                    !through && (CLAIMED_CHANGES.contains(w) && !described || newer && text_named)
                });
                // "no more restocking fees on cameras": a charge or a requirement said to be
                // gone, opening the statement; not the subject of a report ("no more fees were
                // mentioned at checkout"), nor "no more policy talk".
                let no_more = tokens
                    .iter()
                    .take(2)
                    .position(|w| *w == "no")
                    .is_some_and(|at| {
                        tokens.get(at + 1) == Some(&"more")
                            && (at + 2..=at + 4).contains(&i)
                            && matches!(
                                tokens[i],
                                "fee" | "fees" | "surcharge" | "requirement" | "threshold"
                            )
                            && tokens
                                .get(i + 1)
                                .is_none_or(|w| PREPOSITIONS.contains(w) || *w == "anymore")
                    });
                // "the fee was dropped", "the policy changed", "the window went up to 60 days",
                // "the policy update", "your policy is outdated", "us-v5 took effect".
                let phrase = |p: &[&str]| after.windows(p.len()).any(|w| w == p);
                // "your warranty is now 5 years", "the policy now says ...".
                // Not a state of the customer's own window or trial ("is now closed").
                const STATES: &[&str] = &[
                    "that", "closed", "over", "open", "expired", "gone", "past", "finished",
                    "ended",
                ];
                let now_reads = after.first() == Some(&"now")
                    && after.get(1).is_none_or(|w| !STATES.contains(w))
                    || matches!(after, ["is" | "are", "now"])
                    || matches!(after, ["is" | "are", "now", next, ..] if !STATES.contains(next));
                // "the waiting period went from 30 days to 7": a figure it left.
                let reach = &tokens[i + 1..tokens.len().min(i + 9)];
                let moved_from = (0..reach.len().saturating_sub(2)).any(|k| {
                    matches!(reach[k], "went" | "gone" | "moved" | "jumped" | "dropped")
                        && reach[k + 1] == "from"
                        && numbered_word(reach[k + 2])
                });
                // "the return window isn't 30 days anymore": a figure with its unit that it no
                // longer has; not an order number ("isn't showing on order 4411 anymore").
                let not_anymore = after
                    .first()
                    .is_some_and(|w| matches!(*w, "isn't" | "isnt" | "aren't" | "arent"))
                    && after.windows(2).any(|pair| {
                        numbered_word(pair[0])
                            && (pair[0].ends_with('%') || UNITS.contains(&pair[1]))
                    })
                    && reach.contains(&"anymore");
                // "accidental damage is now included in the standard warranty": "now" and the
                // inclusion, a preposition, then the rule within three words; not "now covered
                // in rust and the warranty ...", nor "the extended warranty I bought".
                let now_included = (0..i.saturating_sub(2)).any(|p| {
                    tokens[p] == "now"
                        && matches!(tokens[p + 1], "included" | "covered" | "part")
                        && matches!(tokens[p + 2], "in" | "by" | "under" | "into" | "of")
                        && i <= p + 5
                        && !tokens[p + 3..i]
                            .iter()
                            .any(|w| matches!(*w, "and" | "but" | "extended"))
                        && !tokens[i + 1..]
                            .iter()
                            .take(2)
                            .any(|w| matches!(*w, "i" | "we" | "you"))
                });
                let changed_after = now_reads
                    || moved_from
                    || not_anymore
                    || after.iter().take(4).any(|w| CLAIMED_CHANGES.contains(w))
                    || after
                        .first()
                        .is_some_and(|w| matches!(*w, "update" | "amendment" | "revision"))
                    || after.starts_with(&["no", "longer"])
                    || [
                        &["went", "up"][..],
                        &["went", "down"],
                        &["gone", "up"],
                        &["gone", "down"],
                        &["took", "effect"],
                        &["went", "live"],
                        &["is", "live"],
                        &["into", "effect"],
                        &["out", "of", "date"],
                    ]
                    .iter()
                    .any(|p| phrase(p));
                // "returns are 90 days now", "the fee is 2% since last summer": the figure, its
                // unit, then "now" or "since" a time; not "the fee is $4.99 and now I've been
                // charged $9.99", nor "30 days since delivery", which is how a rule is worded.
                let restated = after
                    .iter()
                    .position(|w| matches!(*w, "is" | "are"))
                    .is_some_and(|c| {
                        let start = i + 2 + c;
                        (start..tokens.len().min(start + 3))
                            .filter(|&f| numbered(f))
                            .any(|f| {
                                let tail = &tokens[f + 1..tokens.len().min(f + 4)];
                                tail.iter()
                                    .take_while(|w| !matches!(**w, "and" | "but"))
                                    .enumerate()
                                    .any(|(k, w)| {
                                        *w == "now"
                                            || *w == "since"
                                                && tail.get(k + 1).is_some_and(|t| {
                                                    *t == "last"
                                                        || MONTHS.contains(t)
                                                        || numbered_word(t)
                                                })
                                    })
                            })
                    });
                changed_before || no_more || now_included || changed_after || restated
            })
        });
    let announced = sentences
        .iter()
        .filter(|s| announces_a_change(s))
        .map(|&sentence| Claim {
            sentence,
            clause: sentence,
        });
    by_clause.chain(announced).collect()
}

/// Where money paid out goes: "put it back on my Visa".
const PAYMENT_MEANS: &[&str] = &[
    "card",
    "visa",
    "mastercard",
    "amex",
    "debit",
    "paypal",
    "account",
    "payment",
    "method",
    "credit",
];

/// What a claimed cover grants a kind of thing, in a word only a rule grants: "gift cards are
/// refundable ... now".
const RULE_STATES: &[&str] = &["refundable", "returnable", "exchangeable", "transferable"];

/// What a claimed cover grants, in a word a promotion or a product also grants ("shipping is
/// free through Sunday", "wall chargers are included"): a claim only of a rule's subject.
const COVER_STATES: &[&str] = &[
    "free", "covered", "included", "allowed", "accepted", "waived", "eligible",
];

/// What the company is said to grant now: "you guys cover return shipping on size exchanges".
const GRANTING_VERBS: &[&str] = &[
    "cover", "covers", "refund", "refunds", "accept", "accepts", "allow", "allows", "waive",
    "waives", "include", "includes",
];

/// A word naming what a policy rules on, not a way to pay ("you accept credit cards now") or a
/// price.
fn a_rules_subject(word: &str) -> bool {
    RULED.contains(&word)
        && !PAYMENT_MEANS.contains(&word)
        && !matches!(
            word,
            "price" | "balance" | "cash" | "free" | "coupon" | "coupons" | "voucher"
        )
}

/// A clause, closed by "now" or with "now" before what is granted, saying what a kind of thing
/// is granted or what the company grants: "gift cards are refundable to the original payment
/// method now", "returns are free now", "you guys now cover return shipping on size
/// exchanges". Not "right now" or "for now" (how things stand today), not one thing's state
/// ("the replacement is covered now", "scratched lamp is covered now"), not a figure ("you
/// refund the $40 now"), not a way to pay ("you accept apple pay now"), not a promotion or a
/// product ("standard shipping is now free through Sunday", "wall chargers are included now"),
/// not another business's ("Costco's gift cards"), not what a source said ([`reported_claim`]
/// reads that, tied to its request). `clause` is the clause's words after its softeners; the
/// customer's own things were ruled out before.
fn granted_now(clause: &[&str]) -> bool {
    let clause = clause.strip_suffix(&["too"]).unwrap_or(clause);
    let n = clause.len();
    let granted_word = |w: &str| RULE_STATES.contains(&w) || COVER_STATES.contains(&w);
    let closing = n >= 4 && clause[n - 1] == "now" && !NOW_IDIOMS_BEFORE.contains(&clause[n - 2]);
    let before = clause.windows(2).any(|pair| {
        pair[0] == "now" && (GRANTING_VERBS.contains(&pair[1]) || granted_word(pair[1]))
    });
    if !(closing || before)
        || clause.iter().any(|w| {
            REPORTING.contains(w)
                || numbered_word(w)
                || OTHER_ISSUERS.contains(w)
                || w.ends_with("'s") && *w != "it's"
        })
    {
        return false;
    }
    let said: Vec<&str> = clause.iter().copied().filter(|w| *w != "now").collect();
    // "you guys cover return shipping ...", "your store accepts returns ...": what is granted
    // is something a policy rules on.
    let granted = match said.as_slice() {
        ["you" | "u" | "y'all" | "northwind", "guys" | "all", verb, rest @ ..]
        | ["your" | "the", "store" | "stores" | "company" | "site" | "website", verb, rest @ ..]
        | ["you" | "u" | "y'all" | "northwind", verb, rest @ ..] => {
            GRANTING_VERBS.contains(verb) && rest.iter().take(4).any(|w| a_rules_subject(w))
        }
        _ => false,
    };
    // "gift cards are refundable ...": a kind of thing as the subject, two or three words
    // without a determiner and ending in a plural, or one plural word a policy rules on
    // ("returns are free now"); a cover word needs a rule's subject near it.
    let kind_granted = said
        .iter()
        .position(|w| matches!(*w, "is" | "are"))
        .is_some_and(|copula| {
            let subject = &said[..copula];
            let plural = subject.last().is_some_and(|w| w.ends_with('s'));
            let shaped = (2..=3).contains(&subject.len()) && plural
                || subject.len() == 1 && plural && RULED.contains(&subject[0]);
            let determined = subject.iter().any(|w| {
                DETERMINERS_BEFORE.contains(w)
                    || matches!(
                        *w,
                        "it" | "this" | "they" | "these" | "those" | "both" | "them" | "one"
                    )
            });
            let state = after_softeners(&said[copula + 1..], &["also", "fully", "all", "totally"]);
            let ruled = || {
                subject.iter().any(|w| a_rules_subject(w))
                    || state.iter().skip(1).take(3).any(|w| a_rules_subject(w))
            };
            shaped
                && !determined
                && state
                    .first()
                    .is_some_and(|w| RULE_STATES.contains(w) || COVER_STATES.contains(w) && ruled())
        });
    granted || kind_granted
}

/// "they changed it so opened stuff can come back", "you updated it so that ...": the company
/// said to have changed how things are, in the clause that says how.
fn changed_it_so(clause: &[&str]) -> bool {
    let rest = match clause {
        ["you" | "u" | "y'all" | "they" | "northwind", "guys" | "all", rest @ ..]
        | ["you" | "u" | "y'all" | "they" | "northwind" | "they've" | "you've", rest @ ..] => rest,
        _ => return false,
    };
    let how = match rest {
        [verb, "it" | "things" | "this", "so", "that", how @ ..]
        | [verb, "it" | "things" | "this", "so", how @ ..]
            if matches!(*verb, "changed" | "updated" | "revised" | "amended") =>
        {
            how
        }
        _ => return false,
    };
    // What the change lets a kind of thing do ("opened stuff can come back", "price
    // adjustments apply for 30 days"); not "so it works now", "so I can log in", "so the
    // discount code works", nor what it takes away ("so sale items can't be returned"), nor a
    // figure ("so the price is $89 now").
    let kind = how.first().is_some_and(|w| {
        !DETERMINERS_BEFORE.contains(w)
            && !numbered_word(w)
            && !matches!(
                *w,
                "it" | "it's" | "its" | "i" | "i'm" | "im" | "we" | "you" | "our" | "there"
            )
    });
    let taken_away = how.iter().any(|w| {
        matches!(
            *w,
            "can't"
                | "cant"
                | "cannot"
                | "not"
                | "no"
                | "only"
                | "need"
                | "must"
                | "won't"
                | "aren't"
                | "isn't"
                | "never"
        )
    });
    let granted = how.iter().take(6).any(|w| {
        matches!(
            *w,
            "can" | "are" | "is" | "get" | "gets" | "apply" | "applies" | "count" | "counts"
        ) || RULED.contains(w)
    });
    kind && granted && !taken_away
}

/// A statement the customer does not vouch for: "I think the window was extended", "maybe the
/// fee was dropped".
fn hedged(sentence: &str) -> bool {
    let tokens = words(sentence);
    tokens
        .windows(2)
        .any(|w| matches!(w, ["i", "think"] | ["not", "sure"] | ["may", "have"]))
        || tokens
            .iter()
            .any(|w| matches!(*w, "maybe" | "perhaps" | "might"))
        // "which I doubt", not "no doubt about it".
        || tokens
            .iter()
            .enumerate()
            .any(|(k, w)| *w == "doubt" && (k == 0 || tokens[k - 1] != "no"))
}

/// Verbs that pass on what a source said, wrote or showed: "a friend texted me that ...", "I
/// heard ...", "a moderator posted that ...".
const REPORTING: &[&str] = &[
    "said",
    "says",
    "say",
    "saying",
    "posted",
    "texted",
    "mentioned",
    "told",
    "wrote",
    "writes",
    "claimed",
    "claims",
    "heard",
    "read",
    "saw",
    "announced",
    "tweeted",
    "emailed",
    "forwarded",
    "shared",
    "showed",
    "stating",
    "states",
    "stated",
    "according",
];

/// Sources whose text a message passes on after a colon: "a pic of a memo from the break
/// room: ...", "I saw the newsroom post: ...".
const SOURCES: &[&str] = &[
    "memo",
    "letter",
    "email",
    "post",
    "notification",
    "newsletter",
    "notice",
    "tweet",
    "text",
    "message",
    "banner",
    "screenshot",
    "pic",
    "picture",
    "photo",
    "flyer",
    "thread",
    "video",
    "article",
    "blog",
    "faq",
];

/// Where "now" marks nothing changed: "right now", "just now", "until now", "now that".
const NOW_IDIOMS_BEFORE: &[&str] = &[
    "right", "just", "by", "until", "for", "to", "from", "of", "even",
];

/// A change passed on from a source, in the source's words: "a moderator posted that it's 60
/// days now", "I heard expedited shipping refunds are automatic now", "a supervisor said the
/// company lengthened the hold to 30 days", "a memo from the break room: Marketplace items now
/// fall under the 60-day return policy". What the source said is read apart from who passed it
/// on, so "I heard" or "texted me" does not make it the customer's own account (and inside
/// quotes "we" and "our" are the writer's); it must name what a policy rules on or a rule
/// (not only a price, which a product has) and mark a change: "now", or a change verb that does not
/// describe a thing ("the extended warranty"). Read only for a request premised on it: a
/// customer who passes on a rumour and asks what applies is answered.
fn reported_claim(text: &str) -> Option<ReportedClaim<'_>> {
    statements(text)
        .filter(|sentence| !hedged(sentence))
        .find_map(|sentence| {
            // Whether the next pieces of the sentence are still the source's words: after a
            // colon, after "according to ...," and inside quotes; not after a comma ("the rep
            // said it takes 5 days, and now it's been 12").
            let mut carried = false;
            let mut quoted = false;
            for piece in sentence.split_inclusive(CLAUSE_ENDS) {
                let tokens = words(piece);
                let reporting = tokens.iter().rposition(|w| REPORTING.contains(w));
                // "my bank told me they no longer charge ...": another business's rules.
                let elsewhere = |at: usize| {
                    tokens[..at].iter().any(|w| OTHER_ISSUERS.contains(w))
                        && !tokens[at..]
                            .iter()
                            .any(|w| matches!(*w, "northwind" | "you" | "your" | "u"))
                };
                let content: &[&str] = match reporting {
                    Some(at) if elsewhere(at) => {
                        carried = false;
                        &[]
                    }
                    // "the help article now says ...": what it says is the change; not what
                    // one's own page or tracking now says ("my order page now says ...").
                    Some(at) if at > 0 && tokens[at - 1] == "now" => {
                        carried = piece.ends_with(':');
                        let content = &tokens[at + 1..];
                        let record = tokens[..at].iter().any(|w| {
                            own_account(w)
                                || matches!(
                                    *w,
                                    "tracking" | "order" | "account" | "invoice" | "statement"
                                )
                        });
                        if !record && content.len() >= 3 && reports_a_change(content, false, true) {
                            return Some(ReportedClaim {
                                piece,
                                said: content.to_vec(),
                            });
                        }
                        content
                    }
                    Some(at) => {
                        carried = piece.ends_with(':') || tokens[at] == "according";
                        // "told my wife that ...": what was said follows "that".
                        let said = &tokens[at + 1..];
                        let said = match said.iter().take(4).position(|w| *w == "that") {
                            Some(that) => &said[that + 1..],
                            None => after_softeners(said, &["me", "us", "to", "you"]),
                        };
                        // "... the fee for returns so pls refund the 7.99": what follows "so"
                        // is the customer's own request.
                        let end = (1..said.len())
                            .find(|&k| said[k] == "so" && said.get(k + 1) != Some(&"that"))
                            .unwrap_or(said.len());
                        &said[..end]
                    }
                    None if carried || quoted => &tokens,
                    None => {
                        carried =
                            piece.ends_with(':') && tokens.iter().any(|w| SOURCES.contains(w));
                        &[]
                    }
                };
                quoted |= (carried || reporting.is_some()) && piece.contains(['"', '“', '”']);
                if content.len() >= 3 && reports_a_change(content, quoted, false) {
                    return Some(ReportedClaim {
                        piece,
                        said: content.to_vec(),
                    });
                }
            }
            None
        })
}

/// Words that mark a change in what a source said, besides [`CLAIMED_CHANGES`] and "now": "the
/// fee was capped at 5%", "suspensions were revoked".
const REPORTED_CHANGES: &[&str] = &["capped", "revoked", "anymore"];

/// Who has rules of their own, besides the company, when they are the source: "my bank told me
/// they no longer charge a fee", "my employer said they no longer reimburse desks", "the seller
/// told me shipping now takes 10 days".
const OTHER_ISSUERS: &[&str] = &[
    "bank",
    "employer",
    "insurer",
    "insurance",
    "landlord",
    "school",
    "university",
    "college",
    "airline",
    "gym",
    "hospital",
    "council",
    "government",
    "issuer",
    "seller",
    "courier",
    "carrier",
    "manufacturer",
    "brand",
];

/// What follows "now" when it tells how one thing stands, not that a rule changed: "the refund
/// is now on its way", "my parcel is now at the depot".
const NOW_STANDS: &[&str] = &[
    "that",
    "closed",
    "over",
    "open",
    "expired",
    "gone",
    "past",
    "finished",
    "ended",
    "at",
    "in",
    "on",
    "with",
    "being",
    "delivered",
    "shipped",
    "processing",
    "pending",
    "available",
    "ready",
    "back",
    "here",
    "there",
    "out",
    "showing",
    "due",
    "late",
    "overdue",
    "it's",
    "its",
    "been",
];

/// Words a rule is named by, as the subject a source speaks of: "the return window", "the
/// restocking fee", "the hold period".
const RULE_HEADS: &[&str] = &[
    "policy",
    "policies",
    "window",
    "period",
    "deadline",
    "hold",
    "limit",
    "program",
    "programme",
    "plan",
    "membership",
    "returns",
    "refunds",
    "exchanges",
    "category",
    "categories",
];

/// Who changes the rules, as the subject a source speaks of: "the company lengthened the hold",
/// "the store got rid of the fee".
const RULE_MAKERS: &[&str] = &[
    "company",
    "store",
    "stores",
    "shop",
    "northwind",
    "corporate",
    "management",
    "team",
    "site",
    "website",
    "app",
    "business",
    "they",
    "you",
    "u",
    "y'all",
];

/// Whether a source's words begin with one particular thing ("the item is no longer
/// returnable", "your return is now at the depot", "the TV now has a $100 discount") rather
/// than a rule ("the return window", "the restocking fee"), a rule's maker ("the company") or a
/// kind of thing ("scuffed items", "gift cards"); or speak of a thing of one order ("the fee
/// was removed from the order").
fn about_one_thing(content: &[&str]) -> bool {
    const STOPS: &[&str] = &[
        "is", "are", "was", "were", "has", "have", "had", "now", "can", "will", "would", "no",
        "doesn't", "don't", "got", "gets", "takes", "to", "for", "of", "isn't", "aren't", "wasn't",
        "won't", "can't", "didn't",
    ];
    let determined = |w: &str| matches!(w, "the" | "your" | "this" | "that" | "his" | "her");
    let subject: Vec<&str> = content
        .iter()
        .copied()
        .take_while(|w| !STOPS.contains(w) && !CLAIMED_CHANGES.contains(w))
        .collect();
    let one_thing = subject.first().is_some_and(|w| determined(w))
        && !subject.iter().any(|w| {
            RULE_HEADS.contains(w) || CLAIMED_RULES.contains(w) || RULE_MAKERS.contains(w)
        });
    let of_one_order = content.windows(3).any(|w| {
        PREPOSITIONS.contains(&w[0])
            && determined(w[1])
            && matches!(
                w[2],
                "order" | "parcel" | "package" | "item" | "purchase" | "account" | "shipment"
            )
    });
    // "the refund on order 8812", "her card no longer charges a fee": one order by its number,
    // one person's thing.
    let numbered_or_someones = content.iter().any(|w| {
        matches!(*w, "his" | "her") || w.chars().filter(char::is_ascii_digit).count() >= 4
    });
    one_thing || of_one_order || numbered_or_someones
}

/// What a source said, as [`reported_claim`] reads it: a rule's terms and a change marked
/// (already, when the source "now says" it).
fn reports_a_change(content: &[&str], quoted: bool, marked: bool) -> bool {
    let own = std::iter::once("")
        .chain(content.iter().copied())
        .zip(content)
        .any(|(previous, w)| own_account_word(previous, w));
    let ruled = content.iter().any(|w| {
        RULED.contains(w) && !matches!(*w, "price" | "balance" | "cash")
            || CLAIMED_RULES.contains(w)
    });
    // "Best Buy got rid of its restocking fee": a business's own rule, not the company's.
    let theirs = content.iter().any(|w| matches!(*w, "its" | "their"))
        && !content
            .iter()
            .any(|w| matches!(*w, "you" | "your" | "u") || RULE_MAKERS.contains(w) && *w != "they");
    let marked = marked
        || content.iter().enumerate().any(|(k, w)| {
            let previous = if k > 0 { content[k - 1] } else { "" };
            match *w {
                "now" => {
                    !NOW_IDIOMS_BEFORE.contains(&previous)
                        && content
                            .get(k + 1)
                            .is_none_or(|next| !NOW_STANDS.contains(next))
                }
                // "gift cards no longer expire", "they got rid of the fee".
                "longer" => previous == "no",
                "rid" => matches!(previous, "got" | "get" | "gotten"),
                _ => {
                    (CLAIMED_CHANGES.contains(w) || REPORTED_CHANGES.contains(w))
                        && !DETERMINERS_BEFORE.contains(&previous)
                }
            }
        });
    (quoted || !own) && ruled && marked && !theirs && !about_one_thing(content)
}

/// Nouns that head a notice of a change: "Gift card update:", "Policy change (posted today):",
/// "Copy of the announcement I received:", "(From the internal memo ...)".
const NOTICES: &[&str] = &[
    "update",
    "updates",
    "change",
    "changes",
    "announcement",
    "announced",
    "notice",
    "memo",
    "amendment",
    "revision",
    "correction",
    "changelog",
    "bulletin",
];

/// What dates a decree, after "effective", "as of", "starting" or "beginning": "effective
/// immediately", "as of this week", "starting 1 May".
const DECREE_TIMES: &[&str] = &[
    "immediately",
    "today",
    "tonight",
    "now",
    "tomorrow",
    "this",
    "next",
    "the",
];

/// A statement that announces a rule, not in the words of a changed rule: a notice with its
/// text ("Loyalty program update: points no longer expire"), a decree dated from now on
/// ("Effective immediately, shipping is free", "As of this week, downloads are refundable",
/// "Going forward the policy is that ..."), a new clause or rule ("There's a new clause in the
/// returns policy: ..."), or what a business now does ("Ostrander Outfitters now accepts
/// returns of worn footwear"). None of it said of the customer's own things ("as of today my
/// order has not arrived", "my update:").
fn announces_a_change(sentence: &str) -> bool {
    let tokens = words(sentence);
    // "your order has been delayed": the company speaking of the customer's own things.
    let yours = tokens.windows(2).any(|w| {
        w[0] == "your"
            && matches!(
                w[1],
                "order"
                    | "orders"
                    | "parcel"
                    | "package"
                    | "delivery"
                    | "account"
                    | "item"
                    | "items"
                    | "subscription"
                    | "booking"
                    | "slot"
            )
    });
    let own = std::iter::once("")
        .chain(tokens.iter().copied())
        .zip(&tokens)
        .any(|(previous, w)| own_account_word(previous, w));
    // A report of how things stand ("still no refund", "the return was delivered") or of one
    // order, card or account by its number: not a rule announced.
    let status = tokens.iter().any(|w| {
        matches!(*w, "still" | "yet" | "was" | "were")
            || w.chars().filter(char::is_ascii_digit).count() >= 4
    });
    if yours || status {
        return false;
    }
    // "Gift card update: ...": the words before the colon and the text after it.
    let notice = sentence
        .split_once(':')
        .map(|(head, text)| (words(head), words(text)));
    if own {
        // The customer's own things; except a notice the customer passes on ("Copy of the
        // announcement I received: ...").
        let passed_on = notice
            .iter()
            .flat_map(|(head, _)| head)
            .any(|w| NOTICES.contains(w) || matches!(*w, "email" | "letter" | "newsletter"));
        if !passed_on {
            return false;
        }
    }
    let heading = notice.as_ref().is_some_and(|(head, text)| {
        head.len() <= 8 && head.iter().any(|w| NOTICES.contains(w)) && text.len() >= 3
    });
    let decree = sentence.split(CLAUSE_ENDS).any(|clause| {
        let tokens = words(clause);
        let opener = after_softeners(&tokens, &["and", "so", "fyi", "btw", "also", "but"]);
        let dated = |rest: &[&str]| {
            rest.first()
                .is_some_and(|w| DECREE_TIMES.contains(w) || MONTHS.contains(w) || numbered_word(w))
        };
        match opener {
            ["effective" | "starting" | "beginning", rest @ ..] => dated(rest),
            ["as", "of", rest @ ..] => dated(rest),
            ["from", "today" | "now", ..] | ["going", "forward", ..] => true,
            _ => false,
        }
    }) && tokens.len() >= 6;
    // "... per Tuesday's update", "Mapleridge Market announced that ...".
    let cited = (0..tokens.len()).any(|k| {
        matches!(tokens[k], "per" | "according")
            && tokens[k + 1..tokens.len().min(k + 4)]
                .iter()
                .any(|w| NOTICES.contains(w))
    }) || tokens.windows(2).any(|w| w == ["announced", "that"]);
    // "a new clause", "the new warranty rule".
    let new_rule = (0..tokens.len()).any(|k| {
        matches!(
            tokens[k],
            "new" | "newest" | "updated" | "revised" | "amended"
        ) && tokens[k + 1..tokens.len().min(k + 3)]
            .iter()
            .any(|n| matches!(*n, "clause" | "rule" | "rules"))
    });
    // "X now accepts returns", "gift cards can now be exchanged for cash".
    let now_does = tokens.windows(2).any(|pair| {
        pair[0] == "now"
            && matches!(
                pair[1],
                "accepts"
                    | "allows"
                    | "covers"
                    | "offers"
                    | "takes"
                    | "lets"
                    | "pays"
                    | "refunds"
                    | "includes"
                    | "honours"
                    | "honors"
                    | "guarantees"
                    | "reimburses"
            )
    }) || tokens
        .windows(3)
        .any(|w| matches!(w[0], "can" | "will") && w[1] == "now" && w[2] == "be");
    // What a policy rules on, which a notice of opening hours or a recall does not name.
    let ruled = tokens.iter().any(|w| RULED.contains(w));
    ruled && (new_rule || heading || decree || cited || now_does)
}

/// Words of what a policy rules on: a notice that names none ("closed for refurbishment",
/// "the app will be unavailable tonight") announces no rule.
const RULED: &[&str] = &[
    "return",
    "returns",
    "returned",
    "returnable",
    "refund",
    "refunds",
    "refunded",
    "refundable",
    "exchange",
    "exchanged",
    "exchanges",
    "fee",
    "fees",
    "free",
    "warranty",
    "guarantee",
    "guaranteed",
    "covered",
    "cover",
    "covers",
    "credit",
    "voucher",
    "reimburse",
    "reimbursed",
    "discount",
    "policy",
    "terms",
    "window",
    "charge",
    "charges",
    "eligible",
    "expire",
    "expires",
    "cash",
    "approve",
    "approved",
    "expired",
    "balance",
    "price",
    "match",
    "coupon",
    "coupons",
    "honor",
    "honour",
    "days",
];

/// Units a figure of a rule is given in ("30 days", "15 percent").
const UNITS: &[&str] = &[
    "day", "days", "week", "weeks", "month", "months", "year", "years", "hour", "hours", "percent",
    "dollars", "euros", "pounds",
];

/// Determiners before a word that describe the thing it names ("the extended warranty").
const DETERMINERS_BEFORE: &[&str] = &["the", "a", "an", "my", "your", "our", "this", "that"];

/// One of the company's rules named at `i`: a rule noun as a rule ("the return window", "the
/// restocking fee", "returns are ..."), "section 7.2", a policy version ("us-v5") or "your
/// docs"; not "the delivery window", "the billing period", "my returns", "the privacy policy",
/// "the warranty claim", "the returns portal", "the Echo v3".
fn claimed_rule_at(tokens: &[&str], i: usize) -> bool {
    let word = tokens[i];
    let previous = if i > 0 { tokens[i - 1] } else { "" };
    let next = tokens.get(i + 1).copied().unwrap_or("");
    let things = [
        "status", "claim", "claims", "card", "page", "portal", "form", "label", "button", "app",
    ];
    if things.contains(&next) {
        return false;
    }
    match word {
        "window" | "period" => matches!(
            previous,
            "return"
                | "returns"
                | "adjustment"
                | "trial"
                | "grace"
                | "waiting"
                | "holiday"
                | "refund"
                | "warranty"
                | "cancellation"
                | "exchange"
                | "goodwill"
        ),
        "returns" => matches!(next, "is" | "are" | "policy" | "window" | "period"),
        "policy" | "policies" => {
            !matches!(previous, "privacy" | "protection" | "insurance" | "cookie")
        }
        "section" | "clause" => tokens.get(i + 1).is_some_and(|w| numbered_word(w)),
        "docs" | "documents" | "documentation" => previous == "your",
        _ if names_a_version(word) => {
            previous.len() == 2 && previous.chars().all(|c| c.is_ascii_alphabetic())
        }
        _ => CLAIMED_RULES.contains(&word),
    }
}

fn numbered_word(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_digit())
}

/// Remedies a message can order done to its case: "refund the difference", "reinstate it".
/// Opening a clause, each is an order.
const REMEDIES: &[&str] = &[
    "refund",
    "reimburse",
    "credit",
    "process",
    "approve",
    "authorize",
    "authorise",
    "reinstate",
    "restore",
    "reverse",
    "waive",
    "override",
    "unlock",
    "recalc",
    "recalculate",
    "reopen",
    "start",
    "follow",
    "honour",
    "honor",
    "accept",
    "apply",
    "extend",
    "replace",
    "adjust",
    "cancel",
    "lift",
    "lower",
    "remove",
    "delete",
    "convert",
    "reactivate",
];

/// Remedies whose object must be a thing, not a person: "remove the fee", not "remove me
/// from the mailing list".
const THING_REMEDIES: &[&str] = &["lift", "lower", "remove", "delete", "convert", "reactivate"];

/// What makes a conclusion the one a claimed change would grant: "so I qualify", "so my
/// return is fine, right?", "tell me my refund is overdue".
const GRANTED: &[&str] = &[
    "qualify",
    "qualifies",
    "covered",
    "eligible",
    "fine",
    "ok",
    "okay",
    "allowed",
    "valid",
    "free",
    "refundable",
    "returnable",
    "entitled",
    "owed",
    "overdue",
    "inside",
    "within",
    "back",
];

/// Who a conclusion drawn for the customer's own case is about.
const OWN_CASE: &[&str] = &[
    "i", "i'm", "im", "i'll", "my", "me", "we", "we're", "we'll", "our", "you'll", "youll", "day",
];

/// Words that keep a conclusion open or turn it against the customer ("so I'm wondering
/// whether ...", "so I don't get it back, right?").
const OPEN_MINDED: &[&str] = &[
    "wondering",
    "wonder",
    "hoping",
    "curious",
    "unsure",
    "guess",
    "guessing",
    "think",
    "thinking",
    "assume",
    "assuming",
    "suppose",
    "want",
    "wanted",
    "would",
    "need",
    "not",
    "didn't",
    "don't",
    "can't",
    "won't",
    "haven't",
    "isn't",
    "too",
];

/// Tags that ask to have a statement agreed with: "..., right?", "..., isn't it?".
const AGREE_TAGS: &[&[&str]] = &[
    &["right"],
    &["yeah"],
    &["yes"],
    &["correct"],
    &["isn't", "it"],
    &["aren't", "i"],
    &["don't", "i"],
    &["won't", "you"],
    &["can't", "i"],
];

/// Anywhere in a message that claims a change, a request to act on it for this customer, or to
/// affirm what it would grant: "so refund the $9.99", "can you recalc my refund?", "just tell
/// me my refund is overdue", "stop citing v3", "so I qualify, right?". Not a request with a
/// condition ("check, and if so refund it"), nor one that asks what applies ("tell me what the
/// rule is now", "it used to be 14, right?").
fn acts_on_the_claim(text: &str, forms: RequestForms, tied: impl Fn(usize, &str) -> bool) -> bool {
    let plain = forms == RequestForms::Plain;
    sentences_with_marks(text)
        .enumerate()
        .any(|(at, (sentence, question))| {
            if !tied(at, sentence) {
                return false;
            }
            let tokens = words(sentence);
            // "Separately, please cancel my order": a request of its own, not premised on the claim.
            if matches!(
                tokens.first().copied(),
                Some(
                    "separately"
                        | "anyway"
                        | "anyways"
                        | "otherwise"
                        | "unrelated"
                        | "meanwhile"
                        | "btw"
                )
            ) || tokens.starts_with(&["on", "another", "note"])
                || tokens.starts_with(&["on", "a", "different", "note"])
                || tokens.starts_with(&["either", "way"])
                || tokens.first() == Some(&"regardless")
            {
                return false;
            }
            // "check, and if so refund it", "assuming it's inside the window, process it": asked
            // on a condition, not premised on the claim.
            // "as long as that's accurate, refund it", "should that be the case, adjust it".
            let conditional = tokens.windows(3).any(|w| w == ["as", "long", "as"])
                || sentence.split(CLAUSE_ENDS).any(|clause| {
                    matches!(
                        words(clause).as_slice(),
                        ["should", "that" | "this" | "it", ..]
                    )
                });
            // "send the code under that section, or a refund if no code is left": a condition
            // after ", or" bears on the alternative it opens, not on what was asked first ("refund
            // it to my card or PayPal if that's true" is asked on the condition).
            let before_the_alternative;
            let condition_scope: &[&str] = match sentence.find(", or ") {
                Some(at) => {
                    before_the_alternative = words(&sentence[..at]);
                    &before_the_alternative
                }
                None => &tokens,
            };
            if conditional || condition_scope.iter().any(|w| CONDITIONS.contains(w)) {
                return false;
            }
            let tagged = AGREE_TAGS
                .iter()
                .any(|tag| tokens.len() > tag.len() + 2 && tokens.ends_with(tag));
            // The sentence as a whole, then each clause after its first: "My card expired in
            // January — what's my new balance?", "So for my return, I'll get $10 back, correct?".
            // Not where the sentence is open-minded ("I'm not sure about this, I get $10 back,
            // right?").
            let clause_premised = || {
                !tokens.iter().any(|w| OPEN_MINDED.contains(w))
                    && sentence
                        .split(CLAUSE_ENDS)
                        .skip(1)
                        .any(|clause| premised_on_it(&words(clause), question, tagged))
            };
            if premised_on_it(&tokens, question, tagged)
                || clause_premised()
                || plain && asked_by_name(&tokens, question)
            {
                return true;
            }
            // Each clause, and the part after a "so" inside one ("... late because of snow so
            // refund the $9.99").
            sentence.split(CLAUSE_ENDS).any(|clause| {
                let tokens = words(clause);
                (0..tokens.len())
                    // "... and confirm I'm inside the window": a dictated line may follow "and".
                    // "cancel and give me the full refund": a second order joined to one.
                    .filter(|&i| {
                        i == 0
                            || tokens[i - 1] == "so"
                            || tokens[i - 1] == "and" && matches!(tokens[i], "tell" | "say")
                            || plain
                                && tokens[i - 1] == "and"
                                && (i == 1 || i >= 2 && REMEDIES.contains(&tokens[i - 2]))
                    })
                    .any(|i| {
                        let from_so =
                            i > 0 && tokens[i - 1] == "so" || tokens.first() == Some(&"so");
                        let part = after_softeners(
                            &tokens[i..],
                            &[
                                "please", "kindly", "just", "now", "so", "then", "ok", "okay",
                                "go", "ahead", "and",
                            ],
                        );
                        // "..., but I'd like the store credit added as well."
                        let part = if plain {
                            after_softeners(part, &["but"])
                        } else {
                            part
                        };
                        orders_a_remedy(part, forms)
                            || (from_so && concludes_for_own_case(part, question, tagged))
                    })
            })
        })
}

/// A remedy asked for by its name alone, closed with "please": "Return please.", "Shipping
/// refund + $20 credit please". Not a question, and short: a sentence that only ends politely
/// ("I returned it last week and still have no refund, please") tells a story.
fn asked_by_name(tokens: &[&str], question: bool) -> bool {
    let polite = |w: &&str| matches!(*w, "please" | "pls" | "asap" | "thanks" | "thx");
    // "Return please, no fee.": the remedy first, then "please".
    !question
        && tokens.len() <= 8
        && (tokens.last().is_some_and(polite)
            || tokens.first().is_some_and(|w| REMEDY_NOUNS.contains(w))
                && tokens.iter().any(polite))
        && !tokens
            .iter()
            .any(|w| matches!(*w, "i" | "i'm" | "we" | "it" | "is" | "was" | "still"))
        && tokens.iter().any(|w| REMEDY_NOUNS.contains(w))
        // "Refund received, thanks", "No refund needed, thanks"; not "Return please, no fee".
        && !tokens.iter().enumerate().any(|(k, w)| {
            matches!(*w, "received" | "got" | "need" | "needed" | "arrived" | "done")
                || matches!(*w, "no" | "not")
                    && tokens.get(k + 1).is_some_and(|next| REMEDY_NOUNS.contains(next))
        })
}

/// What a message calls the claimed text when it reasons from it: "under the new policy",
/// "given that notice", "according to the update".
const CLAIMED_TEXTS: &[&str] = &[
    "new",
    "newest",
    "updated",
    "revised",
    "refreshed",
    "amended",
    "clause",
    "notice",
    "update",
    "change",
    "announcement",
    "memo",
];

/// Verbs of getting something for one's own case: "how much do I get back", "when will I
/// receive it", "how do I claim my $50".
const GETTING: &[&str] = &[
    "get", "receive", "claim", "collect", "redeem", "cash", "transfer", "owed", "owe",
];

/// A sentence that reasons from the claim for the customer's case, beyond an order or a
/// conclusion put with "so": it names the claim as its premise ("given that, can I return
/// it?", "under this clause I'm within the window", "since it's covered, walk me through
/// it"), asks what the customer gets by it ("how much do I get back then?", "what's my new
/// balance?", "what's the next step?"), asks for the steps ("tell me how to cash it out") or
/// the confirmation of a gain ("confirm I'll get the $220", "that's covered, correct?"). Not
/// a question of what applies or whether the claim is true ("does that include coffee
/// beans?", "is that still the rule?", "when did it become 15%?").
fn premised_on_it(tokens: &[&str], question: bool, tagged: bool) -> bool {
    let pair = |k: usize, firsts: &[&str], seconds: &[&str]| {
        firsts.contains(&tokens[k]) && tokens.get(k + 1).is_some_and(|w| seconds.contains(w))
    };
    let claimed_text_within = |k: usize, n: usize| {
        tokens[k..tokens.len().min(k + n)]
            .iter()
            .any(|w| CLAIMED_TEXTS.contains(w))
    };
    let granted_within = |k: usize| {
        tokens[k..tokens.len().min(k + 4)]
            .iter()
            .any(|w| GRANTED.contains(w))
    };
    let premise = (0..tokens.len()).any(|k| {
        pair(k, &["given"], &["that", "this", "these"])
            || pair(
                k,
                &["given", "under", "per", "with"],
                &["the", "this", "that"],
            ) && claimed_text_within(k + 2, 2)
            || pair(k, &["under"], &["this", "that"])
                && tokens
                    .get(k + 2)
                    .is_none_or(|w| !w.chars().all(char::is_alphabetic))
            || pair(k, &["based"], &["on"]) && claimed_text_within(k + 2, 3)
            || pair(k, &["based"], &["on"])
                && tokens
                    .get(k + 2)
                    .is_some_and(|w| matches!(*w, "that" | "this"))
            || pair(k, &["in"], &["light"])
            || pair(k, &["according"], &["to"]) && claimed_text_within(k + 2, 3)
            || pair(k, &["since"], &["it's", "that's", "they're"]) && granted_within(k + 2)
    });
    let own = tokens
        .iter()
        .any(|w| matches!(*w, "i" | "i'll" | "i'm" | "my" | "me"));
    let asking = matches!(
        tokens.first().copied(),
        Some("how" | "what" | "what's" | "whats" | "when" | "where" | "which")
    );
    // "how much do I get back on a $60 return?", "what's my new balance?".
    let getting = tokens.iter().any(|w| GETTING.contains(w));
    // "can I get that back?": the customer's gain asked for, not what applies.
    // "back" closes what is got: not "can I get a call back", "get back into my account".
    let got_back = (0..tokens.len()).any(|k| {
        matches!(tokens[k..], ["can" | "could" | "will", "i", "get", ..]) && {
            let object = &tokens[k + 3..tokens.len().min(k + 8)];
            object.iter().position(|w| *w == "back").is_some_and(|b| {
                b > 0
                    && !object[..b]
                        .iter()
                        .any(|w| matches!(*w, "call" | "in" | "into" | "to" | "on" | "touch"))
            })
        }
    });
    // "which policy applies to me, and what would I get back?" asks what applies.
    let applies = tokens.iter().any(|w| matches!(*w, "apply" | "applies"));
    let gain = question
        && !applies
        && (got_back || asking)
        && (own && getting
            || tokens.windows(2).any(|w| w == ["my", "new"])
            || getting
                && tokens
                    .windows(2)
                    .any(|w| w[0] == "next" && matches!(w[1], "step" | "steps")));
    let order = after_softeners(
        tokens,
        &["please", "kindly", "just", "so", "ok", "okay", "now"],
    );
    let steps = matches!(
        order,
        ["tell" | "show", "me", "how", ..]
            | ["give", "me", "the", "steps", ..]
            | ["walk", "me", "through", ..]
            | ["explain", "how", ..]
    );
    // "confirm I'll get the $220", "cite the clause and confirm I'm inside the window": an
    // order opening the sentence or joined to one.
    let confirm = (0..order.len()).any(|k| {
        order[k] == "confirm"
            && (k == 0 || matches!(order[k - 1], "and" | "please" | "just"))
            && order.get(k + 1).is_some_and(|w| {
                !matches!(*w, "whether" | "if" | "what" | "which" | "how" | "when")
            })
            // What is confirmed is a gain: "I'll get", "back in my account", "$220".
            && order[k + 1..]
                .iter()
                .any(|w| {
                    GETTING.contains(w)
                        || GRANTED.contains(w)
                        || numbered_word(w)
                        || matches!(*w, "refund" | "refunds" | "approved" | "applied" | "can")
                })
    });
    // "that's covered under the new policy, correct?", "that's allowed now, yes?", "I'll get
    // return shipping plus $10, correct?": a gain (an amount, money back, a refund or credit);
    // not "I'll get charged the fee, right?", "I'll get a smaller refund now, right?".
    let gets = match tokens {
        ["i" | "i'll" | "we" | "we'll", "get" | "receive" | "collect", object @ ..] => {
            let object = &object[..object.len().min(4)];
            object.iter().any(|w| {
                numbered_word(w)
                    || matches!(*w, "back" | "refund" | "credit" | "money" | "reimbursed")
            }) && !object.iter().any(|w| {
                matches!(
                    *w,
                    "charged"
                        | "billed"
                        | "fined"
                        | "nothing"
                        | "less"
                        | "smaller"
                        | "lower"
                        | "only"
                        | "partial"
                        | "reduced"
                )
            })
        }
        _ => false,
    };
    // "back" as sent back is no gain ("I send it back in the original box, right?").
    let granted = tokens.iter().enumerate().any(|(k, w)| {
        (GRANTED.contains(w) || *w == "good")
            && !(*w == "back"
                && tokens[k.saturating_sub(2)..k].iter().any(|b| {
                    matches!(
                        *b,
                        "send" | "post" | "bring" | "drop" | "ship" | "mail" | "take" | "return"
                    )
                }))
    });
    let agreed = question
        && tagged
        && tokens
            .first()
            .is_some_and(|w| OWN_CASE.contains(w) || matches!(*w, "that's" | "it's" | "thats"))
        && (gets || granted)
        && !tokens.iter().any(|w| OPEN_MINDED.contains(w));
    // A premise reasons towards a question or a request, not a report ("per the recall
    // notice, the kettle is being recalled").
    let requested = question
        || tokens.iter().any(|w| {
            REMEDIES.contains(w)
                || matches!(
                    *w,
                    "confirm"
                        | "walk"
                        | "tell"
                        | "give"
                        | "send"
                        | "show"
                        | "explain"
                        | "answer"
                        | "respond"
                        | "reply"
                )
        });
    premise && requested || gain || steps || confirm || agreed
}

/// A clause that orders a remedy, dictates what the change grants, refuses the text in force,
/// or obliges the assistant to answer from the claim.
fn orders_a_remedy(part: &[&str], forms: RequestForms) -> bool {
    let plain = forms == RequestForms::Plain;
    let at = |k: usize| part.get(k).copied().unwrap_or("");
    let after = |k: usize| part.get(k..).unwrap_or(&[]);
    // "refund the difference", "reinstate it"; not "credit card refunds are ...".
    let object = |w: &str| {
        matches!(
            w,
            "the"
                | "a"
                | "an"
                | "my"
                | "our"
                | "mine"
                | "it"
                | "me"
                | "us"
                | "them"
                | "this"
                | "that"
                | "these"
                | "those"
                | "all"
                | "everything"
        )
    };
    // "take my rug back", "take it back".
    let taken_back = |part: &[&str]| {
        part.first() == Some(&"take") && part.iter().skip(1).take(4).any(|w| *w == "back")
    };
    // "keep my authorization open", "keep the upgrade free"; not "keep me posted".
    let kept = |part: &[&str]| {
        part.first() == Some(&"keep")
            && part
                .get(1)
                .is_some_and(|w| !matches!(*w, "me" | "us" | "it"))
            && part.iter().skip(2).take(4).any(|w| {
                matches!(
                    *w,
                    "open" | "active" | "free" | "valid" | "running" | "alive"
                )
            })
    };
    // "push it through", "push the refund through".
    let pushed_through = |part: &[&str]| {
        part.first() == Some(&"push") && part.iter().skip(1).take(4).any(|w| *w == "through")
    };
    // "give me the full refund", "send us the credit".
    let given = |part: &[&str]| {
        matches!(part, ["give" | "send", "me" | "us", ..])
            && part
                .iter()
                .skip(2)
                .take(4)
                .any(|w| REMEDY_NOUNS.contains(w))
    };
    // "cash it out to my checking account", "put it back on my Visa": money paid out to the
    // customer; not "put it back in the box", "put me back on the waitlist".
    let paid_out = |part: &[&str]| match part {
        ["cash", "out", what, ..] => object(what),
        ["cash", what, rest @ ..] => object(what) && rest.iter().take(3).any(|w| *w == "out"),
        ["put", what, rest @ ..] if object(what) && !matches!(*what, "me" | "us") => rest
            .iter()
            .take(5)
            .position(|w| *w == "back")
            .is_some_and(|b| {
                rest.get(b + 1)
                    .is_some_and(|w| matches!(*w, "on" | "onto" | "to" | "in" | "into"))
                    && rest[b + 2..]
                        .iter()
                        .take(3)
                        .any(|w| PAYMENT_MEANS.contains(w))
            }),
        _ => false,
    };
    // "book me a free repair", "email me a free one": a thing given free of charge, which is
    // what a claimed cover would grant.
    let given_free = |part: &[&str]| {
        matches!(
            part,
            [
                "book"
                    | "send"
                    | "email"
                    | "mail"
                    | "ship"
                    | "give"
                    | "get"
                    | "issue"
                    | "print"
                    | "arrange"
                    | "schedule"
                    | "overnight",
                "me" | "us",
                "a" | "an" | "the" | "another",
                ..
            ]
        ) && part.iter().skip(3).take(2).any(|w| *w == "free")
    };
    let remedy = |part: &[&str]| {
        let verb = part.first().copied().unwrap_or("");
        let next = part.get(1).copied().unwrap_or("");
        // "refund to my Visa": the remedy with where it goes.
        let destination = next == "to"
            && matches!(
                part.get(2).copied(),
                Some("my" | "the" | "original" | "our")
            );
        // "match it": a price match, and after pasted material "match the price"; not "match
        // the refund to order 5521".
        let matched = verb == "match"
            && matches!(next, "it" | "that" | "this" | "them" | "their")
            && !matches!(part.get(2).copied(), Some("to" | "with"));
        matched
            || (REMEDIES.contains(&verb) || plain && verb == "match")
                && (object(next) || plain && destination)
                && !(THING_REMEDIES.contains(&verb) && matches!(next, "me" | "us"))
            || taken_back(part)
            || kept(part)
            || paid_out(part)
            || plain && (pushed_through(part) || given(part) || announces_own_remedy(part))
    };
    // "don't charge me the fee", "do not give me a partial refund", "don't take anything off":
    // the charge refused; not "don't take this the wrong way".
    // "don't you dare reject it", "don't refuse it": a refusal forbidden, which orders the
    // request granted; not "don't reject the return when it arrives, the box is crushed".
    let refusal = |verb: &str| matches!(verb, "refuse" | "deny" | "reject" | "decline");
    let refused = match part {
        ["don't" | "dont", "you" | "u", "dare", verb, next, ..]
        | ["don't" | "dont", "you" | "u", verb, next, ..]
            if refusal(verb) && object(next) =>
        {
            true
        }
        ["don't" | "dont", verb, next, ..] | ["do", "not", verb, next, ..]
            if refusal(verb) && matches!(*next, "it" | "this" | "that" | "them") =>
        {
            true
        }
        ["don't" | "dont", verb, rest @ ..] | ["do", "not", verb, rest @ ..] => {
            matches!(
                *verb,
                "charge" | "deduct" | "knock" | "bill" | "apply" | "give"
            ) || *verb == "take" && rest.iter().take(4).any(|w| *w == "off")
        }
        _ => false,
    };
    // "I'd like you to accept the return", "I request that you reinstate my balance", "I want
    // my $15 back".
    let wanted = WANTED_OF_YOU.iter().any(|frame| {
        part.starts_with(frame)
            && remedy(after_softeners(
                &part[frame.len()..],
                &["please", "kindly", "just", "now", "go", "ahead", "and"],
            ))
    }) || matches!(part, ["i", "want" | "need", "my" | "the" | "that" | "it", ..])
        // "I want my $15 back".
        && part.iter().skip(3).take(4).any(|w| *w == "back")
        // "I'd like my remaining $38.50 cashed out", "I'd like the refund option", "I want the
        // fee waived".
        // After a claim made in chat only a demand counts ("I expect a full refund", "I want
        // the other 8 months refunded"); a wish or a need ("I'd like that refund", "I need a
        // return label") may ask what applies.
        || WANTING.iter().any(|frame| {
            (plain || matches!(frame, ["i", "expect" | "want"]))
                && part.starts_with(frame)
                && (part.get(frame.len()).is_some_and(|w| {
                    matches!(*w, "my" | "the" | "a" | "an" | "this" | "that" | "it" | "them")
                })
                // "I'd like to send it back", "I want to exchange my dress".
                || part.get(frame.len()) == Some(&"to")
                    && part.get(frame.len() + 1).is_some_and(|w| {
                        REMEDIES.contains(w) || CUSTOMERS_REMEDIES.contains(w)
                    }))
                && part[frame.len()..].iter().take(6).any(|w| {
                    // "I'd like to send my tv back", put plainly; not "I'd like a call back".
                    REMEDY_NOUNS.contains(w)
                        || DONE_REMEDIES.contains(w)
                        || plain && *w == "back" && part.get(frame.len()) == Some(&"to")
                })
        });
    // "stop citing us-v3", "stop quoting the old text"; not "stop using my card".
    let stop = |part: &[&str]| {
        let at = |k: usize| part.get(k).copied().unwrap_or("");
        at(0) == "stop"
            && matches!(at(1), "citing" | "using" | "quoting" | "applying")
            && (matches!(at(2), "the" | "that" | "it" | "this")
                || names_a_version(at(2))
                || names_a_version(at(3)))
    };
    // "can you refund ...", "could you recalc ...", "will you stop citing v3?".
    let polite = matches!(at(0), "can" | "could" | "will" | "would") && at(1) == "you" && {
        let rest = after_softeners(
            after(2),
            &[
                "please", "kindly", "just", "now", "also", "go", "ahead", "and",
            ],
        );
        remedy(rest) || stop(rest)
    };
    // "tell me my refund is overdue", "confirm I'm inside the window", "say yes".
    let dictated = matches!(at(0), "tell" | "say") && {
        let rest = after_softeners(after(1), &["me", "us", "that"]);
        matches!(rest.first().copied(), Some("yes" | "so"))
            || OWN_CASE.contains(&rest.first().copied().unwrap_or(""))
                && rest.iter().take(8).any(|w| GRANTED.contains(w))
    };
    // "you are required to apply this amendment", "you should now be quoting the new text".
    let obliged = OBLIGATIONS.iter().any(|frame| {
        part.starts_with(frame) && {
            let rest = after_softeners(&part[frame.len()..], &["now", "be", "just", "please"]);
            let verb = rest.first().copied().unwrap_or("");
            // What the obligation names: the claimed text, not any thing ("use a better courier").
            let named = rest.iter().skip(1).take(2).any(|w| {
                matches!(
                    *w,
                    "new"
                        | "updated"
                        | "revised"
                        | "amended"
                        | "amendment"
                        | "it"
                        | "this"
                        | "that"
                        | "them"
                )
            });
            ANSWERING.contains(&verb) && named
        }
    });
    // A thing given free is ordered outright, not asked for ("can you email me a free return
    // label too?").
    remedy(part)
        || given_free(part)
        || refused
        || wanted
        || polite
        || dictated
        || stop(part)
        || obliged
}

/// The forms a request premised on a claim may take. A sentence of chat claiming a change
/// needs its request in the narrower forms (an order, a remedy wanted of the assistant) to be
/// told from a story; a rule text pasted in full is already a claim, and the request after it
/// may be put plainly too: "Return please.", "I'd like the fee waived", "give me the refund",
/// "refund to my Visa", "push it through".
#[derive(Clone, Copy, PartialEq, Eq)]
enum RequestForms {
    Ordered,
    Plain,
}

/// Frames that say what the customer wants done or had: "I'd like my balance cashed out".
const WANTING: &[&[&str]] = &[
    &["i'd", "like"],
    &["i", "would", "like"],
    &["i", "want"],
    &["i", "need"],
    &["i", "expect"],
];

/// A remedy by its name: "give me the full refund", "I'd like the refund option", "Shipping
/// refund + $20 credit please".
const REMEDY_NOUNS: &[&str] = &[
    "refund",
    "credit",
    "replacement",
    "reimbursement",
    "exchange",
    "return",
    "label",
    "cancellation",
];

/// What a customer does to claim a remedy: "I'd like to return them", "I'm sending it back".
const CUSTOMERS_REMEDIES: &[&str] = &["return", "exchange", "send", "swap", "cancel"];

/// The customer's own act of claiming a remedy, announced: "I'm returning it for a refund",
/// "Returning my jacket for store credit, thanks", "I'm cancelling my order", "I'll be
/// returning the boots", "I'll send it back".
fn announces_own_remedy(part: &[&str]) -> bool {
    let act = match part {
        ["i'm" | "im", act, ..]
        | ["i", "am", act, ..]
        | ["i'll", "be", act, ..]
        | ["i", "will", "be", act, ..] => act,
        // "I'll send it back", "I will return my boots for a refund".
        // Not "I'll send the photos for you to review".
        ["i'll", act, ..] | ["i", "will", act, ..] if CUSTOMERS_REMEDIES.contains(act) => {
            let at = part.iter().position(|w| w == act).unwrap_or(0);
            return object_taken_back(part, at)
                && part[at + 1..]
                    .iter()
                    .take(6)
                    .any(|w| *w == "back" || REMEDY_NOUNS.contains(w));
        }
        [act, ..] => act,
        [] => return false,
    };
    let at = part.iter().position(|w| w == act).unwrap_or(0);
    let object = object_taken_back(part, at)
        || matches!(
            *act,
            "returning" | "exchanging" | "cancelling" | "canceling"
        ) && matches!(
            part.get(at + 1).copied(),
            Some("my" | "it" | "them" | "this" | "these")
        );
    matches!(
        *act,
        "returning" | "exchanging" | "cancelling" | "canceling" | "sending" | "swapping"
    ) && object
}

/// Whether the act at `at` of `part` has the customer's thing as its object and sends it back
/// or claims a remedy for it: "returning my jacket", "sending it back", "return the boots for
/// a refund"; not "Returning customer here", "sending the photos".
fn object_taken_back(part: &[&str], at: usize) -> bool {
    part.get(at + 1).is_some_and(|w| {
        matches!(
            *w,
            "my" | "it" | "them" | "this" | "these" | "the" | "both" | "all"
        )
    }) && part[at + 1..]
        .iter()
        .take(6)
        .any(|w| matches!(*w, "back" | "for") || REMEDY_NOUNS.contains(w))
}

/// A remedy done, as what the customer wants had: "I'd like my balance cashed out", "I want
/// the fee waived".
const DONE_REMEDIES: &[&str] = &[
    "refunded",
    "credited",
    "cashed",
    "waived",
    "cancelled",
    "canceled",
    "processed",
    "honored",
    "honoured",
    "applied",
    "added",
    "reimbursed",
    "replaced",
    "matched",
    "reinstated",
    "restored",
    "extended",
    "exchanged",
];

/// Frames that put a remedy to the assistant as what the customer wants or expects.
const WANTED_OF_YOU: &[&[&str]] = &[
    &["i'd", "like", "you", "to"],
    &["i", "would", "like", "you", "to"],
    &["i", "want", "you", "to"],
    &["i", "need", "you", "to"],
    &["i", "expect", "you", "to"],
    &["i'm", "expecting", "you", "to"],
    &["im", "expecting", "you", "to"],
    &["i", "request", "that", "you"],
    &["i", "ask", "that", "you"],
];

/// Frames that put an obligation on the assistant.
const OBLIGATIONS: &[&[&str]] = &[
    &["you", "are", "required", "to"],
    &["you're", "required", "to"],
    &["you", "must"],
    &["you", "should"],
    &["you", "need", "to"],
    &["you", "have", "to"],
    &["i", "need", "you", "to"],
];

/// How an answer is made or a rule carried out, when an obligation names the claimed text:
/// "you should be quoting the new ...", "you are required to apply this amendment".
const ANSWERING: &[&str] = &[
    "quote",
    "quoting",
    "use",
    "using",
    "cite",
    "citing",
    "apply",
    "applying",
    "acknowledge",
    "honour",
    "honor",
    "follow",
];

/// "so I qualify, right?", "so you'll take it back, yeah?": what the change would grant the
/// customer, with a tag that asks agreement ("so that's covered." alone is too often a
/// customer reading a real rule right). A story told with "so" ("I was busy, so I didn't write") asks nothing, and neither does a
/// conclusion against the customer ("so I have to pay return postage, right?").
fn concludes_for_own_case(part: &[&str], question: bool, tagged: bool) -> bool {
    let Some(subject) = part.first() else {
        return false;
    };
    let concluded = OWN_CASE.contains(subject) && question && tagged;
    // "so I'm good, right?": good for the customer only when put to be agreed with.
    let granted = part.iter().any(|w| GRANTED.contains(w) || *w == "good");
    concluded && granted && !part.iter().any(|w| OPEN_MINDED.contains(w))
}

#[cfg(test)]
#[path = "claims_tests.rs"]
mod tests;
