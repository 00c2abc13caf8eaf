//! Micro-batching of query embeddings. Concurrent cache misses (turns of different conversations
//! processed in parallel lanes) queue here and a model thread embeds whatever is queued as one
//! batch: a batch of 8 short questions takes about 4.5x as long as one on this CPU, so under
//! load of new questions the model's throughput nearly doubles, and with no load a question is
//! embedded at once (no waiting for a batch to fill).
//!
//! Callers await the result instead of blocking their async worker thread on the model.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use crate::embed::{embed_checked, EmbedError, Embedder};

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

impl std::fmt::Debug for EmbedBatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbedBatcher")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl EmbedBatcher {
    /// Starts `threads` model threads sharing one queue; they end when the batcher is dropped.
    /// Each thread embeds whatever is queued (up to `max_batch`) as one batch, so with two
    /// threads two batches run at once: the model parallelises across texts, which on a small
    /// CPU beats splitting each matrix product over threads that spin-wait for each other.
    pub fn spawn(embedder: Arc<dyn Embedder>, max_batch: usize, threads: usize) -> EmbedBatcher {
        let (tx, rx) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(rx));
        let counters = Arc::new(Counters::default());
        let max_batch = max_batch.max(1);
        for n in 0..threads.max(1) {
            let (queue, embedder, counters) = (queue.clone(), embedder.clone(), counters.clone());
            std::thread::Builder::new()
                .name(format!("embed-batcher-{n}"))
                .spawn(move || {
                    while let Some(jobs) = next_batch(&queue, max_batch) {
                        run_batch(embedder.as_ref(), &counters, jobs);
                    }
                })
                .expect("spawning an embedding thread");
        }
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

    /// Several texts queued together before any is awaited, so the model thread can embed
    /// them in one pass.
    pub async fn embed_many(&self, texts: Vec<String>) -> Vec<Result<Vec<f32>, EmbedError>> {
        let mut answers = Vec::with_capacity(texts.len());
        for text in texts {
            let (reply, answer) = tokio::sync::oneshot::channel();
            let sent = self.jobs.send(Job { text, reply });
            answers.push(sent.ok().map(|()| answer));
        }
        let mut results = Vec::with_capacity(answers.len());
        for answer in answers {
            let stopped = || EmbedError::Service("embedding thread stopped".into());
            results.push(match answer {
                None => Err(stopped()),
                Some(answer) => answer
                    .await
                    .map_err(|_| stopped())
                    .and_then(|r| r.map_err(EmbedError::Service)),
            });
        }
        results
    }

    pub fn stats(&self) -> BatchStats {
        BatchStats {
            batches: self.counters.batches.load(Ordering::Relaxed),
            texts: self.counters.texts.load(Ordering::Relaxed),
        }
    }
}

/// Waits for a job, then takes whatever else is already queued, up to `max_batch`. `None` once
/// the batcher is dropped. The queue lock is held only while taking jobs, never while embedding.
fn next_batch(queue: &Mutex<mpsc::Receiver<Job>>, max_batch: usize) -> Option<Vec<Job>> {
    let queue = queue
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut jobs = vec![queue.recv().ok()?];
    while jobs.len() < max_batch {
        match queue.try_recv() {
            Ok(job) => jobs.push(job),
            Err(_) => break,
        }
    }
    Some(jobs)
}

fn run_batch(embedder: &dyn Embedder, counters: &Counters, jobs: Vec<Job>) {
    let texts: Vec<&str> = jobs.iter().map(|j| j.text.as_str()).collect();
    let result = embed_checked(embedder, &texts);
    counters.batches.fetch_add(1, Ordering::Relaxed);
    counters
        .texts
        .fetch_add(jobs.len() as u64, Ordering::Relaxed);
    // A caller that gave up (cancelled turn) is no error: send results are ignored.
    match result {
        Ok(vectors) => {
            for (job, vector) in jobs.into_iter().zip(vectors) {
                let _ = job.reply.send(Ok(vector));
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Slow on purpose, so that requests pile up while a batch runs; records batch sizes.
    struct Slow {
        sizes: Mutex<Vec<usize>>,
        fail: bool,
        running: AtomicU64,
        most_running: AtomicU64,
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
            let running = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.most_running.fetch_max(running, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(100));
            self.running.fetch_sub(1, Ordering::SeqCst);
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
            running: AtomicU64::new(0),
            most_running: AtomicU64::new(0),
        })
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_requests_share_batches_and_each_gets_its_own_vector() {
        let model = slow(false);
        let batcher = Arc::new(EmbedBatcher::spawn(model.clone(), 4, 1));
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

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn model_threads_embed_batches_side_by_side() {
        for threads in [1, 2] {
            let model = slow(false);
            let batcher = Arc::new(EmbedBatcher::spawn(model.clone(), 1, threads));
            let tasks: Vec<_> = (1..=6)
                .map(|n| {
                    let batcher = batcher.clone();
                    tokio::spawn(async move { batcher.embed("x".repeat(n)).await })
                })
                .collect();
            for (n, task) in (1..=6).zip(tasks) {
                assert_eq!(task.await.unwrap().unwrap(), vec![n as f32]);
            }
            assert_eq!(
                model.most_running.load(Ordering::SeqCst),
                threads as u64,
                "{threads} model thread(s) at work at once"
            );
        }
    }

    #[tokio::test]
    async fn a_lone_request_is_embedded_at_once() {
        let model = slow(false);
        let batcher = EmbedBatcher::spawn(model.clone(), 16, 2);
        assert_eq!(batcher.embed("abc".into()).await.unwrap(), vec![3.0]);
        assert_eq!(*model.sizes.lock().unwrap(), vec![1]);
    }

    #[tokio::test]
    async fn a_model_error_reaches_every_caller_of_the_batch() {
        let batcher = EmbedBatcher::spawn(slow(true), 16, 2);
        let err = batcher.embed("abc".into()).await.unwrap_err();
        assert!(err.to_string().contains("bad input"), "{err}");
    }
}
