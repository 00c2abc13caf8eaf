//! Which region's policy applies to a turn: authenticated session > billing address > IP.
//!
//! IP geolocation is the weakest signal (VPNs, travel): it is used only when the account says
//! nothing, and never overrides an account region. Any disagreement between present signals is
//! surfaced so that the answer can carry a disclaimer and the audit can count it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RegionSignals<'a> {
    pub session: Option<&'a str>,
    pub billing: Option<&'a str>,
    pub ip: Option<&'a str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegionSource {
    Session,
    Billing,
    Ip,
}

impl RegionSource {
    pub fn as_str(self) -> &'static str {
        match self {
            RegionSource::Session => "session",
            RegionSource::Billing => "billing",
            RegionSource::Ip => "ip",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionResolution {
    pub region: String,
    pub source: RegionSource,
    /// Two present signals name different regions.
    pub disagreement: bool,
    /// The region rests on IP alone, or the signals disagree.
    pub low_confidence: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegionError {
    #[error("no region signal: session, billing and IP regions are all empty")]
    NoSignal,
}

/// Lower-cased, trimmed region code; blank means absent.
pub fn normalize_region(raw: Option<&str>) -> Option<String> {
    raw.map(|r| r.trim().to_ascii_lowercase())
        .filter(|r| !r.is_empty())
}

pub fn resolve_region(signals: RegionSignals<'_>) -> Result<RegionResolution, RegionError> {
    let session = normalize_region(signals.session);
    let billing = normalize_region(signals.billing);
    let ip = normalize_region(signals.ip);
    let (region, source) = match (&session, &billing, &ip) {
        (Some(r), _, _) => (r.clone(), RegionSource::Session),
        (None, Some(r), _) => (r.clone(), RegionSource::Billing),
        (None, None, Some(r)) => (r.clone(), RegionSource::Ip),
        (None, None, None) => return Err(RegionError::NoSignal),
    };
    let disagreement = [&session, &billing, &ip]
        .into_iter()
        .flatten()
        .any(|r| *r != region);
    Ok(RegionResolution {
        low_confidence: disagreement || source == RegionSource::Ip,
        region,
        source,
        disagreement,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(session: Option<&str>, billing: Option<&str>, ip: Option<&str>) -> RegionResolution {
        resolve_region(RegionSignals {
            session,
            billing,
            ip,
        })
        .unwrap()
    }

    #[test]
    fn session_wins_over_everything() {
        let r = resolve(Some("eu"), Some("us"), Some("jp"));
        assert_eq!((r.region.as_str(), r.source), ("eu", RegionSource::Session));
        assert!(r.disagreement && r.low_confidence);
    }

    #[test]
    fn billing_used_without_session() {
        let r = resolve(None, Some("br"), Some("br"));
        assert_eq!((r.region.as_str(), r.source), ("br", RegionSource::Billing));
        assert!(!r.disagreement && !r.low_confidence);
    }

    #[test]
    fn ip_never_overrides_account_region() {
        let r = resolve(None, Some("eu"), Some("us"));
        assert_eq!(r.region, "eu");
        assert!(r.disagreement && r.low_confidence);
        let r = resolve(Some("jp"), None, Some("us"));
        assert_eq!(r.region, "jp");
        assert!(r.low_confidence);
    }

    #[test]
    fn ip_alone_is_used_but_low_confidence() {
        let r = resolve(None, None, Some("US"));
        assert_eq!((r.region.as_str(), r.source), ("us", RegionSource::Ip));
        assert!(!r.disagreement && r.low_confidence);
    }

    #[test]
    fn agreeing_signals_are_confident() {
        let r = resolve(Some("eu"), Some("EU "), Some("eu"));
        assert!(!r.disagreement && !r.low_confidence);
    }

    #[test]
    fn session_billing_disagreement_flagged() {
        let r = resolve(Some("eu"), Some("us"), None);
        assert_eq!(r.region, "eu");
        assert!(r.disagreement && r.low_confidence);
    }

    #[test]
    fn blank_signals_are_absent() {
        let r = resolve(Some("  "), Some(""), Some("jp"));
        assert_eq!(r.source, RegionSource::Ip);
        assert_eq!(
            resolve_region(RegionSignals::default()),
            Err(RegionError::NoSignal)
        );
        assert_eq!(
            resolve_region(RegionSignals {
                session: Some(" "),
                billing: None,
                ip: None
            }),
            Err(RegionError::NoSignal)
        );
    }
}
