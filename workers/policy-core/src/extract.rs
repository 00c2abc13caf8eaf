//! The deterministic extractive generator: answers with the sentences of a retrieved clause
//! that answer the question, quoted verbatim, followed by the clause's citation tag. It never
//! writes a fact of its own, so everything it says is grounded by construction.

use std::collections::HashSet;

use crate::citation::citation_tag;
use crate::evidence::RetrievedClause;
use crate::expansion::QueryExpansion;
use crate::text::{numeric_facts, split_sentences, terms};

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

/// Words that ask for a quantity: a sentence stating one is preferred for such questions.
const QUANTITY_CUES: &[&str] = &[
    "how long",
    "how many",
    "how much",
    "how quickly",
    "how soon",
    "when",
    "minimum",
    "deadline",
    "cost",
    "price",
    "fee",
    "expire",
    "notice",
    "days",
    "late",
    "until",
    "window",
    "period",
];

struct QuestionTerms {
    own: HashSet<String>,
    synonyms: HashSet<String>,
    wants_quantity: bool,
}

impl QuestionTerms {
    fn new(question: &str, expansion: &QueryExpansion) -> QuestionTerms {
        let own: HashSet<String> = terms(question).into_iter().collect();
        let synonyms = expansion
            .terms
            .iter()
            .flat_map(|t| t.equivalents.iter())
            .flat_map(|w| terms(w))
            .filter(|t| !own.contains(t))
            .collect();
        let lower = question.to_lowercase();
        QuestionTerms {
            own,
            synonyms,
            wants_quantity: QUANTITY_CUES.iter().any(|cue| lower.contains(cue)),
        }
    }

    /// How well a sentence answers: the customer's own words count fully, synonyms a third,
    /// a stated quantity when one is asked for a tenth; later sentences lose a little (rules
    /// come first, exceptions after).
    fn score(&self, sentence: &str, position: usize) -> f32 {
        let words: HashSet<String> = terms(sentence).into_iter().collect();
        let overlap = (self.own.intersection(&words).count() as f32
            + self.synonyms.intersection(&words).count() as f32 / 3.0)
            / self.own.len().max(1) as f32;
        let quantity = if self.wants_quantity && !numeric_facts(sentence).is_empty() {
            0.1
        } else {
            0.0
        };
        overlap + quantity - 0.01 * position as f32
    }

    fn best_sentence(&self, text: &str) -> Option<(usize, f32)> {
        split_sentences(text)
            .iter()
            .enumerate()
            .map(|(i, s)| (i, self.score(s, i)))
            .fold(None, |best: Option<(usize, f32)>, (i, score)| match best {
                Some((_, b)) if b >= score => best,
                _ => Some((i, score)),
            })
    }
}

/// Answers from the top clause: its opening sentence (which states the rule) and the sentence
/// that best matches the question, in document order. When retrieval cannot separate the top
/// two clauses (scores within `runner_up_margin`), the runner-up's best sentence is quoted too,
/// with its own citation: the customer gets both candidate rules rather than a coin toss.
pub fn extract_answer(
    question: &str,
    expansion: &QueryExpansion,
    candidates: &[RetrievedClause],
    runner_up_margin: f64,
) -> Option<Extract> {
    let top = candidates.first()?;
    let q = QuestionTerms::new(question, expansion);
    let sentences = split_sentences(&top.text);
    let (best, _) = q.best_sentence(&top.text)?;
    let mut chosen: Vec<String> = vec![sentences[0].to_string()];
    if best != 0 {
        chosen.push(sentences[best].to_string());
    }
    let mut quotes = vec![Quote {
        clause_id: top.clause_id(),
        sentences: chosen,
    }];
    if let Some(runner_up) = candidates
        .get(1)
        .filter(|c| c.score >= top.score - runner_up_margin)
    {
        if let Some((i, _)) = q.best_sentence(&runner_up.text) {
            let sentence = split_sentences(&runner_up.text)[i].to_string();
            quotes.push(Quote {
                clause_id: runner_up.clause_id(),
                sentences: vec![sentence],
            });
        }
    }
    Some(Extract { quotes })
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
    fn no_candidates_no_answer() {
        assert_eq!(
            extract_answer("anything", &QueryExpansion::default(), &[], 0.05),
            None
        );
    }
}
