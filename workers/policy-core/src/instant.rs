//! Instants. Manifests and cutovers are written in UTC: a calendar date (midnight UTC) or an
//! RFC 3339 timestamp whose offset is zero; any other offset there is rejected rather than
//! converted ([`parse_utc_instant`]), because a manifest written in local time is a bug in the
//! manifest. Instants that come from outside (an order system's purchase time, a golden case)
//! may carry any offset and are normalised to UTC ([`parse_instant`]).

use chrono::{DateTime, NaiveDate, Utc};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstantError {
    #[error("`{0}` is neither a date (YYYY-MM-DD) nor an RFC 3339 timestamp")]
    Unparseable(String),
    #[error("`{0}` is not UTC: manifests and cutovers must use Z or +00:00")]
    NotUtc(String),
}

pub fn parse_utc_instant(raw: &str) -> Result<DateTime<Utc>, InstantError> {
    let raw = raw.trim();
    if let Ok(date) = NaiveDate::parse_from_str(raw, "%Y-%m-%d") {
        return Ok(date
            .and_hms_opt(0, 0, 0)
            .expect("midnight exists")
            .and_utc());
    }
    let parsed = DateTime::parse_from_rfc3339(raw)
        .map_err(|_| InstantError::Unparseable(raw.to_string()))?;
    if parsed.offset().local_minus_utc() != 0 {
        return Err(InstantError::NotUtc(raw.to_string()));
    }
    Ok(parsed.with_timezone(&Utc))
}

/// A date (midnight UTC) or an RFC 3339 timestamp with any offset, as the UTC instant it
/// denotes: `2026-03-01T01:30:00+09:00` is `2026-02-28T16:30:00Z`.
pub fn parse_instant(raw: &str) -> Result<DateTime<Utc>, InstantError> {
    let raw = raw.trim();
    if let Ok(date) = NaiveDate::parse_from_str(raw, "%Y-%m-%d") {
        return Ok(date
            .and_hms_opt(0, 0, 0)
            .expect("midnight exists")
            .and_utc());
    }
    DateTime::parse_from_rfc3339(raw)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| InstantError::Unparseable(raw.to_string()))
}

/// `2026-02-01` for midnight, the full timestamp otherwise: how instants are shown to people.
pub fn display_instant(instant: DateTime<Utc>) -> String {
    if instant.time() == chrono::NaiveTime::MIN {
        instant.format("%Y-%m-%d").to_string()
    } else {
        instant.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_is_midnight_utc() {
        let t = parse_utc_instant("2026-02-01").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-02-01T00:00:00+00:00");
    }

    #[test]
    fn zulu_and_zero_offset_accepted() {
        let a = parse_utc_instant("2026-02-01T10:00:00Z").unwrap();
        let b = parse_utc_instant("2026-02-01T10:00:00+00:00").unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn offsets_from_outside_are_normalised_to_utc() {
        let t = parse_instant("2026-03-01T01:30:00+09:00").unwrap();
        assert_eq!(t, parse_utc_instant("2026-02-28T16:30:00Z").unwrap());
        let t = parse_instant("2026-01-31T20:00:00-05:00").unwrap();
        assert_eq!(t, parse_utc_instant("2026-02-01T01:00:00Z").unwrap());
        assert_eq!(
            parse_instant("2026-02-01").unwrap(),
            parse_utc_instant("2026-02-01").unwrap()
        );
        assert!(parse_instant("yesterday").is_err());
    }

    #[test]
    fn non_utc_offset_rejected() {
        assert_eq!(
            parse_utc_instant("2026-02-01T10:00:00+02:00"),
            Err(InstantError::NotUtc("2026-02-01T10:00:00+02:00".into()))
        );
    }

    #[test]
    fn garbage_rejected() {
        assert!(matches!(
            parse_utc_instant("Feb 1st"),
            Err(InstantError::Unparseable(_))
        ));
        assert!(matches!(
            parse_utc_instant("2026-13-01"),
            Err(InstantError::Unparseable(_))
        ));
    }

    #[test]
    fn display_drops_midnight() {
        assert_eq!(
            display_instant(parse_utc_instant("2026-02-01").unwrap()),
            "2026-02-01"
        );
        assert_eq!(
            display_instant(parse_utc_instant("2026-02-01T10:30:00Z").unwrap()),
            "2026-02-01T10:30:00Z"
        );
    }
}
