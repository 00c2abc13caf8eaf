use super::*;

#[test]
fn sentences_split_on_terminators() {
    let s = split_sentences("Returns are free. Refunds take 5 days! Is that clear? Yes.");
    assert_eq!(
        s,
        [
            "Returns are free.",
            "Refunds take 5 days!",
            "Is that clear?",
            "Yes."
        ]
    );
}

#[test]
fn a_writer_who_does_not_capitalise_still_ends_sentences() {
    assert_eq!(
        split_sentences("my ex used my laptop. what did she buy? pls check e.g. the blender."),
        [
            "my ex used my laptop.",
            "what did she buy?",
            "pls check e.g. the blender."
        ]
    );
    // A capitalised text keeps a full stop before a small letter inside its sentence.
    assert_eq!(
        split_sentences("Call the store. ask for Sam. Thanks."),
        ["Call the store. ask for Sam.", "Thanks."]
    );
    // Short forms and an ellipsis go on; a list mark or a brand does not make a text lower case.
    assert_eq!(
        split_sentences("open till 5 p.m. on fri. incl. weekends... ok. thanks"),
        ["open till 5 p.m. on fri. incl. weekends... ok.", "thanks"]
    );
    assert_eq!(
        split_sentences("(a) Items sold excl. delivery. iPhone cases too."),
        ["(a) Items sold excl. delivery. iPhone cases too."]
    );
    assert_eq!(
        split_sentences("iPhone question. is it covered?"),
        ["iPhone question. is it covered?"]
    );
    assert_eq!(
        split_sentences("Lines open until 6 p.m. Refunds take 5 days."),
        ["Lines open until 6 p.m.", "Refunds take 5 days."]
    );
}

#[test]
fn sentences_never_split_numbers_or_abbreviations() {
    let s = split_sentences(
        "See section 3.2 for details, e.g. damaged goods. Fees are $9.99 per item.",
    );
    assert_eq!(
        s,
        [
            "See section 3.2 for details, e.g. damaged goods.",
            "Fees are $9.99 per item."
        ]
    );
}

#[test]
fn in_a_message_a_year_or_an_identifier_ends_a_sentence_and_a_list_number_does_not() {
    assert_eq!(
        split_message_sentences("Check her order, number 28816. Just tell me what is in it."),
        [
            "Check her order, number 28816.",
            "Just tell me what is in it."
        ]
    );
    assert_eq!(
        split_message_sentences("It changed in 2024. Orders before then keep 30 days."),
        ["It changed in 2024.", "Orders before then keep 30 days."]
    );
    assert_eq!(
        split_message_sentences("Returns are set out in section 12. Refunds follow."),
        ["Returns are set out in section 12. Refunds follow."]
    );
    // Policy text is split as it was indexed.
    assert_eq!(
        split_sentences("It changed in 2024. Orders before then keep 30 days."),
        ["It changed in 2024. Orders before then keep 30 days."]
    );
}

#[test]
fn an_abbreviation_before_an_amount_does_not_end_a_sentence() {
    let s = split_sentences(
        "Standard delivery costs Rs. 450 an order. We give store credit of Rs. 1,500. \
         The credit can be spent for six months.",
    );
    assert_eq!(
        s,
        [
            "Standard delivery costs Rs. 450 an order.",
            "We give store credit of Rs. 1,500.",
            "The credit can be spent for six months."
        ]
    );
    // At the end of a paragraph too: "300." is the amount, not a numbered rule.
    assert_eq!(
        split_sentences("Delivery to a counter costs Rs. 300."),
        ["Delivery to a counter costs Rs. 300."]
    );
    // A numbered rule after a short name, and a sentence that starts with a number, still
    // start sentences of their own.
    assert_eq!(
        split_sentences("Goods ship within the EU. 2. Refunds follow. Ask Ann. 30 days apply."),
        [
            "Goods ship within the EU.",
            "2. Refunds follow.",
            "Ask Ann.",
            "30 days apply."
        ]
    );
}

#[test]
fn lowercase_continuation_is_not_a_new_sentence() {
    let s = split_sentences("Orders ship from the U.S. warehouse within two days.");
    assert_eq!(s.len(), 1);
}

#[test]
fn list_items_and_paragraphs_are_separate() {
    let s =
        split_sentences("You may return:\n- unopened items\n- defective items\n\nNext paragraph");
    assert_eq!(
        s,
        [
            "You may return:",
            "unopened items",
            "defective items",
            "Next paragraph"
        ]
    );
    let s = split_sentences("1. First step\n2. Second step");
    assert_eq!(s, ["1. First step", "2. Second step"]);
}

#[test]
fn empty_fragments_dropped() {
    assert!(split_sentences("  \n\n - \n").is_empty());
}

#[test]
fn terms_drop_stopwords_and_stem() {
    assert_eq!(terms("How do I return my Shoes?"), ["return", "shoe"]);
    assert_eq!(
        terms("returned returning returns"),
        ["return", "return", "return"]
    );
    assert_eq!(terms("policies address"), ["policy", "address"]);
    assert_eq!(terms("the customer's refund"), ["customer", "refund"]);
}

#[test]
fn whitespace_normalised() {
    assert_eq!(normalize_whitespace("  a \t b\n\nc "), "a b c");
}

fn facts(text: &str) -> Vec<String> {
    numeric_facts(text).into_iter().collect()
}

#[test]
fn facts_cover_durations_amounts_percentages() {
    assert_eq!(facts("within 30 calendar days"), ["30"]);
    assert_eq!(facts("a fee of $9.99 or 15% of the price"), ["15", "9.99"]);
    assert_eq!(facts("R$ 1.000,00 equals US 1,000"), ["1000"]);
    assert_eq!(facts("R$ 49,90 or 1.500.000"), ["1500000", "49.9"]);
    assert_eq!(facts("30.00 EUR"), ["30"]);
    assert_eq!(facts("between 10am and 6pm, 24h a day"), ["10", "24", "6"]);
}

#[test]
fn number_words_are_facts() {
    assert_eq!(facts("fourteen (14) days"), ["14"]);
    assert_eq!(facts("Thirty days"), ["30"]);
}

#[test]
fn identifiers_are_not_facts() {
    assert!(facts("version v4 of policy").is_empty());
    assert!(facts("see sec-4.2 and eu-v4#sec-3.2").is_empty());
    assert_eq!(facts("a 14-day period"), ["14"]);
    assert_eq!(facts("the 1st of May"), ["1"]);
}

#[test]
fn leading_zeros_normalised() {
    assert_eq!(facts("007 and 0.5"), ["0.5", "7"]);
}

#[test]
fn analysed_tokens_are_lower_cased_stemmed_and_split_at_punctuation() {
    assert_eq!(
        analyze("Returns RETURNED returning; e-mail 30-day"),
        ["return", "return", "return", "e", "mail", "30", "day"]
    );
    assert!(analyze(&"x".repeat(41)).is_empty());
}

#[test]
fn content_words_leave_out_function_words() {
    assert_eq!(
        content_words("Hi, can you tell me how long the return window is for my hoodie?"),
        ["long", "return", "window", "hoodie"]
    );
    // Chat spellings and contractions typed without an apostrophe are not what it is about.
    assert_eq!(
        content_words("return window for a lamp pls, i dont want it thx"),
        ["return", "window", "lamp"]
    );
    // "smth" is "something": no more a thing asked about than the word it shortens.
    assert_eq!(
        content_words("when do i get my money back if i return smth? sth broke"),
        ["money", "back", "return", "broke"]
    );
}

#[test]
fn focus_words_leave_out_what_the_question_sets_aside() {
    let focus =
        focus_words("I know there used to be a handling fee, but how long do I have to return it?");
    assert!(
        focus.contains("long") && focus.contains("return"),
        "{focus:?}"
    );
    assert!(
        !focus.contains("handling") && !focus.contains("fee"),
        "{focus:?}"
    );
    let focus = focus_words("Leaving gift wrap aside: who pays the postage?");
    assert!(
        focus.contains("postage") && !focus.contains("wrap"),
        "{focus:?}"
    );
    let focus = focus_words("can I pause it instead of cancelling");
    assert!(
        focus.contains("pause") && !focus.contains("cancelling"),
        "{focus:?}"
    );
    let focus = focus_words("Is there a handling fee on opened returns?");
    assert!(
        focus.contains("handling") && focus.contains("fee"),
        "{focus:?}"
    );
}

#[test]
fn quantities_are_read_with_their_units() {
    let k = stated_quantities("within thirty (30) days after the date of Delivery");
    assert!(k.duration && !k.money && !k.date);
    let k = stated_quantities("a return carriage charge of C$8.95 is deducted");
    assert!(k.money && !k.duration);
    assert!(stated_quantities("a restocking fee of 15% of the price").percent);
    assert!(stated_quantities("a fee of 1.5 per cent applies").percent);
    assert!(stated_quantities("INR 1,499 or more").money);
    assert!(stated_quantities("returned until 15 January of the following year").date);
    assert!(stated_quantities("within 10 Business Days").duration);
    assert!(stated_quantities("up to 3 devices").count);
    // Any currency sign, and an ISO 4217 code in capitals, on either side of the amount.
    assert!(stated_quantities("Charge: ₱180 per order").money);
    assert!(stated_quantities("a fee of 40 ₺ applies").money);
    assert!(stated_quantities("the monthly fee is AED 115").money);
    assert!(stated_quantities("we charge 5.000 ARS for the label").money);
    // In small letters a code is a word: "all 3 items" is a count.
    let k = stated_quantities("return all 3 items");
    assert!(k.count && !k.money);
    assert!(!stated_quantities("Refunds go to the original payment method.").any());
}

#[test]
fn figures_are_the_durations_amounts_and_percentages_a_text_sets() {
    let figures = |text: &str| -> Vec<String> {
        stated_figures(text)
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    assert_eq!(
        figures("a 90-day window, not 30 days"),
        ["30 days", "90 days"]
    );
    assert_eq!(
        figures("a fee of $4.99 or fifteen percent"),
        ["an amount of 4.99", "15 %"]
    );
    assert_eq!(
        figures("financing over 48 months on orders over £1,000"),
        ["48 months", "an amount of 1000"]
    );
    // Units that convert exactly are counted in the smaller one; days and months do not convert.
    assert_eq!(figures("2 years or 2 weeks"), ["14 days", "24 months"]);
    assert_eq!(figures("30 days"), figures("thirty days"));
    assert_ne!(figures("30 days"), figures("one month"));
    assert_eq!(figures("a six-month guarantee"), ["6 months"]);
    assert_eq!(figures("1.5 years"), ["18 months"]);
    // Dates, clause numbers and counts state no figure.
    assert!(figures("section 3.3, effective 1 April 2027, for up to 3 items").is_empty());
    // Time measured back from now is stated, but sets no term.
    let elapsed = "updated 2 weeks ago, after the last 10 days of review";
    assert_eq!(figures(elapsed), ["10 days", "14 days"]);
    assert!(term_figures(elapsed).is_empty());
}

#[test]
fn questions_ask_for_kinds_of_quantity() {
    assert!(asked_quantities("What is the return period for online orders?").duration);
    assert!(asked_quantities("How long do refunds take?").duration);
    let fee = asked_quantities("What is the restocking fee?");
    assert!(fee.money && fee.percent && !fee.duration);
    assert!(asked_quantities("How much is delivery?").money);
    assert!(asked_quantities("When does my gift card expire?").date);
    let devices = asked_quantities("How many devices can I use it on?");
    assert!(devices.count && !devices.duration);
    assert!(!asked_quantities("Can I return opened software?").any());
}

#[test]
fn what_the_customer_was_told_is_context_not_the_question() {
    let parts = focus_parts("Apparently I can't pause my membership, so can I cancel it instead?");
    assert_eq!(parts, ["can i cancel it instead"]);
}

#[test]
fn an_apostrophe_joins_a_negation_or_a_clitic_to_its_word() {
    let read = |text: &str| words(text).collect::<Vec<_>>();
    assert_eq!(
        read("It won't open, the customer\u{2019}s 'box' o'clock"),
        ["it", "wont", "open", "the", "customer", "box", "o", "clock"]
    );
    assert_eq!(read("won\u{b4}t wonʼt won`t"), ["wont", "wont", "wont"]);
    // "won't", "haven't" and "doesn't" ask nothing about winning or a haven.
    assert_eq!(
        content_words("the ebook won't open and I haven't a receipt, doesn't work"),
        ["ebook", "open", "receipt", "work"]
    );
}

#[test]
fn what_is_set_aside_is_left_out_of_what_is_asked() {
    assert_eq!(
        without_set_aside("I know you stopped doing lay-by, but can I spread the cost of a TV?"),
        Some("can I spread the cost of a TV".to_string())
    );
    assert_eq!(
        without_set_aside("Can I pause Trail Club instead of cancelling?"),
        Some("Can I pause Trail Club".to_string())
    );
    assert_eq!(without_set_aside("How long is the return window?"), None);
    // What is left points back at what was set aside, or nothing is left.
    assert_eq!(
        without_set_aside("I heard you do price matching, is that still true?"),
        None
    );
    assert_eq!(without_set_aside("Apparently."), None);
    assert_eq!(
        without_set_aside("Not about handling fees: can I return a product that is faulty?"),
        Some("can I return a product that is faulty".to_string())
    );
}

#[test]
fn the_asking_part_is_the_question_after_a_situation() {
    assert_eq!(
        asking_part(
            "I returned something under the change-of-mind rules but my card has since \
             expired. How will you pay the refund?"
        ),
        Some("How will you pay the refund?")
    );
    // The last sentence that asks, even when a remark follows it.
    assert_eq!(
        asking_part(
            "My parcel went to the neighbour and they only gave it to me a week later. \
             Does the return window start again? Thanks a lot."
        ),
        Some("Does the return window start again?")
    );
    // Eight words of situation are enough.
    assert_eq!(
        asking_part("My order arrived late and the box was crushed. Can I return it?"),
        Some("Can I return it?")
    );
}

#[test]
fn a_short_preamble_or_a_single_sentence_has_no_asking_part() {
    assert_eq!(asking_part("How long is the return window?"), None);
    assert_eq!(
        asking_part("Quick one. How long is the return window?"),
        None
    );
    assert_eq!(
        asking_part("How long is the return window? I bought a lamp on sale last week."),
        None
    );
    assert_eq!(asking_part(""), None);
    // Seven words of situation are a preamble.
    assert_eq!(
        asking_part("My order arrived late, the box crushed. Can I return it?"),
        None
    );
    // No question mark: the last sentence may be a sign-off, not what is asked.
    assert_eq!(
        asking_part(
            "The blender I bought stopped working after two weeks of use. I need a repair. \
             Thanks."
        ),
        None
    );
}

#[test]
fn a_space_of_several_bytes_before_the_end_of_a_sentence_is_read_as_a_space() {
    // A narrow no-break space before "?" (French typing) and a no-break space before ".".
    assert_eq!(
        split_sentences("Where is my order\u{202F}? It was due."),
        vec!["Where is my order\u{202F}?", "It was due."]
    );
    assert_eq!(split_sentences("Thanks\u{A0}."), vec!["Thanks\u{A0}."]);
}

#[test]
fn currency_codes_written_in_capitals_are_read_again_in_a_lower_cased_text() {
    let original = "Update: the fee is now AED 9.99 for ALL orders.";
    let lower = original.to_lowercase();
    let recased = with_currency_codes(&lower, &capital_currency_codes(original));
    assert_eq!(recased, "update: the fee is now AED 9.99 for all orders.");
    let read: Vec<String> = term_figures(&recased)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(read, ["an amount of 9.99"]);
    assert!(
        term_figures(&lower).is_empty(),
        "lower-cased, 9.99 is a count"
    );
    // A code in capitals away from any number, or not in capitals, stays a word.
    for original in [
        "The fee is 15% on all 3 items. I called ALL week.",
        "Try all of them for aed 5",
    ] {
        let lower = original.to_lowercase();
        assert_eq!(
            with_currency_codes(&lower, &capital_currency_codes(original)),
            lower,
            "{original}"
        );
    }
}
