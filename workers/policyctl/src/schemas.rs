use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use apache_avro::Schema;
use clap::Subcommand;
use policy_avro::{check_compatibility, CompatibilityLevel, RegistryClient};
use policy_kafka::{load_topic_specs, KafkaConfig};

#[derive(Subcommand)]
pub(crate) enum SchemasCommand {
    /// Register the value schema of every topic (TopicNameStrategy) and print the ids.
    Register {
        #[arg(long, default_value = "topics/topics.toml")]
        specs: PathBuf,
        #[command(flatten)]
        kafka: KafkaConfig,
    },
    /// Check that NEW can replace OLD under a compatibility level (default BACKWARD).
    Compat {
        #[arg(long)]
        old: PathBuf,
        #[arg(long)]
        new: PathBuf,
        #[arg(long, default_value = "BACKWARD")]
        level: String,
    },
}

pub(crate) async fn run(command: SchemasCommand) -> anyhow::Result<ExitCode> {
    match command {
        SchemasCommand::Register {
            specs,
            kafka: config,
        } => {
            policy_settings::Settings::validate(&config)?;
            let registry = Arc::new(RegistryClient::new(&config.schema_registry_url)?);
            for spec in load_topic_specs(&specs)? {
                let subject = policy_avro::registry::value_subject(&spec.name);
                let id = registry
                    .register(&subject, spec.value_schema)
                    .await
                    .with_context(|| subject.clone())?;
                println!("{subject}: id {id} ({:?})", spec.value_schema);
            }
            Ok(ExitCode::SUCCESS)
        }
        SchemasCommand::Compat { old, new, level } => {
            let level: CompatibilityLevel = level.parse().map_err(anyhow::Error::msg)?;
            let read = |path: &PathBuf| -> anyhow::Result<Schema> {
                let text =
                    std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
                Schema::parse_str(&text).with_context(|| path.display().to_string())
            };
            match check_compatibility(level, &read(&new)?, &[read(&old)?]) {
                Ok(()) => {
                    println!(
                        "{}: {level} compatible with {}",
                        new.display(),
                        old.display()
                    );
                    Ok(ExitCode::SUCCESS)
                }
                Err(problems) => {
                    eprintln!(
                        "{}: NOT {level} compatible with {}:",
                        new.display(),
                        old.display()
                    );
                    for problem in problems {
                        eprintln!("  - {problem}");
                    }
                    Ok(ExitCode::FAILURE)
                }
            }
        }
    }
}
