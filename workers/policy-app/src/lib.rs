//! The worker application: what `policyctl` runs. Stage workers over the one pipeline chain,
//! the reindex and audit workers, the manifest watcher, the choice of search backend, and the
//! clients of the running system (ask, eval, load test, benchmarks). `policyctl` parses
//! arguments, calls into this crate and prints.

pub mod assemble;
pub mod audit;
pub mod backend;
pub mod bench;
pub mod calibrate;
pub mod client;
pub mod eval;
pub mod explain;
pub mod facts;
pub mod forensics;
pub mod generation_report;
pub mod impact;
pub mod loadtest;
pub mod manifests;
pub mod metrics;
pub mod publish;
pub mod reindex;
pub mod replay;
pub mod settings;
pub mod stage_worker;
pub mod topics;
pub mod worker;

pub use settings::AppSettings;
pub use topics::TopicNames;

/// Resolves on Ctrl-C or SIGTERM: the signal a supervisor sends to stop a worker.
pub async fn shutdown_signal() {
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate());
    match term {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "no SIGTERM handler; stopping on Ctrl-C only");
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
