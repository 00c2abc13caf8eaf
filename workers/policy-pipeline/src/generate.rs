//! Generate: a [`Generator`] writes the answer from the retrieved clauses. The default is the
//! deterministic extractive generator; an OpenAI-compatible chat-completions endpoint is the
//! optional alternative. Either way the judge checks the result.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use policy_avro::{Draft, Enrichment};
use policy_core::extract::extract_answer;
use policy_core::judge::REFUSAL;
use policy_core::{QueryExpansion, RetrievedClause, Tier};
use serde::Deserialize;
use serde_json::json;

use crate::config::PipelineConfig;
use crate::stage::{Stage, StageError, StageFuture, StageName, Step, TurnContext};
use crate::state::{Drafted, Retrieval, Retrieved, Turn};

#[derive(Debug, Clone, Copy)]
pub struct GenerationRequest<'a> {
    pub question: &'a str,
    /// The question's words as the version knows them.
    pub expansion: &'a QueryExpansion,
    pub version_id: &'a str,
    pub clauses: &'a [RetrievedClause],
    /// Second attempt after the judge rejected the first: the prompt insists harder.
    pub strict: bool,
}

impl<'a> GenerationRequest<'a> {
    /// The request for an enriched and retrieved turn.
    pub fn new(
        enrichment: &'a Enrichment,
        retrieval: &'a Retrieval,
        strict: bool,
    ) -> GenerationRequest<'a> {
        GenerationRequest {
            question: &enrichment.sanitized_question,
            expansion: &retrieval.expansion,
            version_id: &enrichment.version_id,
            clauses: &retrieval.clauses,
            strict,
        }
    }
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum GenerateError {
    /// Worth retrying later (timeout, 5xx, connection refused).
    #[error("generator unavailable: {0}")]
    Unavailable(String),
    #[error("generator failed: {0}")]
    Failed(String),
}

pub type GenerateFuture<'a> =
    Pin<Box<dyn Future<Output = Result<String, GenerateError>> + Send + 'a>>;

pub trait Generator: Send + Sync + std::fmt::Debug {
    fn name(&self) -> &str;
    /// LLM answers get one stricter retry when the judge rejects them; extractive ones cannot
    /// improve by retrying.
    fn retries_on_rejection(&self) -> bool;
    fn generate<'a>(&'a self, request: GenerationRequest<'a>) -> GenerateFuture<'a>;
}

#[derive(Debug, Clone, Copy)]
pub struct ExtractiveGenerator {
    /// The runner-up clause is quoted too when its score is this close to the top one.
    pub runner_up_margin: f64,
}

impl Generator for ExtractiveGenerator {
    fn name(&self) -> &str {
        "extractive"
    }

    fn retries_on_rejection(&self) -> bool {
        false
    }

    fn generate<'a>(&'a self, request: GenerationRequest<'a>) -> GenerateFuture<'a> {
        let text = extract_answer(
            request.question,
            request.expansion,
            request.clauses,
            self.runner_up_margin,
        )
        .map(|e| e.answer_text())
        .unwrap_or_else(|| REFUSAL.to_string());
        Box::pin(async move { Ok(text) })
    }
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
    /// Per-request timeout, seconds
    #[arg(
        value_name = "POLICY_LLM_TIMEOUT_SECS",
        id = "policy_llm_timeout_secs",
        long = "llm-timeout-secs",
        env = "POLICY_LLM_TIMEOUT_SECS",
        default_value_t = 20
    )]
    pub timeout_secs: u64,
    /// Retries of a request the endpoint could not serve (connection refused, 429, 5xx)
    #[arg(
        value_name = "POLICY_LLM_MAX_RETRIES",
        id = "policy_llm_max_retries",
        long = "llm-max-retries",
        env = "POLICY_LLM_MAX_RETRIES",
        default_value_t = 3
    )]
    pub max_retries: usize,
}

impl policy_settings::Settings for LlmSettings {
    fn validate(&self) -> Result<(), policy_settings::SettingsError> {
        match &self.base_url {
            Some(url) if !(url.starts_with("http://") || url.starts_with("https://")) => {
                Err(policy_settings::SettingsError::invalid(
                    "POLICY_LLM_BASE_URL",
                    "must be an http(s) URL",
                ))
            }
            _ if self.timeout_secs == 0 => Err(policy_settings::SettingsError::invalid(
                "POLICY_LLM_TIMEOUT_SECS",
                "must be positive",
            )),
            _ => Ok(()),
        }
    }
}

impl LlmSettings {
    /// The LLM generator when an endpoint is configured; `None` means extractive.
    pub fn generator(&self) -> Result<Option<Arc<dyn Generator>>, GenerateError> {
        match &self.base_url {
            None => Ok(None),
            Some(base_url) => {
                tracing::info!(
                    base_url,
                    model = self.model,
                    "answers generated by the OpenAI-compatible endpoint"
                );
                Ok(Some(Arc::new(OpenAiGenerator::new(self.clone())?)))
            }
        }
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_secs)
    }
}

#[derive(Debug)]
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
            .timeout(settings.timeout())
            .build()
            .map_err(|e| GenerateError::Failed(e.to_string()))?;
        Ok(OpenAiGenerator { settings, client })
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
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": format!("Policy version: {}\n\nClauses:\n{clauses}Question: {}", request.version_id, request.question)}
            ]
        })
    }

    async fn call(&self, body: &serde_json::Value) -> Result<String, GenerateError> {
        let url = format!(
            "{}/chat/completions",
            self.settings
                .base_url
                .as_deref()
                .unwrap_or_default()
                .trim_end_matches('/')
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

/// Generate: a draft from the retrieved clauses, with the disclaimer its tier calls for.
#[derive(Debug)]
pub struct GenerateStage {
    generator: Arc<dyn Generator>,
    disclaimer_text: String,
    region_disclaimer_text: String,
}

impl GenerateStage {
    pub fn new(generator: Arc<dyn Generator>, config: &PipelineConfig) -> GenerateStage {
        GenerateStage {
            generator,
            disclaimer_text: config.disclaimer_text.clone(),
            region_disclaimer_text: config.region_disclaimer_text.clone(),
        }
    }

    pub fn generator(&self) -> &Arc<dyn Generator> {
        &self.generator
    }

    async fn generate(&self, turn: Turn<Retrieved>) -> Result<Step<Drafted>, StageError> {
        let Retrieved {
            enrichment,
            retrieval,
        } = &turn.state;
        let text = self
            .generator
            .generate(GenerationRequest::new(enrichment, retrieval, false))
            .await
            .map_err(|e| StageError::new(StageName::Generate, e))?;
        let disclaimer = (retrieval.tier == Tier::Disclaimer).then(|| {
            if enrichment.region_low_confidence {
                self.region_disclaimer_text.clone()
            } else {
                self.disclaimer_text.clone()
            }
        });
        let draft = Draft {
            text,
            generator: self.generator.name().to_string(),
            attempts: 1,
            disclaimer,
        };
        let Retrieved {
            enrichment,
            retrieval,
        } = turn.state.clone();
        Ok(Step::Next(turn.advance(Drafted {
            enrichment,
            retrieval,
            draft,
        })))
    }
}

impl Stage for GenerateStage {
    type Input = Retrieved;
    type Output = Drafted;

    fn name(&self) -> StageName {
        StageName::Generate
    }

    fn run<'a>(&'a self, _: &'a TurnContext, turn: Turn<Retrieved>) -> StageFuture<'a, Drafted> {
        Box::pin(self.generate(turn))
    }
}

#[cfg(test)]
#[path = "generate_tests.rs"]
mod tests;
