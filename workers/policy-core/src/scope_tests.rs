use super::*;

const POLICY: &str = "Orders placed with Harbor Lane ship from our warehouse. Harbor Lane Club \
    members get free returns within 30 days. Payment by card, PayPal or bank transfer. \
    Customers in Norway pay import duty.";

fn scope(regions: &[&str]) -> RegionScope {
    RegionScope::new([POLICY, "Returns and refunds"], regions.iter().copied())
}

fn foreign(question: &str) -> Vec<Foreign> {
    scope(&["us", "eu"]).foreign(question)
}

fn org(name: &str) -> Vec<Foreign> {
    vec![Foreign::Organisation(name.into())]
}

fn land(name: &str) -> Vec<Foreign> {
    vec![Foreign::Jurisdiction(name.into())]
}

#[test]
fn another_business_named_as_seller_or_policy_owner() {
    assert_eq!(
        foreign("How long is Fernhill's return period?"),
        org("Fernhill")
    );
    assert_eq!(
        foreign("I got a kettle at Brightmart, refund please"),
        org("Brightmart")
    );
    assert_eq!(
        foreign("ordered shoes from Velo Sport last week"),
        org("Velo Sport")
    );
    assert_eq!(
        foreign("Does Quickbuy Direct take back opened games?"),
        org("Quickbuy Direct")
    );
    assert_eq!(
        foreign("can i cancel my Stellar membership"),
        org("Stellar")
    );
    assert_eq!(foreign("What does qBox charge for shipping?"), org("qBox"));
    assert_eq!(foreign("BRIXO's warranty, how long?"), org("BRIXO"));
    // A business of its own, even with a branch noun or a contraction nearby.
    assert_eq!(
        foreign("I bought it from the Kestrel Outdoors store, will you refund it?"),
        org("Kestrel Outdoors")
    );
    assert_eq!(foreign("Fernhill's store says it's fine"), org("Fernhill"));
    assert_eq!(
        foreign("What's the return policy at Gadget Barn for opened headphones?"),
        org("Gadget Barn")
    );
    assert_eq!(
        foreign("How do I cancel my Skyline broadband contract?"),
        org("Skyline")
    );
    assert_eq!(
        foreign("What is the cancellation policy for a Roadway car rental?"),
        org("Roadway")
    );
}

#[test]
fn our_own_names_and_ordinary_capitals_are_in_scope() {
    for question in [
        "Does Harbor Lane Club include free returns?",
        "I paid with PayPal, where does my refund go?",
        "Refund to my Visa card please",
        "My TV arrived broken. What now?",
        "I bought it on Monday in the Spring Sale",
        "How long do I have to return it? I'm not sure.",
        "Harbor Lane's return window?",
        "Is the return window 30 days?",
        "There's no price match, fine. How long until my refund is processed?",
        "It's broken. Can I return it?",
        "Does Wellington Anniversary Day count as a business day?",
        "I paid cash at the Newmarket store. Can the refund be in cash?",
        "Can I return it to your Sylvia Park shop?",
    ] {
        assert_eq!(foreign(question), vec![], "{question}");
    }
}

#[test]
fn jurisdictions_no_region_serves() {
    assert_eq!(
        foreign("I live in Canada, can I return this?"),
        land("Canada")
    );
    assert_eq!(
        foreign("What do Swiss consumer laws say?"),
        land("Switzerland")
    );
    assert_eq!(
        foreign("is it different under UK rules"),
        land("United Kingdom")
    );
    assert_eq!(foreign("shipping to south korea?"), land("South Korea"));
    // Served: the US directly, France through the EU region.
    assert_eq!(foreign("I moved from the US to France"), vec![]);
    // Named by the policy itself.
    assert_eq!(foreign("Do customers in Norway pay duty?"), vec![]);
    // A language, a common noun, the pronoun: not jurisdictions.
    assert_eq!(foreign("Is the manual available in Spanish?"), vec![]);
    assert_eq!(foreign("can you send us a turkey roaster"), vec![]);
}

#[test]
fn served_regions_come_from_the_manifest() {
    let canada = scope(&["ca", "au"]);
    assert_eq!(
        canada.foreign("What are the US rules for refunds?"),
        land("United States")
    );
    assert_eq!(canada.foreign("I live in Canada"), vec![]);
    assert_eq!(canada.foreign("German law says 14 days"), land("Germany"));
}

#[test]
fn web_addresses_countries_in_names_and_club_nouns_name_other_businesses() {
    let canada = scope(&["ca", "au", "in"]);
    assert_eq!(
        canada.foreign("Does Amazon.ca refund the shipping cost when I return something?"),
        org("Amazon.ca")
    );
    // Any country's code ends a web address; two words a missing space joined do not make one.
    assert_eq!(
        canada.foreign("Can you cancel Amazon.ae deliveries whenever you like?"),
        org("Amazon.ae")
    );
    assert_eq!(
        canada.foreign("ok thanks.so how long is the return window?"),
        vec![]
    );
    assert_eq!(
        canada.foreign("How long is the return window at Decathlon India?"),
        org("Decathlon")
    );
    assert_eq!(
        canada.foreign("How does the REI Co-op member dividend work?"),
        org("REI Co-op")
    );
    // A version number or an amount with a dot is no address.
    assert_eq!(
        canada.foreign("Is v2.1 of the policy in force? I paid 49.99."),
        vec![]
    );
}

#[test]
fn states_and_provinces_are_jurisdictions_of_their_country() {
    let canada = scope(&["ca", "au", "in"]);
    assert_eq!(
        canada.foreign("What are the return rules for customers in Texas?"),
        land("Texas, United States")
    );
    // Inside a served country: in scope.
    assert_eq!(
        canada.foreign("Do customers in Ontario pay the same?"),
        vec![]
    );
    assert_eq!(canada.foreign("shipping to new south wales?"), vec![]);
    // A name that is also a person's matches only capitalised, and ours is served anyway.
    assert_eq!(canada.foreign("can victoria from support call me"), vec![]);
}

#[test]
fn a_thing_a_rule_would_apply_to_that_the_policy_never_mentions_is_found() {
    let known = [
        "warranty", "jackets", "boots", "tents", "refund", "policy", "items", "sale",
    ];
    let unknown = |w: &str| !known.contains(&w);
    for (question, things) in [
        (
            "What warranty do you give on sofas and dining tables?",
            vec!["sofas", "tables"],
        ),
        (
            "What's the refund policy for flights booked through your app?",
            vec!["flights"],
        ),
        ("Can I return prescription sunglasses?", vec!["sunglasses"]),
        (
            "What is the warranty on the e-bikes you sell?",
            vec!["bikes"],
        ),
    ] {
        assert_eq!(uncovered_subjects(question, &unknown), things, "{question}");
    }
    for question in [
        "What is the warranty on jackets?",
        "Can I return my boots and tents?",
        "What's the refund policy for sale items?",
        "Do I pay extra if I use my Amex?",
        "How long is the warranty?",
        // An amount or a part of a thing: neither the container nor the thing is judged.
        "can i return a tub of tent pegs ive opened",
        "What is the warranty on the zip of my jackets?",
        "Can I return a crate of apples?",
    ] {
        assert_eq!(
            uncovered_subjects(question, &unknown),
            Vec::<String>::new(),
            "{question}"
        );
    }
}

#[test]
fn the_initialism_of_a_term_the_policy_defines_is_ours() {
    let scope = RegionScope::new(
        ["Orders may be paid by Cash on Delivery up to INR 50,000."],
        ["in"],
    );
    assert_eq!(scope.foreign("is COD possible for a 60k order"), vec![]);
    assert_eq!(scope.foreign("Does IKEA deliver to my town?"), org("IKEA"));
}

#[test]
fn a_programme_of_another_region_is_not_another_business() {
    let india = RegionScope::new(["Returns within 15 days."], ["in", "ca"])
        .knowing_elsewhere(["Trade in your gear through the Second Ascent programme."]);
    assert_eq!(
        india.foreign("Can I trade in my boots through the Second Ascent programme?"),
        vec![]
    );
}

#[test]
fn a_phrase_around_an_unknown_word_is_its_run_of_content_words() {
    let unknown = |w: &str| ["flights", "sick", "gym", "togs"].contains(&w);
    assert_eq!(
        phrases_around(
            "I booked return flights to Rarotonga through your site. Refund?",
            &unknown
        ),
        vec!["booked return flights"]
    );
    assert_eq!(
        phrases_around("How many days of sick leave do I get?", &unknown),
        vec!["sick leave"]
    );
    // At most four words, keeping the unknown one; a number or punctuation ends a run.
    assert_eq!(
        phrases_around(
            "Signed up for a 12 month gym membership contract plan, hate it",
            &unknown
        ),
        vec!["gym membership contract plan"]
    );
    assert_eq!(
        phrases_around("Can I take back a pair of togs that don't fit?", &unknown),
        vec!["togs"]
    );
    assert!(phrases_around("How long is the warranty?", &unknown).is_empty());
    // Names are judged as names; the first word of a sentence is not one.
    let unknown = |w: &str| ["chase", "ing", "groceries"].contains(&w);
    assert!(phrases_around("Can I pay with my Chase Visa or ING account?", &unknown).is_empty());
    assert_eq!(
        phrases_around("Groceries: can I return them?", &unknown),
        vec!["groceries"]
    );
}

#[test]
fn a_place_the_policy_names_only_inside_a_longer_name_is_not_served() {
    let mexico = RegionScope::new(
        ["Deliveries to Baja California take five Business Days."],
        ["mx"],
    );
    assert_eq!(
        mexico.foreign("I live in San Diego, California. Which return window applies?"),
        vec![Foreign::Jurisdiction("California, United States".into())]
    );
    assert_eq!(mexico.foreign("Do you deliver to Baja California?"), vec![]);
    assert_eq!(
        mexico.foreign("I'm in Guatemala City, what return policy applies to me?"),
        vec![Foreign::Jurisdiction("Guatemala".into())]
    );
}

#[test]
fn where_goods_were_made_is_not_whose_rules_apply() {
    let us = RegionScope::new(["Returns within 30 days."], ["us"]);
    assert_eq!(
        us.foreign("Can I return a jacket that was made in Peru?"),
        vec![]
    );
    assert_eq!(
        us.foreign("The blender was shipped from China, who pays return postage?"),
        vec![]
    );
    assert_eq!(
        us.foreign("I'm living in Peru now, can I still return it?"),
        vec![Foreign::Jurisdiction("Peru".into())]
    );
}

#[test]
fn a_business_named_by_what_it_is_owns_its_own_rules() {
    assert_eq!(
        foreign("What's my phone company's policy on replacing a cracked screen?"),
        org("phone company")
    );
    assert_eq!(
        foreign("Does my credit card issuer's purchase protection cover a stolen phone?"),
        org("credit card issuer")
    );
    // The retailer is "the Company" in its own policy; a bank without a possessive is a
    // payment detail.
    assert_eq!(foreign("What is the company's return window?"), vec![]);
    assert_eq!(
        foreign("Can my bank reverse the charge if you refuse a refund?"),
        vec![]
    );
}

#[test]
fn a_uk_corpus_serves_the_uk_under_any_of_its_names() {
    let uk = RegionScope::new(["These terms apply in Great Britain."], ["uk"]);
    for question in [
        "Do UK consumer rights apply to sale items?",
        "Do you deliver anywhere in Britain?",
    ] {
        assert_eq!(uk.foreign(question), vec![], "{question}");
    }
}

#[test]
fn a_third_party_discount_or_fee_is_about_our_prices() {
    let us = RegionScope::new(["Returns within 30 days."], ["us"]);
    assert_eq!(
        us.foreign("Does my employer's discount code work on sale items?"),
        vec![]
    );
    assert_eq!(
        us.foreign("Will you refund my bank's fees for the double charge?"),
        vec![]
    );
}

#[test]
fn places_the_policy_also_names_are_left_out_of_the_question() {
    let policy =
        "Delivery to Mexico City and Monterrey takes two days. Orders placed in Toronto's \
        stores ship free. HomeCover claims carry an excess; add items to HomeCover at checkout. \
        Choose Express Delivery at checkout; express delivery costs $9.";
    let scope = RegionScope::new([policy, "What is HomeCover?"], ["mx"])
        .knowing_titles(["What is HomeCover?"]);
    assert_eq!(
        scope.without_known_places("How do I get from Monterrey to Mexico City by bus?"),
        Some((
            "How do I get from somewhere to somewhere by bus?".to_string(),
            vec!["Monterrey".into(), "Mexico City".into()]
        ))
    );
    // A programme named in a title, a term also written in lower case, a place the policy does
    // not name (wholly), a lower-case word: what the question is about, left as written.
    for question in [
        "Is my sofa included in HomeCover?",
        "Can I upgrade to Express Delivery?",
        "A restaurant in Oaxaca City?",
        "a restaurant in monterrey?",
        "Any tips, in, Monterrey",
    ] {
        assert_eq!(scope.without_known_places(question), None, "{question}");
    }
    // Nothing is asked but the place: it stays.
    assert_eq!(
        scope.without_known_places("How long to Monterrey?"),
        Some((
            "How long to somewhere?".to_string(),
            vec!["Monterrey".into()]
        ))
    );
    assert_eq!(scope.without_known_places("Monterrey?"), None);
}

#[test]
fn a_business_that_does_something_for_its_customers_is_another_business() {
    assert_eq!(
        foreign("Ace & Tate let you try frames at home. What's their deposit?"),
        org("Ace Tate")
    );
    assert_eq!(
        foreign("I heard that while Fernhill charges nothing for returns, you do?"),
        org("Fernhill")
    );
    for question in [
        "Harbor Lane lets me pay by PayPal, right?",
        "PayPal lets me split payments. Can I use it here?",
        "I was told returns are free. Monday gives me time to ship it back.",
    ] {
        assert_eq!(foreign(question), vec![], "{question}");
    }
}
