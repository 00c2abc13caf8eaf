use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use policy_app::facts::Subject;

#[derive(Subcommand)]
pub(crate) enum FactsCommand {
    /// Produce every line of a JSONL file (objects with an id field: `order_id` for orders,
    /// `employee_id` for employees) to the compacted topic the workers materialise.
    Load {
        /// e.g. golden/decisions/orders.jsonl
        file: PathBuf,
        #[command(flatten)]
        topics: policy_app::settings::TopicSettings,
        #[command(flatten)]
        kafka: policy_kafka::KafkaConfig,
    },
}

pub(crate) async fn run(subject: Subject, command: FactsCommand) -> anyhow::Result<ExitCode> {
    match command {
        FactsCommand::Load {
            file,
            topics,
            kafka,
        } => {
            policy_settings::Settings::validate(&kafka)?;
            let names = topics.names();
            let sent = policy_app::facts::load(&kafka, &names, subject, &file).await?;
            println!(
                "loaded {sent} record(s) from {} to {}",
                file.display(),
                subject.topic(&names)
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
