//! What a question is searched with. A question that first tells a situation ("I returned
//! something under the change-of-mind rules but my card has since expired. How will you pay the
//! refund?") is searched with its vector blended half-and-half with its asking sentence's
//! ([`asking_part`]), so a long story does not outweigh what is asked. The question's own vector
//! is kept beside it: confidence and the scope checks were calibrated on it, and a blend would
//! move them (an out-of-scope question told as a story about something the policy covers).

use std::sync::Arc;

use policy_core::text::asking_part;

use crate::cache::CachedEmbedder;
use crate::embed::{dot, EmbedError, Embedder};

#[derive(Debug, Clone, PartialEq)]
pub struct QueryVectors {
    /// Ranks candidates: both legs, the clause's chunks, its sentences.
    pub search: Arc<Vec<f32>>,
    /// The question as written.
    pub question: Arc<Vec<f32>>,
}

impl QueryVectors {
    /// `question`'s vector, blended with `asked` (its asking sentence's) when there is one.
    pub fn new(question: Arc<Vec<f32>>, asked: Option<&[f32]>) -> QueryVectors {
        let search = match asked {
            Some(asked) => {
                let sum: Vec<f32> = question.iter().zip(asked).map(|(q, a)| q + a).collect();
                let norm = dot(&sum, &sum).sqrt().max(f32::EPSILON);
                Arc::new(sum.iter().map(|x| x / norm).collect())
            }
            None => question.clone(),
        };
        QueryVectors { search, question }
    }

    /// Whether the search vector is a blend (else both are the question's).
    pub fn blended(&self) -> bool {
        !Arc::ptr_eq(&self.search, &self.question)
    }

    /// Embeds `text` and its asking sentence, blocking.
    pub fn embed<E: Embedder>(
        embedder: &CachedEmbedder<E>,
        text: &str,
    ) -> Result<QueryVectors, EmbedError> {
        let question = embedder.embed_query(text)?;
        let asked = asking_part(text)
            .map(|part| embedder.embed_query(part))
            .transpose()?;
        Ok(QueryVectors::new(
            question,
            asked.as_deref().map(Vec::as_slice),
        ))
    }

    /// Embeds `text` and its asking sentence through the batcher, side by side (concurrent
    /// misses share a model batch).
    pub async fn embed_async<E: Embedder>(
        embedder: &CachedEmbedder<E>,
        text: &str,
    ) -> Result<QueryVectors, EmbedError> {
        let asked = async {
            match asking_part(text) {
                Some(part) => embedder.embed_query_async(part).await.map(Some),
                None => Ok(None),
            }
        };
        let (question, asked) = tokio::try_join!(embedder.embed_query_async(text), asked)?;
        Ok(QueryVectors::new(
            question,
            asked.as_deref().map(Vec::as_slice),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let norm = dot(v, v).sqrt();
        v.iter().map(|x| x / norm).collect()
    }

    #[test]
    fn without_an_asking_sentence_the_question_is_searched_as_written() {
        let q = Arc::new(unit(&[1.0, 2.0, 2.0]));
        let vectors = QueryVectors::new(q.clone(), None);
        assert!(!vectors.blended());
        assert_eq!(vectors.search, q);
    }

    #[test]
    fn the_blend_is_the_unit_mean_of_both_and_keeps_the_question() {
        let q = Arc::new(vec![1.0, 0.0]);
        let vectors = QueryVectors::new(q.clone(), Some(&[0.0, 1.0]));
        assert!(vectors.blended());
        assert_eq!(vectors.question, q);
        let half = std::f32::consts::FRAC_1_SQRT_2;
        assert!((vectors.search[0] - half).abs() < 1e-6);
        assert!((vectors.search[1] - half).abs() < 1e-6);
    }
}
