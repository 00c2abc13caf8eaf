//! Retrieve: the clauses of exactly the resolved (region, version), reranked, with a confidence
//! and the tier it maps to.

use std::collections::HashSet;
use std::sync::Arc;

use policy_core::memo::Memo;

use policy_core::citation::referenced_clause_numbers;
use policy_core::claims::{claim_beyond, claimed_change_in};
use policy_core::extract::{references_to_follow, states_asked_quantity};
use policy_core::text::without_set_aside;
use policy_core::{ClauseRef, ClauseStatus, QueryExpansion, ReasonCode, RetrievedClause, Tier};
use policy_search::{
    ClauseHit, ConfidenceTiers, QueryExpander, Ranking, Reranker, RetrievalQuery, Retriever,
    SearchError,
};

use crate::answerability::{topic_of, AnswerabilityGate, VersionMatch};
use crate::decide::{rule_evidence, SubjectKind};
use crate::outcome::Outcome;
use crate::serving::ServingState;
use crate::stage::{Stage, StageError, StageFuture, StageName, Step, TurnContext};
use crate::state::{Enriched, Retrieval, Retrieved, Turn};
use policy_avro::Enrichment;

pub struct RetrieveStage {
    retriever: Arc<dyn Retriever>,
    reranker: Arc<dyn Reranker>,
    tiers: ConfidenceTiers,
    top_k: usize,
    /// The version's own words for the question's (none: the question's words as they are).
    expander: Option<Arc<dyn QueryExpander>>,
    /// Out-of-scope and not-covered checks (none: every question is taken as in scope).
    gate: Option<Arc<AnswerabilityGate>>,
    /// Each version's ranking of a question, per corpus: the same question against the same
    /// version always ranks the same (retrieval reads only that version), and one turn
    /// consults several versions, so repeated questions cost a lookup.
    ranked: Memo<RankedKey, Arc<Ranked>>,
}

/// (manifest sha, region, version, question).
type RankedKey = (String, String, String, String);

/// Rankings kept before the cache starts over (each holds `top_k` clauses).
const RANKED_ENTRIES: usize = 4096;

/// A version's answer to a question: its words as the version knows them, the reranked
/// candidates cut to `top_k`, the confidence, and the best cosine of the question as written
/// with any candidate before the cut (how close the version comes to the question at all).
#[derive(Debug)]
pub struct Ranked {
    pub expansion: QueryExpansion,
    pub hits: Vec<ClauseHit>,
    pub confidence: f64,
    pub in_domain: f32,
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

/// Candidates of another version searched for the clause about a programme the question
/// names, when its best clause is on a topic the version in force has too.
const NAMED_PROGRAMME_DEPTH: usize = 5;

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

/// When the sentence of the top clause that answers the question only points elsewhere
/// ("refunds are made as set out in clause 5.1"), the clause it points to joins the evidence
/// right after it, scored level with it, so the answer quotes the fact and cites where it is.
fn follow_reference(
    serving: &ServingState,
    question: &str,
    expansion: &QueryExpansion,
    clauses: &mut Vec<RetrievedClause>,
) {
    let Some(top) = clauses.first() else { return };
    let version_id = top.clause.version_id.clone();
    let top_id = top.clause_id();
    let references = references_to_follow(question, expansion, top);
    let candidates: Vec<String> = references
        .numbers
        .iter()
        .map(|number| format!("{version_id}#sec-{number}"))
        .filter(|id| *id != top_id && serving.corpus.clause(id).is_some())
        .collect();
    // Asked for a period the top clause leaves to another one: the clause that states it.
    let stating = references.defers_quantity.then(|| {
        candidates.iter().find(|id| {
            serving
                .corpus
                .clause(id)
                .is_some_and(|c| states_asked_quantity(question, &c.text))
        })
    });
    // Otherwise the reference retrieval ranked best ("see 3.3, although your rights for
    // faulty items in 5.2 still apply", asked about a fault), else the first.
    let ranked = || {
        clauses
            .iter()
            .find(|c| candidates.contains(&c.clause_id()))
            .map(|c| c.clause_id())
    };
    let Some(id) = stating
        .flatten()
        .cloned()
        .or_else(ranked)
        .or_else(|| candidates.first().cloned())
    else {
        return;
    };
    let (score, status) = (top.score, top.status);
    let follow = match clauses.iter().position(|c| c.clause_id() == id) {
        Some(at) => clauses.remove(at),
        None => match unretrieved(serving, &id, status) {
            Some(clause) => clause,
            None => return,
        },
    };
    clauses.insert(1.min(clauses.len()), RetrievedClause { score, ..follow });
}

/// A clause of the version retrieval did not return, as evidence (`status`: its version's).
fn unretrieved(serving: &ServingState, id: &str, status: ClauseStatus) -> Option<RetrievedClause> {
    let clause = serving.corpus.clause(id)?;
    Some(RetrievedClause {
        clause: ClauseRef::unchecked(id),
        title: clause.title.clone(),
        text: clause.text.clone(),
        score: 0.0,
        lexical_rank: None,
        vector_rank: None,
        status,
        sentence_scores: Vec::new(),
    })
}

/// A clause the customer names by its number ("Clause 10.3 says ...", "not a gift card under
/// 5.4") is where they read about it: of that clause and the clauses it refers to, the one
/// retrieval ranked best goes first (the named one when none was retrieved), so the answer,
/// and the reference it follows, start there. Numbers the version has no clause for are
/// ignored (another document's, or a misquote).
fn named_clause_first(serving: &ServingState, question: &str, clauses: &mut Vec<RetrievedClause>) {
    let Some(top) = clauses.first() else { return };
    let (version_id, score, status) = (top.clause.version_id.clone(), top.score, top.status);
    let existing = |number: &String| {
        let id = format!("{version_id}#sec-{number}");
        serving.corpus.clause(&id).is_some().then_some(id)
    };
    let named: Vec<String> = referenced_clause_numbers(question)
        .iter()
        .filter_map(existing)
        .collect();
    let mut wanted = named.clone();
    for clause in named.iter().filter_map(|id| serving.corpus.clause(id)) {
        for referred in referenced_clause_numbers(&clause.text)
            .iter()
            .filter_map(existing)
        {
            if !wanted.contains(&referred) {
                wanted.push(referred);
            }
        }
    }
    if wanted.is_empty() || wanted.contains(&top.clause_id()) {
        return;
    }
    let first = match clauses.iter().position(|c| wanted.contains(&c.clause_id())) {
        Some(at) => clauses.remove(at),
        None => match unretrieved(serving, &named[0], status) {
            Some(clause) => clause,
            None => return,
        },
    };
    clauses.insert(
        0,
        RetrievedClause {
            score: first.score.max(score),
            ..first
        },
    );
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
            ranked: Memo::new(RANKED_ENTRIES),
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
            ranked: Memo::new(RANKED_ENTRIES),
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

    /// The version's candidates reranked and cut to `top_k`, with their confidence, for the
    /// corpus served under `manifest_sha` (from the cache when this question was ranked in
    /// this version before).
    pub async fn ranked(
        &self,
        manifest_sha: &str,
        question: &str,
        region: &str,
        version_id: &str,
    ) -> Result<Arc<Ranked>, SearchError> {
        let key = (
            manifest_sha.to_string(),
            region.to_string(),
            version_id.to_string(),
            question.to_string(),
        );
        if let Some(found) = self.ranked.get(&key) {
            return Ok(found);
        }
        let (expansion, hits) = self.candidates(question, region, version_id).await?;
        let in_domain = hits
            .iter()
            .map(|h| h.question_cosine)
            .fold(0.0f32, f32::max);
        let Ranking { hits, confidence } =
            self.reranker
                .rank(question, &expansion, hits, self.top_k, &|_| true);
        let ranked = Arc::new(Ranked {
            expansion,
            hits,
            confidence,
            in_domain,
        });
        self.ranked.insert(key, ranked.clone());
        Ok(ranked)
    }

    /// How another version (of this region or another) answers the question: its best clause,
    /// with the question's words the version in force (`version_id`) never uses and that
    /// clause does. `None` when it does not answer (the check can only escalate, never answer).
    async fn answer_elsewhere(
        &self,
        serving: &ServingState,
        question: &str,
        version_id: &str,
        other: (&str, &str),
    ) -> Option<VersionMatch> {
        let (region, other_version) = other;
        let ranked = self
            .ranked(&serving.manifest_sha, question, region, other_version)
            .await
            .ok()?;
        let confidence = ranked.confidence;
        // The version in force's best clause, when `other` is of the same region (ranked
        // already: the cache answers).
        let same_region = serving
            .manifest
            .region_versions(region)
            .unwrap_or_default()
            .iter()
            .any(|v| v.id == version_id);
        let in_force = if same_region {
            self.ranked(&serving.manifest_sha, question, region, version_id)
                .await
                .inspect_err(|e| tracing::warn!(error = %e, "version in force not ranked"))
                .ok()
        } else {
            None
        };
        let in_force = in_force.as_ref().and_then(|own| {
            let clause = serving.corpus.clause(&own.hits.first()?.clause_id)?;
            Some((clause, &own.expansion))
        });
        let hit = |at: usize| {
            let clause = serving.corpus.clause(&ranked.hits.get(at)?.clause_id)?;
            let gap = self
                .gate
                .as_ref()
                .map(|gate| gate.gap(serving, version_id, question, clause))
                .unwrap_or_default();
            let asks_more = in_force
                .is_some_and(|own| AnswerabilityGate::asks_more((clause, &ranked.expansion), own));
            Some(VersionMatch {
                version_id: other_version.to_string(),
                clause_id: clause.clause_id.clone(),
                topic: topic_of(clause),
                confidence,
                names_it: AnswerabilityGate::names_any(question, &gap),
                gap,
                other_region: false,
                asks_more,
            })
        };
        let best = hit(0)?;
        // A programme the question names, which the version in force never mentions, may sit
        // in a clause ranked below one on a topic both versions have ("free delivery as a
        // Trail Club member, and what does the club cost?"): that clause shows what is missing.
        if let Some(gate) = self.gate.as_ref().filter(|_| best.names_it) {
            let own = gate.topics(serving, version_id);
            if own.contains(&best.topic) {
                let about_the_name = (1..NAMED_PROGRAMME_DEPTH)
                    .filter_map(hit)
                    .find(|m| m.names_it && !own.contains(&m.topic));
                return about_the_name.or(Some(best));
            }
        }
        Some(best)
    }

    /// How each other version of the region answers the question.
    pub async fn other_versions(
        &self,
        serving: &ServingState,
        question: &str,
        region: &str,
        version_id: &str,
    ) -> Vec<VersionMatch> {
        let versions = serving.manifest.region_versions(region).unwrap_or_default();
        let mut matches = Vec::new();
        for other in versions.iter().filter(|v| v.id != version_id) {
            matches.extend(
                self.answer_elsewhere(serving, question, version_id, (region, &other.id))
                    .await,
            );
        }
        matches
    }

    /// How the other regions answer the question, each with its version in force at `instant`
    /// and its latest: a topic the customer's region never had (a programme, a fee) shows only
    /// there, perhaps in a version not yet in force.
    pub async fn other_regions(
        &self,
        serving: &ServingState,
        question: &str,
        region: &str,
        version_id: &str,
        instant: chrono::DateTime<chrono::Utc>,
    ) -> Vec<VersionMatch> {
        let mut matches = Vec::new();
        for other_region in serving.manifest.regions().filter(|r| *r != region) {
            let versions = serving
                .manifest
                .region_versions(other_region)
                .unwrap_or_default();
            let mut chosen: Vec<&str> = versions
                .iter()
                .filter(|v| v.contains(instant))
                .chain(versions.last())
                .map(|v| v.id.as_str())
                .collect();
            chosen.dedup();
            for other in chosen {
                let found = self
                    .answer_elsewhere(serving, question, version_id, (other_region, other))
                    .await;
                matches.extend(found.map(|m| VersionMatch {
                    other_region: true,
                    ..m
                }));
            }
        }
        matches
    }

    /// The candidates of the turn's (region, version), or the escalation that ends the turn: a
    /// backend that crossed a policy boundary is never answered from, nor retried.
    async fn search(
        &self,
        turn: &Turn<Enriched>,
    ) -> Result<Result<(QueryExpansion, Vec<ClauseHit>), Step<Retrieved>>, StageError> {
        let enrichment = &turn.state.enrichment;
        let found = self
            .candidates(
                &enrichment.sanitized_question,
                &enrichment.region,
                &enrichment.version_id,
            )
            .await;
        match found {
            Ok(found) => Ok(Ok(found)),
            Err(e @ SearchError::BoundaryViolation { .. }) => Ok(Err(Step::Done(Box::new(
                turn.escalate(ReasonCode::RetrievalBoundaryViolation, vec![e.to_string()]),
            )))),
            Err(e) => Err(StageError::new(StageName::Retrieve, e)),
        }
    }

    /// Misspellings of the version's words corrected in the question every later stage reads
    /// (the turn keeps the question as sent), each one flagged (`spelling:retrun=return`) for
    /// the audit trail. Not for a decision (its subject's data scopes it), nor when the
    /// question names another organisation: a name the model does not know is not a
    /// misspelling.
    pub async fn correct_spelling(&self, serving: &ServingState, enrichment: &mut Enrichment) {
        let Some(expander) = &self.expander else {
            return;
        };
        let names_another = self.gate.as_ref().is_some_and(|gate| {
            !gate
                .foreign(serving, &enrichment.region, &enrichment.sanitized_question)
                .is_empty()
        });
        if enrichment.subject.is_some() || names_another {
            return;
        }
        let corrections = expander
            .spelling(&enrichment.sanitized_question, &enrichment.version_id)
            .await;
        if corrections.is_empty() {
            return;
        }
        enrichment.sanitized_question =
            policy_search::spelling::apply(&enrichment.sanitized_question, &corrections);
        enrichment.guardrail_flags.extend(
            corrections
                .iter()
                .map(|c| format!("spelling:{}={}", c.from, c.to)),
        );
    }

    /// Evidence for a decision: the version's rule clauses for an order; for an expense
    /// request, the search hits (which kind of expense it is), best first. The answerability
    /// gate does not apply: the subject's data, not the question's wording, scopes it.
    async fn retrieve_for_decision(
        &self,
        ctx: &TurnContext,
        turn: Turn<Enriched>,
    ) -> Result<Step<Retrieved>, StageError> {
        let enrichment = &turn.state.enrichment;
        let retrieval = if enrichment
            .subject
            .as_ref()
            .and_then(SubjectKind::of_subject)
            == Some(SubjectKind::Order)
        {
            Retrieval {
                clauses: rule_evidence(&ctx.serving, &enrichment.version_id),
                confidence: 1.0,
                tier: Tier::Answer,
                backend: "decision".into(),
                expansion: QueryExpansion::default(),
            }
        } else {
            let (expansion, hits) = match self.search(&turn).await? {
                Ok(found) => found,
                Err(stop) => return Ok(stop),
            };
            // The decision chooses among the clauses that carry an expense rule: how sure the
            // choice is depends on how clearly the best of them beats the others.
            let carries_rule = |id: &str| {
                ctx.serving
                    .corpus
                    .clause(id)
                    .is_some_and(|c| c.rules.contains_key("expense"))
            };
            let Ranking { hits, confidence } = self.reranker.rank(
                &enrichment.sanitized_question,
                &expansion,
                hits,
                self.top_k,
                &|h| carries_rule(&h.clause_id),
            );
            // A false approval is worse than an escalation: when the question was searched
            // with a blend, the rule chosen must also stand out in the ranking that chose it.
            let confidence = confidence.min(self.reranker.confidence(&hits));
            Retrieval {
                clauses: hits.into_iter().map(retrieved).collect(),
                confidence,
                tier: self.tiers.tier(confidence),
                backend: self.retriever.backend().to_string(),
                expansion,
            }
        };
        let enrichment = turn.state.enrichment.clone();
        Ok(Step::Next(turn.advance(Retrieved {
            enrichment,
            retrieval,
        })))
    }

    async fn retrieve(
        &self,
        ctx: &TurnContext,
        mut turn: Turn<Enriched>,
    ) -> Result<Step<Retrieved>, StageError> {
        if turn.state.enrichment.subject.is_some() {
            return self.retrieve_for_decision(ctx, turn).await;
        }
        if let Some(gate) = &self.gate {
            let enrichment = &turn.state.enrichment;
            let foreign = gate.foreign(
                &ctx.serving,
                &enrichment.region,
                &enrichment.sanitized_question,
            );
            if !foreign.is_empty() {
                let reasons = foreign
                    .iter()
                    .map(|f| format!("out_of_scope: {f}"))
                    .collect();
                return Ok(Step::Done(Box::new(
                    turn.escalate(ReasonCode::OutOfScope, reasons),
                )));
            }
        }
        self.correct_spelling(&ctx.serving, &mut turn.state.enrichment)
            .await;
        let enrichment = &turn.state.enrichment;
        let ranked = match self
            .ranked(
                &ctx.serving.manifest_sha,
                &enrichment.sanitized_question,
                &enrichment.region,
                &enrichment.version_id,
            )
            .await
        {
            Ok(ranked) => ranked,
            Err(e @ SearchError::BoundaryViolation { .. }) => {
                return Ok(Step::Done(Box::new(turn.escalate(
                    ReasonCode::RetrievalBoundaryViolation,
                    vec![e.to_string()],
                ))))
            }
            Err(e) => return Err(StageError::new(StageName::Retrieve, e)),
        };
        let (expansion, confidence, in_domain) = (
            ranked.expansion.clone(),
            ranked.confidence,
            ranked.in_domain,
        );
        let hits = ranked.hits.clone();
        if let Some(gate) = &self.gate {
            let things = gate.uncovered(
                &ctx.serving,
                &enrichment.region,
                &enrichment.sanitized_question,
                &expansion,
            );
            if !things.is_empty() {
                let reason = format!(
                    "out_of_scope: the question asks about {}, which no policy of region {} \
                     mentions and {} has no equivalent for",
                    things.join(", "),
                    enrichment.region,
                    enrichment.version_id
                );
                return Ok(Step::Done(Box::new(
                    turn.escalate(ReasonCode::OutOfScope, vec![reason]),
                )));
            }
            let subjects = gate
                .foreign_subjects(
                    &ctx.serving,
                    &enrichment.region,
                    &enrichment.sanitized_question,
                    &expansion,
                )
                .await;
            // A phrase alone may be context ("I was in hospital, can the window be
            // extended?"): the whole question must lean the same way, or ask about nothing
            // else.
            let leans_foreign = match subjects.is_empty() {
                true => false,
                false if AnswerabilityGate::asks_only_about(&subjects, &expansion) => true,
                false => gate
                    .out_of_domain(&enrichment.sanitized_question)
                    .await
                    .is_some_and(|found| {
                        tracing::debug!(?found, in_domain, "whole question, for its subjects");
                        gate.leans_foreign(&found, in_domain)
                    }),
            };
            if leans_foreign {
                let reasons = subjects
                    .iter()
                    .map(|s| format!("out_of_scope: {s}"))
                    .collect();
                return Ok(Step::Done(Box::new(
                    turn.escalate(ReasonCode::OutOfScope, reasons),
                )));
            }
        }
        let not_covered = match &self.gate {
            Some(gate) => {
                // What the question sets aside ("I know you stopped doing lay-by, but can I
                // spread the cost?") is not what it asks: versions are compared on the rest.
                let (asked, confidence) = match without_set_aside(&enrichment.sanitized_question) {
                    Some(asked) => match self
                        .ranked(
                            &ctx.serving.manifest_sha,
                            &asked,
                            &enrichment.region,
                            &enrichment.version_id,
                        )
                        .await
                    {
                        Ok(ranked) => (asked, ranked.confidence),
                        Err(e) => {
                            tracing::warn!(error = %e, "what the question asks not ranked");
                            (enrichment.sanitized_question.clone(), confidence)
                        }
                    },
                    None => (enrichment.sanitized_question.clone(), confidence),
                };
                let mut others = self
                    .other_versions(
                        &ctx.serving,
                        &asked,
                        &enrichment.region,
                        &enrichment.version_id,
                    )
                    .await;
                if gate.asks_beyond(&ctx.serving, &enrichment.version_id, &asked) {
                    let instant = enrichment.effective_at.unwrap_or(turn.turn.sent_at);
                    let instant =
                        chrono::DateTime::from_timestamp_millis(instant).unwrap_or_default();
                    others.extend(
                        self.other_regions(
                            &ctx.serving,
                            &asked,
                            &enrichment.region,
                            &enrichment.version_id,
                            instant,
                        )
                        .await,
                    );
                }
                gate.not_covered(&ctx.serving, (&enrichment.version_id, confidence), others)
            }
            None => None,
        };
        // Another version covering the topic is the more precise finding; only without one
        // is the question weighed against requests no retail policy answers.
        if let (Some(gate), None) = (&self.gate, &not_covered) {
            // A place the policy also names (a city it delivers to) brings any request naming
            // it closer to that clause: the request is weighed without it.
            let question = &enrichment.sanitized_question;
            let (weighed, in_domain, places) =
                match gate.without_known_places(&ctx.serving, &enrichment.region, question) {
                    Some((rest, places)) => match self
                        .ranked(
                            &ctx.serving.manifest_sha,
                            &rest,
                            &enrichment.region,
                            &enrichment.version_id,
                        )
                        .await
                    {
                        Ok(ranked) => (rest, ranked.in_domain, places),
                        Err(e) => {
                            tracing::warn!(error = %e, "question without its places not ranked");
                            (question.clone(), in_domain, Vec::new())
                        }
                    },
                    None => (question.clone(), in_domain, Vec::new()),
                };
            if let Some(found) = gate.out_of_domain(&weighed).await {
                tracing::debug!(
                    general = found.general.similarity,
                    foreign_policy = found.foreign_policy.as_ref().map(|m| m.similarity),
                    retail = found.retail,
                    in_domain,
                    ?places,
                    "domain match"
                );
                if let Some(nearest) = gate.out_of_domain_match(&found, in_domain) {
                    let aside = if places.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " (leaving aside the places it shares with the policy: {})",
                            places.join(", ")
                        )
                    };
                    let reason = format!(
                        "out_of_scope: the question{aside} is closer to requests no retail \
                         policy answers ({:.2}, nearest \"{}\") than to any clause of {} \
                         ({in_domain:.2}) or to requests about a retailer's goods ({:.2})",
                        nearest.similarity, nearest.nearest, enrichment.version_id, found.retail
                    );
                    return Ok(Step::Done(Box::new(
                        turn.escalate(ReasonCode::OutOfScope, vec![reason]),
                    )));
                }
            }
        }
        let mut tier = self.tiers.tier(confidence);
        // A region resting on weak or conflicting signals is never answered without a caveat.
        if tier == Tier::Answer && enrichment.region_low_confidence {
            tier = Tier::Disclaimer;
        }
        let mut clauses: Vec<RetrievedClause> = hits.into_iter().map(retrieved).collect();
        named_clause_first(&ctx.serving, &enrichment.sanitized_question, &mut clauses);
        follow_reference(
            &ctx.serving,
            &enrichment.sanitized_question,
            &expansion,
            &mut clauses,
        );
        let retrieval = Retrieval {
            clauses,
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
        // Checked after not_covered: a topic the version lacks is the more precise reason.
        let (enrichment, clauses) = (&turn.state.enrichment, &turn.state.retrieval.clauses);
        if let Some(reason) = claim_beyond_policy(&ctx.serving, enrichment, clauses) {
            return Ok(Step::Done(Box::new(
                turn.escalate(ReasonCode::ClaimedPolicyChange, vec![reason]),
            )));
        }
        Ok(Step::Next(turn))
    }
}

/// Why a turn is for a person when its message claims a change setting terms in figures that
/// the region has published on the subject nowhere: not in the clauses retrieved for it, nor
/// in any version's clauses on their topics. The version in force does not say what the claim
/// relies on, and a change not yet published reads the same as an invented one. A figure
/// another version states is a real change, and the version in force answers for this
/// customer.
fn claim_beyond_policy(
    serving: &ServingState,
    enrichment: &Enrichment,
    clauses: &[RetrievedClause],
) -> Option<String> {
    // Most messages claim nothing: what is published is gathered only for one that does.
    claimed_change_in(&enrichment.sanitized_question)?;
    let topics: HashSet<String> = clauses
        .iter()
        .filter_map(|c| serving.corpus.clause(&c.clause_id()))
        .map(topic_of)
        .collect();
    let versions = serving
        .manifest
        .region_versions(&enrichment.region)
        .unwrap_or_default();
    let published: Vec<&str> = clauses
        .iter()
        .map(|c| c.text.as_str())
        .chain(
            versions
                .iter()
                .flat_map(|v| serving.corpus.version_clauses(&v.id))
                .filter(|c| topics.contains(&topic_of(c)))
                .map(|c| c.text.as_str()),
        )
        .collect();
    let unstated = claim_beyond(&enrichment.sanitized_question, &published)?;
    let figures: Vec<String> = unstated.figures.iter().map(ToString::to_string).collect();
    let ids: Vec<String> = clauses.iter().map(RetrievedClause::clause_id).collect();
    let ids = if ids.is_empty() {
        "none".to_string()
    } else {
        ids.join(", ")
    };
    Some(format!(
        "the message claims a policy change (\"{}\") setting {}, which neither the clauses \
         of {} retrieved for it ({}) nor any version of region {} on their topics states: the \
         assistant answers from the published version and cannot verify the claim; a person \
         checks it",
        unstated.claim,
        figures.join(", "),
        enrichment.version_id,
        ids,
        enrichment.region
    ))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clause_the_customer_names_by_number_goes_first() {
        let serving = ServingState::from_corpus(crate::fakes::tiny_corpus());
        let clause = |id: &str, score: f64| RetrievedClause::new(id, "text", score);
        let ids = |clauses: &[RetrievedClause]| -> Vec<String> {
            clauses.iter().map(|c| c.clause_id()).collect()
        };
        let named = "Clause 3.5 says opened electronics cost extra. How much is it?";
        let mut clauses = vec![clause("eu-v1#sec-3.2", 0.9), clause("eu-v1#sec-3.5", 0.4)];
        named_clause_first(&serving, named, &mut clauses);
        assert_eq!(ids(&clauses), ["eu-v1#sec-3.5", "eu-v1#sec-3.2"]);
        assert_eq!(
            clauses[0].score, 0.9,
            "scored level with the clause it displaced"
        );
        // Not retrieved at all: read from the corpus.
        let mut clauses = vec![clause("eu-v1#sec-3.2", 0.9)];
        named_clause_first(&serving, named, &mut clauses);
        assert_eq!(ids(&clauses), ["eu-v1#sec-3.5", "eu-v1#sec-3.2"]);
        assert!(clauses[0].text.contains("restocking fee"));
        // A number the version has no clause for, or the top clause named: nothing moves.
        for question in [
            "Clause 7.7 says opened electronics cost extra. How much?",
            "How long is the window under 3.2?",
            "Is the 3.5 % fee charged?",
        ] {
            let mut clauses = vec![clause("eu-v1#sec-3.2", 0.9), clause("eu-v1#sec-3.5", 0.4)];
            named_clause_first(&serving, question, &mut clauses);
            assert_eq!(
                ids(&clauses),
                ["eu-v1#sec-3.2", "eu-v1#sec-3.5"],
                "{question}"
            );
        }
    }

    /// A backend that searched a blended question: every candidate's cosine with the question
    /// as written is a tenth of its cosine with the search vector.
    struct Blended(policy_search::fakes::FakeRetriever);

    impl Retriever for Blended {
        fn backend(&self) -> &str {
            "blended"
        }
        fn retrieve<'a>(
            &'a self,
            query: RetrievalQuery<'a>,
        ) -> policy_search::retriever::SearchFuture<'a> {
            Box::pin(async move {
                let mut hits = self.0.retrieve(query).await?;
                for hit in &mut hits {
                    hit.question_cosine = hit.cosine / 10.0;
                }
                Ok(hits)
            })
        }
    }

    #[tokio::test]
    async fn how_near_the_policy_a_question_is_reads_it_as_written() {
        let corpus = crate::fakes::tiny_corpus();
        let stage = RetrieveStage::new(
            Arc::new(Blended(policy_search::fakes::FakeRetriever::new(
                corpus.clone(),
            ))),
            Arc::new(policy_search::LinearReranker::default()),
            ConfidenceTiers {
                answer: 0.7,
                disclaimer: 0.4,
            },
            3,
        );
        let question = "How long is the return window for opened electronics?";
        let (_, hits) = stage.candidates(question, "eu", "eu-v1").await.unwrap();
        let best = |cosine: fn(&ClauseHit) -> f32| hits.iter().map(cosine).fold(0.0, f32::max);
        assert!(best(|h| h.cosine) > 0.0, "the fake finds the window clause");
        let ranked = stage.ranked("sha", question, "eu", "eu-v1").await.unwrap();
        assert_eq!(ranked.in_domain, best(|h| h.question_cosine));
        assert!(ranked.in_domain < best(|h| h.cosine));
    }

    #[test]
    fn of_several_references_the_one_retrieval_ranked_is_followed() {
        let serving = ServingState::from_corpus(crate::fakes::tiny_corpus());
        let top = RetrievedClause::new(
            "eu-v1#sec-9.1",
            "Opened electronics can go back under clause 3.2, although the charge in clause 3.5 \
             may apply.",
            0.9,
        );
        let ranked = RetrievedClause::new("eu-v1#sec-3.5", "A restocking fee applies.", 0.5);
        let question = "Can opened electronics go back?";
        let mut clauses = vec![top.clone(), ranked];
        follow_reference(&serving, question, &QueryExpansion::default(), &mut clauses);
        assert_eq!(clauses[1].clause_id(), "eu-v1#sec-3.5");
        // Neither reference retrieved: the first one.
        let mut clauses = vec![top];
        follow_reference(&serving, question, &QueryExpansion::default(), &mut clauses);
        assert_eq!(clauses[1].clause_id(), "eu-v1#sec-3.2");
        assert_eq!(
            clauses[1].score, 0.9,
            "scored level with the clause that refers to it"
        );
    }
}
