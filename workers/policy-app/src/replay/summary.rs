//! The readable side of a replay: counts per change kind and per (region, version, topic), and
//! the first changed turns side by side, in the terminal and as a self-contained HTML page.
//! Counts and a bounded sample only: a replay of millions of turns keeps the same memory.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use policy_audit::svg::{bar_chart, escape};
use serde::Serialize;

use super::diff::{Change, Diff};

/// Changed turns kept for the terminal and the page (all of them are in the JSONL file).
const EXAMPLES: usize = 200;
/// Of which the terminal prints.
const PRINTED: usize = 20;

/// What a replay found, in counts.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// `rerun`, `rerun --pinned`, `rejudge`, ...: what was done, for the heading.
    pub mode: String,
    pub turns: u64,
    pub by_change: BTreeMap<Change, u64>,
    /// (region, version, topic) of what was served → change kind → turns.
    #[serde(skip)]
    pub by_group: BTreeMap<(String, String, String), BTreeMap<Change, u64>>,
    /// Judge reason codes of the verdicts that changed (re-judge).
    pub by_reason: BTreeMap<String, u64>,
    /// Where the turns were read back from (`topic`, `audit`).
    pub read_from: BTreeMap<String, u64>,
    #[serde(skip)]
    pub examples: Vec<Diff>,
    /// Set when the replay was stopped before its source was exhausted: how far it got.
    pub interrupted: Option<String>,
    /// The id its rows carry in the `replays` table (`--write-clickhouse`).
    pub replay_id: Option<String>,
    pub seconds: f64,
}

impl Summary {
    pub fn new(mode: &str) -> Summary {
        Summary {
            mode: mode.to_string(),
            ..Summary::default()
        }
    }

    pub fn add(&mut self, diff: &Diff) {
        self.turns += 1;
        *self.by_change.entry(diff.change).or_default() += 1;
        *self
            .by_group
            .entry(diff.group())
            .or_default()
            .entry(diff.change)
            .or_default() += 1;
        *self
            .read_from
            .entry(diff.read_from.to_string())
            .or_default() += 1;
        if let Some(verdicts) = diff.verdicts.as_ref().filter(|_| diff.change.is_change()) {
            for reason in &verdicts.reasons_now {
                let code = reason.split(':').next().unwrap_or(reason).to_string();
                *self.by_reason.entry(code).or_default() += 1;
            }
        }
        let noteworthy = diff.change.is_change() || diff.change == Change::Failed;
        if noteworthy && self.examples.len() < EXAMPLES {
            self.examples.push(diff.clone());
        }
    }

    pub fn count(&self, change: Change) -> u64 {
        self.by_change.get(&change).copied().unwrap_or(0)
    }

    /// Turns whose replay differs from what was served.
    pub fn changed(&self) -> u64 {
        self.by_change
            .iter()
            .filter(|(c, _)| c.is_change())
            .map(|(_, n)| n)
            .sum()
    }

    fn rate(&self) -> f64 {
        self.turns as f64 / self.seconds.max(1e-9)
    }

    fn group_label((region, version, topic): &(String, String, String)) -> String {
        let topic = if topic.is_empty() { "-" } else { topic };
        format!("{region} {version} {topic}")
    }

    pub fn render_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}: {} turn(s) in {:.1} s ({:.0}/s), {} changed",
            self.mode,
            self.turns,
            self.seconds,
            self.rate(),
            self.changed()
        );
        if let Some(at) = &self.interrupted {
            let _ = writeln!(out, "  INTERRUPTED: {at}");
        }
        if let Some(id) = &self.replay_id {
            let _ = writeln!(out, "  stored in the replays table as replay_id = '{id}'");
        }
        for (change, n) in &self.by_change {
            let _ = writeln!(out, "  {:<20} {n:>8}", change.as_str());
        }
        for (code, n) in &self.by_reason {
            let _ = writeln!(out, "  reason {code}: {n}");
        }
        let _ = writeln!(out, "\n  {:<40} changes", "region version topic");
        for (group, changes) in &self.by_group {
            let parts: Vec<String> = changes
                .iter()
                .map(|(c, n)| format!("{} {n}", c.as_str()))
                .collect();
            let _ = writeln!(
                out,
                "  {:<40} {}",
                Self::group_label(group),
                parts.join(", ")
            );
        }
        for diff in self.examples.iter().take(PRINTED) {
            let _ = writeln!(
                out,
                "\n  {} ({}): {}",
                diff.turn_id,
                diff.input,
                diff.change.as_str()
            );
            if let Some(was) = &diff.recorded {
                let _ = writeln!(
                    out,
                    "    served: {} {} | {}",
                    was.outcome, was.resolved_version, was.text
                );
            }
            if let Some(now) = &diff.rerun {
                let _ = writeln!(
                    out,
                    "    re-run: {} {} | {}",
                    now.outcome, now.resolved_version, now.text
                );
            }
            if let Some(v) = &diff.verdicts {
                let _ = writeln!(
                    out,
                    "    verdict: {} -> {}: {}",
                    v.then,
                    v.now,
                    v.reasons_now.join("; ")
                );
            }
            if let Some(error) = &diff.error {
                let _ = writeln!(out, "    error: {error}");
            }
        }
        out
    }

    /// A self-contained page: inline CSS and SVG, no scripts, no external requests.
    pub fn render_html(&self, title: &str, parameters: &str) -> String {
        let bars: Vec<(String, f64)> = self
            .by_change
            .iter()
            .map(|(c, n)| (c.as_str().to_string(), *n as f64))
            .collect();
        let mut groups = String::from("<table><tr><th>region</th><th>version</th><th>topic</th>");
        for change in Change::ALL {
            let _ = write!(groups, "<th>{}</th>", change.as_str());
        }
        groups.push_str("</tr>\n");
        for ((region, version, topic), changes) in &self.by_group {
            let _ = write!(
                groups,
                "<tr><td>{}</td><td>{}</td><td>{}</td>",
                escape(region),
                escape(version),
                escape(topic)
            );
            for change in Change::ALL {
                let n = changes.get(&change).copied().unwrap_or(0);
                let class = if n > 0 && change.is_change() {
                    " class=\"fail\""
                } else {
                    ""
                };
                let _ = write!(groups, "<td{class}>{n}</td>");
            }
            groups.push_str("</tr>\n");
        }
        groups.push_str("</table>\n");
        let mut examples = String::new();
        for diff in &self.examples {
            let said = |s: Option<&super::diff::Said>| {
                s.map(|s| {
                    format!(
                        "<b>{} {}</b> [{}]<br>{}",
                        escape(&s.outcome),
                        escape(&s.resolved_version),
                        escape(&s.cited_clause_ids.join(", ")),
                        escape(&s.text)
                    )
                })
                .unwrap_or_default()
            };
            let verdict = diff
                .verdicts
                .as_ref()
                .map(|v| {
                    format!(
                        "{} → {}<br>{}",
                        escape(&v.then),
                        escape(&v.now),
                        escape(&v.reasons_now.join("; "))
                    )
                })
                .or_else(|| diff.error.as_deref().map(escape))
                .unwrap_or_default();
            let _ = writeln!(
                examples,
                "<tr><td>{}<br><small>{}</small></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&diff.turn_id),
                escape(&diff.input.to_string()),
                diff.change.as_str(),
                said(diff.recorded.as_ref()),
                said(diff.rerun.as_ref()),
                verdict
            );
        }
        let interrupted = self
            .interrupted
            .as_deref()
            .map(|at| format!("<p class=\"fail\">Interrupted: {}</p>", escape(at)))
            .unwrap_or_default();
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<title>{title}</title>\n<style>\
body{{font-family:sans-serif;margin:2em;max-width:1200px}}\
table{{border-collapse:collapse;margin-bottom:1.5em;font-size:13px}}\
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}}\
th{{background:#f3f3f3}}.fail{{color:#b00;font-weight:bold}}svg{{display:block;margin:1em 0}}\
</style></head><body>\n<h1>{title}</h1>\n<p>{mode}: {turns} turn(s), {changed} changed, \
{seconds:.1} s. Parameters: <code>{parameters}</code></p>\n{interrupted}\n{chart}\n\
<h2>By region, version and topic</h2>\n{groups}\n<h2>Changed turns (first {max})</h2>\n\
<table><tr><th>turn</th><th>change</th><th>served</th><th>re-run</th><th>verdict / error</th></tr>\n\
{examples}</table>\n</body></html>\n",
            title = escape(title),
            mode = escape(&self.mode),
            turns = self.turns,
            changed = self.changed(),
            seconds = self.seconds,
            parameters = escape(parameters),
            chart = bar_chart("turns per change kind", &bars, None),
            max = EXAMPLES,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::diff::Said;
    use policy_avro::InputCoordinates;

    fn diff(change: Change, version: &str, text: &str) -> Diff {
        let said = Said {
            outcome: "answer".into(),
            resolved_region: "eu".into(),
            resolved_version: version.into(),
            cited_clause_ids: vec![format!("{version}#sec-3.2")],
            reason_code: String::new(),
            text: text.into(),
            manifest_sha: "abc".into(),
            topic: "return_window".into(),
        };
        Diff {
            turn_id: format!("t-{version}-{text}"),
            conversation_id: "c".into(),
            input: InputCoordinates {
                topic: "policy.turns".into(),
                partition: 0,
                offset: 1,
            },
            read_from: "audit",
            change,
            recorded: Some(said.clone()),
            rerun: Some(Said {
                text: format!("{text} <b>now</b>"),
                ..said
            }),
            verdicts: None,
            error: None,
        }
    }

    #[test]
    fn counts_per_change_and_group_and_keeps_only_changed_examples() {
        let mut summary = Summary::new("rerun");
        summary.add(&diff(Change::Same, "eu-v3", "14 days"));
        summary.add(&diff(Change::TextChanged, "eu-v4", "30 days"));
        summary.add(&diff(Change::TextChanged, "eu-v4", "45 days"));
        assert_eq!(summary.turns, 3);
        assert_eq!(summary.changed(), 2);
        assert_eq!(summary.count(Change::Same), 1);
        assert_eq!(summary.examples.len(), 2);
        let key = (
            "eu".to_string(),
            "eu-v4".to_string(),
            "return_window".to_string(),
        );
        assert_eq!(summary.by_group[&key][&Change::TextChanged], 2);
        let text = summary.render_text();
        assert!(text.contains("eu eu-v4 return_window"), "{text}");
        let html = summary.render_html("Replay", "--pinned");
        assert!(
            html.contains("&lt;b&gt;now&lt;/b&gt;"),
            "answer text is escaped"
        );
        assert!(!html.contains("<script"), "self-contained, no script");
    }

    #[test]
    fn the_sample_is_bounded_however_many_turns_change() {
        let mut summary = Summary::new("rerun");
        for n in 0..(EXAMPLES + 50) {
            summary.add(&diff(Change::TextChanged, "eu-v4", &n.to_string()));
        }
        assert_eq!(summary.examples.len(), EXAMPLES);
        assert_eq!(summary.changed(), (EXAMPLES + 50) as u64);
    }
}
