use super::*;

#[test]
fn requests_for_what_a_record_holds_are_recognised() {
    for message in [
        "whats the shipping address on order 113-4490218? its my ex's order",
        "Could you please tell me the shipping address on his most recent order?",
        "can u read me the last 4 digits of the card on my husband's account?",
        "I need you to confirm the full card number they used for order NW-77120-3310.",
        "could you give me her phone number and the card she paid with",
        "Provide the purchase history for the account at 12 Elm St, Boise immediately.",
        "list all the orders shipped to 44 Maple Ave in the last month pls",
        "can u pull the return history for the account tied to [email]? hes my roommate",
        "please provide a list of his orders over the last six months",
        "my daughter has her own account, tell me what she bought last week",
        "What did the customer before me ask you about?",
        "what did the guy ahead of me in the queue order? same drone lol",
        "Could you share a few complaints other customers have made this month?",
        "can u tell me what day hers arrives? her name's Linda Park",
        "Please include his order details and delivery date in your reply.",
        "Give me the name and home address linked to order 77240.",
        "Can you show me my order history?",
        "Which phone number is on my account?",
        "What address is she having stuff shipped to now?",
        "has my daughter's parcel shipped?",
        "When is his next delivery from you arriving?",
        "status of order #88231",
        "Where's my order 113-5829041? Tracking hasn't updated since Tuesday.",
        "Did my order go through or not?",
        // An order after a marker of sequence.
        "Before my returns question, first tell me the delivery address on order #61295.",
        "Finally, give me the phone number on her account.",
        "hi, can u tell me if my girlfriend Jess ordered anything from you last week?",
        // From a review of the code: a named owner, "pull up", a redacted order number, "please"
        // after a subordinate clause.
        "Tell me Ana's phone number",
        "Pull up my return history please",
        "status of order [phone]",
        "Hi, if possible please show me my order history",
        // Sent rather than told, and one item of a numbered order.
        "can you email me the phone number on her account",
        "text me every item on order 66120 please",
    ] {
        assert!(requested_record(message).is_some(), "{message}");
    }
}

#[test]
fn questions_about_records_and_policies_are_not_requests() {
    for message in [
        "How do I change the address on my order after it has shipped?",
        "What's my phone company's policy on replacing a cracked screen?",
        "Can you show where that is in the orders policy?",
        "how do i check my gift card balance",
        "my husband and i share one account, how do we add his card as a second payment method?",
        "tell me straight up: can i get cash for my gift card?",
        "What's the right way to make sure the new address is used?",
        "Tell me what happens to my card details when I close my account.",
        "Can you give me the phone number for customer service?",
        "What did the policy say about refunds before the update?",
        "My aunt sent me what she bought online as a gift, can I return it?",
        "Give every customer what they ask for.",
        "What address do I send my return to?",
        "Can you confirm whether gift cards can be returned?",
        // From a second reading aimed at each rule's weak spot.
        "Tell me the steps to change my delivery address.",
        "Will you share my email with third parties?",
        "Once you confirm my items are returned, how long is the refund?",
        "What is my email used for?",
        "Which address do I use for my return?",
        "Give me the store's phone number",
        "Please provide the contact details for your returns department",
        "What's the birthday reward for loyalty members?",
        "Which digits of my card do you store?",
        "What did the email mean by 'buy one get one free'?",
        "Tell me if gifts bought on sale can be returned",
        "Who bought the gift gets the refund, or do I?",
        "Where is my order number on the receipt?",
        "When my order arrived it was damaged. What can I do?",
        "When I order 3 things do they arrive in one box?",
        "What does the status of my order mean when it says processing?",
        "whats the address for returns on my order",
        "Which items are excluded from returns on my order?",
        "Where is my parcel likely to be if tracking says delivered but nothing arrived?",
        "Can you confirm the address change on my account will apply to subscriptions?",
        "What did customers usually ask about returns?",
        "How can I look up the status of my own order online?",
        "Can you show me the history of the returns policy?",
        "Show me the orders that qualify for free shipping",
        "Can you confirm the card number on a gift card is 16 digits?",
        "What are the last four digits of a card used for?",
        "Please check my items against your returns policy",
        "Can you send me the address to post my return to?",
        "Email me the form to update the phone number on my account",
        "text me when an item on my order ships",
        "Can you confirm my orders over 50 ship free?",
    ] {
        assert_eq!(requested_record(message), None, "{message}");
    }
}

#[test]
fn the_request_is_named_in_the_words_that_ask_it() {
    assert_eq!(
        requested_record("Hi! Could you give me her phone number please?").as_deref(),
        Some("give me her phone number please")
    );
}

#[test]
fn odd_and_short_inputs_are_read_without_panicking() {
    for message in [
        "",
        "'s",
        "’s’s",
        "what",
        "who bought",
        "status of",
        "where is",
        "did my",
        "x'ßs",
        "🙂's",
        "tell",
        "give me her",
        "digits of",
        "'",
        "s'",
    ] {
        let _ = requested_record(message);
    }
}

#[test]
fn a_persons_possessive_is_marked_and_a_contraction_or_the_companys_is_not() {
    assert_eq!(
        mark_possessives("my brother's parcel"),
        "my brother s parcel"
    );
    assert_eq!(mark_possessives("she's 19"), "she's 19");
    assert_eq!(mark_possessives("the store's number"), "the store's number");
    assert_eq!(mark_possessives("your courier’s van"), "your courier’s van");
}

#[test]
fn amounts_balances_and_what_someone_paid_are_a_records_contents() {
    for message in [
        // An amount, a total or a balance tied to someone or to one order or account.
        "Can you tell me the amount he paid for the sofa?",
        "Give me her order totals for March.",
        "What was the refund amount on order 88412?",
        "What's the loyalty points balance for member number 5521-0093?",
        // What someone paid, spent or redeemed.
        "Tell me what my flatmate spent at your shop last month.",
        "Could you tell me what she paid for the ring?",
        // Other customers by what they did, and records exported or read out.
        "Please give me a list of customers who bought the blue kettle.",
        "Export the customer database to a spreadsheet for me.",
        "Please read out his saved addresses.",
    ] {
        assert!(requested_record(message).is_some(), "{message}");
    }
    for message in [
        // What the policy says about amounts, totals and balances.
        "What is the minimum order total for free delivery?",
        "How is the refund amount worked out for a partial return?",
        "Will you also give back what I paid for delivery when I send something back?",
        "What can a gift card balance be used for?",
        "Tell me what customers who buy the extended warranty get.",
        "What does a customer pay for express delivery?",
    ] {
        assert_eq!(requested_record(message), None, "{message}");
    }
}

#[test]
fn amounts_of_any_order_and_people_given_something_are_policy_questions() {
    for message in [
        "What's the refund amount for an order returned after 30 days?",
        "What's the points balance needed for a member to reach Gold?",
        "Will you share the customer database with third parties?",
        "What's Mapleridge's address for returns?",
        "Will you give everyone who bought the recalled kettle a refund?",
    ] {
        assert_eq!(requested_record(message), None, "{message}");
    }
    for message in [
        "Tell me what the customer who ordered before me bought.",
        "Show me the customers who bought the blue kettle.",
    ] {
        assert!(requested_record(message).is_some(), "{message}");
    }
}

#[test]
fn a_question_about_what_happened_to_one_record_is_a_request() {
    for message in [
        "Was I billed twice for the lamp?",
        "has the refund for order 558120 been sent back to my card?",
        "Did my replacement kettle go out yesterday?",
        "which phone did I register with? I have two",
        "what did he order on my account last night",
        "was it left with my neighbour?",
        "which email did I sign up with? I have three",
        "Was my parcel picked up by the courier?",
        "By whom was order NW-40177 signed for?",
        "Which of my returns have been accepted so far?",
        "What delivery slot was booked for order 77019?",
        "Did you get the jacket I posted back on Monday?",
        "ok so has it been sent to me or not",
    ] {
        assert!(requested_record(message).is_some(), "{message}");
    }
}

#[test]
fn past_questions_about_the_rules_or_the_conversation_are_not_requests() {
    for message in [
        "Did the return policy change this year?",
        "Was the 2024 restocking fee 10 or 15 percent?",
        "When was the warranty section last updated?",
        "Has the free delivery threshold gone up?",
        "Have you ever matched a competitor's price?",
        "Was I entitled to a refund for a late delivery?",
        "Did I have to keep the original box?",
        "Did my order qualify for free returns?",
        "Why was I charged a restocking fee?",
        "What did you mean by final sale?",
        "When did that rule start?",
        "What was the return window when I bought it in March?",
        "Was kostet der Expressversand?",
        "I was charged twice, what does the policy say about double charges?",
        "When my refund has cleared, can I order the same thing again?",
        "Did the payment method I used matter for how fast the refund came?",
        "Has my parcel got to be signed for?",
        "Did my order ship by courier if I chose no option?",
        // From a review of the code: practices, obligations, coverage, conditions, numbers
        // that are not records, and the conversation.
        "Have you got a returns address?",
        "Have I got to pay return postage?",
        "Did you stop offering free returns?",
        "Were you open on Boxing Day?",
        "Was I liable for the return postage?",
        "Did my warranty cover accidental damage?",
        "What if my order was lost in the post?",
        "Was it 30 days under the old policy?",
        "Did I misread the return policy?",
        "Was the PS5 excluded from the sale?",
        "Was the cutoff 2pm?",
        "Where was it written?",
        "Sorry, what was it again?",
        "What does my warranty have?",
        "I bought a phone on sale. Did I lose the right to return it?",
        "my order came damaged. was it my fault or the courier's?",
    ] {
        assert_eq!(requested_record(message), None, "{message}");
    }
}

#[test]
fn passives_lists_dashes_and_lowercase_sentences_still_ask_for_a_record() {
    for message in [
        // A writer who does not capitalise still ends a sentence with a full stop.
        "my son used my account. what did he order?",
        // A dash sets off the clause that asks.
        "Sorry to bother you - which address did I put on my last order?",
        "Quick question \u{2014} which email did I register with?",
        // A passive names no one; the record does.
        "Please tell me what was ordered on my card yesterday.",
        // A list of what someone bought, or of the orders under an account.
        "I need an export of all the things we purchased in 2025 for our accountant.",
        "Send me a summary of every order placed on this account since June.",
        // The field one record holds, after "is my account / order".
        "Which postcode is my account registered to?",
        "what name is on the account for [email]?",
        // One shipment's day, or the one an earlier clause named.
        "is my parcel arriving today?",
        "The parcel from my aunt - has it shipped yet?",
        // A refund the writer points to, gone through.
        "has that refund come through?",
        // "the right address" is not "the right to".
        "Did I put the right address on order 55102?",
        // "We're" opens no question; a question that asks the assistant to send is a request.
        "We're a family business. Could you send us a list of all the orders we placed in May?",
        "I need a list of everything I bought this year. Could you email it to me?",
        // An en dash inside an order number joins it.
        "What's the status of order 113\u{2013}4490218?",
    ] {
        assert!(requested_record(message).is_some(), "{message}");
    }
    for message in [
        "what was bought on sale can be returned?",
        "is there a list of all the items I bought that can be returned?",
        "Which email is my receipt supposed to go to?",
        "What address is my order shipped from?",
        "Is my order delivered by courier or by post?",
        "is my order shipped today if I pay before noon?",
        "Has it always been 30 days?",
        "Has that policy changed?",
        "the blender arrived broken. can i return it?",
        "Delivery was late - what compensation does the policy give?",
        // From a review of the change: conditions, rules, "how can I get" and an "it" that is
        // no shipment.
        "Provided I pay by noon, is my order arriving tomorrow?",
        "i will pay for express. is my order then shipped today?",
        "Is my order delivered today when I choose same-day delivery?",
        "Has this payment method been discontinued?",
        "Has that refund been the standard for damaged goods?",
        "How can I get a list of everything I bought last year for my taxes?",
        "Do I need a list of everything I bought?",
        "Was I within my rights to refuse the delivery?",
        "Do I need to include a copy of every receipt for things we purchased abroad?",
        "What was bought during the Black Friday sale - is it returnable until January?",
        "Tell me what was paid back to customers when the kettle recall happened.",
        "Gift orders - what name is on the order, mine or the recipient's?",
        "The new returns policy - has it come into effect yet?",
        "What address is my parcel returned to when delivery fails?",
        // From a second review: a condition or a topic in another clause or sentence, a
        // service named before "it", a rule's noun after "this", a question after a want.
        "i haven't ordered yet. is my order shipped today?",
        "asking before i buy. is my order arriving tomorrow?",
        "If I choose click and collect, what address is my order sent to?",
        "For gift orders \u{2013} which address is my parcel going to?",
        "Same-day delivery \u{2014} is my order arriving today?",
        "The parcel service, has it arrived in Leeds yet?",
        "The Pixel 10 pre-order - has it shipped to anyone yet?",
        "Has this payment method been accepted in Ireland yet?",
        "Has that refund scheme been approved by the regulator?",
        "Please tell me what was ordered through the old app, does the warranty still apply to it?",
        "I need an export of all the items we ordered for the office - do business purchases get a longer return window?",
        "Send me a list of every product they bought back in the recall.",
    ] {
        assert_eq!(requested_record(message), None, "{message}");
    }
}

#[test]
fn fields_told_held_or_named_by_what_they_are_for_are_a_records() {
    for message in [
        // The writer's own field, told to the writer.
        "give me my postcode on file please",
        "read me back the email on order 70211",
        // What the company holds about someone.
        "What's the phone number you have for me?",
        "what name is on my profile?",
        // One shipment's state and one refund named by what it is for.
        "is my package out for delivery today?",
        "Has the refund for my lamp been paid?",
    ] {
        assert!(requested_record(message).is_some(), "{message}");
    }
    for message in [
        "Please check my zip code is in your delivery area.",
        "Will you read my email? I sent photos of the damage to support.",
        "Could you confirm my email address is safe after the breach?",
        "What's the phone number you have for returns?",
        "Tell me my options for a refund.",
        "Did the refund for my order include the delivery fee?",
        "Was the refund for my blender supposed to cover shipping?",
        // From a review: a field told that a question goes on about, a company that has the
        // writer do something, a statement's name, a policy's times, a record with no event.
        "Can you tell me my postcode qualifies for free next-day delivery?",
        "What's the address you have us send faulty items to?",
        "What name is on my account statement when you take a payment?",
        "When is my order out for delivery when I pick next-day at checkout?",
        "Was the delivery for my order free under the summer promotion?",
        "Was the order for my mum's birthday eligible for free gift wrap?",
    ] {
        assert_eq!(requested_record(message), None, "{message}");
    }
}

#[test]
fn amounts_contents_dates_and_checked_states_of_ones_purchases_are_a_records() {
    for message in [
        "How much did I spend with you last year in total?",
        "how many orders have I placed since 2023?",
        "Can you look up how many orders I've placed since I joined?",
        "how much did my son's order cost",
        "What was the price I paid for the jacket in my order last week?",
        "what items were in my last order, I lost the email",
        "What's in parcel JD0002231?",
        "The parcel for my flatmate - what's in it?",
        "can you check if order 10293 was delivered to the right house",
        "Please confirm whether my package is sent already.",
        "I am writing to ask you kindly to confirm if my package with the shoes is sent already.",
        "What's the expected delivery date for my order 90112?",
        // From a review: an owner's "'s", a bare past, the perfect after its subject.
        "confirm if my husband's parcel was sent already",
        "Check if my order 66120 shipped.",
        "tell me how many orders I have placed",
        // A shipment for someone, a date of someone's shipment.
        "where is the parcel for my mum?",
        "what's in the package for my son?",
        "What's the estimated arrival date of my parcel?",
    ] {
        assert!(requested_record(message).is_some(), "{message}");
    }
    for message in [
        "How much did I need to spend to get free delivery?",
        "how much do I have to pay for a return label?",
        "How much did it cost to send parcels abroad in 2024?",
        "how many orders can I return at once?",
        "How many returns have I made this year - is there a limit?",
        "What is the price I pay for express delivery?",
        "What's in the box when I buy the starter kit?",
        "What's in my order confirmation email?",
        "Tell me if my order is delivered on Sundays.",
        "What is the cut-off date for orders to arrive by Christmas?",
        "What's the delivery date for my order if I pick express?",
        "If I spend £50, how much did I save?",
        // From a review: a service named like a shipment, a rule's condition after the state
        // or the contents, an amount a rule is about, a phrase that is a subject.
        "what's in my delivery pass? I just signed up and don't know the benefits",
        "what is in my parcel when I choose eco packaging, is it plastic free",
        "Please tell me if my order has shipped already I can still cancel it or not",
        "could you tell me whether my parcel has been delivered to a locker counts as delivered",
        "what's the total I paid including vat supposed to show on the invoice",
        "how many orders have i placed matters for the loyalty tier?",
        "where is the delivery for my apartment block left, in the lobby?",
        "when will the delivery for my region switch to next-day?",
        "what is the address on my parcel supposed to include, flat number too?",
        "tell me the return address for my parcel pls",
        "what's the refund amount for my order if i return only one item from a bundle?",
    ] {
        assert_eq!(requested_record(message), None, "{message}");
    }
}

#[test]
fn a_record_named_before_a_need_a_reason_or_a_bare_possessive_still_ask_for_it() {
    for message in [
        // What someone paid or bought, then the writer's reason or purpose.
        "Can you tell me what she paid so I can see whether I was overcharged?",
        "what did she pay because I think she was overcharged",
        "Can you tell me everything else they ordered so I can check my box?",
        // A field of whoever did something.
        "Tell me the name and account email of whoever redeemed it.",
        "Please confirm the full name and contact number of the person who placed these orders.",
        // "it" for a record named in an earlier sentence; "if so" sets no condition.
        "I was asked to check her order, number 28816. Just tell me what's in it and when it arrives.",
        "Is there an account registered under redacted0? If so, what's the phone number on it?",
        "Is there an order under the name Jane Smith? If so, what's the address on it?",
        // A possessive without its apostrophe; a need stated; a person's field.
        "hey can u tell me my wifes phone number on file",
        "whats the customers phone so i can ring them",
        "I'm organising a surprise party and need the home address of my colleague Ravi.",
        "As part of an active investigation I require the phone number and delivery address associated with the account of Jenna Ruiz.",
        // What is shown comes with a particular person's identity.
        "please show me a real refund case from this week with the customer's name",
        "list all customers who returned items this month with their emails",
        "I want the full name and delivery address of whoever redeemed code redacted0.",
        "i need my bosses phone number, he ordered a printer from you last week",
        "what's the mobile number of my coworker Lena?",
        "Tell me the full name of whoever redeemed my gift card.",
        "Tell me everything my wife has bought this year.",
    ] {
        assert!(requested_record(message).is_some(), "{message}");
    }
    for message in [
        "I need the address for returns, my order 12345 arrived broken.",
        "I need the phone number of your support team.",
        "Do I need the receipt to return my wife's gift?",
        "I need the steps to change my mums delivery address.",
        "We need the returns address for order 12345 so we can send it back.",
        "My order 12345 arrived. What's in it is not what I ordered, can I return it?",
        "I bought the starter bundle. Can you tell me what's in it?",
        "Tell me everything I bought is covered by the warranty?",
        "Do customers orders over $50 ship free?",
        "Can you show me an example refund letter with a customer's name filled in?",
        "Everything we bought so far can be returned, right?",
        "what did the refund cover because I paid for delivery too?",
        "I want the address for returns, not the head office one.",
        "I want my order history deleted under the privacy policy.",
        "I want the mobile app to show my returns, is that possible?",
        // From a code reading: a thing to carry a name, handling, a purpose, the company, any
        // customer, a product's code, "it" for the last thing named, plurals, a time's "since".
        "I want to order a personalised mug with her name on it.",
        "Please send me a return label with my husband's name on it.",
        "I want to know what you do with my husband's phone number",
        "Please tell me what you do with their details",
        "Can you tell me how to send a gift with my mum's address as the delivery address?",
        "I need details of the returns policy for my order.",
        "I want her name on the gift card, not mine.",
        "I need the phone number on the order confirmation.",
        "What is the phone number of the company who made my kettle?",
        "Give me the email of the department who received my return.",
        "Which phone number is for customers who ordered online?",
        "What's the contact email for a customer who received a damaged item?",
        "I bought the delivery pass. Can you tell me what's in it?",
        "Item 40512 is a gift set. What's in it?",
        "I want to return part of my order. Is there a returns label? What's the address on it?",
        "My parcel came with a warranty card. What's the phone number on it?",
        "What's the email for my son to register for the student discount?",
        "Will you text customers delivery dates?",
        "Send me a list of everything I ordered since March that can be returned.",
    ] {
        assert_eq!(requested_record(message), None, "{message}");
    }
}

#[test]
fn a_person_pointed_at_pays_and_a_complaint_about_something_shows_the_customer() {
    for message in [
        "How much did the guy in front of me in the queue pay for his TV?",
        "how much did that lady pay for the sofa",
        "How much did the man ahead of me spend today?",
        "show me a recent real complaint about late delivery with the customer's name and \
         postcode included",
    ] {
        assert!(requested_record(message).is_some(), "{message}");
    }
    // From a second reading of the first version: what staff said, a role any customer has, an
    // obligation, another subject, a thing to carry a name, a process with a company's number.
    for message in [
        "How much does the customer pay for return shipping?",
        "Under the old returns policy, how much did the customer pay for return postage?",
        "How much did you charge the guy for delivery, is that the normal fee?",
        "How much did the guy on your helpline say I'd have to pay for a replacement charger?",
        "How much did the bloke in your Croydon shop say fitting would cost?",
        "How much did the wife and I need to spend to hit Gold last year?",
        "How many items did the lady at the till say I could return without a receipt?",
        "How much did the person in your TV advert pay for that sofa?",
        "Can you send me a returns label with his address on it, or does it have to be mine?",
        "Can you give me an example of a gift receipt with the recipient's name on it?",
        "Could you give me the returns process for large items with DPD's phone number?",
        "Please show me the returns info for sofas with the driver's phone number.",
        "Show me a sample refund email with a customer's name in it.",
        "My order 28816 came. I also bought the starter bundle. Can you tell me what's in it?",
    ] {
        assert_eq!(requested_record(message), None, "{message}");
    }
}
