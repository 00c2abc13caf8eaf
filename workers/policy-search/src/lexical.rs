//! The lexical leg: BM25 over the chunks of one (region, version), with that version's own
//! statistics (document frequencies, average length). A search index shared by every version
//! (tantivy, Elasticsearch) computes them over the whole index, so publishing one region's
//! policy would move the scores, and the answers, of every other region, and a re-run of
//! history would not reproduce once more versions were indexed. Here nothing outside the
//! turn's own version enters a score.

use std::collections::HashMap;

/// BM25 parameters (the usual defaults, as Lucene's).
const K1: f32 = 1.2;
const B: f32 = 0.75;

pub use policy_core::text::analyze;

/// An inverted index over the documents of one version.
#[derive(Debug, Clone, Default)]
pub struct Lexicon {
    /// term → (document, term frequency), documents in ascending order.
    postings: HashMap<String, Vec<(u32, u32)>>,
    doc_len: Vec<u32>,
    avg_len: f32,
}

impl Lexicon {
    /// Indexes documents in order; a document is then named by its position.
    pub fn build<'a>(documents: impl IntoIterator<Item = &'a str>) -> Lexicon {
        let mut postings: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut doc_len = Vec::new();
        for (doc, text) in documents.into_iter().enumerate() {
            let tokens = analyze(text);
            doc_len.push(tokens.len() as u32);
            let mut counts: HashMap<String, u32> = HashMap::new();
            for token in tokens {
                *counts.entry(token).or_default() += 1;
            }
            for (term, tf) in counts {
                postings.entry(term).or_default().push((doc as u32, tf));
            }
        }
        let avg_len = if doc_len.is_empty() {
            0.0
        } else {
            doc_len.iter().map(|l| *l as f32).sum::<f32>() / doc_len.len() as f32
        };
        Lexicon {
            postings,
            doc_len,
            avg_len,
        }
    }

    pub fn documents(&self) -> usize {
        self.doc_len.len()
    }

    /// Documents of this version containing `term` (an analysed token).
    pub fn doc_freq(&self, term: &str) -> usize {
        self.postings.get(term).map_or(0, Vec::len)
    }

    /// Every analysed term of this version.
    pub fn terms(&self) -> impl Iterator<Item = &str> {
        self.postings.keys().map(String::as_str)
    }

    fn idf(&self, df: usize) -> f32 {
        let n = self.documents() as f32;
        let df = df as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The `limit` best documents for `query` (its distinct analysed terms), best first, ties
    /// broken by position.
    pub fn search(&self, query: &str, limit: usize) -> Vec<(usize, f32)> {
        let mut terms = analyze(query);
        terms.sort();
        terms.dedup();
        let mut scores: HashMap<u32, f32> = HashMap::new();
        for term in &terms {
            let Some(postings) = self.postings.get(term) else {
                continue;
            };
            let idf = self.idf(postings.len());
            for (doc, tf) in postings {
                let tf = *tf as f32;
                let norm = 1.0 - B + B * self.doc_len[*doc as usize] as f32 / self.avg_len.max(1.0);
                *scores.entry(*doc).or_default() += idf * tf * (K1 + 1.0) / (tf + K1 * norm);
            }
        }
        let mut ranked: Vec<(usize, f32)> = scores
            .into_iter()
            .map(|(doc, score)| (doc as usize, score))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        ranked.truncate(limit);
        ranked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rarer_terms_weigh_more_and_shorter_documents_win_ties() {
        let lexicon = Lexicon::build([
            "return window 30 days from delivery",
            "refund to the original payment method",
            "return the item in its original packaging within the return window of the store",
        ]);
        let hits = lexicon.search("refund method", 3);
        assert_eq!(hits[0].0, 1);
        assert_eq!(hits.len(), 1);
        let hits = lexicon.search("return window", 3);
        assert_eq!(
            hits.iter().map(|h| h.0).collect::<Vec<_>>(),
            [0, 2],
            "the shorter document first"
        );
        assert!(lexicon.search("warranty", 3).is_empty());
    }

    #[test]
    fn scores_depend_only_on_the_documents_of_the_lexicon() {
        let version = ["cancel an order before dispatch", "return within 14 days"];
        let alone = Lexicon::build(version);
        // The same version, searched while another version's many documents exist elsewhere:
        // a separate lexicon, so nothing changes.
        let _other = Lexicon::build(std::iter::repeat_n("cancel cancel order", 300));
        assert_eq!(
            alone.search("cancel my order", 2),
            Lexicon::build(version).search("cancel my order", 2)
        );
    }
}
