use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

#[derive(Subcommand)]
pub enum ManifestCommand {
    /// Check manifest rules, version directories and clauses of a corpus directory.
    Check {
        /// Corpus root holding manifest.json and {region}/v{N}/*.md.
        #[arg(default_value = "golden/policies")]
        dir: PathBuf,
    },
}

pub fn run(command: ManifestCommand) -> anyhow::Result<ExitCode> {
    match command {
        ManifestCommand::Check { dir } => {
            let corpus = match policy_core::load_dir(&dir) {
                Ok(corpus) => corpus,
                Err(e) => {
                    eprintln!("{}: {e}", dir.display());
                    return Ok(ExitCode::FAILURE);
                }
            };
            for (version, reason) in corpus.failed_versions() {
                eprintln!("{}: version `{version}` unusable: {reason}", dir.display());
            }
            let manifest = corpus.manifest();
            for region in manifest.regions() {
                let versions = manifest.region_versions(region).unwrap_or_default();
                let ids: Vec<String> = versions
                    .iter()
                    .map(|v| {
                        format!(
                            "{} ({} clauses)",
                            v.id,
                            corpus.version_clauses(&v.id).count()
                        )
                    })
                    .collect();
                println!("{region}: {}", ids.join(", "));
            }
            if !corpus.failed_versions().is_empty() {
                return Ok(ExitCode::FAILURE);
            }
            println!(
                "ok: {} versions, {} clauses, manifest sha {}",
                manifest.versions().count(),
                corpus.clauses().len(),
                manifest.content_sha()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
