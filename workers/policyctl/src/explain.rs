//! `policyctl explain`: one question in this process, with what each stage saw.

use std::process::ExitCode;

use clap::Args;
use policy_app::AppSettings;
use policy_avro::ChatTurn;
use policy_core::parse_instant;
use policy_settings::Settings;

#[derive(Args)]
pub(crate) struct ExplainArgs {
    question: String,
    /// Region of the authenticated session.
    #[arg(long)]
    region: Option<String>,
    /// Purchase instant (a date, or RFC 3339 with any offset).
    #[arg(long)]
    purchased_at: Option<String>,
    /// When the turn is sent (default now).
    #[arg(long)]
    sent_at: Option<String>,
    #[command(flatten)]
    app: AppSettings,
}

pub(crate) async fn run(args: ExplainArgs) -> anyhow::Result<ExitCode> {
    args.app.validate()?;
    let at = |raw: &Option<String>| -> anyhow::Result<Option<i64>> {
        Ok(raw
            .as_deref()
            .map(parse_instant)
            .transpose()?
            .map(|t| t.timestamp_millis()))
    };
    let turn = ChatTurn {
        conversation_id: "explain".into(),
        turn_id: "explain".into(),
        question: args.question.clone(),
        session_region: args.region.clone(),
        purchase_at: at(&args.purchased_at)?,
        sent_at: at(&args.sent_at)?.unwrap_or_else(policy_avro::now_millis),
        ..Default::default()
    };
    print!("{}", policy_app::explain::explain(&args.app, turn).await?);
    Ok(ExitCode::SUCCESS)
}
