//! The worker group's consumer lag over time, sampled during a load test the way an operator's
//! lag monitor does it: the group's committed offsets against the partitions' end offsets.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use policy_kafka::assignment::group_progress;
use policy_kafka::KafkaConfig;
use rdkafka::consumer::BaseConsumer;

/// (seconds since the run started, lag in messages).
pub type LagSample = (f64, i64);

#[derive(Debug)]
pub struct LagSampler {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Vec<LagSample>>,
}

impl LagSampler {
    /// Samples `group`'s lag on `topic` about once a second on a thread of its own (the offset
    /// requests block), until [`LagSampler::finish`]. The client only reads offsets: it never
    /// joins the group.
    pub fn start(
        kafka: &KafkaConfig,
        group: &str,
        topic: &str,
        started: Instant,
    ) -> anyhow::Result<LagSampler> {
        let consumer: BaseConsumer = kafka
            .client()
            .set("group.id", group)
            .set("enable.auto.commit", "false")
            .create()?;
        let stop = Arc::new(AtomicBool::new(false));
        let topics = vec![topic.to_string()];
        let thread_stop = stop.clone();
        let thread = std::thread::Builder::new()
            .name("lag-sampler".into())
            .spawn(move || {
                let mut samples = Vec::new();
                let mut next = Instant::now();
                while !thread_stop.load(Ordering::Relaxed) {
                    if Instant::now() >= next {
                        next += Duration::from_secs(1);
                        if let Some((committed, end)) =
                            group_progress(&consumer, &topics, Duration::from_secs(2))
                        {
                            samples.push((started.elapsed().as_secs_f64(), end - committed));
                        }
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                samples
            })?;
        Ok(LagSampler { stop, thread })
    }

    pub fn finish(self) -> Vec<LagSample> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap_or_default()
    }
}

/// The largest lag sampled within each second of the run (`None`: no sample that second).
pub fn lag_per_second(samples: &[LagSample], seconds: usize) -> Vec<Option<i64>> {
    let mut per_second = vec![None; seconds];
    for &(at, lag) in samples {
        if let Some(slot) = per_second.get_mut(at as usize) {
            *slot = Some(slot.map_or(lag, |seen: i64| seen.max(lag)));
        }
    }
    per_second
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_fall_into_their_second_and_the_largest_wins() {
        let samples = [(0.2, 5), (1.1, 40), (1.9, 30), (3.5, 0), (9.0, 7)];
        assert_eq!(
            lag_per_second(&samples, 4),
            vec![Some(5), Some(40), None, Some(0)],
            "second 2 had no sample; the sample past the run is ignored"
        );
        assert!(lag_per_second(&[], 2).iter().all(Option::is_none));
    }
}
