use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;

#[derive(Subcommand)]
pub(crate) enum RegistryCommand {
    /// Serve the development registry until SIGTERM.
    Serve {
        /// Address the development schema registry listens on
        #[arg(long, env = "REGISTRY_LISTEN", default_value = "127.0.0.1:8081")]
        listen: SocketAddr,
        /// Where the development registry's ids and versions persist across restarts
        #[arg(long, env = "REGISTRY_DATA_DIR", default_value = ".run/registry")]
        data_dir: PathBuf,
    },
}

pub(crate) async fn run(command: RegistryCommand) -> anyhow::Result<ExitCode> {
    match command {
        RegistryCommand::Serve { listen, data_dir } => {
            policy_registry::serve(listen, &data_dir, policy_app::shutdown_signal())
                .await
                .map_err(|e| anyhow::anyhow!(e))
                .context("schema registry")?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
