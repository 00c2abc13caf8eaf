//! The optional OpenAI-compatible generator (OpenAI, vLLM, llama.cpp's `llama-server`), bounded
//! so that a turn never waits minutes on it:
//! - every request caps its output (`max_tokens`, stop sequences) and has a deadline; a request
//!   past its deadline is dropped, which closes its connection so the server can stop working
//!   on it;
//! - real unavailability (connection refused, 429 with `Retry-After`, 5xx) is retried with
//!   backoff and jitter inside one time budget per turn;
//! - a timeout is not retried: a model that did not answer in time will not answer faster;
//! - a circuit breaker stops calling an endpoint that keeps failing and lets a probe through
//!   after a cool-down;
//! - when the LLM gives up, the extractive generator answers (the default) or the turn escalates
//!   with `generator_unavailable`; either way the reason is on the outcome.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::breaker::jittered_backoff;
pub use crate::breaker::CircuitBreaker;
use serde::Deserialize;
use serde_json::json;

use crate::generate::{
    ExtractiveGenerator, GenerateError, GenerateFuture, GeneratedText, GenerationRequest, Generator,
};

/// What a turn gets when the LLM gives up (timeout, unavailable after the budget, circuit open).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnLlmFailure {
    /// The extractive generator answers; the judge checks it as usual.
    Extractive,
    /// The turn escalates with `generator_unavailable`.
    Escalate,
}

/// Settings of the optional OpenAI-compatible generator.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct LlmSettings {
    /// OpenAI-compatible endpoint (`.../v1`); unset, the deterministic extractive generator
    /// answers
    #[arg(
        value_name = "POLICY_LLM_BASE_URL",
        id = "policy_llm_base_url",
        long = "llm-base-url",
        env = "POLICY_LLM_BASE_URL"
    )]
    pub base_url: Option<String>,
    /// Model name sent with every request
    #[arg(
        value_name = "POLICY_LLM_MODEL",
        id = "policy_llm_model",
        long = "llm-model",
        env = "POLICY_LLM_MODEL",
        default_value = "gpt-4o-mini"
    )]
    pub model: String,
    /// Bearer token, if the endpoint needs one
    #[arg(
        value_name = "POLICY_LLM_API_KEY",
        id = "policy_llm_api_key",
        long = "llm-api-key",
        env = "POLICY_LLM_API_KEY",
        hide_env_values = true
    )]
    pub api_key: Option<String>,
    /// Deadline of one request, seconds: past it the request is dropped and the turn falls back
    /// (not retried)
    #[arg(
        value_name = "POLICY_LLM_TIMEOUT_SECS",
        id = "policy_llm_timeout_secs",
        long = "llm-timeout-secs",
        env = "POLICY_LLM_TIMEOUT_SECS",
        default_value_t = 15
    )]
    pub timeout_secs: u64,
    /// Time budget of one turn's LLM calls, retries and waits included, seconds
    #[arg(
        value_name = "POLICY_LLM_BUDGET_SECS",
        id = "policy_llm_budget_secs",
        long = "llm-budget-secs",
        env = "POLICY_LLM_BUDGET_SECS",
        default_value_t = 25
    )]
    pub budget_secs: u64,
    /// Retries of a request the endpoint could not serve (connection refused, 429, 5xx), within
    /// the budget
    #[arg(
        value_name = "POLICY_LLM_MAX_RETRIES",
        id = "policy_llm_max_retries",
        long = "llm-max-retries",
        env = "POLICY_LLM_MAX_RETRIES",
        default_value_t = 2
    )]
    pub max_retries: usize,
    /// Cap on the tokens of one answer (a cited answer of a few sentences fits in 200)
    #[arg(
        value_name = "POLICY_LLM_MAX_TOKENS",
        id = "policy_llm_max_tokens",
        long = "llm-max-tokens",
        env = "POLICY_LLM_MAX_TOKENS",
        default_value_t = 200
    )]
    pub max_tokens: u32,
    /// What a turn gets when the LLM gives up: `extractive` (answer from the clauses, judged as
    /// usual) or `escalate`
    #[arg(
        value_name = "POLICY_LLM_ON_FAILURE",
        id = "policy_llm_on_failure",
        long = "llm-on-failure",
        env = "POLICY_LLM_ON_FAILURE",
        value_enum,
        default_value = "extractive"
    )]
    pub on_failure: OnLlmFailure,
    /// Requests in flight to the endpoint at once, from this process (match the server's slots:
    /// a turn waits for a free one within its budget instead of queueing inside the server,
    /// where its deadline would run out)
    #[arg(
        value_name = "POLICY_LLM_MAX_CONCURRENT",
        id = "policy_llm_max_concurrent",
        long = "llm-max-concurrent",
        env = "POLICY_LLM_MAX_CONCURRENT",
        default_value_t = 2
    )]
    pub max_concurrent: usize,
    /// Consecutive failures (timeouts or unavailability) that open the circuit breaker
    #[arg(
        value_name = "POLICY_LLM_BREAKER_FAILURES",
        id = "policy_llm_breaker_failures",
        long = "llm-breaker-failures",
        env = "POLICY_LLM_BREAKER_FAILURES",
        default_value_t = 3
    )]
    pub breaker_failures: u32,
    /// How long an open breaker skips the endpoint before letting one probe through, seconds
    #[arg(
        value_name = "POLICY_LLM_BREAKER_COOLDOWN_SECS",
        id = "policy_llm_breaker_cooldown_secs",
        long = "llm-breaker-cooldown-secs",
        env = "POLICY_LLM_BREAKER_COOLDOWN_SECS",
        default_value_t = 30
    )]
    pub breaker_cooldown_secs: u64,
}

impl policy_settings::Settings for LlmSettings {
    fn validate(&self) -> Result<(), policy_settings::SettingsError> {
        let invalid = policy_settings::SettingsError::invalid;
        if let Some(url) = &self.base_url {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(invalid("POLICY_LLM_BASE_URL", "must be an http(s) URL"));
            }
        }
        if self.timeout_secs == 0 {
            return Err(invalid("POLICY_LLM_TIMEOUT_SECS", "must be positive"));
        }
        if self.budget_secs < self.timeout_secs {
            return Err(invalid(
                "POLICY_LLM_BUDGET_SECS",
                "must be at least POLICY_LLM_TIMEOUT_SECS",
            ));
        }
        if self.max_tokens == 0 {
            return Err(invalid("POLICY_LLM_MAX_TOKENS", "must be positive"));
        }
        if self.max_concurrent == 0 {
            return Err(invalid("POLICY_LLM_MAX_CONCURRENT", "must be positive"));
        }
        if self.breaker_failures == 0 {
            return Err(invalid("POLICY_LLM_BREAKER_FAILURES", "must be positive"));
        }
        Ok(())
    }
}

impl LlmSettings {
    /// The LLM generator when an endpoint is configured (`None` means extractive), falling back
    /// to `fallback` when it gives up.
    pub fn generator(
        &self,
        fallback: ExtractiveGenerator,
    ) -> Result<Option<Arc<dyn Generator>>, GenerateError> {
        match &self.base_url {
            None => Ok(None),
            Some(base_url) => {
                tracing::info!(
                    base_url,
                    model = self.model,
                    max_tokens = self.max_tokens,
                    timeout_secs = self.timeout_secs,
                    budget_secs = self.budget_secs,
                    "answers generated by the OpenAI-compatible endpoint"
                );
                Ok(Some(Arc::new(OpenAiGenerator::new(
                    self.clone(),
                    fallback,
                )?)))
            }
        }
    }
}

pub const SYSTEM_PROMPT: &str = "You answer customer policy questions using ONLY the policy clauses provided. \
Quote the relevant rule faithfully, keep numbers exactly as written, and cite every clause you use with its id in the form [clause: <clause id>]. \
Never use knowledge outside the clauses. If the clauses do not answer the question, reply exactly: \
I can't confirm the answer for your specific situation; let me hand you to a human agent.";

pub const STRICT_SUFFIX: &str = " Your previous answer was rejected by a compliance check. Copy the sentence that answers the question \
word for word from one clause and end with that clause's tag. Do not add any number that is not in that clause.";

/// Where a small model that ignores its end-of-turn token starts a new turn of its own.
pub const STOP_SEQUENCES: [&str; 3] = ["\nQuestion:", "\nUser:", "\n\n\n"];

#[derive(Deserialize)]
struct ChatResponse {
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Choice {
    message: Message,
}

#[derive(Deserialize)]
struct Message {
    content: String,
}

#[derive(Deserialize)]
struct Usage {
    #[serde(default)]
    completion_tokens: u32,
}

/// Why one request did not produce an answer.
#[derive(Debug, Clone, PartialEq)]
enum CallError {
    /// No answer within the request's deadline.
    Timeout,
    /// Worth retrying: connection refused, 429, 5xx; `retry_after` when the server said.
    Unavailable {
        detail: String,
        retry_after: Option<Duration>,
    },
    /// Not worth retrying: 4xx, an unreadable response.
    Failed(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Timeout => write!(f, "no answer within the request deadline"),
            CallError::Unavailable { detail, .. } => write!(f, "unavailable: {detail}"),
            CallError::Failed(detail) => write!(f, "failed: {detail}"),
        }
    }
}

#[derive(Debug)]
pub struct OpenAiGenerator {
    settings: LlmSettings,
    client: reqwest::Client,
    fallback: ExtractiveGenerator,
    breaker: CircuitBreaker,
    slots: tokio::sync::Semaphore,
}

impl OpenAiGenerator {
    pub fn new(
        settings: LlmSettings,
        fallback: ExtractiveGenerator,
    ) -> Result<OpenAiGenerator, GenerateError> {
        // The deadline is per request (`call`): what is left of the turn's budget may be less.
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(settings.timeout_secs.min(5)))
            .build()
            .map_err(|e| GenerateError::Failed(e.to_string()))?;
        let breaker = CircuitBreaker::new(
            "llm",
            settings.breaker_failures,
            Duration::from_secs(settings.breaker_cooldown_secs),
        );
        Ok(OpenAiGenerator {
            slots: tokio::sync::Semaphore::new(settings.max_concurrent.max(1)),
            settings,
            client,
            fallback,
            breaker,
        })
    }

    pub fn breaker(&self) -> &CircuitBreaker {
        &self.breaker
    }

    pub fn request_body(&self, request: &GenerationRequest<'_>) -> serde_json::Value {
        let clauses: String = request
            .clauses
            .iter()
            .map(|c| format!("[{}] {}\n{}\n\n", c.clause, c.title, c.text))
            .collect();
        let system = if request.strict {
            format!("{SYSTEM_PROMPT}{STRICT_SUFFIX}")
        } else {
            SYSTEM_PROMPT.to_string()
        };
        json!({
            "model": self.settings.model,
            "temperature": 0,
            "max_tokens": self.settings.max_tokens,
            "stop": STOP_SEQUENCES,
            "stream": false,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": format!("Policy version: {}\n\nClauses:\n{clauses}Question: {}", request.version_id, request.question)}
            ]
        })
    }

    /// One request, bounded by `deadline`.
    async fn call(
        &self,
        body: &serde_json::Value,
        deadline: Duration,
    ) -> Result<(String, u32), CallError> {
        let url = format!(
            "{}/chat/completions",
            self.settings
                .base_url
                .as_deref()
                .unwrap_or_default()
                .trim_end_matches('/')
        );
        let mut call = self.client.post(&url).timeout(deadline).json(body);
        if let Some(key) = &self.settings.api_key {
            call = call.bearer_auth(key);
        }
        let transport = |e: reqwest::Error| {
            if e.is_timeout() {
                CallError::Timeout
            } else {
                CallError::Unavailable {
                    detail: e.to_string(),
                    retry_after: None,
                }
            }
        };
        // The outer timeout also bounds reading the body; dropping the future on expiry closes
        // the connection, which is how an abandoned request is cancelled.
        let exchange = async {
            let response = call.send().await.map_err(transport)?;
            let status = response.status();
            if status.is_server_error() || status.as_u16() == 429 {
                let retry_after = response
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(Duration::from_secs);
                return Err(CallError::Unavailable {
                    detail: format!("HTTP {status}"),
                    retry_after,
                });
            }
            if !status.is_success() {
                return Err(CallError::Failed(format!(
                    "HTTP {status}: {}",
                    response.text().await.unwrap_or_default()
                )));
            }
            let parsed: ChatResponse = response.json().await.map_err(|e| {
                if e.is_timeout() {
                    CallError::Timeout
                } else {
                    CallError::Failed(format!("response: {e}"))
                }
            })?;
            let tokens = parsed.usage.map_or(0, |u| u.completion_tokens);
            parsed
                .choices
                .into_iter()
                .next()
                .map(|c| (c.message.content, tokens))
                .ok_or_else(|| CallError::Failed("no choices in response".into()))
        };
        tokio::time::timeout(deadline, exchange)
            .await
            .unwrap_or(Err(CallError::Timeout))
    }

    /// The LLM's answer within the turn's budget, or why it gave up and how many requests it
    /// made.
    async fn answer(
        &self,
        request: &GenerationRequest<'_>,
    ) -> Result<GeneratedText, (String, u32)> {
        if let Some(left) = self.breaker.open_for() {
            return Err((
                format!(
                    "llm_circuit_open: the endpoint failed repeatedly; next try in {:.0} s",
                    left.as_secs_f64()
                ),
                0,
            ));
        }
        let body = self.request_body(request);
        let budget = Duration::from_secs(self.settings.budget_secs);
        let started = Instant::now();
        let per_request = Duration::from_secs(self.settings.timeout_secs);
        let mut calls = 0u32;
        // Exponential from 200 ms to 2 s with jitter, so that turns that failed together do not
        // retry together; `None` once the retries are spent.
        let mut delays = jittered_backoff(
            Duration::from_millis(200),
            Duration::from_secs(2),
            self.settings.max_retries,
        );
        loop {
            let left = budget.saturating_sub(started.elapsed());
            if left.is_zero() {
                return Err((
                    format!("llm_budget_exhausted: no answer within {budget:?}"),
                    calls,
                ));
            }
            // A free slot first: waiting counts against the budget, not the request's deadline.
            let Ok(Ok(slot)) = tokio::time::timeout(left, self.slots.acquire()).await else {
                return Err((
                    format!("llm_budget_exhausted: no free request slot within {budget:?}"),
                    calls,
                ));
            };
            let left = budget.saturating_sub(started.elapsed());
            if left.is_zero() {
                continue;
            }
            calls += 1;
            match self.call(&body, per_request.min(left)).await {
                Ok((text, tokens)) => {
                    self.breaker.record_success();
                    return Ok(GeneratedText {
                        text,
                        fallback_reason: None,
                        llm_calls: calls,
                        completion_tokens: tokens,
                    });
                }
                Err(CallError::Timeout) => {
                    self.breaker.record_failure();
                    return Err((
                        format!(
                            "llm_timeout: no answer within {:.0} s",
                            per_request.min(left).as_secs_f64()
                        ),
                        calls,
                    ));
                }
                Err(CallError::Failed(detail)) => {
                    return Err((format!("llm_failed: {detail}"), calls));
                }
                Err(CallError::Unavailable {
                    detail,
                    retry_after,
                }) => {
                    self.breaker.record_failure();
                    let wait = delays.next().map(|backoff| retry_after.unwrap_or(backoff));
                    let left = budget.saturating_sub(started.elapsed());
                    let Some(wait) =
                        wait.filter(|w| *w < left && self.breaker.open_for().is_none())
                    else {
                        return Err((
                            format!("llm_unavailable: {detail} after {calls} request(s)"),
                            calls,
                        ));
                    };
                    tracing::debug!(detail, wait_ms = wait.as_millis() as u64, "LLM retry");
                    drop(slot);
                    tokio::time::sleep(wait).await;
                }
            }
        }
    }
}

impl Generator for OpenAiGenerator {
    fn name(&self) -> &str {
        "openai-compatible"
    }

    fn retries_on_rejection(&self) -> bool {
        true
    }

    fn generate<'a>(&'a self, request: GenerationRequest<'a>) -> GenerateFuture<'a> {
        Box::pin(async move {
            match self.answer(&request).await {
                Ok(generated) => Ok(generated),
                Err((reason, calls)) => {
                    tracing::warn!(reason, "LLM gave up");
                    match self.settings.on_failure {
                        OnLlmFailure::Escalate => Err(GenerateError::GaveUp(reason)),
                        OnLlmFailure::Extractive => {
                            let mut generated = self.fallback.generate(request).await?;
                            generated.fallback_reason = Some(reason);
                            generated.llm_calls = calls;
                            Ok(generated)
                        }
                    }
                }
            }
        })
    }
}

#[cfg(test)]
#[path = "llm_tests.rs"]
mod tests;
