//! `policyctl report`: audit tables from ClickHouse, a self-contained HTML page, and alert
//! thresholds (exit 2 when one fails; errors exit 1).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use policy_audit::analytics::Window;
use policy_audit::report::{self, Thresholds};
use policy_audit::{AuditConfig, AuditStore};
use policy_settings::Settings;

/// Exit code of `policyctl report` when a threshold fails (errors exit with 1).
const ALERT_EXIT_CODE: u8 = 2;

#[derive(Args)]
pub(crate) struct ReportArgs {
    /// Only turns processed at or after this instant (RFC 3339 or YYYY-MM-DD).
    #[arg(long)]
    since: Option<String>,
    /// Only turns processed before this instant.
    #[arg(long)]
    until: Option<String>,
    /// Where the self-contained HTML report is written.
    #[arg(long, default_value = ".run/report.html")]
    html: PathBuf,
    /// Policy corpus, to know which topics differ by region (entropy-collapse check).
    #[arg(long, env = "POLICY_CORPUS", default_value = "golden/policies")]
    policies: PathBuf,
    /// Fail when a region's grounding rate is below this.
    #[arg(long, default_value_t = 0.995)]
    min_grounding_rate: f64,
    /// Fail when a region's judge mismatch rate is above this.
    #[arg(long, default_value_t = 0.01)]
    max_mismatch_rate: f64,
    #[command(flatten)]
    audit: AuditConfig,
}

fn epoch_seconds(flag: &str, raw: &Option<String>) -> anyhow::Result<Option<u32>> {
    raw.as_deref()
        .map(|raw| {
            let at = policy_core::parse_instant(raw).with_context(|| format!("--{flag}"))?;
            u32::try_from(at.timestamp()).with_context(|| format!("--{flag} out of range"))
        })
        .transpose()
}

pub(crate) async fn run(args: ReportArgs) -> anyhow::Result<ExitCode> {
    args.audit.validate()?;
    let window = Window {
        since: epoch_seconds("since", &args.since)?,
        until: epoch_seconds("until", &args.until)?,
    };
    let corpus = policy_core::load_dir(&args.policies)
        .with_context(|| format!("corpus {}", args.policies.display()))?;
    let thresholds = Thresholds {
        min_grounding_rate: args.min_grounding_rate,
        max_mismatch_rate: args.max_mismatch_rate,
        region_dependent_topics: corpus.region_dependent_topics(),
    };
    let store = AuditStore::connect(&args.audit).await?;
    let built = report::build(&store, window, &thresholds).await?;
    print!("{}", report::render_text(&built));
    let generated_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    if let Some(parent) = args.html.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&args.html, report::render_html(&built, &generated_at))
        .with_context(|| format!("writing {}", args.html.display()))?;
    println!("HTML report: {}", args.html.display());
    Ok(if built.alerts.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(ALERT_EXIT_CODE)
    })
}
