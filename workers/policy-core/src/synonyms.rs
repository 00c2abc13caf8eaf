//! Query-side synonym expansion for the support domain: customers say "money back", "package"
//! and "installments" where policies say "refund", "parcel" and "instalments". Expansion is
//! applied to the query only, so the index stays a faithful copy of the policy text.

/// (customer phrase, policy words it should also match). Phrases are matched on lower-cased
/// text at word boundaries.
const SYNONYMS: &[(&str, &str)] = &[
    ("money back", "refund reimburse"),
    ("return window", "withdrawal period return period"),
    ("too late to return", "return window withdrawal period"),
    ("days do i have", "period within days"),
    ("take back", "return exchange"),
    ("holiday", "christmas year-end"),
    ("christmas", "holiday year-end"),
    ("get my money", "refund"),
    ("package", "parcel delivery"),
    ("parcel", "package delivery"),
    ("never arrived", "lost missing not delivered"),
    ("never got", "lost missing not delivered"),
    ("broken", "damaged defective"),
    ("came broken", "damaged delivery"),
    ("corrupted", "defective faulty does not work"),
    ("wont open", "does not work defective"),
    ("won't open", "does not work defective"),
    ("doesn't work", "defective faulty"),
    ("stop my subscription", "cancel membership"),
    ("subscription", "membership"),
    ("membership", "subscription"),
    ("installments", "instalments instalment monthly payments"),
    ("installment", "instalment"),
    ("split the payment", "instalments monthly payments"),
    ("deduct", "fee deduction restocking handling"),
    ("restocking", "handling deduction"),
    ("keep", "retain retention"),
    ("store my", "retain retention records"),
    ("on hold", "pause"),
    ("giftcard", "gift card"),
    ("postage", "shipping cost"),
    ("send it back", "return"),
    ("send something back", "return"),
    ("send an item back", "return"),
    ("e-book", "ebook digital"),
    ("ebook", "e-book digital"),
    ("unsubscribe", "marketing opt out"),
    ("promo", "marketing promotional"),
    ("close my account", "delete account"),
    ("threw away the box", "original packaging"),
    ("box", "packaging"),
    ("abroad", "international"),
    ("fast", "express"),
    ("next day", "express next-day"),
    ("on sale", "price reduction lower price"),
    ("price dropped", "price reduction difference"),
    ("drops", "reduction decrease"),
    ("dispute", "chargeback contest"),
    ("chargeback", "dispute contested"),
    ("guarantee", "warranty"),
    ("warranty", "guarantee"),
    ("declined", "failed payment not approved"),
    ("receipt", "invoice"),
    ("third party seller", "marketplace"),
    ("working days", "business days"),
    ("business day", "working day"),
];

/// The query followed by the policy words its customer phrases stand for.
pub fn expand_query(query: &str) -> String {
    let lower = format!(" {} ", query.to_lowercase());
    let mut expanded = query.to_string();
    for (phrase, words) in SYNONYMS {
        let at_boundary = lower.match_indices(phrase).any(|(i, _)| {
            let before = lower[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric());
            let after = lower[i + phrase.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric());
            before && after
        });
        if at_boundary {
            expanded.push(' ');
            expanded.push_str(words);
        }
    }
    expanded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_expand_at_word_boundaries() {
        assert_eq!(
            expand_query("when will I see the money back?"),
            "when will I see the money back? refund reimburse"
        );
        assert_eq!(
            expand_query("Can I pay in installments?"),
            "Can I pay in installments? instalments instalment monthly payments"
        );
        // "boxes" is not "box"; nothing else matches.
        assert_eq!(expand_query("boxes"), "boxes");
    }

    #[test]
    fn unrelated_text_is_unchanged() {
        assert_eq!(
            expand_query("What is the refund policy?"),
            "What is the refund policy?"
        );
    }
}
