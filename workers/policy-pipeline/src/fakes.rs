//! The pipeline without servers or the model (feature `test-utils`): a tiny two-region corpus,
//! a scripted generator, and a chain wired to the search fakes. For unit tests of every stage's
//! paths; the real components are covered by the integration tests.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use policy_avro::{ChatTurn, InputCoordinates};
use policy_core::{Corpus, Document, Manifest};
use policy_search::fakes::FakeRetriever;
use policy_search::{ConfidenceTiers, LinearReranker};

use crate::chain::Chain;
use crate::config::PipelineConfig;
use crate::embedded;
use crate::generate::{
    ExtractiveGenerator, GenerateError, GenerateFuture, GeneratedText, GenerationRequest, Generator,
};
use crate::retrieve::RetrieveStage;
use crate::serving::{ServingHandle, ServingState};

pub const TINY_MANIFEST: &str = r#"{"regions": {
  "eu": {"versions": [
    {"id": "eu-v1", "effective_from": "2024-01-01", "effective_to": "2026-02-01"},
    {"id": "eu-v2", "effective_from": "2026-02-01", "effective_to": null}
  ]},
  "us": {"versions": [
    {"id": "us-v1", "effective_from": "2025-01-01", "effective_to": null}
  ]}
}}"#;

/// The returns document of the tiny corpus for `version_id`, with its return window.
pub fn returns_document(version_id: &str, window_days: u32, extra: &str) -> Document {
    Document {
        version_id: version_id.into(),
        file_name: "01-returns.md".into(),
        content: format!(
            "# Returns\n\n## 3. Returns\n\n### 3.2 Return window\n\n<!-- topic: return_window -->\n\
             <!-- rule: return_window_days={window_days} window_from=delivery -->\n\
             You may return most items within {window_days} days of delivery. Items must be unused.\n\n\
             ### 3.4 Refunds\n\n<!-- topic: refund_timing -->\n\
             Refunds are paid to the original payment method within 14 days.\n\n{extra}"
        ),
    }
}

/// Two regions: `eu` with a cutover on 2026-02-01 (return window 14 → 30 days; a restocking
/// fee only in `eu-v1`), and `us` from 2025-01-01.
pub fn tiny_corpus() -> Arc<Corpus> {
    let manifest = Manifest::parse(TINY_MANIFEST).expect("tiny manifest");
    let fee = "### 3.5 Restocking fee\n\n<!-- topic: restocking_fee -->\nA restocking fee of 10 % applies to opened electronics.\n";
    Arc::new(Corpus::from_documents(
        manifest,
        vec![
            returns_document("eu-v1", 14, fee),
            returns_document("eu-v2", 30, ""),
            returns_document("us-v1", 30, ""),
        ],
        BTreeMap::new(),
    ))
}

/// A generator that replies from a script, one reply per call (the last one repeats), and
/// counts its calls. `retries_on_rejection` like an LLM.
#[derive(Debug)]
pub struct ScriptedGenerator {
    replies: Mutex<VecDeque<Result<String, GenerateError>>>,
    last: Mutex<Option<Result<String, GenerateError>>>,
    pub calls: AtomicUsize,
    pub strict_calls: AtomicUsize,
}

impl ScriptedGenerator {
    pub fn new(replies: Vec<Result<String, GenerateError>>) -> ScriptedGenerator {
        ScriptedGenerator {
            replies: Mutex::new(replies.into()),
            last: Mutex::new(None),
            calls: AtomicUsize::new(0),
            strict_calls: AtomicUsize::new(0),
        }
    }
}

impl Generator for ScriptedGenerator {
    fn name(&self) -> &str {
        "scripted"
    }

    fn retries_on_rejection(&self) -> bool {
        true
    }

    fn generate<'a>(&'a self, request: GenerationRequest<'a>) -> GenerateFuture<'a> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if request.strict {
            self.strict_calls.fetch_add(1, Ordering::SeqCst);
        }
        let reply = match self.replies.lock().expect("script").pop_front() {
            Some(reply) => {
                *self.last.lock().expect("script") = Some(reply.clone());
                reply
            }
            None => self
                .last
                .lock()
                .expect("script")
                .clone()
                .unwrap_or_else(|| Err(GenerateError::Failed("empty script".into()))),
        };
        Box::pin(async move { reply.map(GeneratedText::plain) })
    }
}

/// A chain over `corpus` with the fake retriever and `generator` (the extractive one when
/// `None`), default settings.
pub fn fake_chain(corpus: Arc<Corpus>, generator: Option<Arc<dyn Generator>>) -> Chain {
    let config = PipelineConfig::default();
    let retrieve = RetrieveStage::new(
        Arc::new(FakeRetriever::new(corpus.clone())),
        Arc::new(LinearReranker::default()),
        ConfidenceTiers {
            answer: config.answer_threshold,
            disclaimer: config.disclaimer_threshold,
        },
        config.top_k,
    );
    let generator = generator.unwrap_or_else(|| {
        Arc::new(ExtractiveGenerator {
            runner_up_margin: config.runner_up_margin,
        })
    });
    embedded::chain(
        ServingHandle::new(ServingState::from_corpus(corpus)),
        retrieve,
        generator,
        &config,
    )
}

/// A chat turn with the fields a test usually sets; `purchase` and `sent` are RFC 3339.
pub fn chat_turn(question: &str, region: Option<&str>, purchase: Option<&str>) -> ChatTurn {
    let millis = |raw: &str| {
        chrono::DateTime::parse_from_rfc3339(raw)
            .expect("RFC 3339")
            .timestamp_millis()
    };
    ChatTurn {
        conversation_id: "conv-1".into(),
        turn_id: "turn-1".into(),
        question: question.into(),
        session_region: region.map(str::to_string),
        purchase_at: purchase.map(millis),
        sent_at: millis("2026-11-01T12:00:00Z"),
        ..Default::default()
    }
}

pub fn input(offset: i64) -> InputCoordinates {
    InputCoordinates {
        topic: "test".into(),
        partition: 0,
        offset,
    }
}
