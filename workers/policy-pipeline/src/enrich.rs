//! Enrich: input guardrails, region resolution, version resolution by the effective (purchase)
//! instant, and the manifest pinned to the turn.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use policy_avro::{ChatTurn, Enrichment};
use policy_core::citation::{stated_references, WrittenReference};
use policy_core::guardrails::{
    assess_injection, detect_pii, is_unusable, redact, sanitize, sanitize_keeping_lines,
};
use policy_core::injection::Signal;
use policy_core::intent::{detect_intent, TurnSubjects};
use policy_core::memo::Memo;
use policy_core::script::mostly_unread;
use policy_core::version::VersionOutcome;
use policy_core::{resolve_region, Intent, ReasonCode, RegionSignals, VersionResolver};
use policy_search::retriever::SharedEmbedder;

use crate::config::PipelineConfig;
use crate::decide::{look_up, subject_of, SubjectKind, SubjectLookup};
use crate::facts::Sources;
use crate::guard::AttackLibrary;
use crate::outcome::{escalation, Outcome};
use crate::serving::ServingState;
use crate::stage::{Stage, StageFuture, StageName, Step, TurnContext};
use crate::state::{Enriched, Received, Turn};

/// Questions whose injection assessment and attack similarity are kept before the memos start
/// over (both depend only on the question and on the library loaded at start).
const QUESTIONS_REMEMBERED: usize = 4096;

#[derive(Debug, Clone)]
pub struct Enricher {
    resolver: VersionResolver,
    max_question_chars: usize,
    injection_threshold: f64,
    /// Similarity to known attacks, when a library and the model are at hand.
    guard: Option<(Arc<AttackLibrary>, SharedEmbedder)>,
    /// The order system and employee directory decisions look their subject up in.
    sources: Sources,
    /// Attack similarity per question.
    similarities: Arc<Memo<String, f64>>,
    /// Lexical assessments per (redacted) question.
    assessments: Arc<Memo<String, policy_core::injection::InjectionAssessment>>,
}

/// What enrich fetched before its pure part: the weight of the attack library's evidence
/// ([`AttackLibrary::evidence`]) and, for a decision, its subject from the source of truth.
#[derive(Debug, Default)]
pub struct Prefetched {
    pub attack_similarity: f64,
    pub subject: Option<SubjectLookup>,
}

impl Prefetched {
    pub fn similarity(attack_similarity: f64) -> Prefetched {
        Prefetched {
            attack_similarity,
            subject: None,
        }
    }
}

/// The question as the pipeline sees it: sanitised, personal data redacted.
struct Prepared {
    question: String,
    /// The question redacted the same way with its line breaks kept, for the readings of
    /// pasted material.
    laid_out: String,
    /// The redacted spans as written, read only by the injection guard for encoded payloads
    /// (a hex payload looks like a card number). Never stored, sent or logged.
    redacted: Vec<String>,
    pii_types: Vec<String>,
    flags: Vec<String>,
    unusable: bool,
}

/// `span` of `text` widened to the whitespace around it: a redaction may take only the digit
/// run of a longer token.
fn whole_words(text: &str, span: std::ops::Range<usize>) -> Option<&str> {
    let start = text
        .get(..span.start)?
        .rfind(char::is_whitespace)
        .map_or(0, |at| at + 1);
    let end = text
        .get(span.end..)?
        .find(char::is_whitespace)
        .map_or(text.len(), |at| span.end + at);
    text.get(start..end)
}

/// Why a message naming a version or clause of a region in the answers' notation (`us-v9`,
/// `[clause: us-v4#sec-9.9]`) is for a person when the corpus never published it: the message
/// passes on a rule no version holds, which the assistant cannot check and must not answer
/// around. Real ones quoted back ("what does us-v2#sec-3.2 mean?") and names of regions the
/// corpus does not serve are left to the rest of the pipeline.
fn unpublished_reference(serving: &ServingState, message: &str) -> Option<String> {
    let manifest = &serving.manifest;
    let unpublished = stated_references(message).into_iter().find(|reference| {
        let region = reference.region();
        manifest.regions().any(|served| served == region)
            && match reference {
                WrittenReference::Version(version) => manifest.version(version).is_none(),
                // A clause of a published version only in the answers' own anchors: "us-v4#3.2"
                // is a reader's shorthand, "us-v4#sec-9.9" names a section that does not exist.
                WrittenReference::Clause(clause) => {
                    manifest.version(&clause.version_id).is_none()
                        || clause.anchor.starts_with("sec-")
                            && serving.corpus.clause(&clause.clause_id()).is_none()
                }
                // "per us-v9 §4.2": no clause of the version has that number, nor is it the
                // heading of clauses below ("§3" over 3.1) or a lettered part of one ("§4.2a"
                // of 4.2, or an anchor "sec-4.2a").
                WrittenReference::Section { version, number } => {
                    let base = number.trim_end_matches(|c: char| c.is_ascii_lowercase());
                    let anchor = format!("sec-{number}");
                    manifest.version(version).is_none()
                        || !serving.corpus.version_clauses(version).any(|clause| {
                            clause.anchor == anchor
                                || clause.number.as_deref().is_some_and(|n| {
                                    n == base
                                        || n.strip_prefix(base)
                                            .is_some_and(|rest| rest.starts_with('.'))
                                })
                        })
                }
            }
    })?;
    let region = unpublished.region();
    let versions: Vec<&str> = manifest
        .region_versions(region)
        .unwrap_or_default()
        .iter()
        .map(|v| v.id.as_str())
        .collect();
    Some(format!(
        "the message cites {unpublished}, which the policy of region {region} never published \
         (its versions: {}): the assistant answers from the published versions only and cannot \
         verify what the message attributes to it; a person checks it",
        versions.join(", ")
    ))
}

fn instant(millis: i64) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp_millis(millis)
}

impl Enricher {
    pub fn new(config: &PipelineConfig) -> Enricher {
        Enricher {
            resolver: VersionResolver {
                ambiguity_window: Duration::hours(config.cutover_ambiguity_hours),
            },
            max_question_chars: config.max_question_chars,
            injection_threshold: config.injection_threshold,
            guard: None,
            sources: Sources::default(),
            similarities: Arc::new(Memo::new(QUESTIONS_REMEMBERED)),
            assessments: Arc::new(Memo::new(QUESTIONS_REMEMBERED)),
        }
    }

    /// The same stage looking decisions' orders and employees up in `sources`.
    pub fn with_sources(mut self, sources: Sources) -> Enricher {
        self.sources = sources;
        self
    }

    fn intent(ctx: &TurnContext, question: &str, turn: &ChatTurn) -> Intent {
        detect_intent(
            question,
            TurnSubjects {
                has_order: turn.order_id.is_some(),
                has_employee: turn.employee_id.is_some(),
            },
            ctx.serving.corpus.expense_words(),
        )
    }

    /// The same stage also weighing the similarity to a library of known attacks.
    pub fn with_guard(mut self, library: Arc<AttackLibrary>, embedder: SharedEmbedder) -> Enricher {
        self.guard = Some((library, embedder));
        self
    }

    fn prepare(&self, raw: &str) -> Prepared {
        let sanitized = sanitize(raw, self.max_question_chars);
        let mut flags = Vec::new();
        if sanitized.removed_control_chars > 0 {
            flags.push("control_chars_removed".to_string());
        }
        if sanitized.truncated {
            flags.push("truncated".to_string());
        }
        let pii = detect_pii(&sanitized.text);
        if !pii.is_empty() {
            flags.push("pii_redacted".to_string());
        }
        let lines = sanitize_keeping_lines(raw, self.max_question_chars).text;
        Prepared {
            // Personal data is never sent further down the pipeline (or to an LLM).
            question: redact(&sanitized.text, &pii),
            // Found on the lines joined by spaces (one byte for one, so the spans fit): a card
            // number broken over two lines is redacted as the flat question's is.
            laid_out: redact(&lines, &detect_pii(&lines.replace('\n', " "))),
            redacted: pii
                .iter()
                .filter_map(|m| whole_words(&sanitized.text, m.span.clone()))
                .map(str::to_string)
                .collect(),
            pii_types: pii.iter().map(|m| m.kind.as_str().to_string()).collect(),
            flags,
            unusable: is_unusable(&sanitized.text),
        }
    }

    /// How close the question is to known attacks (0 without a library, or for a question
    /// the library cannot weigh: [`AttackLibrary::reads`]). The vector is the one retrieval
    /// uses: cached, so the model runs once per question.
    async fn attack_similarity(&self, question: &str) -> f64 {
        let Some((library, embedder)) = &self.guard else {
            return 0.0;
        };
        // Only questions the library reads are remembered: a repeat is answered here.
        if let Some(known) = self.similarities.get(question) {
            return known;
        }
        if !library.reads(question) {
            return 0.0;
        }
        match embedder.embed_query_async(question).await {
            Ok(vector) => {
                let evidence = library.evidence(&vector);
                self.similarities.insert(question.to_string(), evidence);
                evidence
            }
            Err(e) => {
                // The lexical signals still stand; retrieval will report the model failure.
                tracing::warn!(error = %e, "attack similarity unavailable");
                0.0
            }
        }
    }

    /// The pure part of the stage: everything but waiting.
    pub fn enrich(
        &self,
        ctx: &TurnContext,
        turn: Turn<Received>,
        prefetched: Prefetched,
    ) -> Step<Enriched> {
        let stop = |turn: &Turn<Received>, enrichment: Option<&Enrichment>, code, reasons| {
            Step::Done(Box::new(escalation(turn, enrichment, None, code, reasons)))
        };
        let Prepared {
            question,
            laid_out,
            redacted,
            pii_types,
            flags,
            unusable,
        } = self.prepare(&turn.turn.question);
        if unusable {
            return stop(
                &turn,
                None,
                ReasonCode::UnusableInput,
                vec!["the question contains no words".into()],
            );
        }
        let intent = Self::intent(ctx, &question, &turn.turn);
        // With personal data, its spans are read for payloads too, and nothing is remembered.
        let lexical = if redacted.is_empty() {
            self.assessments
                .get_or_insert_with(question.as_str(), || assess_injection(&question))
        } else {
            let spans: Vec<&str> = redacted.iter().map(String::as_str).collect();
            policy_core::injection::assess_with_removed(&question, &spans)
        };
        let injection =
            lexical.with_evidence(Signal::KnownAttackSimilarity, prefetched.attack_similarity);
        let serving = &ctx.serving;
        let mut enrichment = Enrichment {
            sanitized_question: question,
            pii_types,
            injection_score: injection.score,
            guardrail_flags: flags,
            manifest_sha: serving.manifest_sha.clone(),
            manifest_git_sha: serving.git_sha.clone(),
            effective_at: turn.turn.purchase_at,
            intent: intent.as_str().into(),
            ..Default::default()
        };
        if injection.score >= self.injection_threshold {
            enrichment.guardrail_flags.extend(
                injection
                    .signal_names()
                    .iter()
                    .map(|s| format!("injection:{s}")),
            );
            let reason = format!(
                "prompt injection suspected (score {:.2}: {})",
                injection.score,
                injection.signal_names().join(", ")
            );
            return stop(
                &turn,
                Some(&enrichment),
                ReasonCode::PromptInjection,
                vec![reason],
            );
        }
        if let Some(reason) = unpublished_reference(serving, &enrichment.sanitized_question) {
            return stop(
                &turn,
                Some(&enrichment),
                ReasonCode::ClaimedPolicyChange,
                vec![reason],
            );
        }
        // Before an action request: "the fee was scrapped, so refund it" needs the claim
        // checked, which is what a person must know first.
        if let Some(claim) = policy_core::claims::relies_on_claimed_change(&laid_out) {
            return stop(
                &turn,
                Some(&enrichment),
                ReasonCode::ClaimedPolicyChange,
                vec![format!(
                    "the message asks for something on the strength of a policy change it \
                     claims (\"{claim}\"): the assistant answers from the published version \
                     and cannot verify the claim; a person checks it"
                )],
            );
        }
        if intent == Intent::ActionRequest {
            let asked = policy_core::intent::demanded_action(&enrichment.sanitized_question)
                .unwrap_or_default();
            return stop(
                &turn,
                Some(&enrichment),
                ReasonCode::ActionRequested,
                vec![format!(
                    "the message asks the assistant to act (\"{asked}\"): an action on an \
                     account or a payment, or a commitment, is for a person; the assistant \
                     answers policy questions"
                )],
            );
        }
        if intent == Intent::RecordRequest {
            let asked = policy_core::records::requested_record(&enrichment.sanitized_question)
                .unwrap_or_default();
            return stop(
                &turn,
                Some(&enrichment),
                ReasonCode::RecordRequested,
                vec![format!(
                    "the message asks for what an account or order record holds (\"{asked}\"): \
                     the assistant answers from the policy and reads no records; a person looks \
                     it up and checks who may see it"
                )],
            );
        }
        let subject = match prefetched
            .subject
            .map(|lookup| subject_of(lookup, &turn.turn))
        {
            Some(Ok(subject)) => Some(subject),
            Some(Err((code, reason))) => return stop(&turn, Some(&enrichment), code, vec![reason]),
            None => None,
        };
        let signals = RegionSignals {
            session: turn.turn.session_region.as_deref(),
            billing: turn.turn.billing_region.as_deref(),
            ip: turn.turn.ip_region.as_deref(),
        };
        // The subject's source of truth outranks the session's signals.
        let kind = subject.as_ref().and_then(SubjectKind::of_subject);
        let authoritative = subject.as_ref().zip(kind).and_then(|(s, kind)| {
            let (field, source) = kind.region_field();
            s.fields
                .get(field)
                .map(|r| (r.trim().to_lowercase(), source))
        });
        match (authoritative, resolve_region(signals)) {
            (Some((region, source)), signals) => {
                enrichment.region_disagreement = signals.as_ref().is_ok_and(|s| s.region != region);
                enrichment.region = region;
                enrichment.region_source = source.to_string();
            }
            (None, Ok(region)) => {
                enrichment.region = region.region.clone();
                enrichment.region_source = region.source.as_str().to_string();
                enrichment.region_disagreement = region.disagreement;
                enrichment.region_low_confidence = region.low_confidence;
            }
            (None, Err(e)) => {
                return stop(
                    &turn,
                    Some(&enrichment),
                    ReasonCode::NoRegion,
                    vec![e.to_string()],
                )
            }
        }
        let region = enrichment.region.clone();
        // A decision about an order uses the version in force when the order was placed, as
        // the order system records it; an expense request the one in force at its date.
        let effective = match subject.as_ref().zip(kind) {
            Some((s, SubjectKind::Order)) => {
                match s
                    .fields
                    .get("placed_at")
                    .map(|p| policy_core::parse_instant(p))
                {
                    Some(Ok(placed)) => Some(placed),
                    _ => {
                        let reason = format!(
                            "order `{}` from {} has no valid `placed_at`",
                            s.id, s.source
                        );
                        return stop(
                            &turn,
                            Some(&enrichment),
                            ReasonCode::SourceUnavailable,
                            vec![reason],
                        );
                    }
                }
            }
            Some(_) => turn
                .turn
                .purchase_at
                .or(Some(turn.turn.sent_at))
                .and_then(instant),
            None => turn.turn.purchase_at.and_then(instant),
        };
        enrichment.effective_at = effective.map(|e| e.timestamp_millis());
        enrichment.subject = subject;
        // A turn always carries its send time; `now` only stands in for a corrupt one.
        let as_of = instant(turn.turn.sent_at).unwrap_or_else(Utc::now);
        match self
            .resolver
            .resolve(&serving.manifest, &region, effective, as_of)
        {
            VersionOutcome::Resolved {
                version,
                ambiguous_cutover: None,
            } => enrichment.version_id = version.id,
            VersionOutcome::Resolved {
                version,
                ambiguous_cutover: Some(cutover),
            } => {
                enrichment.version_id = version.id.clone();
                enrichment.ambiguous_cutover_at = Some(cutover.timestamp_millis());
                let reason = format!("purchase instant is within the ambiguity window of the {cutover} cutover ({} would apply)", version.id);
                return stop(
                    &turn,
                    Some(&enrichment),
                    ReasonCode::AmbiguousCutover,
                    vec![reason],
                );
            }
            VersionOutcome::Latest { version, banner } => {
                enrichment.version_id = version.id;
                enrichment.banner = Some(banner);
                enrichment.shadow_review = true;
            }
            VersionOutcome::Escalate(escalation) => {
                return stop(
                    &turn,
                    Some(&enrichment),
                    escalation.reason_code(),
                    vec![escalation.to_string()],
                );
            }
        }
        // Last, so an attack in a script the guard reads is named as one, and the version
        // whose clauses the message is compared with is known.
        let unread = serving
            .corpus
            .scripts(&enrichment.version_id)
            .and_then(|reads| mostly_unread(&enrichment.sanitized_question, reads));
        if let Some(unread) = unread {
            let reason = format!(
                "the message is written in {} script ({:.0} % of its letters in scripts {} is \
                 not written in): no clause can be matched with it or an answer checked against it",
                unread.name(),
                unread.share * 100.0,
                enrichment.version_id
            );
            return stop(
                &turn,
                Some(&enrichment),
                ReasonCode::UnsupportedScript,
                vec![reason],
            );
        }
        Step::Next(turn.advance(Enriched { enrichment }))
    }
}

impl Stage for Enricher {
    type Input = Received;
    type Output = Enriched;

    fn name(&self) -> StageName {
        StageName::Enrich
    }

    fn run<'a>(&'a self, ctx: &'a TurnContext, turn: Turn<Received>) -> StageFuture<'a, Enriched> {
        Box::pin(async move {
            let prepared = self.prepare(&turn.turn.question);
            if prepared.unusable {
                return Ok(self.enrich(ctx, turn, Prefetched::default()));
            }
            let intent = Self::intent(ctx, &prepared.question, &turn.turn);
            let prefetched = Prefetched {
                attack_similarity: self.attack_similarity(&prepared.question).await,
                subject: look_up(intent, &turn.turn, &self.sources).await,
            };
            Ok(self.enrich(ctx, turn, prefetched))
        })
    }
}

/// An escalation built outside a stage (tests).
pub fn escalated(step: Step<Enriched>) -> Option<Outcome> {
    match step {
        Step::Done(outcome) => Some(*outcome),
        Step::Next(_) => None,
    }
}

#[cfg(test)]
#[path = "enrich_tests.rs"]
mod tests;
