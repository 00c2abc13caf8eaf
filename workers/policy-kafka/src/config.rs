//! Client settings ([`policy_settings`]: flags or environment variables, documented defaults).

use rdkafka::ClientConfig;

/// Kafka client settings.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct KafkaConfig {
    /// Broker addresses (host:port, comma-separated)
    #[arg(
        value_name = "KAFKA_BOOTSTRAP",
        id = "kafka_bootstrap",
        long = "kafka-bootstrap",
        env = "KAFKA_BOOTSTRAP",
        default_value = "127.0.0.1:9092"
    )]
    pub bootstrap: String,
    /// Confluent-compatible schema registry
    #[arg(
        value_name = "SCHEMA_REGISTRY_URL",
        id = "schema_registry_url",
        long = "schema-registry-url",
        env = "SCHEMA_REGISTRY_URL",
        default_value = "http://127.0.0.1:8081"
    )]
    pub schema_registry_url: String,
    /// Client id sent to the broker (its logs and quotas name it)
    #[arg(
        value_name = "KAFKA_CLIENT_ID",
        id = "kafka_client_id",
        long = "kafka-client-id",
        env = "KAFKA_CLIENT_ID",
        default_value = "policy-workers"
    )]
    pub client_id: String,
    /// How long a producer waits to fill a batch. tansu pays per produce request (a SQLite
    /// transaction), so fewer, fuller requests lower its load and the tail latency (p99 at
    /// 790 turns/s: 250 ms with 2, 188 ms with 20)
    #[arg(
        value_name = "KAFKA_LINGER_MS",
        id = "kafka_linger_ms",
        long = "kafka-linger-ms",
        env = "KAFKA_LINGER_MS",
        default_value_t = 20
    )]
    pub linger_ms: u32,
    /// Consumer fetch wait. tansu answers a fetch only when it expires, so it is a floor on
    /// every consumer hop's latency (librdkafka's default is 500)
    #[arg(
        value_name = "KAFKA_FETCH_WAIT_MS",
        id = "kafka_fetch_wait_ms",
        long = "kafka-fetch-wait-ms",
        env = "KAFKA_FETCH_WAIT_MS",
        default_value_t = 20
    )]
    pub fetch_wait_ms: u32,
}

impl Default for KafkaConfig {
    fn default() -> Self {
        KafkaConfig {
            bootstrap: "127.0.0.1:9092".into(),
            schema_registry_url: "http://127.0.0.1:8081".into(),
            client_id: "policy-workers".into(),
            linger_ms: 20,
            fetch_wait_ms: 20,
        }
    }
}

impl policy_settings::Settings for KafkaConfig {
    fn validate(&self) -> Result<(), policy_settings::SettingsError> {
        if self.bootstrap.trim().is_empty() {
            return Err(policy_settings::SettingsError::invalid(
                "KAFKA_BOOTSTRAP",
                "must name at least one broker",
            ));
        }
        if !self.schema_registry_url.starts_with("http://")
            && !self.schema_registry_url.starts_with("https://")
        {
            return Err(policy_settings::SettingsError::invalid(
                "SCHEMA_REGISTRY_URL",
                "must be an http(s) URL",
            ));
        }
        Ok(())
    }
}

impl KafkaConfig {
    pub fn client(&self) -> ClientConfig {
        let mut config = ClientConfig::new();
        config
            .set("bootstrap.servers", &self.bootstrap)
            .set("client.id", &self.client_id);
        config
    }

    /// Idempotent producer: retries never duplicate or reorder within a partition.
    pub fn producer(&self) -> ClientConfig {
        let mut config = self.client();
        config
            .set("enable.idempotence", "true")
            .set("acks", "all")
            .set("linger.ms", self.linger_ms.to_string())
            .set("message.timeout.ms", "30000");
        config
    }

    /// Consumer with manual offset management: nothing is committed behind the worker's back.
    pub fn consumer(&self, group_id: &str) -> ClientConfig {
        let mut config = self.client();
        config
            .set("group.id", group_id)
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false")
            .set("auto.offset.reset", "earliest")
            .set("session.timeout.ms", "10000")
            .set("heartbeat.interval.ms", "1000")
            .set("fetch.wait.max.ms", self.fetch_wait_ms.to_string())
            .set("partition.assignment.strategy", "cooperative-sticky");
        config
    }
}
