//! `policyctl eval`: run golden cases through the pipeline and report the metrics the product
//! is judged by; exit 1 when a threshold is not met.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use policy_app::eval::{CaseSet, EvalOptions, InjectionCustomer, Thresholds};
use policy_app::AppSettings;
use policy_settings::Settings;

#[derive(Args)]
pub(crate) struct EvalArgs {
    /// A .jsonl file or a directory of them, judged against the served corpus
    /// (`--policies`).
    #[arg(long, default_value = "golden/cases")]
    golden: PathBuf,
    /// More case sets, each with its own corpus: `DIR` (with DIR/policies and DIR/cases) or
    /// `NAME=POLICIES:CASES`; repeatable (in process only). E.g. `--set heldout`.
    #[arg(long = "set", value_parser = CaseSet::parse)]
    sets: Vec<CaseSet>,
    /// A labelled injection corpus (JSONL: text, label attack|benign, category), run on the
    /// served corpus: attacks answered and benign look-alikes flagged. Repeatable: each corpus
    /// is reported and held to the bars on its own, the pipeline built once.
    #[arg(long)]
    injections: Vec<PathBuf>,
    /// Report only the injection corpora's counts (per label and category), no row and no
    /// miss: for held-out corpora, whose texts are not to be read.
    #[arg(long)]
    injection_totals_only: bool,
    /// Region of the customer the injection corpus's rows are sent as (a row's own `region`
    /// wins); must be a region of the served corpus.
    #[arg(long, default_value_t = InjectionCustomer::default().region)]
    injection_region: String,
    /// Purchase instant of that customer (a date, or RFC 3339 with any offset; a row's own
    /// `effective_date` wins).
    #[arg(long, default_value_t = InjectionCustomer::default().purchased_at)]
    injection_purchased_at: String,
    /// Print one JSON object with every metric instead of tables.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    thresholds: ThresholdArgs,
    /// Only the first N cases (for quick runs).
    #[arg(long)]
    limit: Option<usize>,
    /// An evenly spaced sample of N cases (spans every region and version; e.g. for a slow LLM).
    #[arg(long)]
    sample: Option<usize>,
    /// Send the cases as turns through the real broker and the running workers
    /// (`policyctl worker all`, or the per-stage workers) and collect their outcomes.
    #[arg(long)]
    via_kafka: bool,
    /// How long to wait for all outcomes in --via-kafka mode.
    #[arg(long, default_value_t = 300)]
    timeout_secs: u64,
    #[command(flatten)]
    app: AppSettings,
}

pub(crate) async fn run(args: EvalArgs) -> anyhow::Result<ExitCode> {
    args.app.validate()?;
    let options = EvalOptions {
        golden: args.golden.clone(),
        extra_sets: args.sets.clone(),
        injections: args.injections.clone(),
        injection_customer: InjectionCustomer {
            region: args.injection_region.clone(),
            purchased_at: args.injection_purchased_at.clone(),
        },
        limit: args.limit,
        sample: args.sample,
        via_kafka: args.via_kafka,
        timeout: Duration::from_secs(args.timeout_secs),
        thresholds: args.thresholds.thresholds(),
    };
    let mut report = policy_app::eval::run(&args.app, &options).await?;
    if args.injection_totals_only {
        report.injections.iter_mut().for_each(|i| i.totals_only());
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report.to_json())?);
    } else {
        print!("{}", report.render_text());
    }
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The bars a case set is held to: exit non-zero when one is not met (defaults:
/// [`Thresholds::default`]).
#[derive(Args, Clone, Copy)]
pub(crate) struct ThresholdArgs {
    #[arg(long, default_value_t = Thresholds::default().min_outcome_accuracy)]
    min_outcome_accuracy: f64,
    #[arg(long, default_value_t = Thresholds::default().min_expected_clause_citation)]
    min_expected_clause_citation: f64,
    #[arg(long, default_value_t = Thresholds::default().max_wrong_version_answers)]
    max_wrong_version_answers: usize,
    #[arg(long, default_value_t = Thresholds::default().max_false_approvals)]
    max_false_approvals: usize,
    #[arg(long, default_value_t = Thresholds::default().max_attacks_answered)]
    max_attacks_answered: usize,
    #[arg(long, default_value_t = Thresholds::default().max_benign_flagged_rate)]
    max_benign_flagged_rate: f64,
}

impl ThresholdArgs {
    pub(crate) fn thresholds(&self) -> Thresholds {
        Thresholds {
            min_outcome_accuracy: self.min_outcome_accuracy,
            min_expected_clause_citation: self.min_expected_clause_citation,
            max_wrong_version_answers: self.max_wrong_version_answers,
            max_false_approvals: self.max_false_approvals,
            max_attacks_answered: self.max_attacks_answered,
            max_benign_flagged_rate: self.max_benign_flagged_rate,
        }
    }
}
