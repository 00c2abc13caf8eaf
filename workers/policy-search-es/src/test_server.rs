//! osmem-server, an in-memory OpenSearch-compatible server shipped as a binary in a PyPI wheel
//! (`make install` puts it in the cache), started as a real process for tests of this backend.
//! It answers index creation, `_bulk`, `_search` (bool, multi_match, term, ids), `_count` and
//! `_delete_by_query`, but has no `dense_vector`/kNN: use [`VectorMode::Exact`] against it.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};

use crate::{EsClient, EsConfig, VectorMode};

pub const OSMEM_VERSION: &str = "0.1.6";

#[derive(Debug)]
pub struct OsmemServer {
    child: Child,
    // Held open: the server exits when its stdin closes, so a killed test leaves nothing behind.
    _stdin: ChildStdin,
    pub url: String,
}

/// `OSMEM_SERVER_BIN`, else where `infra/install.sh` caches it.
pub fn binary() -> PathBuf {
    if let Some(bin) = std::env::var_os("OSMEM_SERVER_BIN") {
        return bin.into();
    }
    policy_search::embed::infra_cache_dir()
        .join(format!("osmem-server-{OSMEM_VERSION}/osmem-server"))
}

impl OsmemServer {
    /// Starts a server on a free port of 127.0.0.1. Panics with the remedy if it cannot.
    pub fn start() -> OsmemServer {
        let bin = binary();
        assert!(
            bin.exists(),
            "{} missing: run `make install` (or set OSMEM_SERVER_BIN)",
            bin.display()
        );
        let mut child = Command::new(&bin)
            .args(["-addr", "127.0.0.1:0"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
        // Its first line says where it listens: {"url": "http://127.0.0.1:PORT", ...}.
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped"))
            .read_line(&mut line)
            .expect("osmem-server start line");
        let started: serde_json::Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("osmem-server start line `{line}`: {e}"));
        OsmemServer {
            _stdin: child.stdin.take().expect("piped"),
            url: started["url"].as_str().expect("url").to_string(),
            child,
        }
    }

    /// A client of `index` on this server, vectors scored exactly.
    pub fn client(&self, index: &str) -> EsClient {
        EsClient::new(EsConfig {
            url: self.url.clone(),
            index: index.into(),
            vector_mode: VectorMode::Exact,
            ..EsConfig::default()
        })
        .expect("valid config")
    }
}

impl Drop for OsmemServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
