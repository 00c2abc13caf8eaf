use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use policy_kafka::{apply_topics, load_topic_specs, KafkaConfig, TopicReport};

#[derive(Subcommand)]
pub(crate) enum TopicsCommand {
    /// Create missing topics and report drift of existing ones.
    Apply {
        #[arg(long, default_value = "topics/topics.toml")]
        specs: PathBuf,
        /// Only report: create nothing.
        #[arg(long)]
        dry_run: bool,
        /// Exit with status 3 when an existing topic differs from its spec.
        #[arg(long)]
        fail_on_drift: bool,
        /// Use `<prefix>.turns`, ... instead of `policy.turns`, ... (side-by-side deployments, tests).
        #[arg(long, env = "POLICY_TOPIC_PREFIX", default_value = "policy")]
        prefix: String,
        #[command(flatten)]
        kafka: KafkaConfig,
    },
}

pub(crate) async fn run(command: TopicsCommand) -> anyhow::Result<ExitCode> {
    match command {
        TopicsCommand::Apply {
            specs,
            dry_run,
            fail_on_drift,
            prefix,
            kafka,
        } => {
            policy_settings::Settings::validate(&kafka)?;
            let mut specs = load_topic_specs(&specs)?;
            for spec in &mut specs {
                if let Some(rest) = spec.name.strip_prefix("policy.") {
                    spec.name = format!("{prefix}.{rest}");
                }
            }
            let reports = apply_topics(&kafka, &specs, dry_run).await?;
            for report in &reports {
                println!("{report}");
            }
            let drift = reports
                .iter()
                .any(|r| matches!(r, TopicReport::Drift { .. }));
            Ok(if drift && fail_on_drift {
                ExitCode::from(3)
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}
