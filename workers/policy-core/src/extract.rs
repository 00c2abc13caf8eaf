//! The deterministic extractive generator: answers with the sentences of a retrieved clause
//! that answer the question, quoted verbatim, followed by the clause's citation tag. It never
//! writes a fact of its own, so everything it says is grounded by construction.

use std::collections::HashSet;

use crate::citation::citation_tag;
use crate::synonyms::expand_query;
use crate::text::{numeric_facts, split_sentences, terms};

/// A retrieved clause offered to the generator, best first.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    pub clause_id: &'a str,
    pub text: &'a str,
    /// Retrieval score after reranking.
    pub score: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Extract {
    pub clause_id: String,
    pub sentences: Vec<String>,
}

impl Extract {
    pub fn answer_text(&self) -> String {
        format!(
            "{} {}",
            self.sentences.join(" "),
            citation_tag(&self.clause_id)
        )
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

/// How many of the top candidates the generator may choose from.
const CANDIDATES: usize = 3;

pub fn extract_answer(question: &str, candidates: &[Candidate<'_>]) -> Option<Extract> {
    let top_score = candidates.first()?.score.max(f32::EPSILON);
    // The customer's own words count fully; synonyms added for them count a third.
    let own_terms: HashSet<String> = terms(question).into_iter().collect();
    let synonym_terms: HashSet<String> = terms(&expand_query(question))
        .into_iter()
        .filter(|t| !own_terms.contains(t))
        .collect();
    let norm = own_terms.len().max(1) as f32;
    let lower = question.to_lowercase();
    let wants_quantity = QUANTITY_CUES.iter().any(|cue| lower.contains(cue));
    let mut best: Option<(f32, usize, usize)> = None;
    for (c, candidate) in candidates.iter().take(CANDIDATES).enumerate() {
        let prior = (candidate.score / top_score).clamp(0.0, 1.0);
        for (s, sentence) in split_sentences(candidate.text).iter().enumerate() {
            let sentence_terms: HashSet<String> = terms(sentence).into_iter().collect();
            let overlap = (own_terms.intersection(&sentence_terms).count() as f32
                + synonym_terms.intersection(&sentence_terms).count() as f32 / 3.0)
                / norm;
            let quantity = if wants_quantity && !numeric_facts(sentence).is_empty() {
                1.0
            } else {
                0.0
            };
            // The retrieval ranking dominates; within and across the top clauses, the sentence
            // that shares the question's words (and states a quantity when asked) wins. Earlier
            // sentences state the rule, later ones exceptions: a small position penalty.
            let score = 0.6 * prior + 0.3 * overlap + 0.1 * quantity - 0.01 * s as f32;
            if best.is_none_or(|(b, ..)| score > b) {
                best = Some((score, c, s));
            }
        }
    }
    let (_, c, s) = best?;
    let sentences = split_sentences(candidates[c].text);
    let mut chosen = vec![sentences[s].to_string()];
    // A very short sentence rarely stands alone ("Yes."): keep the next one with it.
    if sentences[s].len() < 60 {
        if let Some(next) = sentences.get(s + 1) {
            chosen.push(next.to_string());
        }
    }
    Some(Extract {
        clause_id: candidates[c].clause_id.to_string(),
        sentences: chosen,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::citation::parse_citations;

    const WINDOW: &str = "You may return most items within 30 calendar days from the day of delivery without giving any reason. To meet the deadline it is sufficient that you send us your withdrawal statement before the period has expired.";
    const HOW: &str = "To start a return, open Orders in your account and choose Return item. Send the goods back within 14 days of telling us.";
    const REFUND: &str =
        "We reimburse all payments without undue delay and at the latest within 14 days.";

    fn candidates() -> Vec<Candidate<'static>> {
        vec![
            Candidate {
                clause_id: "eu-v4#sec-3.2",
                text: WINDOW,
                score: 0.70,
            },
            Candidate {
                clause_id: "eu-v4#sec-3.4",
                text: HOW,
                score: 0.60,
            },
            Candidate {
                clause_id: "eu-v4#sec-4.2",
                text: REFUND,
                score: 0.50,
            },
        ]
    }

    #[test]
    fn quotes_the_answering_sentence_and_cites_it() {
        let extract = extract_answer("What is the return window?", &candidates()).unwrap();
        assert_eq!(extract.clause_id, "eu-v4#sec-3.2");
        assert_eq!(
            extract.sentences,
            [WINDOW.split(". ").next().unwrap().to_string() + "."]
        );
        let text = extract.answer_text();
        assert!(text.ends_with("[clause: eu-v4#sec-3.2]"));
        assert_eq!(parse_citations(&text).refs.len(), 1);
        assert!(WINDOW.contains(&extract.sentences[0]), "verbatim");
    }

    #[test]
    fn a_much_better_sentence_in_the_second_clause_wins() {
        let mut c = candidates();
        c[1].score = 0.68;
        let extract = extract_answer("How do I start a return in my account orders?", &c).unwrap();
        assert_eq!(extract.clause_id, "eu-v4#sec-3.4");
        assert!(extract.sentences[0].starts_with("To start a return"));
    }

    #[test]
    fn only_the_top_three_are_considered_and_empty_input_gives_nothing() {
        assert_eq!(extract_answer("anything", &[]), None);
        let mut c = candidates();
        c.push(Candidate {
            clause_id: "eu-v4#sec-9.9",
            text: "How do I start a return in my account orders? Exactly so.",
            score: 0.69,
        });
        assert_ne!(
            extract_answer("How do I start a return in my account orders?", &c)
                .unwrap()
                .clause_id,
            "eu-v4#sec-9.9"
        );
    }

    #[test]
    fn short_sentence_keeps_its_follower() {
        let c = [Candidate {
            clause_id: "jp-v3#sec-7.3",
            text: "Express delivery is available. It costs 700 yen per order.",
            score: 1.0,
        }];
        let extract = extract_answer("Is express delivery available?", &c).unwrap();
        assert_eq!(
            extract.sentences,
            [
                "Express delivery is available.",
                "It costs 700 yen per order."
            ]
        );
    }
}
