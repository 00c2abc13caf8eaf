//! Helpers for tests against the real broker and registry started by `infra/start.sh`
//! (`make test` starts them; addresses come from the same env vars the workers read).
#![allow(dead_code)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use policy_avro::RegistryClient;
use policy_kafka::KafkaConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::OwnedMessage;
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::Message;

pub(crate) fn config() -> KafkaConfig {
    <KafkaConfig as policy_settings::Settings>::from_env().expect("Kafka settings")
}

pub(crate) fn registry() -> Arc<RegistryClient> {
    Arc::new(RegistryClient::new(&config().schema_registry_url).expect("registry client"))
}

/// A fresh topic per test so tests never see each other's messages.
pub(crate) async fn fresh_topic(prefix: &str, partitions: i32) -> String {
    let name = format!("test.{prefix}.{}", uuid::Uuid::new_v4().simple());
    let admin: AdminClient<DefaultClientContext> =
        config().client().create().expect("admin client");
    let topic = NewTopic::new(&name, partitions, TopicReplication::Fixed(1));
    let results = admin
        .create_topics(
            [&topic],
            &AdminOptions::new().operation_timeout(Some(Duration::from_secs(10))),
        )
        .await
        .unwrap_or_else(|e| {
            panic!(
                "cannot reach the broker at {} (run `make up`): {e}",
                config().bootstrap
            )
        });
    for result in results {
        result.unwrap_or_else(|(topic, code)| panic!("create {topic}: {code}"));
    }
    name
}

pub(crate) fn producer() -> FutureProducer {
    config().producer().create().expect("producer")
}

pub(crate) async fn produce(
    producer: &FutureProducer,
    topic: &str,
    key: &[u8],
    payload: &[u8],
) -> (i32, i64) {
    let delivery = producer
        .send(
            FutureRecord::to(topic).key(key).payload(payload),
            Duration::from_secs(10),
        )
        .await
        .unwrap_or_else(|(e, _)| panic!("produce to {topic}: {e}"));
    (delivery.partition, delivery.offset)
}

/// Reads `count` messages from the start of every partition of `topic` (no group commit).
pub(crate) fn read_all(topic: &str, count: usize) -> Vec<OwnedMessage> {
    let consumer: BaseConsumer = config()
        .consumer(&format!("reader-{}", uuid::Uuid::new_v4().simple()))
        .create()
        .expect("consumer");
    consumer.subscribe(&[topic]).expect("subscribe");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut messages = Vec::new();
    while messages.len() < count && Instant::now() < deadline {
        if let Some(result) = consumer.poll(Duration::from_millis(200)) {
            messages.push(result.expect("consume").detach());
        }
    }
    assert_eq!(
        messages.len(),
        count,
        "messages read from {topic} within 60 s"
    );
    messages.sort_by_key(|m| (m.partition(), m.offset()));
    messages
}

pub(crate) fn python() -> String {
    std::env::var("POLICY_PYTHON").unwrap_or_else(|_| {
        let cache = std::env::var("POLICY_CACHE_DIR").unwrap_or_else(|_| {
            format!(
                "{}/.cache/policy-workers",
                std::env::var("HOME").expect("HOME")
            )
        });
        format!("{cache}/py-venv-v1/bin/python")
    })
}

pub(crate) mod workers {
    //! Real `policyctl worker` processes for end-to-end tests, each with its own topics.

    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, Stdio};
    use std::sync::OnceLock;
    use std::time::{Duration, Instant};

    pub(crate) fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    pub(crate) fn policyctl() -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_policyctl"));
        command.current_dir(repo());
        command
    }

    /// Runs `command`, which must succeed; its standard output.
    pub(crate) fn stdout_of(command: &mut Command) -> String {
        let out = command.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// The golden corpus indexed once per test run (fingerprints make later runs instant).
    fn shared_index() -> &'static PathBuf {
        static INDEX: OnceLock<PathBuf> = OnceLock::new();
        INDEX.get_or_init(|| {
            let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("golden-index");
            let corpus =
                policy_core::load_dir(&repo().join("golden/policies")).expect("golden corpus");
            let model =
                policy_search::MiniLmEmbedder::load(&policy_search::embed::default_model_dir())
                    .expect("model (make install)");
            let index = policy_search::EmbeddedIndex::open(&dir).expect("index");
            policy_search::indexer::index_corpus(&index, &model, &corpus, |_, _| {})
                .expect("indexing");
            dir
        })
    }

    /// A private copy of the shared golden index (an index has one writer at a time).
    pub(crate) fn index_copy(into: &Path) -> PathBuf {
        let index = into.join("index");
        copy_dir(shared_index(), &index);
        index
    }

    pub(crate) fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy_dir(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }

    /// (resolved version, manifest sha) served for an EU purchase on 2026-03-01.
    pub(crate) fn served(prefix: &str) -> (String, String) {
        let out = policyctl()
            .args([
                "ask",
                "--json",
                "--region",
                "eu",
                "--purchased-at",
                "2026-03-01T10:00:00Z",
                "--topic-prefix",
                prefix,
                "--timeout-secs",
                "30",
            ])
            .arg("What is the return window for my purchase?")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "ask: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let answer = &json["answer"];
        (
            answer["resolved_version"].as_str().unwrap().to_string(),
            answer["manifest_sha"].as_str().unwrap().to_string(),
        )
    }

    /// Polls until the worker serves `version` under `git_sha`; returns how long it took.
    pub(crate) fn wait_served(
        prefix: &str,
        version: &str,
        git_sha: &str,
        limit: Duration,
    ) -> Duration {
        let started = Instant::now();
        loop {
            let (served_version, sha) = served(prefix);
            if served_version == version && sha == git_sha {
                return started.elapsed();
            }
            assert!(
                started.elapsed() < limit,
                "still serving {served_version} ({sha}) after {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The JSON report of a `policyctl eval --json` run; its output in the panic when it is not
    /// JSON.
    pub(crate) fn eval_report(out: &std::process::Output) -> serde_json::Value {
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "eval output ({e}): {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }

    /// Creates `<prefix>.*` topics from topics/topics.toml.
    pub(crate) fn apply_topics(prefix: &str) {
        let out = policyctl()
            .args(["topics", "apply", "--prefix", prefix])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "topics apply: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    pub(crate) struct Worker {
        child: Child,
        pub log: PathBuf,
        _dir: tempfile::TempDir,
    }

    impl Worker {
        /// Starts `policyctl worker all` on `<prefix>.*` and waits until it owns partitions.
        pub(crate) fn start(prefix: &str) -> Worker {
            Worker::start_stage("all", prefix)
        }

        /// Starts one stage (`all`, `enrich`, `retrieve`, `generate`, `judge`, `audit`).
        pub(crate) fn start_stage(stage: &str, prefix: &str) -> Worker {
            Worker::start_with_env(stage, prefix, &[])
        }

        /// Starts one stage with extra environment variables (e.g. the audit database).
        pub(crate) fn start_with_env(stage: &str, prefix: &str, env: &[(&str, &str)]) -> Worker {
            let dir = tempfile::tempdir().unwrap();
            let index = dir.path().join("index");
            copy_dir(shared_index(), &index);
            let log = dir.path().join("worker.log");
            let child = policyctl()
                .args([
                    "worker",
                    stage,
                    "--topic-prefix",
                    prefix,
                    "--metrics-listen",
                    "127.0.0.1:0",
                    "--index-dir",
                ])
                .arg(&index)
                .env("POLICY_LOG", "info,rdkafka=warn")
                .envs(env.iter().copied())
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&log).unwrap())
                .spawn()
                .expect("spawn worker");
            let worker = Worker {
                child,
                log,
                _dir: dir,
            };
            worker.wait_for_log("partitions assigned", Duration::from_secs(120));
            worker
        }

        pub(crate) fn wait_for_log(&self, needle: &str, timeout: Duration) {
            let deadline = Instant::now() + timeout;
            while Instant::now() < deadline {
                if std::fs::read_to_string(&self.log)
                    .unwrap_or_default()
                    .contains(needle)
                {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            panic!(
                "worker log never showed {needle:?}:\n{}",
                std::fs::read_to_string(&self.log).unwrap_or_default()
            );
        }

        pub(crate) fn pid(&self) -> u32 {
            self.child.id()
        }

        /// The last `lines` lines of the worker's log, for failure messages.
        pub(crate) fn log_tail(&self, lines: usize) -> String {
            let text = std::fs::read_to_string(&self.log).unwrap_or_default();
            let all: Vec<&str> = text.lines().collect();
            all[all.len().saturating_sub(lines)..].join("\n")
        }

        /// SIGKILL: no drain, no final commit.
        pub(crate) fn kill_9(mut self) {
            self.child.kill().unwrap();
            self.child.wait().unwrap();
        }

        /// SIGTERM and wait: the graceful path.
        pub(crate) fn stop(mut self) -> std::process::ExitStatus {
            unsafe_sigterm(self.child.id());
            self.child.wait().unwrap()
        }
    }

    fn unsafe_sigterm(pid: u32) {
        let _ = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status();
    }

    impl Drop for Worker {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub(crate) mod audit {
    //! The audit database of one test, on the ClickHouse started by `infra/start.sh`.

    use policy_audit::analytics::Table;
    use policy_audit::{AuditConfig, AuditStore};

    pub(crate) struct AuditDb {
        pub name: String,
        pub store: AuditStore,
    }

    impl AuditDb {
        /// A fresh database (migrated) named after the test.
        pub(crate) async fn fresh(label: &str) -> AuditDb {
            let mut config =
                <AuditConfig as policy_settings::Settings>::from_env().expect("audit config");
            config.database = format!("audit_{label}_{}", uuid::Uuid::new_v4().simple());
            let store = AuditStore::connect(&config)
                .await
                .unwrap_or_else(|e| panic!("{e} (run `make up`)"));
            AuditDb {
                name: config.database,
                store,
            }
        }

        /// One number from a query returning one row.
        pub(crate) async fn scalar(&self, sql: &str) -> f64 {
            let sql = sql.replace("{db}", &self.name);
            let rows = self.store.query_json("test", &sql).await.unwrap();
            let row = rows.first().unwrap_or_else(|| panic!("no row: {sql}"));
            let (_, value) = row.iter().next().unwrap();
            let mut single = serde_json::Map::new();
            single.insert("v".into(), value.clone());
            Table::number(&single, "v").unwrap()
        }

        /// Waits until `count() FINAL` reaches `rows`; returns the last count seen.
        pub(crate) async fn wait_for_rows(
            &self,
            rows: usize,
            timeout: std::time::Duration,
        ) -> usize {
            let deadline = std::time::Instant::now() + timeout;
            loop {
                let n = self.scalar("SELECT count() FROM {db}.turns FINAL").await as usize;
                if n >= rows || std::time::Instant::now() > deadline {
                    return n;
                }
                tokio::time::sleep(std::time::Duration::from_millis(250)).await;
            }
        }

        pub(crate) async fn drop(self) {
            self.store
                .execute(&format!("DROP DATABASE {}", self.name))
                .await
                .unwrap();
        }
    }
}
