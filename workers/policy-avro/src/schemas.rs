//! The project's Avro schemas, compiled in from `schemas/*.avsc` so that a binary always carries
//! the schemas its record types were written for.

use std::sync::LazyLock;

use apache_avro::Schema;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemaName {
    ChatTurn,
    TurnState,
    PolicyAnswer,
    Escalation,
    DeadLetter,
    PolicyChange,
    ManifestRecord,
    FactRecord,
}

impl SchemaName {
    pub const ALL: [SchemaName; 8] = [
        SchemaName::ChatTurn,
        SchemaName::TurnState,
        SchemaName::PolicyAnswer,
        SchemaName::Escalation,
        SchemaName::DeadLetter,
        SchemaName::PolicyChange,
        SchemaName::ManifestRecord,
        SchemaName::FactRecord,
    ];

    pub fn file_name(self) -> &'static str {
        match self {
            SchemaName::ChatTurn => "ChatTurn.avsc",
            SchemaName::TurnState => "TurnState.avsc",
            SchemaName::PolicyAnswer => "PolicyAnswer.avsc",
            SchemaName::Escalation => "Escalation.avsc",
            SchemaName::DeadLetter => "DeadLetter.avsc",
            SchemaName::PolicyChange => "PolicyChange.avsc",
            SchemaName::ManifestRecord => "ManifestRecord.avsc",
            SchemaName::FactRecord => "FactRecord.avsc",
        }
    }

    pub fn from_name(name: &str) -> Option<SchemaName> {
        SchemaName::ALL
            .into_iter()
            .find(|s| s.file_name().trim_end_matches(".avsc") == name)
    }

    pub fn source(self) -> &'static str {
        match self {
            SchemaName::ChatTurn => include_str!("../../../schemas/ChatTurn.avsc"),
            SchemaName::TurnState => include_str!("../../../schemas/TurnState.avsc"),
            SchemaName::PolicyAnswer => include_str!("../../../schemas/PolicyAnswer.avsc"),
            SchemaName::Escalation => include_str!("../../../schemas/Escalation.avsc"),
            SchemaName::DeadLetter => include_str!("../../../schemas/DeadLetter.avsc"),
            SchemaName::PolicyChange => include_str!("../../../schemas/PolicyChange.avsc"),
            SchemaName::ManifestRecord => include_str!("../../../schemas/ManifestRecord.avsc"),
            SchemaName::FactRecord => include_str!("../../../schemas/FactRecord.avsc"),
        }
    }

    pub fn schema(self) -> &'static Schema {
        static PARSED: LazyLock<Vec<Schema>> = LazyLock::new(|| {
            SchemaName::ALL
                .iter()
                .map(|s| {
                    Schema::parse_str(s.source())
                        .unwrap_or_else(|e| panic!("{}: {e}", s.file_name()))
                })
                .collect()
        });
        let index = SchemaName::ALL
            .iter()
            .position(|s| *s == self)
            .expect("listed");
        &PARSED[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use apache_avro::schema::RecordSchema;

    #[test]
    fn every_schema_parses() {
        for name in SchemaName::ALL {
            assert!(matches!(name.schema(), Schema::Record(_)), "{name:?}");
            assert_eq!(
                SchemaName::from_name(name.file_name().trim_end_matches(".avsc")),
                Some(name)
            );
        }
    }

    fn field_schema<'a>(record: &'a Schema, field: &str) -> &'a Schema {
        let Schema::Record(RecordSchema { fields, .. }) = record else {
            panic!("not a record")
        };
        &fields.iter().find(|f| f.name == field).expect(field).schema
    }

    /// Each .avsc is self-contained (no registry references), so shared types are written out
    /// more than once; these checks keep the copies from drifting apart.
    #[test]
    fn embedded_copies_match_their_originals() {
        let chat_turn = SchemaName::ChatTurn.schema().canonical_form();
        assert_eq!(
            field_schema(SchemaName::TurnState.schema(), "turn").canonical_form(),
            chat_turn
        );
        let coordinates = field_schema(SchemaName::TurnState.schema(), "input").canonical_form();
        for name in [SchemaName::PolicyAnswer, SchemaName::Escalation] {
            assert_eq!(
                field_schema(name.schema(), "input").canonical_form(),
                coordinates,
                "{name:?}"
            );
        }
    }
}
