//! Generate: a [`Generator`] writes the answer from the retrieved clauses. The default is the
//! deterministic extractive generator; an OpenAI-compatible chat-completions endpoint is the
//! optional alternative. Either way the judge checks the result.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use policy_avro::RetrievedClause;
use policy_core::extract::{extract_answer, Candidate};
use policy_core::judge::REFUSAL;
use serde::Deserialize;
use serde_json::json;

#[derive(Debug, Clone, Copy)]
pub struct GenerationRequest<'a> {
    pub question: &'a str,
    pub version_id: &'a str,
    pub clauses: &'a [RetrievedClause],
    /// Second attempt after the judge rejected the first: the prompt insists harder.
    pub strict: bool,
}

impl<'a> GenerationRequest<'a> {
    /// The request for an enriched and retrieved turn.
    pub fn for_turn(state: &'a policy_avro::TurnState, strict: bool) -> GenerationRequest<'a> {
        let enrichment = state
            .enrichment
            .as_ref()
            .expect("generation runs after enrich");
        let retrieval = state
            .retrieval
            .as_ref()
            .expect("generation runs after retrieve");
        GenerationRequest {
            question: &enrichment.sanitized_question,
            version_id: &enrichment.version_id,
            clauses: &retrieval.clauses,
            strict,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// Worth retrying later (timeout, 5xx, connection refused).
    #[error("generator unavailable: {0}")]
    Unavailable(String),
    #[error("generator failed: {0}")]
    Failed(String),
}

pub type GenerateFuture<'a> =
    Pin<Box<dyn Future<Output = Result<String, GenerateError>> + Send + 'a>>;

pub trait Generator: Send + Sync {
    fn name(&self) -> &str;
    /// LLM answers get one stricter retry when the judge rejects them; extractive ones cannot
    /// improve by retrying.
    fn retries_on_rejection(&self) -> bool;
    fn generate<'a>(&'a self, request: GenerationRequest<'a>) -> GenerateFuture<'a>;
}

#[derive(Debug, Clone, Copy)]
pub struct ExtractiveGenerator {
    /// The runner-up clause is quoted too when its score is this close to the top one.
    pub runner_up_margin: f32,
}

impl Generator for ExtractiveGenerator {
    fn name(&self) -> &str {
        "extractive"
    }

    fn retries_on_rejection(&self) -> bool {
        false
    }

    fn generate<'a>(&'a self, request: GenerationRequest<'a>) -> GenerateFuture<'a> {
        let candidates: Vec<Candidate<'_>> = request
            .clauses
            .iter()
            .map(|c| Candidate {
                clause_id: &c.clause_id,
                text: &c.text,
                score: c.score as f32,
            })
            .collect();
        let text = extract_answer(request.question, &candidates, self.runner_up_margin)
            .map(|e| e.answer_text())
            .unwrap_or_else(|| REFUSAL.to_string());
        Box::pin(async move { Ok(text) })
    }
}

/// Settings of the OpenAI-compatible generator (`POLICY_LLM_BASE_URL`, `POLICY_LLM_MODEL`,
/// `POLICY_LLM_API_KEY`).
#[derive(Debug, Clone)]
pub struct LlmSettings {
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    pub timeout: Duration,
    pub max_retries: usize,
}

impl LlmSettings {
    /// `Some` when `POLICY_LLM_BASE_URL` is set: the LLM generator is opt-in.
    pub fn from_env() -> Option<LlmSettings> {
        let base_url = std::env::var("POLICY_LLM_BASE_URL")
            .ok()
            .filter(|v| !v.is_empty())?;
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Some(LlmSettings {
            base_url,
            model: var("POLICY_LLM_MODEL").unwrap_or_else(|| "gpt-4o-mini".into()),
            api_key: var("POLICY_LLM_API_KEY"),
            timeout: Duration::from_secs(
                var("POLICY_LLM_TIMEOUT_SECS")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(20),
            ),
            max_retries: var("POLICY_LLM_MAX_RETRIES")
                .and_then(|v| v.parse().ok())
                .unwrap_or(3),
        })
    }
}

pub struct OpenAiGenerator {
    settings: LlmSettings,
    client: reqwest::Client,
}

pub const SYSTEM_PROMPT: &str = "You answer customer policy questions using ONLY the policy clauses provided. \
Quote the relevant rule faithfully, keep numbers exactly as written, and cite every clause you use with its id in the form [clause: <clause id>]. \
Never use knowledge outside the clauses. If the clauses do not answer the question, reply exactly: \
I can't confirm the answer for your specific situation; let me hand you to a human agent.";

pub const STRICT_SUFFIX: &str = " Your previous answer was rejected by a compliance check. Copy the sentence that answers the question \
word for word from one clause and end with that clause's tag. Do not add any number that is not in that clause.";

#[derive(Deserialize)]
struct ChatResponse {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: Message,
}

#[derive(Deserialize)]
struct Message {
    content: String,
}

impl OpenAiGenerator {
    pub fn new(settings: LlmSettings) -> Result<OpenAiGenerator, GenerateError> {
        let client = reqwest::Client::builder()
            .timeout(settings.timeout)
            .build()
            .map_err(|e| GenerateError::Failed(e.to_string()))?;
        Ok(OpenAiGenerator { settings, client })
    }

    pub fn request_body(&self, request: &GenerationRequest<'_>) -> serde_json::Value {
        let clauses: String = request
            .clauses
            .iter()
            .map(|c| format!("[{}] {}\n{}\n\n", c.clause_id, c.title, c.text))
            .collect();
        let system = if request.strict {
            format!("{SYSTEM_PROMPT}{STRICT_SUFFIX}")
        } else {
            SYSTEM_PROMPT.to_string()
        };
        json!({
            "model": self.settings.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": format!("Policy version: {}\n\nClauses:\n{clauses}Question: {}", request.version_id, request.question)}
            ]
        })
    }

    async fn call(&self, body: &serde_json::Value) -> Result<String, GenerateError> {
        let url = format!(
            "{}/chat/completions",
            self.settings.base_url.trim_end_matches('/')
        );
        let mut call = self.client.post(&url).json(body);
        if let Some(key) = &self.settings.api_key {
            call = call.bearer_auth(key);
        }
        let response = call
            .send()
            .await
            .map_err(|e| GenerateError::Unavailable(e.to_string()))?;
        let status = response.status();
        if status.is_server_error() || status.as_u16() == 429 {
            return Err(GenerateError::Unavailable(format!("HTTP {status}")));
        }
        if !status.is_success() {
            return Err(GenerateError::Failed(format!(
                "HTTP {status}: {}",
                response.text().await.unwrap_or_default()
            )));
        }
        let parsed: ChatResponse = response
            .json()
            .await
            .map_err(|e| GenerateError::Failed(format!("response: {e}")))?;
        parsed
            .choices
            .into_iter()
            .next()
            .map(|c| c.message.content)
            .ok_or_else(|| GenerateError::Failed("no choices in response".into()))
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
        let body = self.request_body(&request);
        Box::pin(async move {
            let backoff = ExponentialBuilder::default()
                .with_min_delay(Duration::from_millis(100))
                .with_max_delay(Duration::from_secs(2))
                .with_max_times(self.settings.max_retries);
            (|| self.call(&body))
                .retry(backoff)
                .when(|e| matches!(e, GenerateError::Unavailable(_)))
                .await
        })
    }
}

#[cfg(test)]
#[path = "generate_tests.rs"]
mod tests;
