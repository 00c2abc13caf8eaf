//! A circuit breaker for an HTTP dependency (the LLM, the order system, the employee
//! directory): after repeated failures, stop calling it for a while instead of making every turn
//! wait for its timeouts.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use backon::{BackoffBuilder, ExponentialBackoff, ExponentialBuilder};

/// Exponential delays from `min` to `max` with jitter (requests that failed together do not
/// retry together), `retries` of them.
pub fn jittered_backoff(min: Duration, max: Duration, retries: usize) -> ExponentialBackoff {
    ExponentialBuilder::default()
        .with_min_delay(min)
        .with_max_delay(max)
        .with_jitter()
        .with_max_times(retries)
        .build()
}

/// Stops calling an endpoint after `failures` consecutive failures, for `cooldown`; then lets
/// calls through again, and one more failure re-opens it at once.
#[derive(Debug)]
pub struct CircuitBreaker {
    /// What it guards, for the log (`llm`, `orders`).
    endpoint: &'static str,
    failures: u32,
    cooldown: Duration,
    state: Mutex<BreakerState>,
}

#[derive(Debug, Default)]
struct BreakerState {
    consecutive_failures: u32,
    open_until: Option<Instant>,
}

impl CircuitBreaker {
    pub fn new(endpoint: &'static str, failures: u32, cooldown: Duration) -> CircuitBreaker {
        CircuitBreaker {
            endpoint,
            failures: failures.max(1),
            cooldown,
            state: Mutex::default(),
        }
    }

    /// `Some(remaining)` while the breaker is open.
    pub fn open_for(&self) -> Option<Duration> {
        let state = self.state.lock().expect("breaker lock");
        state
            .open_until
            .and_then(|until| until.checked_duration_since(Instant::now()))
            .filter(|left| !left.is_zero())
    }

    pub fn record_success(&self) {
        *self.state.lock().expect("breaker lock") = BreakerState::default();
    }

    pub fn record_failure(&self) {
        let mut state = self.state.lock().expect("breaker lock");
        state.consecutive_failures += 1;
        if state.consecutive_failures >= self.failures {
            if state.open_until.is_none_or(|until| until <= Instant::now()) {
                tracing::warn!(
                    endpoint = self.endpoint,
                    failures = state.consecutive_failures,
                    cooldown_secs = self.cooldown.as_secs_f64(),
                    "circuit breaker open"
                );
            }
            state.open_until = Some(Instant::now() + self.cooldown);
        }
    }
}
