//! What the chain reports about each stage it runs (wall time and the thread CPU it used), to
//! whoever keeps metrics: the Kafka workers' Prometheus counters, or nothing.

use std::time::Duration;

use crate::stage::StageName;

pub trait StageObserver: Send + Sync {
    /// `cpu` is `None` when the stage resumed on another thread (it awaited something), where
    /// a thread-CPU delta would mix two threads.
    fn stage_finished(&self, stage: StageName, wall: Duration, cpu: Option<Duration>);
}

/// Observes nothing: eval, ask and tests.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoObserver;

impl StageObserver for NoObserver {
    fn stage_finished(&self, _: StageName, _: Duration, _: Option<Duration>) {}
}

/// CPU time of the calling thread so far.
fn thread_cpu() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes only into the timespec we own; this clock id always exists
    // on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    Duration::new(
        now.tv_sec.max(0) as u64,
        now.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// Measures the thread CPU time of a step that may or may not yield.
#[derive(Debug)]
pub struct ThreadCpuTimer {
    thread: std::thread::ThreadId,
    started: Duration,
}

impl ThreadCpuTimer {
    pub fn start() -> ThreadCpuTimer {
        ThreadCpuTimer {
            thread: std::thread::current().id(),
            started: thread_cpu(),
        }
    }

    /// The CPU used since `start`, if the step ended on the thread it started on.
    pub fn finish(self) -> Option<Duration> {
        (std::thread::current().id() == self.thread)
            .then(|| thread_cpu().saturating_sub(self.started))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_work_on_this_thread() {
        let timer = ThreadCpuTimer::start();
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        std::hint::black_box(x);
        assert!(timer.finish().unwrap() > Duration::ZERO);
    }

    #[test]
    fn a_step_that_moved_threads_is_not_counted() {
        let timer = ThreadCpuTimer::start();
        let moved = std::thread::spawn(move || timer.finish()).join().unwrap();
        assert_eq!(moved, None);
    }
}
