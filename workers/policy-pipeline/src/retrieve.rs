//! Retrieve: the clauses of exactly the resolved (region, version), reranked, with a confidence
//! and the tier it maps to.

use std::sync::Arc;

use policy_core::{ClauseRef, QueryExpansion, ReasonCode, RetrievedClause, Tier};
use policy_search::{
    ClauseHit, ConfidenceTiers, QueryExpander, Reranker, RetrievalQuery, Retriever, SearchError,
};

use crate::answerability::{topic_of, AnswerabilityGate, VersionMatch};
use crate::outcome::Outcome;
use crate::serving::ServingState;
use crate::stage::{Stage, StageError, StageFuture, StageName, Step, TurnContext};
use crate::state::{Enriched, Retrieval, Retrieved, Turn};

pub struct RetrieveStage {
    retriever: Arc<dyn Retriever>,
    reranker: Arc<dyn Reranker>,
    tiers: ConfidenceTiers,
    top_k: usize,
    /// The version's own words for the question's (none: the question's words as they are).
    expander: Option<Arc<dyn QueryExpander>>,
    /// Out-of-scope and not-covered checks (none: every question is taken as in scope).
    gate: Option<Arc<AnswerabilityGate>>,
}

impl std::fmt::Debug for RetrieveStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RetrieveStage")
            .field("backend", &self.retriever.backend())
            .field("tiers", &self.tiers)
            .field("top_k", &self.top_k)
            .finish()
    }
}

/// Candidates fetched before reranking, per clause returned.
const CANDIDATE_FACTOR: usize = 3;

/// The domain shape of a search hit.
fn retrieved(hit: ClauseHit) -> RetrievedClause {
    RetrievedClause {
        clause: ClauseRef::parse(&hit.clause_id)
            .unwrap_or_else(|| ClauseRef::unchecked(&hit.clause_id)),
        title: hit.title,
        text: hit.text,
        score: hit.score as f64,
        lexical_rank: hit.lexical_rank,
        vector_rank: hit.vector_rank,
        status: hit.status,
        sentence_scores: hit.sentence_scores,
    }
}

impl RetrieveStage {
    pub fn new(
        retriever: Arc<dyn Retriever>,
        reranker: Arc<dyn Reranker>,
        tiers: ConfidenceTiers,
        top_k: usize,
    ) -> Self {
        RetrieveStage {
            retriever,
            reranker,
            tiers,
            top_k,
            expander: None,
            gate: None,
        }
    }

    /// The same stage checking answerability before a turn goes on.
    pub fn with_gate(mut self, gate: Arc<AnswerabilityGate>) -> RetrieveStage {
        self.gate = Some(gate);
        self
    }

    /// The same stage expanding questions with the version's own words.
    pub fn with_expander(mut self, expander: Arc<dyn QueryExpander>) -> RetrieveStage {
        self.expander = Some(expander);
        self
    }

    /// The same stage (reranker, tiers, depth) over another backend.
    pub fn with_retriever(&self, retriever: Arc<dyn Retriever>) -> RetrieveStage {
        RetrieveStage {
            retriever,
            reranker: self.reranker.clone(),
            tiers: self.tiers,
            top_k: self.top_k,
            expander: self.expander.clone(),
            gate: self.gate.clone(),
        }
    }

    pub fn backend(&self) -> &str {
        self.retriever.backend()
    }

    pub fn tiers(&self) -> ConfidenceTiers {
        self.tiers
    }

    /// The question's words as `version_id` knows them, and the fused candidates of that
    /// version (before reranking): what the reranker scores, and what `policyctl calibrate`
    /// fits it on.
    pub async fn candidates(
        &self,
        question: &str,
        region: &str,
        version_id: &str,
    ) -> Result<(QueryExpansion, Vec<ClauseHit>), SearchError> {
        let expansion = match &self.expander {
            Some(expander) => expander.expand(question, version_id).await,
            None => QueryExpansion::plain(question),
        };
        let lexical_extra = expansion.lexical_text();
        let query = RetrievalQuery {
            text: question,
            expansion: &lexical_extra,
            region,
            version_id,
            top_k: self.top_k * CANDIDATE_FACTOR,
        };
        let hits = self.retriever.retrieve(query).await?;
        Ok((expansion, hits))
    }

    pub fn gate(&self) -> Option<&Arc<AnswerabilityGate>> {
        self.gate.as_ref()
    }

    pub fn reranker(&self) -> &Arc<dyn Reranker> {
        &self.reranker
    }

    /// The version's candidates reranked and cut to `top_k`, with their confidence.
    async fn ranked(
        &self,
        question: &str,
        region: &str,
        version_id: &str,
    ) -> Result<(QueryExpansion, Vec<ClauseHit>, f64), SearchError> {
        let (expansion, hits) = self.candidates(question, region, version_id).await?;
        let mut hits = self.reranker.rerank(question, &expansion, hits);
        hits.truncate(self.top_k);
        let confidence = self.reranker.confidence(&hits);
        Ok((expansion, hits, confidence))
    }

    /// How each other version of the region answers the question (versions that fail to
    /// answer are left out: the check can only ever escalate, never answer).
    pub async fn other_versions(
        &self,
        serving: &ServingState,
        question: &str,
        region: &str,
        version_id: &str,
        expansion: &QueryExpansion,
    ) -> Vec<VersionMatch> {
        // Words asked about that the version in force never uses.
        let focus = policy_core::text::focus_words(question);
        let unused: Vec<&str> = expansion
            .words()
            .filter(|t| !t.in_version && focus.contains(&t.word))
            .map(|t| t.word.as_str())
            .collect();
        let versions = serving
            .manifest
            .region_versions(region)
            .unwrap_or_default();
        let mut matches = Vec::new();
        for other in versions.iter().filter(|v| v.id != version_id) {
            let Ok((_, hits, confidence)) = self.ranked(question, region, &other.id).await
            else {
                continue;
            };
            let Some(clause) = hits.first().and_then(|h| serving.corpus.clause(&h.clause_id))
            else {
                continue;
            };
            let stems: std::collections::HashSet<String> =
                policy_core::text::analyze(&clause.text).into_iter().collect();
            let gap = unused
                .iter()
                .filter(|w| policy_core::text::analyze(w).iter().all(|s| stems.contains(s)))
                .map(|w| w.to_string())
                .collect();
            matches.push(VersionMatch {
                version_id: other.id.clone(),
                clause_id: clause.clause_id.clone(),
                topic: topic_of(clause),
                confidence,
                gap,
            });
        }
        matches
    }

    async fn retrieve(
        &self,
        ctx: &TurnContext,
        turn: Turn<Enriched>,
    ) -> Result<Step<Retrieved>, StageError> {
        let enrichment = &turn.state.enrichment;
        if let Some(gate) = &self.gate {
            let foreign =
                gate.foreign(&ctx.serving, &enrichment.region, &enrichment.sanitized_question);
            if !foreign.is_empty() {
                let reasons = foreign.iter().map(|f| format!("out_of_scope: {f}")).collect();
                return Ok(Step::Done(Box::new(
                    turn.escalate(ReasonCode::OutOfScope, reasons),
                )));
            }
        }
        let found = self
            .candidates(
                &enrichment.sanitized_question,
                &enrichment.region,
                &enrichment.version_id,
            )
            .await;
        let (expansion, hits) = match found {
            Ok(found) => found,
            // Never answer from a backend that crossed a policy boundary, never retry it either.
            Err(e @ SearchError::BoundaryViolation { .. }) => {
                return Ok(Step::Done(Box::new(turn.escalate(
                    ReasonCode::RetrievalBoundaryViolation,
                    vec![e.to_string()],
                ))))
            }
            Err(e) => return Err(StageError::new(StageName::Retrieve, e)),
        };
        let mut hits = self
            .reranker
            .rerank(&enrichment.sanitized_question, &expansion, hits);
        hits.truncate(self.top_k);
        let confidence = self.reranker.confidence(&hits);
        let not_covered = match &self.gate {
            Some(gate) => {
                let others = self
                    .other_versions(
                        &ctx.serving,
                        &enrichment.sanitized_question,
                        &enrichment.region,
                        &enrichment.version_id,
                        &expansion,
                    )
                    .await;
                gate.not_covered(
                    &ctx.serving,
                    (&enrichment.version_id, confidence),
                    others,
                )
            }
            None => None,
        };
        let mut tier = self.tiers.tier(confidence);
        // A region resting on weak or conflicting signals is never answered without a caveat.
        if tier == Tier::Answer && enrichment.region_low_confidence {
            tier = Tier::Disclaimer;
        }
        let retrieval = Retrieval {
            clauses: hits.into_iter().map(retrieved).collect(),
            confidence,
            tier,
            backend: self.retriever.backend().to_string(),
            expansion,
        };
        let enrichment = turn.state.enrichment.clone();
        let turn = turn.advance(Retrieved {
            enrichment,
            retrieval,
        });
        if let Some(not_covered) = not_covered {
            let reason = not_covered.reason(&turn.state.enrichment.version_id);
            let mut outcome = turn.escalate(ReasonCode::NotCoveredInVersion, vec![reason]);
            if let Outcome::Escalate(escalation) = &mut outcome {
                escalation.topic = Some(not_covered.topic.clone());
                escalation
                    .context
                    .insert("covered_by".into(), not_covered.covered_by.join(","));
            }
            return Ok(Step::Done(Box::new(outcome)));
        }
        Ok(Step::Next(turn))
    }
}

impl Stage for RetrieveStage {
    type Input = Enriched;
    type Output = Retrieved;

    fn name(&self) -> StageName {
        StageName::Retrieve
    }

    fn run<'a>(&'a self, ctx: &'a TurnContext, turn: Turn<Enriched>) -> StageFuture<'a, Retrieved> {
        Box::pin(self.retrieve(ctx, turn))
    }
}
