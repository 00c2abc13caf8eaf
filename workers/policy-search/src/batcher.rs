//! Micro-batching of query embeddings. Concurrent cache misses (turns of different conversations
//! processed in parallel lanes) queue here and one model thread embeds whatever is queued as
//! one batch: a batch of 8 short questions costs about 2x one question on this CPU, so under
//! load of new questions the model's throughput roughly doubles, and with no load a question
//! is embedded at once (no waiting for a batch to fill).
//!
//! Callers await the result instead of blocking their async worker thread on the model.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use crate::embed::{EmbedError, Embedder};

struct Job {
    text: String,
    reply: tokio::sync::oneshot::Sender<Result<Vec<f32>, String>>,
}

#[derive(Debug, Default)]
struct Counters {
    batches: AtomicU64,
    texts: AtomicU64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BatchStats {
    pub batches: u64,
    pub texts: u64,
}

impl BatchStats {
    pub fn mean_batch(&self) -> f64 {
        if self.batches == 0 {
            0.0
        } else {
            self.texts as f64 / self.batches as f64
        }
    }
}

pub struct EmbedBatcher {
    jobs: mpsc::Sender<Job>,
    counters: Arc<Counters>,
}

impl EmbedBatcher {
    /// Starts the model thread. It ends when the batcher is dropped.
    pub fn spawn(embedder: Arc<dyn Embedder>, max_batch: usize) -> EmbedBatcher {
        let (tx, rx) = mpsc::channel::<Job>();
        let counters = Arc::new(Counters::default());
        let thread_counters = counters.clone();
        let max_batch = max_batch.max(1);
        std::thread::Builder::new()
            .name("embed-batcher".into())
            .spawn(move || {
                while let Ok(first) = rx.recv() {
                    let mut jobs = vec![first];
                    while jobs.len() < max_batch {
                        match rx.try_recv() {
                            Ok(job) => jobs.push(job),
                            Err(_) => break,
                        }
                    }
                    let texts: Vec<&str> = jobs.iter().map(|j| j.text.as_str()).collect();
                    let result = embedder.embed_batch(&texts);
                    let size = jobs.len() as u64;
                    thread_counters.batches.fetch_add(1, Ordering::Relaxed);
                    thread_counters.texts.fetch_add(size, Ordering::Relaxed);
                    match result {
                        Ok(vectors) if vectors.len() == jobs.len() => {
                            for (job, vector) in jobs.into_iter().zip(vectors) {
                                // A caller that gave up (cancelled turn) is no error.
                                let _ = job.reply.send(Ok(vector));
                            }
                        }
                        Ok(vectors) => {
                            let reason =
                                format!("{} vectors for {} texts", vectors.len(), jobs.len());
                            for job in jobs {
                                let _ = job.reply.send(Err(reason.clone()));
                            }
                        }
                        Err(e) => {
                            let reason = e.to_string();
                            for job in jobs {
                                let _ = job.reply.send(Err(reason.clone()));
                            }
                        }
                    }
                }
            })
            .expect("spawning the embedding thread");
        EmbedBatcher { jobs: tx, counters }
    }

    pub async fn embed(&self, text: String) -> Result<Vec<f32>, EmbedError> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.jobs
            .send(Job { text, reply })
            .map_err(|_| EmbedError::Service("embedding thread stopped".into()))?;
        answer
            .await
            .map_err(|_| EmbedError::Service("embedding thread stopped".into()))?
            .map_err(EmbedError::Service)
    }

    pub fn stats(&self) -> BatchStats {
        BatchStats {
            batches: self.counters.batches.load(Ordering::Relaxed),
            texts: self.counters.texts.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::time::Duration;

    /// Slow on purpose, so that requests pile up while a batch runs; records batch sizes.
    struct Slow {
        sizes: Mutex<Vec<usize>>,
        fail: bool,
    }

    impl Embedder for Slow {
        fn model_id(&self) -> &str {
            "slow"
        }
        fn dimension(&self) -> usize {
            1
        }
        fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.sizes.lock().unwrap().push(texts.len());
            std::thread::sleep(Duration::from_millis(100));
            if self.fail {
                return Err(EmbedError::Tokenize("bad input".into()));
            }
            Ok(texts.iter().map(|t| vec![t.len() as f32]).collect())
        }
    }

    fn slow(fail: bool) -> Arc<Slow> {
        Arc::new(Slow {
            sizes: Mutex::new(Vec::new()),
            fail,
        })
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_requests_share_batches_and_each_gets_its_own_vector() {
        let model = slow(false);
        let batcher = Arc::new(EmbedBatcher::spawn(model.clone(), 4));
        let tasks: Vec<_> = (1..=9)
            .map(|n| {
                let batcher = batcher.clone();
                tokio::spawn(async move { (n, batcher.embed("x".repeat(n)).await) })
            })
            .collect();
        for task in tasks {
            let (n, vector) = task.await.unwrap();
            assert_eq!(
                vector.unwrap(),
                vec![n as f32],
                "text {n} got its own vector"
            );
        }
        let sizes = model.sizes.lock().unwrap().clone();
        assert_eq!(sizes.iter().sum::<usize>(), 9);
        assert!(
            sizes.iter().all(|s| *s <= 4),
            "max batch honoured: {sizes:?}"
        );
        assert!(sizes.len() < 9, "requests were batched: {sizes:?}");
        let stats = batcher.stats();
        assert_eq!((stats.texts, stats.batches), (9, sizes.len() as u64));
        assert!(stats.mean_batch() > 1.0);
    }

    #[tokio::test]
    async fn a_lone_request_is_embedded_at_once() {
        let model = slow(false);
        let batcher = EmbedBatcher::spawn(model.clone(), 16);
        assert_eq!(batcher.embed("abc".into()).await.unwrap(), vec![3.0]);
        assert_eq!(*model.sizes.lock().unwrap(), vec![1]);
    }

    #[tokio::test]
    async fn a_model_error_reaches_every_caller_of_the_batch() {
        let batcher = EmbedBatcher::spawn(slow(true), 16);
        let err = batcher.embed("abc".into()).await.unwrap_err();
        assert!(err.to_string().contains("bad input"), "{err}");
    }
}
