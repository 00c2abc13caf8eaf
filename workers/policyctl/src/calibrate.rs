//! `policyctl calibrate`: fit the reranker and the confidence model on development sets.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use policy_app::calibrate::CalibrateOptions;
use policy_app::eval::CaseSet;
use policy_app::AppSettings;
use policy_search::rerank::{CONFIDENCE_FEATURE_NAMES, FEATURE_NAMES};
use policy_settings::Settings;

#[derive(Args)]
pub(crate) struct CalibrateArgs {
    /// Development sets: `DIR` (DIR/policies, DIR/cases) or `NAME=POLICIES:CASES`; repeatable.
    #[arg(long = "set", value_parser = CaseSet::parse, required = true)]
    sets: Vec<CaseSet>,
    /// Where the calibration is written (the shipped one is compiled in from
    /// workers/policy-search/calibration.json).
    #[arg(long, default_value = "workers/policy-search/calibration.json")]
    out: PathBuf,
    #[command(flatten)]
    app: AppSettings,
}

pub(crate) async fn run(args: CalibrateArgs) -> anyhow::Result<ExitCode> {
    args.app.validate()?;
    let options = CalibrateOptions {
        sets: args.sets.clone(),
        out: args.out.clone(),
    };
    let (calibration, report) = policy_app::calibrate::run(&args.app, &options).await?;
    println!("{}", calibration.fitted_on);
    println!("\nranking weights:");
    for (name, w) in FEATURE_NAMES.iter().zip(calibration.rank_weights) {
        println!("  {name:<44} {w:>8.3}");
    }
    println!("confidence weights (logistic):");
    for (name, w) in CONFIDENCE_FEATURE_NAMES
        .iter()
        .zip(calibration.confidence_weights)
    {
        println!("  {name:<44} {w:>8.3}");
    }
    println!(
        "\nreliability on the fitting data ({} queries):",
        report.queries
    );
    println!(
        "  {:<12} {:>8} {:>10}",
        "confidence", "queries", "answerable"
    );
    for (bucket, n, correct) in &report.reliability {
        println!("  {bucket:<12} {n:>8} {:>9.1}%", correct * 100.0);
    }
    println!("\nwritten to {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}
