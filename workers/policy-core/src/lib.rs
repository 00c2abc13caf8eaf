//! Pure domain logic of the policy workers: no network, no Kafka, no clock.
//!
//! Everything that decides *which* policy applies and *whether* an answer may be served lives
//! here so that it can be tested exhaustively without infrastructure. The only I/O is the
//! corpus loader in [`corpus::load_dir`], kept at the edge of the crate.

pub mod citation;
pub mod claims;
pub mod clause;
pub mod codes;
pub mod corpus;
pub mod decision;
pub mod evidence;
pub mod expansion;
pub mod extract;
pub mod golden;
pub mod guardrails;
pub mod injection;
pub mod instant;
pub mod intent;
pub mod judge;
pub mod manifest;
pub mod memo;
pub mod pasted;
pub mod records;
pub mod region;
pub mod retention;
pub mod rules;
pub mod scope;
pub mod script;
pub mod text;
pub mod version;

pub use citation::{parse_citations, CitationParse, ClauseRef, MalformedCitation};
pub use clause::{chunk_clause, parse_clauses, Chunk, Clause, ClauseOrigin};
pub use codes::{ClauseStatus, Intent, JudgeVerdict, OutcomeKind, ReasonCode, Tier, UnknownCode};
pub use corpus::{load_dir, read_manifest, Corpus, CorpusError, Document};
pub use evidence::RetrievedClause;
pub use expansion::{QueryExpansion, QueryTerm};

pub use golden::{load_cases, parse_cases, validate_cases, ExpectedOutcome, GoldenCase};
pub use instant::{parse_instant, parse_utc_instant, InstantError};
pub use manifest::{Manifest, ManifestError, ManifestErrors, VersionEntry};
pub use region::{resolve_region, RegionError, RegionResolution, RegionSignals, RegionSource};
pub use retention::Retention;
pub use version::{VersionOutcome, VersionResolver};
