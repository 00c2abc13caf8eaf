//! What a load test reads off the worker under load: its process CPU and RSS and its threads'
//! CPU by name (from /proc), and its step counters (from /metrics).

use std::collections::BTreeMap;

/// A worker's /metrics: step times, step CPU and every other counter.
#[derive(Debug, Default)]
pub struct Scrape {
    pub steps: BTreeMap<String, f64>,
    /// `policy_step_cpu_seconds_total`: thread CPU per step.
    pub cpu_steps: BTreeMap<String, f64>,
    pub counters: BTreeMap<String, f64>,
}

pub async fn scrape(url: &str) -> Option<Scrape> {
    let text = reqwest::get(url).await.ok()?.text().await.ok()?;
    let value = |l: &str| l.rsplit(' ').next()?.parse::<f64>().ok();
    let per_step = |metric: &str| {
        text.lines()
            .filter(|l| l.starts_with(&format!("{metric}{{")))
            .filter_map(|l| {
                let step = l.split("step=\"").nth(1)?.split('"').next()?;
                Some((step.to_string(), value(l)?))
            })
            .collect()
    };
    let counters = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("policy_step_"))
        .filter_map(|l| Some((l.split('{').next()?.to_string(), value(l)?)))
        .collect();
    Some(Scrape {
        steps: per_step("policy_step_seconds_total"),
        cpu_steps: per_step("policy_step_cpu_seconds_total"),
        counters,
    })
}

impl Scrape {
    pub fn delta(&self, earlier: &Scrape, counter: &str) -> f64 {
        let at = |s: &Scrape| s.counters.get(counter).copied().unwrap_or(0.0);
        at(self) - at(earlier)
    }
}

/// CPU clock ticks of a process's threads, grouped by what they run (thread names).
pub fn thread_groups(pid: u32) -> BTreeMap<&'static str, u64> {
    let mut groups = BTreeMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return groups;
    };
    for task in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        let Some((head, tail)) = stat.rsplit_once(')') else {
            continue;
        };
        let name = head.split_once('(').map(|(_, n)| n).unwrap_or_default();
        let fields: Vec<&str> = tail.split_whitespace().collect();
        let field = |i: usize| {
            fields
                .get(i)
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0)
        };
        // Thread names are cut at 15 characters by the kernel.
        let group = if name.starts_with("rdk:") || name.starts_with("producer pollin") {
            "kafka client threads"
        } else if name.starts_with("embed-batcher") {
            "model threads"
        } else if name.starts_with("tokio-r") {
            "async worker threads"
        } else {
            "other threads"
        };
        *groups.entry(group).or_insert(0) += field(11) + field(12);
    }
    groups
}

/// (utime + stime in clock ticks, RSS in KiB) of a process, from /proc.
pub fn process_usage(pid: u32) -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some((ticks, rss))
}

/// A snapshot of the worker: process CPU and RSS, its threads' CPU, its counters.
#[derive(Debug, Default)]
pub struct WorkerSample {
    pub usage: Option<(u64, u64)>,
    pub threads: Option<BTreeMap<&'static str, u64>>,
    pub metrics: Option<Scrape>,
}

impl WorkerSample {
    pub async fn take(pid: Option<u32>, metrics_url: Option<&str>) -> WorkerSample {
        WorkerSample {
            usage: pid.and_then(process_usage),
            threads: pid.map(thread_groups),
            metrics: match metrics_url {
                Some(url) => scrape(url).await,
                None => None,
            },
        }
    }

    /// Clock ticks of a thread group since `earlier`.
    pub fn group_ticks(&self, earlier: &WorkerSample, group: &str) -> u64 {
        let at = |s: &WorkerSample| {
            s.threads
                .as_ref()
                .and_then(|g| g.get(group).copied())
                .unwrap_or(0)
        };
        at(self).saturating_sub(at(earlier))
    }
}
