//! The load test's chart: one self-contained SVG, no plotting dependency.

use std::path::Path;

/// One second of a load test run.
#[derive(Debug, Clone, Copy)]
pub struct ChartPoint {
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub in_flight: f64,
    /// `None`: no lag sample in that second.
    pub consumer_lag: Option<f64>,
}

/// p50/p99 latency, turns in flight and the worker group's consumer lag per second, as a
/// self-contained SVG. Latency has the left scale; turns in flight and lag (both counts of
/// turns) share the right one.
pub fn write_chart(path: &Path, series: &[ChartPoint]) -> anyhow::Result<()> {
    let (w, h, pad) = (800.0, 360.0, 50.0);
    let n = series.len().max(2) as f64;
    let max_ms = series.iter().map(|s| s.p99_ms).fold(1.0, f64::max);
    let max_turns = series
        .iter()
        .map(|s| s.in_flight.max(s.consumer_lag.unwrap_or(0.0)))
        .fold(1.0, f64::max);
    let x = |i: usize| pad + i as f64 / (n - 1.0) * (w - 2.0 * pad);
    let y = |v: f64, max: f64| h - pad - v / max * (h - 2.0 * pad);
    let line = |f: &dyn Fn(&ChartPoint) -> Option<f64>, max: f64| {
        series
            .iter()
            .enumerate()
            .filter_map(|(i, s)| f(s).map(|v| format!("{:.1},{:.1}", x(i), y(v, max))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let svg = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{pad}" y="20">End-to-end latency per second (ms, left scale, max {max_ms:.0}): p50 blue, p99 red</text>
<text x="{pad}" y="36">Turns (right scale, max {max_turns:.0}): in flight grey, worker group's consumer lag green</text>
<line x1="{pad}" y1="{b}" x2="{r}" y2="{b}" stroke="black"/><line x1="{pad}" y1="{pad}" x2="{pad}" y2="{b}" stroke="black"/><line x1="{r}" y1="{pad}" x2="{r}" y2="{b}" stroke="black"/>
<polyline fill="none" stroke="#999" stroke-width="1.5" points="{flight}"/>
<polyline fill="none" stroke="#2ca02c" stroke-width="1.5" points="{lag}"/>
<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="{p50}"/>
<polyline fill="none" stroke="#d62728" stroke-width="2" points="{p99}"/>
<text x="{pad}" y="{lab}">0 s</text><text x="{r}" y="{lab}" text-anchor="end">{secs} s</text>
</svg>
"##,
        b = h - pad,
        r = w - pad,
        lab = h - pad + 18.0,
        secs = series.len(),
        flight = line(&|s| Some(s.in_flight), max_turns),
        lag = line(&|s| s.consumer_lag, max_turns),
        p50 = line(&|s| Some(s.p50_ms), max_ms),
        p99 = line(&|s| Some(s.p99_ms), max_ms),
    );
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, svg)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(p99_ms: f64, in_flight: f64, consumer_lag: Option<f64>) -> ChartPoint {
        ChartPoint {
            p50_ms: p99_ms / 2.0,
            p99_ms,
            in_flight,
            consumer_lag,
        }
    }

    #[test]
    fn chart_scales_turns_together_and_skips_seconds_without_a_lag_sample() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("chart.svg");
        let series = [
            point(120.0, 10.0, Some(4.0)),
            point(300.0, 50.0, None),
            point(90.0, 20.0, Some(80.0)),
        ];
        write_chart(&path, &series).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains("max 300)"), "latency scale from the worst p99");
        assert!(
            svg.contains("max 80)"),
            "one scale for in-flight turns and lag"
        );
        let points_of = |colour: &str| {
            let line = svg
                .lines()
                .find(|l| l.contains(colour))
                .expect("polyline present");
            line.split("points=\"")
                .nth(1)
                .unwrap()
                .split_whitespace()
                .count()
        };
        assert_eq!(points_of("#2ca02c"), 2, "lag: only the sampled seconds");
        assert_eq!(points_of("#999"), 3, "in flight: every second");
    }
}
