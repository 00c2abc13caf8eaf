//! A progress line for long replays on standard error: position, rate and ETA, redrawn in
//! place on a terminal and printed every few seconds otherwise (logs, CI).

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

#[derive(Debug)]
pub struct Progress {
    enabled: bool,
    terminal: bool,
    total: Option<u64>,
    started: Instant,
    last_drawn: Option<Instant>,
}

impl Progress {
    pub fn new(enabled: bool, total: Option<u64>) -> Progress {
        Progress {
            enabled,
            terminal: std::io::stderr().is_terminal(),
            total,
            started: Instant::now(),
            last_drawn: None,
        }
    }

    /// `position`: messages or rows read; `turns`: turns replayed.
    pub fn update(&mut self, position: u64, turns: u64) {
        if !self.enabled {
            return;
        }
        let every = if self.terminal {
            Duration::from_millis(200)
        } else {
            Duration::from_secs(5)
        };
        if self.last_drawn.is_some_and(|t| t.elapsed() < every) {
            return;
        }
        self.last_drawn = Some(Instant::now());
        let line = line(position, turns, self.total, self.started.elapsed());
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal {
            write!(err, "\r\x1b[2K{line}")
        } else {
            writeln!(err, "{line}")
        };
    }

    pub fn finish(&mut self) {
        if self.enabled && self.terminal && self.last_drawn.is_some() {
            let _ = writeln!(std::io::stderr());
        }
    }
}

/// `1200/5000 (24 %), 310 turns/s, ETA 12 s`.
pub fn line(position: u64, turns: u64, total: Option<u64>, elapsed: Duration) -> String {
    let seconds = elapsed.as_secs_f64().max(1e-3);
    let rate = turns as f64 / seconds;
    match total.filter(|&t| t > 0) {
        Some(total) => {
            let done = position.min(total);
            let scan_rate = position as f64 / seconds;
            let eta = (total - done) as f64 / scan_rate.max(1e-9);
            format!(
                "replay {done}/{total} ({:.0} %), {rate:.0} turns/s, ETA {:.0} s",
                done as f64 * 100.0 / total as f64,
                eta
            )
        }
        None => format!("replay {turns} turns, {rate:.0} turns/s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_gives_position_rate_and_eta() {
        let line = line(250, 250, Some(1000), Duration::from_secs(5));
        assert_eq!(line, "replay 250/1000 (25 %), 50 turns/s, ETA 15 s");
        assert_eq!(
            super::line(10, 10, None, Duration::from_secs(2)),
            "replay 10 turns, 5 turns/s"
        );
    }
}
