//! Topic names, all derived from one prefix so that tests and parallel deployments can run
//! side by side (`policy.turns`, `policy.answers`, ...).

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicNames {
    pub prefix: String,
    pub turns: String,
    pub enriched: String,
    pub retrieved: String,
    pub drafted: String,
    pub answers: String,
    pub escalations: String,
    pub deadletter: String,
    pub changes: String,
    pub manifest: String,
    pub orders: String,
    pub employees: String,
}

impl TopicNames {
    pub fn with_prefix(prefix: &str) -> TopicNames {
        let t = |name: &str| format!("{prefix}.{name}");
        TopicNames {
            prefix: prefix.to_string(),
            turns: t("turns"),
            enriched: t("turns.enriched"),
            retrieved: t("turns.retrieved"),
            drafted: t("turns.drafted"),
            answers: t("answers"),
            escalations: t("escalations"),
            deadletter: t("deadletter"),
            changes: t("changes"),
            manifest: t("manifest"),
            orders: t("orders"),
            employees: t("employees"),
        }
    }
}
