//! The deterministic extractive generator: answers with the sentences of a retrieved clause
//! that answer the question, quoted verbatim, followed by the clause's citation tag. It never
//! writes a fact of its own, so everything it says is grounded by construction.

use crate::citation::citation_tag;
use crate::evidence::RetrievedClause;
use crate::expansion::QueryExpansion;
use crate::text::{
    asked_quantities, numeric_facts, split_sentences, stated_quantities, QuantityKinds,
};

/// Sentences quoted from one clause.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    pub clause_id: String,
    pub sentences: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Extract {
    pub quotes: Vec<Quote>,
}

impl Extract {
    /// Each quote followed by its own citation tag.
    pub fn answer_text(&self) -> String {
        self.quotes
            .iter()
            .map(|q| format!("{} {}", q.sentences.join(" "), citation_tag(&q.clause_id)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    pub fn cited(&self) -> Vec<&str> {
        self.quotes.iter().map(|q| q.clause_id.as_str()).collect()
    }
}

/// A clause this short is quoted whole: its sentences lean on each other ("Annual members
/// receive a reminder..." after "Your membership renews..."), and cutting it saves nothing.
const SHORT_CLAUSE_SENTENCES: usize = 3;
const SHORT_CLAUSE_WORDS: usize = 70;
/// At most this many sentences are quoted from a longer clause.
const MAX_QUOTED_SENTENCES: usize = 3;
/// Sentence openings that lean on the sentence before ("This period...", "Such goods...").
const ANAPHORA: &[&str] = &[
    "this",
    "that",
    "these",
    "those",
    "such",
    "it",
    "they",
    "there",
    "otherwise",
    "however",
    "in that case",
    "in this case",
    "in either case",
];

/// The question's words as a quote must cover them, with their weights.
struct QuestionTerms {
    expansion: QueryExpansion,
    weights: Vec<f32>,
    /// The kinds of quantity the question asks for ("how long": a duration or a date).
    wants: QuantityKinds,
}

impl QuestionTerms {
    fn new(question: &str, expansion: &QueryExpansion) -> QuestionTerms {
        let expansion = if expansion.words().next().is_none() {
            QueryExpansion::plain(question)
        } else {
            expansion.clone()
        };
        // A word the version uses weighs fully, one it only has equivalents for less; one it
        // has nothing for cannot be covered by any sentence and does not count.
        let weights = expansion
            .words()
            .map(|t| match (t.in_version, expansion.coverable(t)) {
                (true, _) => 1.0,
                (false, true) => 0.6,
                (false, false) => 0.0,
            })
            .collect();
        QuestionTerms {
            expansion,
            weights,
            wants: asked_quantities(question),
        }
    }

    /// Which of the question's words a sentence covers.
    fn covered(&self, sentence: &str) -> Vec<bool> {
        self.expansion.covered_words(sentence)
    }

    fn weight(&self, covered: &[bool]) -> f32 {
        let total: f32 = self.weights.iter().sum();
        let got: f32 = self
            .weights
            .iter()
            .zip(covered)
            .filter(|(_, c)| **c)
            .map(|(w, _)| w)
            .sum();
        got / total.max(f32::EPSILON)
    }
}

/// One sentence of a clause, scored for the question.
struct Scored {
    covered: Vec<bool>,
    /// It states the kind of quantity asked for, or leaves it to a clause it refers to.
    answers_quantity: bool,
    score: f32,
}

/// Scores every sentence: the share of the question's words it covers, its embedding
/// similarity to the question relative to the clause's best sentence (when the retriever
/// measured it), a quantity of the kind asked for (a duration for "how long", an amount for
/// "how much"; another number counts little), and a slight preference for earlier sentences
/// (rules come first, exceptions after).
fn score_sentences(q: &QuestionTerms, clause: &RetrievedClause, sentences: &[&str]) -> Vec<Scored> {
    let similarity = (clause.sentence_scores.len() == sentences.len()).then(|| {
        let best = clause
            .sentence_scores
            .iter()
            .copied()
            .fold(f32::MIN, f32::max)
            .max(f32::EPSILON);
        clause
            .sentence_scores
            .iter()
            .map(|s| (s / best).max(0.0))
            .collect::<Vec<f32>>()
    });
    sentences
        .iter()
        .enumerate()
        .map(|(i, sentence)| {
            let covered = q.covered(sentence);
            let semantic = similarity.as_ref().map_or(0.0, |s| 0.5 * s[i]);
            let states = !numeric_facts(sentence).is_empty();
            let stating = states_quantity(sentence, &q.wants);
            // A sentence that leaves the asked quantity to another clause ("return it within
            // the period in section 3.1") answers as much as one that states it, the reference
            // being followed; but only by what it says about the question's subject: the word
            // naming the quantity ("period") is what it leaves to the other clause.
            let deferring = q.wants.any()
                && !stating
                && !deferred_quantity_references(sentence, &q.wants).is_empty();
            let coverage = if deferring {
                let subject: Vec<bool> = q
                    .expansion
                    .words()
                    .zip(&covered)
                    .map(|(t, c)| *c && !names_a_quantity(&t.word, &q.wants))
                    .collect();
                q.weight(&subject)
            } else {
                q.weight(&covered)
            };
            let answers_quantity = q.wants.any() && (stating || deferring);
            let quantity = if !q.wants.any() {
                0.0
            } else if answers_quantity {
                0.35
            } else if states {
                0.05
            } else {
                0.0
            };
            Scored {
                covered,
                answers_quantity,
                score: coverage + semantic + quantity - 0.01 * i as f32,
            }
        })
        .collect()
}

fn leans_on_previous(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    ANAPHORA.iter().any(|a| {
        lower
            .strip_prefix(a)
            .is_some_and(|rest| rest.starts_with([' ', ',']))
    })
}

/// The sentence of `clause` that best answers the question (the one a quote is built around).
pub fn best_sentence<'c>(
    question: &str,
    expansion: &QueryExpansion,
    clause: &'c RetrievedClause,
) -> Option<&'c str> {
    let q = QuestionTerms::new(question, expansion);
    let sentences = split_sentences(&clause.text);
    let scored = score_sentences(&q, clause, &sentences);
    (0..scored.len())
        .max_by(|&a, &b| scored[a].score.total_cmp(&scored[b].score))
        .map(|i| sentences[i])
}

/// The clauses `clause` refers to that may hold the answer, most likely first: the references
/// of its best-answering sentence; but when the question asks for a kind of quantity (a
/// period, an amount) that no sentence of `clause` states, the references of every sentence,
/// best-scoring first, with `defers_quantity` set ("refunds are made within the period stated in
/// clause 4.2": the period is in 4.2, whichever sentence scored best); and when the best
/// sentence itself leaves the quantity to another clause, that sentence's, also with
/// `defers_quantity` set.
pub fn references_to_follow(
    question: &str,
    expansion: &QueryExpansion,
    clause: &RetrievedClause,
) -> References {
    let q = QuestionTerms::new(question, expansion);
    let sentences = split_sentences(&clause.text);
    let scored = score_sentences(&q, clause, &sentences);
    // The best sentence as `best_sentence` picks it, then the others best first.
    let Some(best) = (0..scored.len()).max_by(|&a, &b| scored[a].score.total_cmp(&scored[b].score))
    else {
        return References {
            numbers: Vec::new(),
            defers_quantity: false,
        };
    };
    let mut order: Vec<usize> = (0..sentences.len()).filter(|&i| i != best).collect();
    order.sort_by(|&a, &b| scored[b].score.total_cmp(&scored[a].score));
    order.insert(0, best);
    let states = |s: &str| states_quantity(s, &q.wants);
    let unstated = q.wants.any() && !sentences.iter().any(|s| states(s));
    // A reference that stands in for the quantity asked ("within the period stated in clause
    // 4.2", "the fee set out in 6.2"): any sentence's, best first, when the clause states no
    // such quantity; the best sentence's when it is the one that defers (the clause's other
    // periods are about something else).
    let deferred: Vec<String> = if unstated {
        order
            .iter()
            .flat_map(|&i| deferred_quantity_references(sentences[i], &q.wants))
            .collect()
    } else if q.wants.any() && !states(sentences[best]) {
        deferred_quantity_references(sentences[best], &q.wants)
    } else {
        Vec::new()
    };
    let mut numbers = Vec::new();
    let follows_deferred = !deferred.is_empty();
    // The best sentence's own references come after (a deferred number may not exist).
    let mut found = deferred;
    found.extend(crate::citation::referenced_clause_numbers(sentences[best]));
    for number in found {
        if !numbers.contains(&number) {
            numbers.push(number);
        }
    }
    References {
        numbers,
        defers_quantity: follows_deferred,
    }
}

/// Words that name a quantity without stating it, by kind.
const DURATION_PLACEHOLDERS: &[&str] = &[
    "period",
    "periods",
    "time",
    "timeframe",
    "deadline",
    "deadlines",
    "limit",
    "limits",
    "window",
    "days",
    "term",
];
const MONEY_PLACEHOLDERS: &[&str] = &[
    "amount",
    "amounts",
    "fee",
    "fees",
    "charge",
    "charges",
    "cost",
    "costs",
    "price",
    "rate",
    "sum",
    "threshold",
];

/// Whether `word` names a quantity of a kind in `wants` without stating it ("period", "fee").
fn names_a_quantity(word: &str, wants: &QuantityKinds) -> bool {
    (wants.duration || wants.date) && DURATION_PLACEHOLDERS.contains(&word)
        || (wants.money || wants.percent) && MONEY_PLACEHOLDERS.contains(&word)
}

/// Words before a placeholder that point at a particular quantity ("the period", "that fee"),
/// unlike "at any time" or "a charge".
const DETERMINERS: &[&str] = &["the", "that", "this", "such", "its", "their"];

/// Whether `sentence` states a quantity of a kind in `wants`.
fn states_quantity(sentence: &str, wants: &QuantityKinds) -> bool {
    !numeric_facts(sentence).is_empty() && stated_quantities(sentence).meets(wants)
}

/// The clause numbers a sentence refers to in place of a quantity of a wanted kind: a
/// placeholder after a determiner ("the period", "the fee") a few words before the reference.
fn deferred_quantity_references(sentence: &str, wants: &QuantityKinds) -> Vec<String> {
    let lower = sentence.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '.'))
        .filter(|w| !w.is_empty())
        .collect();
    let mut numbers = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !matches!(*w, "clause" | "clauses" | "section" | "sections") {
            continue;
        }
        let window = &words[i.saturating_sub(7)..i];
        let defers = window
            .windows(2)
            .any(|p| DETERMINERS.contains(&p[0]) && names_a_quantity(p[1], wants));
        if !defers {
            continue;
        }
        let phrase = words[i..words.len().min(i + 2)].join(" ");
        numbers.extend(crate::citation::referenced_clause_numbers(&phrase));
    }
    numbers
}

/// What [`references_to_follow`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct References {
    /// Clause numbers, most likely first.
    pub numbers: Vec<String>,
    /// The clause leaves the kind of quantity the question asks for to the clauses in
    /// `numbers` (states it nowhere, or its best sentence points there for it).
    pub defers_quantity: bool,
}

/// Whether `text` states a quantity of the kind the question asks for.
pub fn states_asked_quantity(question: &str, text: &str) -> bool {
    let wants = asked_quantities(question);
    wants.any()
        && split_sentences(text)
            .iter()
            .any(|s| states_quantity(s, &wants))
}

/// The sentences of `clause` that answer the question, in document order.
fn quote(q: &QuestionTerms, clause: &RetrievedClause) -> Vec<String> {
    let sentences = split_sentences(&clause.text);
    let words = clause.text.split_whitespace().count();
    if sentences.len() <= SHORT_CLAUSE_SENTENCES && words <= SHORT_CLAUSE_WORDS {
        return sentences.iter().map(|s| s.to_string()).collect();
    }
    let scored = score_sentences(q, clause, &sentences);
    let Some(best) = (0..scored.len()).max_by(|&a, &b| scored[a].score.total_cmp(&scored[b].score))
    else {
        return Vec::new();
    };
    let mut chosen = vec![best];
    // Sentences that cover question words the chosen ones miss, best first.
    let mut covered = scored[best].covered.clone();
    let mut rest: Vec<usize> = (0..scored.len()).filter(|&i| i != best).collect();
    rest.sort_by(|&a, &b| scored[b].score.total_cmp(&scored[a].score));
    for i in rest {
        if chosen.len() >= MAX_QUOTED_SENTENCES {
            break;
        }
        let adds = scored[i]
            .covered
            .iter()
            .zip(&covered)
            .any(|(new, have)| *new && !*have);
        if adds && scored[i].score >= 0.5 * scored[best].score {
            for (have, new) in covered.iter_mut().zip(&scored[i].covered) {
                *have |= *new;
            }
            chosen.push(i);
        }
    }
    // A question asking for a quantity ("how much is a voucher?") is not answered by a
    // sentence that only defines the thing: the best sentence of the clause stating the
    // quantity goes with it, if it scores half the best one ("2. Charge: ₱180 per order"
    // shares no word with "how much does same-day delivery cost?", the clause's title does).
    if q.wants.any()
        && chosen.len() < MAX_QUOTED_SENTENCES
        && !chosen.iter().any(|&i| scored[i].answers_quantity)
    {
        let stating = (0..scored.len())
            .filter(|&i| !chosen.contains(&i) && scored[i].answers_quantity)
            .filter(|&i| scored[i].score >= 0.5 * scored[best].score)
            .max_by(|&a, &b| scored[a].score.total_cmp(&scored[b].score));
        chosen.extend(stating);
    }
    // A sentence that starts "This period..." brings the one it refers to.
    for i in chosen.clone() {
        if i > 0 && leans_on_previous(sentences[i]) && !chosen.contains(&(i - 1)) {
            chosen.push(i - 1);
        }
    }
    chosen.sort_unstable();
    chosen
        .into_iter()
        .map(|i| sentences[i].to_string())
        .collect()
}

/// Answers from the top clause: a short clause whole, else the sentences that answer the
/// question (wherever they sit in the clause). When retrieval cannot separate the top two
/// clauses (scores within `runner_up_margin`), the runner-up is quoted too, with its own
/// citation: the customer gets both candidate rules rather than a coin toss.
pub fn extract_answer(
    question: &str,
    expansion: &QueryExpansion,
    candidates: &[RetrievedClause],
    runner_up_margin: f64,
) -> Option<Extract> {
    let top = candidates.first()?;
    let q = QuestionTerms::new(question, expansion);
    let mut quotes = vec![Quote {
        clause_id: top.clause_id(),
        sentences: quote(&q, top),
    }];
    if let Some(runner_up) = candidates
        .get(1)
        .filter(|c| c.score >= top.score - runner_up_margin)
    {
        quotes.push(Quote {
            clause_id: runner_up.clause_id(),
            sentences: quote(&q, runner_up),
        });
    }
    quotes.retain(|q| !q.sentences.is_empty());
    (!quotes.is_empty()).then_some(Extract { quotes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::citation::parse_citations;

    const WINDOW: &str = "You may return most items within 30 calendar days from the day of delivery without giving any reason. To meet the deadline it is sufficient that you send us your withdrawal statement before the period has expired.";
    const HOW: &str = "To start a return, open Orders in your account and choose Return item. Send the goods back within 14 days of telling us.";
    const REFUND: &str = "Refunds are paid to the original payment method. We reimburse all payments at the latest within 14 days.";

    fn candidates(second: f64) -> Vec<RetrievedClause> {
        vec![
            RetrievedClause::new("eu-v4#sec-3.2", WINDOW, 0.70),
            RetrievedClause::new("eu-v4#sec-3.4", HOW, second),
            RetrievedClause::new("eu-v4#sec-4.2", REFUND, 0.40),
        ]
    }

    #[test]
    fn quotes_the_rule_verbatim_and_cites_it() {
        let extract = extract_answer(
            "What is the return window?",
            &QueryExpansion::default(),
            &candidates(0.5),
            0.05,
        )
        .unwrap();
        assert_eq!(extract.cited(), ["eu-v4#sec-3.2"]);
        let text = extract.answer_text();
        assert!(
            text.starts_with("You may return most items within 30 calendar days"),
            "{text}"
        );
        assert!(text.ends_with("[clause: eu-v4#sec-3.2]"));
        for quote in &extract.quotes {
            for sentence in &quote.sentences {
                assert!(WINDOW.contains(sentence.as_str()), "verbatim: {sentence}");
            }
        }
    }

    #[test]
    fn best_matching_sentence_follows_the_rule() {
        let c = [RetrievedClause::new("eu-v4#sec-4.2", REFUND, 0.9)];
        let extract = extract_answer(
            "How long until I get my money back?",
            &QueryExpansion::default(),
            &c,
            0.05,
        )
        .unwrap();
        assert_eq!(
            extract.quotes[0].sentences,
            [
                "Refunds are paid to the original payment method.",
                "We reimburse all payments at the latest within 14 days."
            ]
        );
    }

    #[test]
    fn close_runner_up_is_quoted_with_its_own_citation() {
        let extract = extract_answer(
            "How do I return something?",
            &QueryExpansion::default(),
            &candidates(0.68),
            0.05,
        )
        .unwrap();
        assert_eq!(extract.cited(), ["eu-v4#sec-3.2", "eu-v4#sec-3.4"]);
        let parsed = parse_citations(&extract.answer_text());
        assert_eq!(parsed.refs.len(), 2);
        assert!(parsed.malformed.is_empty());
        // Outside the margin: only the top clause.
        assert_eq!(
            extract_answer(
                "How do I return something?",
                &QueryExpansion::default(),
                &candidates(0.6),
                0.05
            )
            .unwrap()
            .cited(),
            ["eu-v4#sec-3.2"]
        );
    }

    #[test]
    fn the_sentence_stating_the_kind_of_quantity_asked_for_is_quoted() {
        // "period" and "order" sit in the exception; the rule states the duration.
        let text = "Subject to clause 3.2, a Customer may return Eligible Goods for a refund by \
            initiating the return within thirty (30) days after the date of Delivery. Where the \
            goods were delivered in more than one consignment, the period runs from the Delivery \
            of the last consignment of the order. Goods purchased between 15 November and 24 \
            December may be returned until 15 January of the following year. This right is \
            additional to the Customer's other remedies. Refunds are made as set out in clause 4.1.";
        let c = [RetrievedClause::new("ca-v1#sec-3.1", text, 0.9)];
        let extract = extract_answer(
            "What is the return period for online orders?",
            &QueryExpansion::default(),
            &c,
            0.05,
        )
        .unwrap();
        assert!(
            extract.answer_text().contains("thirty (30) days"),
            "{}",
            extract.answer_text()
        );
    }

    #[test]
    fn a_definition_is_quoted_with_the_sentence_stating_the_amount_asked_for() {
        // The definition covers every word of the question; only the second states a price.
        let text = "(a) An \"Eye-Test Voucher\" is a code, sold by us, that pays for one sight \
            examination with a Partner Practice named on our website. (b) A voucher costs 35 \
            euros and can be used for twelve months from the day it is bought. (c) You book \
            directly with the Partner Practice and quote the code. (d) The prescription issued \
            at the examination belongs to you and may be used with any retailer.";
        let c = [RetrievedClause::new("nl-v3#sec-2.2", text, 0.9)];
        let answer = |question: &str| {
            extract_answer(question, &QueryExpansion::default(), &c, 0.05)
                .unwrap()
                .quotes[0]
                .sentences
                .clone()
        };
        let sentences = answer("How much is an Eye-Test Voucher?");
        assert_eq!(sentences.len(), 2, "{sentences:?}");
        assert!(sentences[0].starts_with("(a) An \"Eye-Test Voucher\""));
        assert!(sentences[1].contains("costs 35 euros"));
        // Asked for no quantity: the definition alone.
        let sentences = answer("What is an Eye-Test Voucher?");
        assert!(
            !sentences.iter().any(|s| s.contains("costs")),
            "{sentences:?}"
        );
    }

    #[test]
    fn no_candidates_no_answer() {
        assert_eq!(
            extract_answer("anything", &QueryExpansion::default(), &[], 0.05),
            None
        );
    }

    #[test]
    fn a_period_left_to_another_clause_is_followed_there() {
        let membership = RetrievedClause::new(
            "nz-v3#sec-8.3",
            "Where a membership ends early under clause 8.2, the fee is refunded pro rata. \
             Refunds under this clause are made to the original payment method, within the \
             period stated in clause 4.2.",
            0.9,
        );
        let refs = references_to_follow(
            "How long does the pro-rata membership refund take?",
            &QueryExpansion::default(),
            &membership,
        );
        assert_eq!(refs.numbers[0], "4.2", "{:?}", refs.numbers);
        assert!(refs.defers_quantity);
        // Not asked for a period: the best sentence's own reference, as before.
        let refs = references_to_follow(
            "Is the membership fee refunded pro rata if it ends early?",
            &QueryExpansion::default(),
            &membership,
        );
        assert_eq!(refs.numbers, ["8.2"]);
        assert!(!refs.defers_quantity);
        assert!(states_asked_quantity(
            "How long does it take?",
            "Refunds are processed within five (5) Business Days."
        ));
    }

    #[test]
    fn a_sentence_that_leaves_the_asked_period_elsewhere_is_followed_though_others_state_periods() {
        let subscription = RetrievedClause::new(
            "za-v2#sec-8.2",
            "You can skip a delivery or move your next delivery date at any time up to five \
             days before the next dispatch. You can also pause the subscription for up to six \
             months, or cancel it, without any fee. If you cancel after a filter has already \
             been dispatched, you can still return it unopened for a refund within the period \
             in section 3.1, but an opened filter cannot be returned (see section 3.3).",
            0.9,
        );
        let question =
            "If I cancel after a filter was sent, how many days do I have to return it unopened?";
        let refs = references_to_follow(question, &QueryExpansion::default(), &subscription);
        assert_eq!(refs.numbers[0], "3.1", "{:?}", refs.numbers);
        assert!(refs.defers_quantity);
        let best = best_sentence(question, &QueryExpansion::default(), &subscription).unwrap();
        assert!(best.starts_with("If you cancel after a filter"), "{best}");
    }

    #[test]
    fn a_clause_stating_the_asked_period_keeps_it_over_a_reference_about_something_else() {
        let window = RetrievedClause::new(
            "ca-v1#sec-3.1",
            "A Customer may return Eligible Goods for a refund within thirty (30) days after \
             the date of Delivery. Goods bought in December may be returned until 15 January. \
             Refunds for returned goods are made within the period stated in clause 4.2.",
            0.9,
        );
        let question = "What is the return period for online orders?";
        let best = best_sentence(question, &QueryExpansion::default(), &window).unwrap();
        assert!(best.contains("thirty (30) days"), "{best}");
        let refs = references_to_follow(question, &QueryExpansion::default(), &window);
        assert!(!refs.defers_quantity, "{refs:?}");
    }

    #[test]
    fn at_any_time_points_at_no_clause_for_the_period() {
        let subscription = RetrievedClause::new(
            "eu-v4#sec-6.2",
            "You can cancel your subscription at any time (see section 9). Cancellation takes \
             effect 30 days after we receive your notice.",
            0.9,
        );
        let question = "How long does it take for my subscription cancellation to take effect?";
        let refs = references_to_follow(question, &QueryExpansion::default(), &subscription);
        assert!(!refs.defers_quantity, "{refs:?}");
        let best = best_sentence(question, &QueryExpansion::default(), &subscription).unwrap();
        assert!(best.contains("30 days"), "{best}");
    }
}
