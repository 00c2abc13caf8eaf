//! The one composition of the stages. `worker all`, the per-stage workers, `eval`, `ask` and
//! replay all run turns through [`Chain::run`]: it opens the turn's span (turn id, region,
//! version), pins the serving state, and wraps every stage in the same measurement (latency into
//! the turn, wall and CPU time to the observer), whatever the deployment mode.

use std::sync::Arc;
use std::time::Instant;

use policy_avro::{ChatTurn, Enrichment, InputCoordinates};
use policy_core::ReasonCode;
use tracing::Instrument;

use crate::enrich::Enricher;
use crate::generate::GenerateStage;
use crate::judge::JudgeStage;
use crate::observe::{NoObserver, StageObserver, ThreadCpuTimer};
use crate::outcome::{now_millis, Outcome};
use crate::retrieve::RetrieveStage;
use crate::serving::ServingHandle;
use crate::stage::{Stage, StageError, StageName, Step, TurnContext};
use crate::state::{Drafted, Enriched, Received, Retrieved, StateParts, Turn};

/// Where a turn enters the chain: a new turn, or one handed over by an earlier stage's worker.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Received(Turn<Received>),
    Enriched(Turn<Enriched>),
    Retrieved(Turn<Retrieved>),
    Drafted(Turn<Drafted>),
}

/// Where it leaves: its final outcome, or handed on after the last stage asked for.
#[derive(Debug, Clone, PartialEq)]
pub enum Exit {
    Enriched(Turn<Enriched>),
    Retrieved(Turn<Retrieved>),
    Drafted(Turn<Drafted>),
    Outcome(Outcome),
}

impl Entry {
    pub fn turn(&self) -> &ChatTurn {
        match self {
            Entry::Received(t) => &t.turn,
            Entry::Enriched(t) => &t.turn,
            Entry::Retrieved(t) => &t.turn,
            Entry::Drafted(t) => &t.turn,
        }
    }

    fn enrichment(&self) -> Option<&Enrichment> {
        match self {
            Entry::Received(_) => None,
            Entry::Enriched(t) => t.state.enrichment(),
            Entry::Retrieved(t) => t.state.enrichment(),
            Entry::Drafted(t) => t.state.enrichment(),
        }
    }

    /// The first stage this entry goes through.
    pub fn first_stage(&self) -> StageName {
        match self {
            Entry::Received(_) => StageName::Enrich,
            Entry::Enriched(_) => StageName::Retrieve,
            Entry::Retrieved(_) => StageName::Generate,
            Entry::Drafted(_) => StageName::Judge,
        }
    }
}

/// The stages, composed.
#[derive(Clone)]
pub struct Chain {
    serving: ServingHandle,
    enrich: Arc<Enricher>,
    retrieve: Arc<RetrieveStage>,
    generate: Arc<GenerateStage>,
    judge: Arc<JudgeStage>,
    observer: Arc<dyn StageObserver>,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain")
            .field("serving", &self.serving)
            .field("search_backend", &self.retrieve.backend())
            .finish_non_exhaustive()
    }
}

impl Chain {
    pub fn new(
        serving: ServingHandle,
        enrich: Enricher,
        retrieve: RetrieveStage,
        generate: GenerateStage,
        judge: JudgeStage,
    ) -> Chain {
        Chain {
            serving,
            enrich: Arc::new(enrich),
            retrieve: Arc::new(retrieve),
            generate: Arc::new(generate),
            judge: Arc::new(judge),
            observer: Arc::new(NoObserver),
        }
    }

    /// The same chain reporting each stage to `observer` (a worker's metrics).
    pub fn with_observer(&self, observer: Arc<dyn StageObserver>) -> Chain {
        Chain {
            observer,
            ..self.clone()
        }
    }

    /// The same chain serving another corpus and manifest history (replay, what-if).
    pub fn with_serving(&self, serving: ServingHandle) -> Chain {
        Chain {
            serving,
            ..self.clone()
        }
    }

    /// The same chain with another enrich stage (the injection guard's library).
    pub fn with_enricher(&self, enrich: Enricher) -> Chain {
        Chain {
            enrich: Arc::new(enrich),
            ..self.clone()
        }
    }

    /// The same chain deciding with the orders and employees of `sources`.
    pub fn with_sources(&self, sources: crate::facts::Sources) -> Chain {
        self.with_enricher(self.enrich.as_ref().clone().with_sources(sources))
    }

    /// The same chain retrieving from another backend.
    pub fn with_retrieve(&self, retrieve: RetrieveStage) -> Chain {
        Chain {
            retrieve: Arc::new(retrieve),
            ..self.clone()
        }
    }

    pub fn serving(&self) -> &ServingHandle {
        &self.serving
    }

    pub fn retrieve_stage(&self) -> &RetrieveStage {
        &self.retrieve
    }

    pub fn judge_stage(&self) -> &JudgeStage {
        &self.judge
    }

    pub fn search_backend(&self) -> &str {
        self.retrieve.backend()
    }

    /// Every stage a turn can go through: the step names of a worker's metrics.
    pub fn stage_names(&self) -> Vec<StageName> {
        vec![
            StageName::Enrich,
            StageName::Retrieve,
            StageName::Generate,
            StageName::Judge,
        ]
    }

    /// A new turn through every stage to its outcome.
    pub async fn process(
        &self,
        turn: ChatTurn,
        input: InputCoordinates,
    ) -> Result<Outcome, StageError> {
        let entry = Entry::Received(Turn::new(turn, input, now_millis()));
        match self.run(entry, StageName::Judge).await? {
            Exit::Outcome(outcome) => Ok(outcome),
            // `run` only hands a turn on before the stage it was asked to stop after.
            other => unreachable!("ran to the judge but stopped at {other:?}"),
        }
    }

    /// Runs `entry` through the stages up to and including `last`, inside the turn's span.
    pub async fn run(&self, entry: Entry, last: StageName) -> Result<Exit, StageError> {
        let span = tracing::info_span!(
            "turn",
            turn_id = %entry.turn().turn_id,
            region = tracing::field::Empty,
            version = tracing::field::Empty,
        );
        if let Some(e) = entry.enrichment() {
            record_region(&span, e);
        }
        let exit = self
            .run_in(entry, last, &span)
            .instrument(span.clone())
            .await?;
        span.in_scope(|| match &exit {
            Exit::Outcome(Outcome::Answer(a)) => {
                tracing::debug!(tier = a.tier, cited = ?a.citations.iter().map(|c| &c.clause_id).collect::<Vec<_>>(), "answered")
            }
            Exit::Outcome(Outcome::Escalate(e)) => {
                tracing::debug!(reason = e.reason_code, "escalated")
            }
            Exit::Enriched(_) | Exit::Retrieved(_) | Exit::Drafted(_) => {
                tracing::debug!(last = %last, "handed on")
            }
        });
        Ok(exit)
    }

    async fn run_in(
        &self,
        entry: Entry,
        last: StageName,
        span: &tracing::Span,
    ) -> Result<Exit, StageError> {
        // A new turn is pinned to the serving state in force; a handed-over one to the state
        // its enrich stage pinned, wherever that ran.
        let serving = match entry.enrichment() {
            None => self.serving.current(),
            Some(e) => match self.serving.pinned(&e.manifest_sha) {
                Some(serving) => serving,
                None => return Ok(Exit::Outcome(manifest_unavailable(&entry))),
            },
        };
        let ctx = TurnContext { serving };
        let mut at = entry;
        loop {
            at = match at {
                Entry::Received(turn) => match self.step(&*self.enrich, &ctx, turn).await? {
                    // Decided before a version was resolved (no region, an unknown one, an
                    // injection), but still under this manifest: a replay pins it too.
                    Step::Done(mut outcome) => {
                        if let Outcome::Escalate(e) = outcome.as_mut() {
                            e.manifest_sha
                                .get_or_insert_with(|| ctx.serving.manifest_sha.clone());
                        }
                        return Ok(Exit::Outcome(*outcome));
                    }
                    Step::Next(turn) => {
                        record_region(span, turn.enrichment());
                        if last == StageName::Enrich {
                            return Ok(Exit::Enriched(turn));
                        }
                        Entry::Enriched(turn)
                    }
                },
                Entry::Enriched(turn) => match self.step(&*self.retrieve, &ctx, turn).await? {
                    Step::Done(outcome) => return Ok(Exit::Outcome(*outcome)),
                    Step::Next(turn) if last == StageName::Retrieve => {
                        return Ok(Exit::Retrieved(turn))
                    }
                    Step::Next(turn) => Entry::Retrieved(turn),
                },
                Entry::Retrieved(turn) => match self.step(&*self.generate, &ctx, turn).await? {
                    Step::Done(outcome) => return Ok(Exit::Outcome(*outcome)),
                    Step::Next(turn) if last == StageName::Generate => {
                        return Ok(Exit::Drafted(turn))
                    }
                    Step::Next(turn) => Entry::Drafted(turn),
                },
                Entry::Drafted(turn) => match self.step(&*self.judge, &ctx, turn).await? {
                    Step::Done(outcome) => return Ok(Exit::Outcome(*outcome)),
                    Step::Next(never) => match never.state {},
                },
            };
        }
    }

    /// The one wrapper around every stage: wall time into the turn's `stage_latency_ms`, wall
    /// and CPU time to the observer.
    async fn step<S: Stage>(
        &self,
        stage: &S,
        ctx: &TurnContext,
        turn: Turn<S::Input>,
    ) -> Result<Step<S::Output>, StageError> {
        let (started, cpu) = (Instant::now(), ThreadCpuTimer::start());
        let result = stage.run(ctx, turn).await;
        let wall = started.elapsed();
        self.observer
            .stage_finished(stage.name(), wall, cpu.finish());
        let ms = wall.as_secs_f64() * 1000.0;
        let latency = stage.name().as_str().to_string();
        Ok(match result? {
            Step::Next(mut turn) => {
                turn.stage_latency_ms.insert(latency, ms);
                Step::Next(turn)
            }
            Step::Done(mut outcome) => {
                outcome.stage_latency_ms_mut().insert(latency, ms);
                Step::Done(outcome)
            }
        })
    }
}

fn record_region(span: &tracing::Span, enrichment: &Enrichment) {
    span.record("region", tracing::field::display(&enrichment.region))
        .record("version", tracing::field::display(&enrichment.version_id));
}

fn manifest_unavailable(entry: &Entry) -> Outcome {
    let reason = |sha: &str| {
        vec![format!(
            "the manifest {sha} this turn was pinned to at enrich is no longer served here"
        )]
    };
    let code = ReasonCode::ManifestUnavailable;
    match entry {
        Entry::Received(t) => t.escalate(code, reason("?")),
        Entry::Enriched(t) => t.escalate(code, reason(&t.state.enrichment.manifest_sha)),
        Entry::Retrieved(t) => t.escalate(code, reason(&t.state.enrichment.manifest_sha)),
        Entry::Drafted(t) => t.escalate(code, reason(&t.state.enrichment.manifest_sha)),
    }
}

#[cfg(test)]
#[path = "chain_tests.rs"]
mod tests;
