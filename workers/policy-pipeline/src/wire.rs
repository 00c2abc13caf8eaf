//! The one place where typed turns meet the Avro `TurnState` of the stage topics: enums become
//! their wire spelling on the way out and are checked on the way in; a state missing a part its
//! stage needs is an error naming the turn and the part (the worker dead-letters it).

use policy_avro::TurnState;
use policy_core::{
    ClauseRef, ClauseStatus, QueryExpansion, QueryTerm, RetrievedClause, Tier, UnknownCode,
};

use crate::state::{Drafted, Enriched, Received, Retrieval, Retrieved, Turn};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("turn {turn_id} arrived without {missing}")]
    MissingPart {
        turn_id: String,
        missing: &'static str,
    },
    #[error("turn {turn_id}: {field}: {source}")]
    BadValue {
        turn_id: String,
        field: &'static str,
        source: UnknownCode,
    },
}

fn base<S>(state: &TurnState, parts: S) -> Turn<S> {
    Turn {
        turn: state.turn.clone(),
        input: state.input.clone(),
        input_schema_id: state.input_schema_id,
        received_at: state.received_at,
        stage_latency_ms: state.stage_latency_ms.clone(),
        state: parts,
    }
}

fn missing(state: &TurnState, missing: &'static str) -> WireError {
    WireError::MissingPart {
        turn_id: state.turn.turn_id.clone(),
        missing,
    }
}

/// A retrieval as the wire carries it.
pub fn retrieval_to_wire(retrieval: &Retrieval) -> policy_avro::Retrieval {
    policy_avro::Retrieval {
        clauses: retrieval
            .clauses
            .iter()
            .map(|c| policy_avro::RetrievedClause {
                clause_id: c.clause_id(),
                version_id: c.version_id().to_string(),
                title: c.title.clone(),
                text: c.text.clone(),
                score: c.score,
                lexical_rank: c.lexical_rank.map(|r| r as i32),
                vector_rank: c.vector_rank.map(|r| r as i32),
                status: c.status.as_str().to_string(),
                sentence_scores: c.sentence_scores.clone(),
            })
            .collect(),
        confidence: retrieval.confidence,
        tier: retrieval.tier.as_str().to_string(),
        backend: retrieval.backend.clone(),
        query_terms: retrieval
            .expansion
            .terms
            .iter()
            .map(|t| policy_avro::QueryTerm {
                word: t.word.clone(),
                in_version: t.in_version,
                equivalents: t.equivalents.clone(),
                phrase: t.phrase,
                nearest_cosine: t.nearest_cosine,
            })
            .collect(),
    }
}

/// A retrieval read from the wire (a stage topic, or an audit row for a re-judge).
pub fn retrieval_from_wire(
    turn_id: &str,
    wire: &policy_avro::Retrieval,
) -> Result<Retrieval, WireError> {
    let bad = |field, source| WireError::BadValue {
        turn_id: turn_id.to_string(),
        field,
        source,
    };
    let clauses = wire
        .clauses
        .iter()
        .map(|c| {
            Ok(RetrievedClause {
                clause: ClauseRef::parse(&c.clause_id)
                    .unwrap_or_else(|| ClauseRef::unchecked(&c.clause_id)),
                title: c.title.clone(),
                text: c.text.clone(),
                score: c.score,
                lexical_rank: c.lexical_rank.map(|r| r.max(0) as u32),
                vector_rank: c.vector_rank.map(|r| r.max(0) as u32),
                status: c
                    .status
                    .parse::<ClauseStatus>()
                    .map_err(|e| bad("clause status", e))?,
                sentence_scores: c.sentence_scores.clone(),
            })
        })
        .collect::<Result<_, WireError>>()?;
    Ok(Retrieval {
        clauses,
        confidence: wire.confidence,
        tier: wire.tier.parse::<Tier>().map_err(|e| bad("tier", e))?,
        backend: wire.backend.clone(),
        expansion: QueryExpansion {
            terms: wire
                .query_terms
                .iter()
                .map(|t| QueryTerm {
                    word: t.word.clone(),
                    in_version: t.in_version,
                    equivalents: t.equivalents.clone(),
                    phrase: t.phrase,
                    nearest_cosine: t.nearest_cosine,
                })
                .collect(),
        },
    })
}

/// Everything a typed turn carries, as the stage topics carry it.
pub trait ToWire {
    fn to_wire(&self) -> TurnState;
}

fn wire_base<S>(turn: &Turn<S>) -> TurnState {
    TurnState {
        turn: turn.turn.clone(),
        input: turn.input.clone(),
        input_schema_id: turn.input_schema_id,
        received_at: turn.received_at,
        stage_latency_ms: turn.stage_latency_ms.clone(),
        ..Default::default()
    }
}

impl ToWire for Turn<Received> {
    fn to_wire(&self) -> TurnState {
        wire_base(self)
    }
}

impl ToWire for Turn<Enriched> {
    fn to_wire(&self) -> TurnState {
        TurnState {
            enrichment: Some(self.state.enrichment.clone()),
            ..wire_base(self)
        }
    }
}

impl ToWire for Turn<Retrieved> {
    fn to_wire(&self) -> TurnState {
        TurnState {
            enrichment: Some(self.state.enrichment.clone()),
            retrieval: Some(retrieval_to_wire(&self.state.retrieval)),
            ..wire_base(self)
        }
    }
}

impl ToWire for Turn<Drafted> {
    fn to_wire(&self) -> TurnState {
        TurnState {
            enrichment: Some(self.state.enrichment.clone()),
            retrieval: Some(retrieval_to_wire(&self.state.retrieval)),
            draft: Some(self.state.draft.clone()),
            ..wire_base(self)
        }
    }
}

impl From<TurnState> for Turn<Received> {
    fn from(state: TurnState) -> Turn<Received> {
        base(&state, Received)
    }
}

impl TryFrom<TurnState> for Turn<Enriched> {
    type Error = WireError;

    fn try_from(state: TurnState) -> Result<Self, WireError> {
        let enrichment = state
            .enrichment
            .clone()
            .ok_or_else(|| missing(&state, "enrichment"))?;
        Ok(base(&state, Enriched { enrichment }))
    }
}

impl TryFrom<TurnState> for Turn<Retrieved> {
    type Error = WireError;

    fn try_from(state: TurnState) -> Result<Self, WireError> {
        let (Some(enrichment), Some(retrieval)) = (&state.enrichment, &state.retrieval) else {
            return Err(missing(&state, "enrichment and retrieval"));
        };
        let retrieval = retrieval_from_wire(&state.turn.turn_id, retrieval)?;
        Ok(base(
            &state,
            Retrieved {
                enrichment: enrichment.clone(),
                retrieval,
            },
        ))
    }
}

impl TryFrom<TurnState> for Turn<Drafted> {
    type Error = WireError;

    fn try_from(state: TurnState) -> Result<Self, WireError> {
        let (Some(enrichment), Some(retrieval), Some(draft)) =
            (&state.enrichment, &state.retrieval, &state.draft)
        else {
            return Err(missing(&state, "enrichment, retrieval and draft"));
        };
        let retrieval = retrieval_from_wire(&state.turn.turn_id, retrieval)?;
        Ok(base(
            &state,
            Drafted {
                enrichment: enrichment.clone(),
                retrieval,
                draft: draft.clone(),
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use policy_avro::{ChatTurn, Draft, Enrichment};

    use super::*;

    fn drafted() -> Turn<Drafted> {
        let turn = ChatTurn {
            turn_id: "t-1".into(),
            conversation_id: "c-1".into(),
            question: "What is the return window?".into(),
            ..Default::default()
        };
        let mut clause = RetrievedClause::new("eu-v4#sec-3.2", "Within 30 days.", 0.8);
        clause.status = ClauseStatus::Retired;
        Turn::new(turn, Default::default(), 7).advance(Drafted {
            enrichment: Enrichment {
                region: "eu".into(),
                version_id: "eu-v4".into(),
                ..Default::default()
            },
            retrieval: Retrieval {
                clauses: vec![clause],
                confidence: 0.9,
                tier: Tier::Disclaimer,
                backend: "embedded".into(),
                expansion: QueryExpansion {
                    terms: vec![QueryTerm {
                        word: "hoodie".into(),
                        in_version: false,
                        equivalents: vec!["apparel".into()],
                        phrase: false,
                        nearest_cosine: 0.66,
                    }],
                },
            },
            draft: Draft {
                text: "Within 30 days. [clause: eu-v4#sec-3.2]".into(),
                generator: "extractive".into(),
                attempts: 1,
                disclaimer: None,
                ..Draft::default()
            },
        })
    }

    #[test]
    fn a_drafted_turn_round_trips_through_the_wire() {
        let turn = drafted();
        let wire = turn.to_wire();
        assert_eq!(wire.retrieval.as_ref().unwrap().tier, "disclaimer");
        assert_eq!(
            wire.retrieval.as_ref().unwrap().clauses[0].status,
            "retired"
        );
        assert_eq!(Turn::<Drafted>::try_from(wire).unwrap(), turn);
    }

    #[test]
    fn a_missing_part_names_the_turn_and_the_part() {
        let mut wire = drafted().to_wire();
        wire.draft = None;
        let err = Turn::<Drafted>::try_from(wire.clone()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "turn t-1 arrived without enrichment, retrieval and draft"
        );
        // The earlier states are still readable from it.
        assert!(Turn::<Retrieved>::try_from(wire.clone()).is_ok());
        wire.enrichment = None;
        assert!(matches!(
            Turn::<Enriched>::try_from(wire),
            Err(WireError::MissingPart {
                missing: "enrichment",
                ..
            })
        ));
    }

    #[test]
    fn an_unknown_tier_is_an_error_not_a_guess() {
        let mut wire = drafted().to_wire();
        wire.retrieval.as_mut().unwrap().tier = "maybe".into();
        let err = Turn::<Retrieved>::try_from(wire).unwrap_err();
        assert!(
            err.to_string().contains("`maybe` is not a known tier"),
            "{err}"
        );
    }
}
