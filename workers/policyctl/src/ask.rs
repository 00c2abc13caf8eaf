//! `policyctl ask`: send one turn through the running workers and print its outcome.

use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use policy_app::settings::TopicSettings;
use policy_avro::{ChatTurn, Escalation, PolicyAnswer};
use policy_core::parse_instant;
use policy_kafka::KafkaConfig;
use policy_pipeline::Outcome;
use policy_settings::Settings;

#[derive(Args)]
pub(crate) struct AskArgs {
    question: String,
    /// Region of the authenticated session.
    #[arg(long)]
    region: Option<String>,
    #[arg(long)]
    billing_region: Option<String>,
    #[arg(long)]
    ip_region: Option<String>,
    /// Purchase instant (a date, or RFC 3339 with any offset: normalised to UTC); omit to get
    /// the current policy with a banner.
    #[arg(long)]
    purchased_at: Option<String>,
    /// The order the question is about: a return or refund decision is made from the order
    /// system's record of it.
    #[arg(long)]
    order_id: Option<String>,
    /// The employee asking: an expense request is decided from the directory's record.
    #[arg(long)]
    employee_id: Option<String>,
    /// When the turn is sent (RFC 3339, any offset); default now. A decision's deadline is
    /// compared with it.
    #[arg(long)]
    sent_at: Option<String>,
    #[arg(long, default_value = "cli")]
    conversation: String,
    #[arg(long, default_value_t = 60)]
    timeout_secs: u64,
    /// Print only the JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    topics: TopicSettings,
    #[command(flatten)]
    kafka: KafkaConfig,
}

pub(crate) async fn run(args: AskArgs) -> anyhow::Result<ExitCode> {
    args.kafka.validate()?;
    let purchase_at = args
        .purchased_at
        .as_deref()
        .map(parse_instant)
        .transpose()?
        .map(|t| t.timestamp_millis());
    let turn = ChatTurn {
        conversation_id: args.conversation.clone(),
        turn_id: format!("ask-{}", uuid::Uuid::new_v4().simple()),
        question: args.question.clone(),
        channel: Some("cli".into()),
        session_region: args.region.clone(),
        billing_region: args.billing_region.clone(),
        ip_region: args.ip_region.clone(),
        purchase_at,
        order_id: args.order_id.clone(),
        employee_id: args.employee_id.clone(),
        sent_at: match args.sent_at.as_deref() {
            Some(raw) => parse_instant(raw)?.timestamp_millis(),
            None => policy_avro::now_millis(),
        },
        ..Default::default()
    };
    let turn_id = turn.turn_id.clone();
    let timeout = Duration::from_secs(args.timeout_secs);
    match policy_app::client::ask(&args.kafka, &args.topics.names(), turn, timeout).await? {
        Some(Outcome::Answer(answer)) => print_answer(&answer, args.json)?,
        Some(Outcome::Escalate(escalation)) => print_escalation(&escalation, args.json)?,
        None => anyhow::bail!("no outcome for turn {turn_id} within {} s: are the workers running (`policyctl worker all`)?", args.timeout_secs),
    }
    Ok(ExitCode::SUCCESS)
}

fn print_answer(a: &PolicyAnswer, json_only: bool) -> anyhow::Result<()> {
    println!(
        "{}",
        serde_json::to_string_pretty(&serde_json::json!({"outcome": "answer", "answer": a}))?
    );
    if !json_only {
        println!(
            "\nAnswer ({} {}, tier {}, confidence {:.2}):\n  {}",
            a.resolved_region, a.resolved_version, a.tier, a.confidence, a.answer_text
        );
        for note in [&a.disclaimer, &a.banner].into_iter().flatten() {
            println!("  Note: {note}");
        }
        if let Some(d) = &a.decision {
            println!(
                "  Decision ({}): {} — {}",
                d.kind,
                if d.eligible { "yes" } else { "no" },
                d.reason
            );
        }
    }
    Ok(())
}

fn print_escalation(e: &Escalation, json_only: bool) -> anyhow::Result<()> {
    println!(
        "{}",
        serde_json::to_string_pretty(
            &serde_json::json!({"outcome": "escalation", "escalation": e})
        )?
    );
    if !json_only {
        println!(
            "\nEscalated to a human agent ({}):\n  {}",
            e.reason_code,
            e.reasons.join("\n  ")
        );
    }
    Ok(())
}
