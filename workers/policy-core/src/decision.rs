//! Decisions that need data: is *this order* still returnable, may *this employee* spend this.
//! Every number comes from a rule of the version in force ([`crate::rules`]) and every fact
//! about the order or the employee from its authoritative source; the decision cites the clause
//! carrying each rule it used. A false approval is worse than an escalation: what a rule does not
//! explicitly permit is never approved, and anything the rules cannot settle is handed to a person.

use std::collections::BTreeMap;
use std::fmt;

use chrono::{DateTime, Duration, Utc};

use crate::clause::Clause;
use crate::codes::{Intent, ReasonCode};
use crate::instant::parse_instant;
use crate::rules::{rule_number, rule_words};
use crate::text::{normalize_number, number_spans};

/// Below this confidence in the rule clause a decision goes to a person.
pub const MIN_DECISION_CONFIDENCE: f64 = 0.7;

/// One rule a decision used, and the clause that carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleUse {
    pub clause_id: String,
    pub key: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub kind: Intent,
    /// Returnable / refundable, or (an expense) approved.
    pub eligible: bool,
    pub reason: String,
    pub deadline: Option<DateTime<Utc>>,
    /// The amount concerned, in cents of the corpus currency.
    pub amount_cents: Option<i64>,
    pub rules: Vec<RuleUse>,
    pub confidence: f64,
    pub requires_human_review: bool,
    pub employee_level: Option<String>,
    /// Offered instead of what was asked (`store_credit` as a goodwill gesture), and until when.
    pub offer: Option<String>,
    pub offer_until: Option<DateTime<Utc>>,
    /// What the answer says, with a citation after each rule it states.
    pub text: String,
}

impl Decision {
    /// The clauses cited, in order of first use.
    pub fn policy_refs(&self) -> Vec<String> {
        let mut refs: Vec<String> = Vec::new();
        for r in &self.rules {
            if !refs.contains(&r.clause_id) {
                refs.push(r.clause_id.clone());
            }
        }
        refs
    }
}

/// Why no decision could be made: an escalation with this code and reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undecided {
    pub code: ReasonCode,
    pub reason: String,
}

impl Undecided {
    fn rule_missing(rule: &str, version: &str) -> Undecided {
        Undecided {
            code: ReasonCode::RuleMissing,
            reason: format!("no clause of {version} carries the rule `{rule}`"),
        }
    }

    fn review(reason: impl Into<String>) -> Undecided {
        Undecided {
            code: ReasonCode::HumanReviewRequired,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Undecided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.reason)
    }
}

/// What an order is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    Physical,
    Digital,
    Subscription,
}

/// An order as the order system knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderFacts {
    pub order_id: String,
    pub region: Option<String>,
    pub placed_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
    pub kind: ItemKind,
    pub download_started: bool,
    pub amount_cents: Option<i64>,
    /// A subscription's paid period ends (its start is `placed_at`).
    pub period_end: Option<DateTime<Utc>>,
}

fn field<'a>(fields: &'a BTreeMap<String, String>, key: &str) -> Option<&'a str> {
    fields.get(key).map(|v| v.trim()).filter(|v| !v.is_empty())
}

fn instant_field(
    fields: &BTreeMap<String, String>,
    key: &str,
) -> Result<Option<DateTime<Utc>>, String> {
    field(fields, key)
        .map(|v| parse_instant(v).map_err(|e| format!("`{key}`: {e}")))
        .transpose()
}

impl OrderFacts {
    /// Reads the order system's record (flat string fields).
    pub fn from_fields(order_id: &str, fields: &BTreeMap<String, String>) -> Result<Self, String> {
        let placed_at = instant_field(fields, "placed_at")?
            .ok_or_else(|| "the order record has no `placed_at`".to_string())?;
        let kind = match field(fields, "kind").unwrap_or("physical") {
            "physical" => ItemKind::Physical,
            "digital" => ItemKind::Digital,
            "subscription" => ItemKind::Subscription,
            other => {
                return Err(format!(
                    "`kind`: `{other}` is not physical, digital or subscription"
                ))
            }
        };
        let amount_cents = field(fields, "amount")
            .map(|a| parse_cents(a).ok_or_else(|| format!("`amount`: `{a}` is not an amount")))
            .transpose()?;
        Ok(OrderFacts {
            order_id: order_id.to_string(),
            region: field(fields, "region").map(str::to_lowercase),
            placed_at,
            delivered_at: instant_field(fields, "delivered_at")?,
            kind,
            download_started: matches!(field(fields, "download_started"), Some("true" | "yes")),
            amount_cents,
            period_end: instant_field(fields, "period_end")?,
        })
    }
}

/// "1,200.50" → 120050; `None` for anything that is not a plain amount.
pub fn parse_cents(raw: &str) -> Option<i64> {
    let plain = normalize_number(raw.trim());
    let value: f64 = plain.parse().ok()?;
    (value.is_finite() && value >= 0.0).then(|| (value * 100.0).round() as i64)
}

fn money(cents: i64) -> String {
    if cents % 100 == 0 {
        format!("{}", cents / 100)
    } else {
        format!("{}.{:02}", cents / 100, cents % 100)
    }
}

fn day(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d").to_string()
}

/// The clause of `clauses` carrying rule `key`, with its value.
fn rule<'a>(clauses: &[&'a Clause], key: &str) -> Option<(&'a Clause, &'a str)> {
    clauses
        .iter()
        .find_map(|c| c.rules.get(key).map(|v| (*c, v.as_str())))
}

fn used(clause: &Clause, key: &str, value: &str) -> RuleUse {
    RuleUse {
        clause_id: clause.clause_id.clone(),
        key: key.to_string(),
        value: value.to_string(),
    }
}

/// What a return window counts from. `window_from` carries the clause's own word for it
/// ("of delivery", "of the day you receive it", "of receiving the product").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowStart {
    Delivery,
    Purchase,
}

impl WindowStart {
    pub fn of(word: &str) -> Option<WindowStart> {
        match word {
            "delivery" | "delivered" | "receipt" | "receive" | "receiving" | "received" => {
                Some(WindowStart::Delivery)
            }
            "purchase" | "purchased" | "order" | "ordered" => Some(WindowStart::Purchase),
            _ => None,
        }
    }
}

/// Whether `order` may still be returned (or refunded, `kind`) at `as_of`, under the rules of
/// `clauses` (every clause of the version in force at the order's date).
pub fn decide_return(
    kind: Intent,
    order: &OrderFacts,
    clauses: &[&Clause],
    as_of: DateTime<Utc>,
) -> Result<Decision, Undecided> {
    let version = clauses
        .first()
        .map(|c| c.version_id.as_str())
        .unwrap_or("?");
    let id = &order.order_id;
    let mut decision = Decision {
        kind,
        eligible: false,
        reason: String::new(),
        deadline: None,
        amount_cents: order.amount_cents,
        rules: Vec::new(),
        confidence: 1.0,
        requires_human_review: false,
        employee_level: None,
        offer: None,
        offer_until: None,
        text: String::new(),
    };
    match order.kind {
        ItemKind::Subscription => return subscription_refund(decision, order, clauses, as_of),
        ItemKind::Digital => {
            let (clause, until) = rule(clauses, "digital_return_until")
                .ok_or_else(|| Undecided::rule_missing("digital_return_until", version))?;
            decision
                .rules
                .push(used(clause, "digital_return_until", until));
            let cite = format!("[clause: {}]", clause.clause_id);
            decision.eligible = !order.download_started;
            decision.reason = if decision.eligible {
                format!("digital order not yet downloaded: cancellable until the {until} starts")
            } else {
                format!("digital order: the {until} has started")
            };
            decision.text = if decision.eligible {
                format!("Order {id} is a digital purchase whose {until} has not started, so it can still be canceled {cite}.")
            } else {
                format!("Order {id} is a digital purchase whose {until} has already started, so it can no longer be canceled or returned {cite}.")
            };
            return Ok(decision);
        }
        ItemKind::Physical => {}
    }
    let (window_clause, days) = rule(clauses, "return_window_days")
        .ok_or_else(|| Undecided::rule_missing("return_window_days", version))?;
    let days_n: i64 = rule_number(days)
        .and_then(|d| d.parse().ok())
        .ok_or_else(|| {
            Undecided::review(format!(
                "{}: return_window_days={days} is not a whole number of days",
                window_clause.clause_id
            ))
        })?;
    let (from_clause, from) = rule(clauses, "window_from")
        .ok_or_else(|| Undecided::rule_missing("window_from", version))?;
    decision
        .rules
        .push(used(window_clause, "return_window_days", days));
    if from_clause.clause_id != window_clause.clause_id {
        decision.rules.push(used(from_clause, "window_from", from));
    } else {
        decision
            .rules
            .push(used(window_clause, "window_from", from));
    }
    let cite = format!("[clause: {}]", window_clause.clause_id);
    let from_delivery = match WindowStart::of(from) {
        Some(start) => start == WindowStart::Delivery,
        None => {
            return Err(Undecided::review(format!(
                "{}: window_from={from} names neither delivery nor purchase",
                from_clause.clause_id
            )))
        }
    };
    let start = if from_delivery {
        order.delivered_at
    } else {
        Some(order.placed_at)
    };
    let Some(start) = start else {
        decision.eligible = true;
        decision.reason = format!("not delivered yet: the {days_n}-day window starts at delivery");
        decision.text = format!("Order {id} has not been delivered yet. Items can be returned within {days} days of delivery {cite}, so the window has not started.");
        return Ok(decision);
    };
    let deadline = start + Duration::days(days_n);
    decision.deadline = Some(deadline);
    decision.eligible = as_of <= deadline;
    let started = if from_delivery {
        "was delivered"
    } else {
        "was placed"
    };
    let from = if from_delivery {
        "delivery"
    } else {
        "purchase"
    };
    let verb = if kind == Intent::RefundEligibility {
        "returned for a refund"
    } else {
        "returned"
    };
    decision.reason = format!(
        "{} on {}; {days}-day window from {from} ends {}",
        started,
        day(start),
        day(deadline)
    );
    decision.text = if decision.eligible {
        format!("Order {id} {started} on {}. Items can be returned within {days} days of {from} {cite}, so it can still be {verb} until {}.", day(start), day(deadline))
    } else {
        format!("Order {id} {started} on {}. Items can be returned within {days} days of {from} {cite}; that window ended on {}, so it can no longer be {verb}.", day(start), day(deadline))
    };
    if !decision.eligible {
        goodwill(&mut decision, clauses, deadline, as_of);
    }
    if kind == Intent::RefundEligibility && decision.eligible {
        for key in ["refund_within_days", "refund_within_business_days"] {
            if let Some((clause, n)) = rule(clauses, key) {
                decision.rules.push(used(clause, key, n));
                let unit = if key.ends_with("business_days") {
                    "business days"
                } else {
                    "days"
                };
                decision.text.push_str(&format!(
                    " The refund is made within {n} {unit} of the return [clause: {}].",
                    clause.clause_id
                ));
                break;
            }
        }
    }
    Ok(decision)
}

/// Just past the window, a version may offer something instead of a refund
/// (`goodwill_days=7 goodwill=store_credit`): the decision stays "not returnable for a refund"
/// and carries the offer.
fn goodwill(
    decision: &mut Decision,
    clauses: &[&Clause],
    deadline: DateTime<Utc>,
    as_of: DateTime<Utc>,
) {
    let Some((clause, days)) = rule(clauses, "goodwill_days") else {
        return;
    };
    let Some(n) = rule_number(days).and_then(|d| d.parse::<i64>().ok()) else {
        return;
    };
    let Some(offer) = clause.rules.get("goodwill") else {
        return;
    };
    let until = deadline + Duration::days(n);
    if as_of > until {
        return;
    }
    decision.rules.push(used(clause, "goodwill_days", days));
    decision.rules.push(used(clause, "goodwill", offer));
    decision.offer = Some(offer.clone());
    decision.offer_until = Some(until);
    decision.reason.push_str(&format!(
        "; {} offered until {}",
        offer.replace('_', " "),
        day(until)
    ));
    decision.text.push_str(&format!(
        " Returned by {}, up to {days} days after the window, it receives {} as a goodwill gesture instead of a refund [clause: {}].",
        day(until),
        offer.replace('_', " "),
        clause.clause_id
    ));
}

/// Whole calendar months from `from` to `to` (0 when `to` is earlier).
fn whole_months(from: DateTime<Utc>, to: DateTime<Utc>) -> u32 {
    (1..=1200u32)
        .take_while(|m| {
            from.checked_add_months(chrono::Months::new(*m))
                .is_some_and(|t| t <= to)
        })
        .last()
        .unwrap_or(0)
}

/// A subscription's refund on cancellation: only under a `subscription_refund=pro-rata` rule,
/// for each full month left of the paid period (partial months are not refunded); anything
/// else is decided by a person.
fn subscription_refund(
    mut decision: Decision,
    order: &OrderFacts,
    clauses: &[&Clause],
    as_of: DateTime<Utc>,
) -> Result<Decision, Undecided> {
    let id = &order.order_id;
    let person = |why: &str| Undecided::review(format!("order {id} is a subscription: {why}"));
    let (clause, how) = rule(clauses, "subscription_refund").ok_or_else(|| {
        person("no pro-rata rule in this version, its refund is decided by a person")
    })?;
    if how != "pro-rata" {
        return Err(person(&format!(
            "subscription_refund={how} is decided by a person"
        )));
    }
    let (Some(end), Some(paid)) = (order.period_end, order.amount_cents) else {
        return Err(person(
            "the order system gives no paid period end or amount",
        ));
    };
    let total = whole_months(order.placed_at, end);
    if total == 0 {
        return Err(person("the paid period is shorter than a month"));
    }
    let left = whole_months(as_of, end);
    let refund = paid * i64::from(left) / i64::from(total);
    decision
        .rules
        .push(used(clause, "subscription_refund", how));
    decision.eligible = left > 0;
    decision.amount_cents = Some(refund);
    decision.deadline = Some(end);
    decision.reason = format!("{left} full month(s) left of {total}, pro-rata");
    let cite = format!("[clause: {}]", clause.clause_id);
    decision.text = format!(
        "Order {id} is paid until {}. A cancellation is refunded pro-rata for each full month left {cite}: {} of the {} paid; partial months are not refunded.",
        day(end),
        money(refund),
        money(paid)
    );
    Ok(decision)
}

/// A money amount the question asks about, in cents, with its currency when written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestedAmount {
    pub cents: i64,
    pub currency: Option<&'static str>,
}

const CURRENCIES: &[(&str, &str)] = &[
    ("R$", "BRL"),
    ("$", "USD"),
    ("€", "EUR"),
    ("£", "GBP"),
    ("¥", "JPY"),
    ("usd", "USD"),
    ("dollars", "USD"),
    ("dollar", "USD"),
    ("eur", "EUR"),
    ("euros", "EUR"),
    ("euro", "EUR"),
    ("gbp", "GBP"),
    ("pounds", "GBP"),
    ("jpy", "JPY"),
    ("yen", "JPY"),
    ("brl", "BRL"),
    ("reais", "BRL"),
];

fn currency_before(text: &str) -> Option<&'static str> {
    let t = text.trim_end().to_lowercase();
    CURRENCIES
        .iter()
        .find(|(mark, _)| t.ends_with(&mark.to_lowercase()))
        .map(|(_, code)| *code)
}

fn currency_after(text: &str) -> Option<&'static str> {
    let t = text.trim_start().to_lowercase();
    CURRENCIES
        .iter()
        .find(|(mark, _)| {
            t.starts_with(&mark.to_lowercase())
                && !t[mark.len()..].starts_with(|c: char| c.is_alphanumeric())
        })
        .map(|(_, code)| *code)
}

/// The first amount of money in `text`: a number with a currency sign or word next to it.
pub fn requested_amount(text: &str) -> Option<RequestedAmount> {
    amounts(text).into_iter().next()
}

/// Every amount of money in `text`, in order.
pub fn amounts(text: &str) -> Vec<RequestedAmount> {
    number_spans(text)
        .into_iter()
        .filter_map(|(start, end)| {
            let currency = currency_before(&text[..start]).or_else(|| currency_after(&text[end..]));
            // Without a sign or a currency word, only cents make a number money ("180.01").
            let cents_written = text[start..end]
                .rsplit_once('.')
                .is_some_and(|(_, frac)| frac.len() == 2);
            (currency.is_some() || cents_written)
                .then(|| parse_cents(&text[start..end]))
                .flatten()
                .map(|cents| RequestedAmount { cents, currency })
        })
        .collect()
}

/// The words of the clauses carrying an `expense` rule: the expense's name, its class values
/// and its title ("hotel", "flights", "business", "premium economy" → both words).
pub fn expense_words(clauses: &[Clause]) -> std::collections::BTreeSet<String> {
    clauses
        .iter()
        .filter(|c| c.rules.contains_key("expense"))
        .flat_map(|c| {
            let values = c
                .rules
                .iter()
                .filter(|(k, _)| *k == "expense" || k.starts_with("class."))
                .flat_map(|(_, v)| rule_words(v));
            values
                .chain(std::iter::once(c.title.to_lowercase()))
                .collect::<Vec<_>>()
        })
        .flat_map(|text| {
            text.split(|ch: char| !ch.is_alphanumeric())
                .filter(|w| w.len() >= 4)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Whether an employee at `level` may spend what `question` asks for, under the expense rule
/// clause that best matches the request (`ranked`: the version's clauses carrying an `expense`
/// rule, best match first, with the retrieval confidence).
pub fn decide_expense(
    question: &str,
    level: &str,
    ranked: &[&Clause],
    confidence: f64,
) -> Result<Decision, Undecided> {
    let level = level.trim().to_lowercase();
    let clause = ranked.first().ok_or_else(|| Undecided {
        code: ReasonCode::RuleMissing,
        reason: "no clause of the version in force carries an expense rule for this request"
            .to_string(),
    })?;
    if confidence < MIN_DECISION_CONFIDENCE {
        return Err(Undecided::review(format!(
            "the request matches {} with confidence {confidence:.2} < {MIN_DECISION_CONFIDENCE}",
            clause.clause_id
        )));
    }
    let expense = clause
        .rules
        .get("expense")
        .map(String::as_str)
        .unwrap_or("expense");
    let cite = format!("[clause: {}]", clause.clause_id);
    let mut decision = Decision {
        kind: Intent::ExpenseApproval,
        eligible: false,
        reason: String::new(),
        deadline: None,
        amount_cents: None,
        rules: vec![used(clause, "expense", expense)],
        confidence,
        requires_human_review: false,
        employee_level: Some(level.clone()),
        offer: None,
        offer_until: None,
        text: String::new(),
    };
    let lower = question.to_lowercase();
    let class_key = format!("class.{level}");
    let limit_key = format!("limit.{level}");
    let has_classes = clause.rules.keys().any(|k| k.starts_with("class."));
    let has_limits = clause.rules.keys().any(|k| k.starts_with("limit."));
    if has_classes {
        let vocabulary: Vec<String> = clause
            .rules
            .iter()
            .filter(|(k, _)| k.starts_with("class."))
            .flat_map(|(_, v)| rule_words(v))
            .collect();
        // The longest class named wins ("premium economy" over "economy").
        let requested = vocabulary
            .iter()
            .filter(|w| crate::rules::contains_words(&lower, w))
            .max_by_key(|w| w.len())
            .cloned();
        let Some(requested) = requested else {
            return Err(Undecided::review(format!(
                "the request names none of the classes {} regulates",
                clause.clause_id
            )));
        };
        let allowed = clause.rules.get(&class_key).ok_or_else(|| {
            Undecided::review(format!(
                "{} sets no class for level {level}",
                clause.clause_id
            ))
        })?;
        decision.rules.push(used(clause, &class_key, allowed));
        decision.eligible = rule_words(allowed).contains(&requested);
        let allowed_text = rule_words(allowed).join(" or ");
        decision.reason = format!("{requested} requested; level {level} may book {allowed_text}");
        decision.text = if decision.eligible {
            format!("Approved: at level {level} you may book {allowed_text} {cite}.")
        } else {
            format!("Not approved: at level {level} the policy permits {allowed_text}, not {requested} {cite}.")
        };
        if !has_limits {
            return Ok(decision);
        }
    }
    if has_limits {
        let limit = clause.rules.get(&limit_key).ok_or_else(|| {
            Undecided::review(format!(
                "{} sets no limit for level {level}",
                clause.clause_id
            ))
        })?;
        let limit_cents = parse_cents(limit).ok_or_else(|| {
            Undecided::review(format!(
                "{}: {limit_key}={limit} is not an amount",
                clause.clause_id
            ))
        })?;
        // Of several amounts ("I get up to $340, so a $300 hotel is fine"), the largest: an
        // approval must hold for every amount the request names.
        let Some(amount) = amounts(question).into_iter().max_by_key(|a| a.cents) else {
            return Err(Undecided::review("the request names no amount"));
        };
        let corpus_currency = clause_currency(&clause.text);
        if let (Some(asked), Some(policy)) = (amount.currency, corpus_currency) {
            if asked != policy {
                return Err(Undecided::review(format!(
                    "the request is in {asked}, the limit of {} in {policy}",
                    clause.clause_id
                )));
            }
        }
        decision.rules.push(used(clause, &limit_key, limit));
        decision.amount_cents = Some(amount.cents);
        let within = amount.cents <= limit_cents;
        // A class rule that refused stays refused whatever the amount.
        decision.eligible = within && (decision.eligible || !has_classes);
        let asked = money(amount.cents);
        let cap = money(limit_cents);
        let limit_text = format!("the {expense} limit for level {level} is {cap} {cite}");
        decision.reason = format!("{asked} requested; {limit_text}");
        decision.text = match (decision.eligible, within) {
            (true, _) => format!("Approved: {asked} is within {limit_text}."),
            (false, true) => format!(
                "{} The amount of {asked} is within {limit_text}.",
                decision.text
            ),
            (false, false) => format!("Not approved: {asked} is over {limit_text}."),
        };
    }
    if !has_classes && !has_limits {
        return Err(Undecided::review(format!(
            "{} carries no class or limit rule",
            clause.clause_id
        )));
    }
    Ok(decision)
}

/// The currency a clause states its amounts in (the first sign or code it uses).
pub fn clause_currency(text: &str) -> Option<&'static str> {
    amounts(text).into_iter().find_map(|a| a.currency)
}

/// What is wrong with a decision against the clauses it cites: each rule must be carried, with
/// that value, by the cited clause, and an approval must follow from them. The judge runs this
/// on every decision; an empty list passes.
pub fn check_decision(decision: &Decision, clause: &dyn Fn(&str) -> Option<Clause>) -> Vec<String> {
    let mut problems = Vec::new();
    for r in &decision.rules {
        match clause(&r.clause_id) {
            None => problems.push(format!(
                "{} is not a clause of the version in force",
                r.clause_id
            )),
            Some(c) if c.rules.get(&r.key) != Some(&r.value) => problems.push(format!(
                "{} does not carry the rule {}={}",
                r.clause_id, r.key, r.value
            )),
            Some(c) => {
                if let Some(m) = crate::rules::rule_mismatches(&c)
                    .into_iter()
                    .find(|m| m.key == r.key)
                {
                    problems.push(m.to_string());
                }
            }
        }
    }
    if decision.kind == Intent::ExpenseApproval && decision.eligible {
        // An approval needs the level's own rule among those used, and an amount within it.
        let level = decision.employee_level.as_deref().unwrap_or("");
        let permits = decision
            .rules
            .iter()
            .any(|r| r.key == format!("limit.{level}") || r.key == format!("class.{level}"));
        let over = decision.rules.iter().any(|r| {
            r.key == format!("limit.{level}")
                && decision
                    .amount_cents
                    .zip(parse_cents(&r.value))
                    .is_none_or(|(asked, cap)| asked > cap)
        });
        if !permits || over || decision.requires_human_review {
            problems.push(format!(
                "approval not explicitly permitted for level `{level}` by the rules it cites"
            ));
        }
    }
    problems
}

#[cfg(test)]
#[path = "decision_tests.rs"]
mod tests;
