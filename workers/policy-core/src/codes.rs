//! The closed vocabularies of the product: why a turn escalated, which confidence tier it fell
//! in, whether a clause is served, what the judge decided. The wire (Avro, ClickHouse) carries
//! their `as_str()` spelling; code compares enums. Every conversion lives here.

use std::fmt;
use std::str::FromStr;

/// An unknown spelling of one of the vocabularies below.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is not a known {vocabulary}")]
pub struct UnknownCode {
    pub vocabulary: &'static str,
    pub value: String,
}

macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident, $vocabulary:literal { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The spelling on the wire.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let raw = String::deserialize(deserializer)?;
                raw.parse().map_err(serde::de::Error::custom)
            }
        }

        impl FromStr for $name {
            type Err = UnknownCode;

            fn from_str(raw: &str) -> Result<Self, UnknownCode> {
                match raw {
                    $($text => Ok($name::$variant),)+
                    _ => Err(UnknownCode { vocabulary: $vocabulary, value: raw.to_string() }),
                }
            }
        }
    };
}

wire_enum! {
    /// Why a turn ended in an escalation instead of an answer (`Escalation.reason_code`).
    ReasonCode, "reason code" {
        /// The question contains no words.
        UnusableInput => "unusable_input",
        PromptInjection => "prompt_injection",
        NoRegion => "no_region",
        UnknownRegion => "unknown_region",
        BeforeFirstVersion => "before_first_version",
        AmbiguousCutover => "ambiguous_cutover",
        /// A later stage cannot find the manifest the turn was pinned to at enrich.
        ManifestUnavailable => "manifest_unavailable",
        /// The search backend returned a clause of another region or version.
        RetrievalBoundaryViolation => "retrieval_boundary_violation",
        /// The question's topic is covered by other versions or regions, not the one in force.
        NotCoveredInVersion => "not_covered_in_version",
        /// Another organisation, product line or jurisdiction, or not a policy question.
        OutOfScope => "out_of_scope",
        /// The quoted text does not cover what the question asks about.
        NotAnswered => "not_answered",
        EmptyAnswer => "empty_answer",
        GeneratorRefused => "generator_refused",
        /// The generator could not be used within its budget and the fallback is to escalate.
        GeneratorUnavailable => "generator_unavailable",
        NoCitation => "no_citation",
        MalformedCitation => "malformed_citation",
        VersionMismatch => "version_mismatch",
        UnknownClause => "unknown_clause",
        ClauseNotRetrieved => "clause_not_retrieved",
        RetiredVersion => "retired_version",
        UngroundedFact => "ungrounded_fact",
        LowConfidence => "low_confidence",
        OutputPii => "output_pii",
        /// A decision needs an order the order system does not know.
        UnknownOrder => "unknown_order",
        /// A decision needs an employee the directory does not know.
        UnknownEmployee => "unknown_employee",
        /// The order system or employee directory could not be reached within its budget.
        SourceUnavailable => "source_unavailable",
        /// A decision's rule is missing from the clauses of the version in force.
        RuleMissing => "rule_missing",
        /// A decision must be made by a person (an approval beyond what the policy permits).
        HumanReviewRequired => "human_review_required",
        /// The judge found a decision its cited rules do not support.
        DecisionUnsupported => "decision_unsupported",
        /// The message orders an action on an account or a payment, or a commitment, which no
        /// policy answer can give: a person handles it.
        ActionRequested => "action_requested",
        /// The message asks for what an account or order record holds (an address, card
        /// digits, someone's orders): the assistant reads no records, a person looks it up.
        RecordRequested => "record_requested",
        /// The message asks for something on the strength of a policy change it claims (a new
        /// rule, an amended section, a figure "now" different): the assistant answers from
        /// the published version and cannot verify the claim, so a person checks it.
        ClaimedPolicyChange => "claimed_policy_change",
        /// The message is written mostly in a script the version in force's clauses do not
        /// use: nothing can compare the policy with it, nor screen an instruction written in it.
        UnsupportedScript => "unsupported_script",
    }
}

wire_enum! {
    /// What a turn asks for (`Enrichment.intent`, audit `intent`): a question about the policy,
    /// or a decision about the customer's order or the employee's request ([`crate::intent`]).
    Intent, "intent" {
        PolicyFaq => "policy_faq",
        ReturnEligibility => "return_eligibility",
        RefundEligibility => "refund_eligibility",
        SubscriptionInfo => "subscription_info",
        CancellationSteps => "cancellation_steps",
        ExpenseApproval => "expense_approval",
        /// Set when the answerability gate finds the question outside the corpus.
        OutOfScope => "out_of_scope",
        /// An order to act on an account or a payment, or to make a commitment: a person's job
        /// ([`crate::intent::demanded_action`]).
        ActionRequest => "action_request",
        /// A request for what an account or order record holds (an address, card digits, an
        /// order history): no policy holds it ([`crate::records::requested_record`]).
        RecordRequest => "record_request",
    }
}

impl Intent {
    /// Whether the turn needs data (an order, an employee) and ends in a decision.
    pub fn is_decision(self) -> bool {
        matches!(
            self,
            Intent::ReturnEligibility | Intent::RefundEligibility | Intent::ExpenseApproval
        )
    }
}

wire_enum! {
    /// What retrieval confidence allows (`Retrieval.tier`, `PolicyAnswer.tier`).
    Tier, "tier" {
        Answer => "answer",
        Disclaimer => "disclaimer",
        Escalate => "escalate",
    }
}

wire_enum! {
    /// Whether a clause may be a basis for an answer (`RetrievedClause.status`).
    ClauseStatus, "clause status" {
        Active => "active",
        /// A stub of a version past its retention ([`crate::retention`]).
        Retired => "retired",
    }
}

wire_enum! {
    /// The judge's verdict on a turn (`PolicyAnswer.judge_verdict`, audit `judge_verdict`).
    JudgeVerdict, "judge verdict" {
        Pass => "pass",
        Reject => "reject",
        /// The turn stopped before a draft existed.
        NotJudged => "not_judged",
    }
}

wire_enum! {
    /// How a turn ended, as the audit records it.
    OutcomeKind, "outcome" {
        Answer => "answer",
        Escalate => "escalate",
        DeadLetter => "dead_letter",
        Undecodable => "undecodable",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_round_trips() {
        for code in ReasonCode::ALL {
            assert_eq!(code.as_str().parse::<ReasonCode>(), Ok(*code));
        }
        for tier in Tier::ALL {
            assert_eq!(tier.to_string().parse::<Tier>(), Ok(*tier));
        }
        for status in ClauseStatus::ALL {
            assert_eq!(status.as_str().parse::<ClauseStatus>(), Ok(*status));
        }
        for verdict in JudgeVerdict::ALL {
            assert_eq!(verdict.as_str().parse::<JudgeVerdict>(), Ok(*verdict));
        }
        for kind in OutcomeKind::ALL {
            assert_eq!(kind.as_str().parse::<OutcomeKind>(), Ok(*kind));
        }
        for intent in Intent::ALL {
            assert_eq!(intent.as_str().parse::<Intent>(), Ok(*intent));
        }
    }

    #[test]
    fn unknown_spellings_name_the_vocabulary() {
        let err = "maybe".parse::<Tier>().unwrap_err();
        assert_eq!(err.to_string(), "`maybe` is not a known tier");
    }

    #[test]
    fn spellings_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for code in ReasonCode::ALL {
            assert!(seen.insert(code.as_str()), "{code} twice");
        }
    }
}
