//! A bounded LRU cache in front of any embedder, keyed by normalised text: customers ask the
//! same few questions over and over, and the model is the most expensive step of a turn.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use lru::LruCache;

use crate::batcher::{BatchStats, EmbedBatcher};
use crate::embed::{EmbedError, Embedder};

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub entries: usize,
}

impl CacheStats {
    pub fn hit_rate(&self) -> f64 {
        let total = self.hits + self.misses;
        if total == 0 {
            0.0
        } else {
            self.hits as f64 / total as f64
        }
    }
}

pub struct CachedEmbedder<E> {
    inner: E,
    cache: Mutex<LruCache<String, Arc<Vec<f32>>>>,
    hits: AtomicU64,
    misses: AtomicU64,
    /// Where async misses go to be embedded in batches; without it they call `inner`.
    batcher: Option<EmbedBatcher>,
}

impl<E: Embedder> std::fmt::Debug for CachedEmbedder<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CachedEmbedder")
            .field("model", &self.inner.model_id())
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

/// Case and whitespace do not change what a customer asks.
pub fn cache_key(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

impl<E: Embedder> CachedEmbedder<E> {
    pub fn new(inner: E, capacity: usize) -> Self {
        let capacity = NonZeroUsize::new(capacity.max(1)).expect("at least 1");
        CachedEmbedder {
            inner,
            cache: Mutex::new(LruCache::new(capacity)),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            batcher: None,
        }
    }

    /// Async misses ([`Self::embed_query_async`]) go through `batcher`.
    pub fn with_batcher(mut self, batcher: EmbedBatcher) -> Self {
        self.batcher = Some(batcher);
        self
    }

    pub fn batch_stats(&self) -> Option<BatchStats> {
        self.batcher.as_ref().map(EmbedBatcher::stats)
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            entries: self.cache.lock().expect("cache lock").len(),
        }
    }

    pub fn inner(&self) -> &E {
        &self.inner
    }

    fn cached(&self, key: &str) -> Option<Arc<Vec<f32>>> {
        let hit = self.cache.lock().expect("cache lock").get(key).cloned();
        let counter = if hit.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        hit
    }

    fn remember(&self, key: String, vector: Vec<f32>) -> Arc<Vec<f32>> {
        let vector = Arc::new(vector);
        self.cache
            .lock()
            .expect("cache lock")
            .put(key, vector.clone());
        vector
    }

    /// The query embedding, from the cache when the normalised text was seen before.
    pub fn embed_query(&self, text: &str) -> Result<Arc<Vec<f32>>, EmbedError> {
        let key = cache_key(text);
        if let Some(hit) = self.cached(&key) {
            return Ok(hit);
        }
        // Embed outside the lock: two threads may compute the same key once each, which is
        // cheaper than serialising every miss behind one model call.
        let vector = self.inner.embed(&key)?;
        Ok(self.remember(key, vector))
    }

    /// Several texts at once: hits from the cache, misses embedded together (one batch when a
    /// batcher is set). Results in the order of `texts`.
    pub async fn embed_many_async(
        &self,
        texts: &[String],
    ) -> Vec<Result<Arc<Vec<f32>>, EmbedError>> {
        let keys: Vec<String> = texts.iter().map(|t| cache_key(t)).collect();
        let mut results: Vec<Option<Result<Arc<Vec<f32>>, EmbedError>>> =
            keys.iter().map(|k| self.cached(k).map(Ok)).collect();
        let misses: Vec<usize> = (0..keys.len()).filter(|i| results[*i].is_none()).collect();
        if !misses.is_empty() {
            let texts: Vec<String> = misses.iter().map(|i| keys[*i].clone()).collect();
            let vectors = match &self.batcher {
                Some(batcher) => batcher.embed_many(texts).await,
                None => texts.iter().map(|t| self.inner.embed(t)).collect(),
            };
            for (i, vector) in misses.into_iter().zip(vectors) {
                results[i] = Some(vector.map(|v| self.remember(keys[i].clone(), v)));
            }
        }
        results
            .into_iter()
            .map(|r| r.expect("every text answered"))
            .collect()
    }

    /// [`Self::embed_query`] for async callers: a miss is awaited (batched with concurrent
    /// misses when a batcher is set) instead of blocking the caller's thread on the model.
    pub async fn embed_query_async(&self, text: &str) -> Result<Arc<Vec<f32>>, EmbedError> {
        let key = cache_key(text);
        if let Some(hit) = self.cached(&key) {
            return Ok(hit);
        }
        let vector = match &self.batcher {
            Some(batcher) => batcher.embed(key.clone()).await?,
            None => self.inner.embed(&key)?,
        };
        Ok(self.remember(key, vector))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Counts calls; its vectors encode the text length so results can be told apart.
    struct Counting(AtomicUsize);

    impl Embedder for Counting {
        fn model_id(&self) -> &str {
            "counting"
        }
        fn dimension(&self) -> usize {
            1
        }
        fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.0.fetch_add(texts.len(), Ordering::SeqCst);
            Ok(texts.iter().map(|t| vec![t.len() as f32]).collect())
        }
    }

    #[test]
    fn normalised_repeats_hit_the_cache() {
        let cached = CachedEmbedder::new(Counting(AtomicUsize::new(0)), 10);
        let a = cached.embed_query("What is my  return window?").unwrap();
        let b = cached.embed_query("what is my return window?").unwrap();
        assert_eq!(a, b);
        assert_eq!(cached.inner().0.load(Ordering::SeqCst), 1);
        let stats = cached.stats();
        assert_eq!((stats.hits, stats.misses, stats.entries), (1, 1, 1));
        assert_eq!(stats.hit_rate(), 0.5);
    }

    #[tokio::test]
    async fn async_misses_go_through_the_batcher_and_fill_the_same_cache() {
        let model = Arc::new(Counting(AtomicUsize::new(0)));
        let cached = CachedEmbedder::new(Counting(AtomicUsize::new(0)), 10)
            .with_batcher(EmbedBatcher::spawn(model.clone(), 8, 2));
        let a = cached.embed_query_async("Return  window?").await.unwrap();
        let b = cached.embed_query("return window?").unwrap();
        assert_eq!(a, b);
        assert_eq!(
            model.0.load(Ordering::SeqCst),
            1,
            "the batcher's model embedded it"
        );
        assert_eq!(
            cached.inner().0.load(Ordering::SeqCst),
            0,
            "then the cache answered"
        );
        assert_eq!(cached.batch_stats().unwrap().texts, 1);
    }

    #[test]
    fn capacity_bounds_the_cache_lru_first() {
        let cached = CachedEmbedder::new(Counting(AtomicUsize::new(0)), 2);
        for q in ["a", "bb", "a", "ccc", "bb"] {
            cached.embed_query(q).unwrap();
        }
        // "bb" was least recently used when "ccc" arrived, so it was evicted and re-embedded.
        assert_eq!(cached.inner().0.load(Ordering::SeqCst), 4);
        assert_eq!(cached.stats().entries, 2);
    }
}
