//! Schema evolution rules, as the Confluent Schema Registry defines them, on top of
//! apache-avro's reader/writer resolution check. Used by the development registry and by the
//! CI check that rejects incompatible schema changes.

use std::fmt;
use std::str::FromStr;

use apache_avro::schema_compatibility::SchemaCompatibility;
use apache_avro::Schema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CompatibilityLevel {
    None,
    #[default]
    Backward,
    BackwardTransitive,
    Forward,
    ForwardTransitive,
    Full,
    FullTransitive,
}

impl FromStr for CompatibilityLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        serde_json::from_value(serde_json::Value::String(s.to_ascii_uppercase()))
            .map_err(|_| format!("unknown compatibility level `{s}`"))
    }
}

impl fmt::Display for CompatibilityLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = serde_json::to_value(self).expect("serialisable");
        write!(f, "{}", value.as_str().expect("string"))
    }
}

/// Checks `new` against `existing` (oldest first) under `level`. BACKWARD: consumers using the
/// new schema can read data written with the previous one; FORWARD: the other way round;
/// FULL: both. The transitive variants check every earlier version, not only the latest.
pub fn check_compatibility(
    level: CompatibilityLevel,
    new: &Schema,
    existing: &[Schema],
) -> Result<(), Vec<String>> {
    use CompatibilityLevel::*;
    let against: Vec<(usize, &Schema)> = match level {
        None => return Ok(()),
        Backward | Forward | Full => existing
            .iter()
            .enumerate()
            .next_back()
            .into_iter()
            .collect(),
        BackwardTransitive | ForwardTransitive | FullTransitive => {
            existing.iter().enumerate().collect()
        }
    };
    let (backward, forward) = match level {
        Backward | BackwardTransitive => (true, false),
        Forward | ForwardTransitive => (false, true),
        Full | FullTransitive => (true, true),
        None => unreachable!("returned above"),
    };
    let mut problems = Vec::new();
    for (index, old) in against {
        if backward {
            if let Err(e) = SchemaCompatibility::can_read(old, new) {
                problems.push(format!(
                    "new schema cannot read data written with version #{}: {e}",
                    index + 1
                ));
            }
        }
        if forward {
            if let Err(e) = SchemaCompatibility::can_read(new, old) {
                problems.push(format!(
                    "version #{} cannot read data written with the new schema: {e}",
                    index + 1
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(fields: &str) -> Schema {
        Schema::parse_str(&format!(
            r#"{{"type": "record", "name": "R", "fields": [{fields}]}}"#
        ))
        .unwrap()
    }

    fn v1() -> Schema {
        schema(r#"{"name": "a", "type": "string"}"#)
    }

    #[test]
    fn adding_field_with_default_is_backward_compatible() {
        let v2 = schema(
            r#"{"name": "a", "type": "string"}, {"name": "b", "type": ["null", "string"], "default": null}"#,
        );
        assert_eq!(
            check_compatibility(CompatibilityLevel::Backward, &v2, &[v1()]),
            Ok(())
        );
        assert_eq!(
            check_compatibility(CompatibilityLevel::Full, &v2, &[v1()]),
            Ok(())
        );
    }

    #[test]
    fn adding_required_field_is_not_backward_compatible() {
        let v2 = schema(r#"{"name": "a", "type": "string"}, {"name": "b", "type": "string"}"#);
        let problems = check_compatibility(CompatibilityLevel::Backward, &v2, &[v1()]).unwrap_err();
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("version #1"), "{problems:?}");
        // The same change is forward compatible: old readers ignore the new field.
        assert_eq!(
            check_compatibility(CompatibilityLevel::Forward, &v2, &[v1()]),
            Ok(())
        );
        assert!(check_compatibility(CompatibilityLevel::None, &v2, &[v1()]).is_ok());
    }

    #[test]
    fn removing_field_without_default_is_not_forward_compatible() {
        let v2 = schema(r#"{"name": "b", "type": ["null", "string"], "default": null}"#);
        assert!(check_compatibility(CompatibilityLevel::Backward, &v2, &[v1()]).is_ok());
        assert!(check_compatibility(CompatibilityLevel::Forward, &v2, &[v1()]).is_err());
        assert!(check_compatibility(CompatibilityLevel::Full, &v2, &[v1()]).is_err());
    }

    #[test]
    fn transitive_checks_every_version() {
        let int_field = schema(r#"{"name": "a", "type": "int"}"#);
        let long_field = schema(r#"{"name": "a", "type": "long"}"#);
        // int → long promotion is readable, so BACKWARD against the latest passes...
        assert!(check_compatibility(
            CompatibilityLevel::Backward,
            &long_field,
            &[v1(), int_field.clone()]
        )
        .is_ok());
        // ...but the first version wrote strings.
        let problems = check_compatibility(
            CompatibilityLevel::BackwardTransitive,
            &long_field,
            &[v1(), int_field],
        )
        .unwrap_err();
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("version #1"));
    }

    #[test]
    fn level_names_roundtrip() {
        for level in [
            "NONE",
            "BACKWARD",
            "BACKWARD_TRANSITIVE",
            "FORWARD",
            "FORWARD_TRANSITIVE",
            "FULL",
            "FULL_TRANSITIVE",
        ] {
            assert_eq!(
                level.parse::<CompatibilityLevel>().unwrap().to_string(),
                level
            );
        }
        assert_eq!(
            "backward".parse::<CompatibilityLevel>(),
            Ok(CompatibilityLevel::Backward)
        );
        assert!("SIDEWAYS".parse::<CompatibilityLevel>().is_err());
    }
}
